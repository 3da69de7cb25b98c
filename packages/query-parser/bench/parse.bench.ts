import qs from 'qs';
import { bench, describe } from 'vitest';
import { applyToArray, buildPage, defineCollection, parseQuery, toSql } from '../src/index.js';

const collection = defineCollection({
  fields: {
    id: { type: 'int', sort: true, filter: ['eq', 'in'] },
    name: { type: 'string', sort: true, search: true, filter: true },
    status: { type: 'enum', values: ['active', 'paused', 'done'], filter: ['eq', 'in'] },
    priority: { type: 'int', sort: true, filter: ['eq', 'gte', 'lte'] },
    created_at: { type: 'date-time', sort: true, filter: ['gte', 'lt'] },
    updated_at: { type: 'date-time', sort: true },
    owner_id: { type: 'uuid', filter: true },
    description: { type: 'string', search: true },
    score: { type: 'number', filter: ['gte', 'lte'] },
    archived: { type: 'boolean', filter: true },
  },
  cursorSecret: 'bench-secret-of-at-least-32-bytes!!',
});

const QUERY = 'status=active&priority[gte]=2&sort=-created_at,name&limit=20&offset=40&q=hello&fields=id,name';

describe('parse the issue query string', () => {
  bench('parseQuery (split, decode, validate, freeze)', () => {
    parseQuery(collection, QUERY);
  });
  bench('qs.parse (no validation)', () => {
    qs.parse(QUERY);
  });
  bench('new URLSearchParams (no validation)', () => {
    new URLSearchParams(QUERY);
  });
});

const rows = Array.from({ length: 1000 }, (_, i) => ({
  id: i + 1,
  name: `hello ${i}`,
  status: i % 2 ? 'active' : 'done',
  priority: i % 5,
  created_at: new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString(),
  updated_at: new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString(),
  owner_id: '0d3b2a6e-4f1c-4b8a-9e2d-7c6b5a4f3e21',
  description: 'x',
  score: i / 10,
  archived: false,
}));
const parsed = parseQuery(collection, QUERY);
const sqlOptions = { dialect: 'postgres', table: 'tasks' } as const;

describe('after parsing', () => {
  bench('toSql (postgres)', () => {
    toSql(parsed, sqlOptions);
  });
  bench('applyToArray over 1 000 rows + buildPage', () => {
    buildPage(parsed, applyToArray(parsed, rows), { baseUrl: '/v1/tasks' });
  });
});
