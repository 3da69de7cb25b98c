import { buildPage, type CollectionQuery, defineCollection } from '../src/index.js';

/** A secret shared by the test collections, so cursors made in one test verify in another. */
export const SECRET = 'test-secret-of-at-least-32-bytes!!';

/** The collection most tests run against. */
export const tasks = defineCollection({
  fields: {
    id: { type: 'int', sort: true, filter: ['eq', 'in'] },
    name: { type: 'string', sort: true, search: true, filter: ['eq', 'ne'] },
    status: { type: 'enum', values: ['active', 'paused', 'done'], filter: ['eq', 'ne', 'in'] },
    priority: { type: 'int', sort: true, filter: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte'] },
    age: { type: 'int', filter: true },
    score: { type: 'number', sort: true, filter: ['gte', 'lte'] },
    active: { type: 'boolean', sort: true, filter: true },
    date: { type: 'date', sort: true, filter: ['eq', 'gte', 'lt'] },
    created_at: { type: 'date-time', sort: true, filter: ['gte', 'lt'] },
    owner_id: { type: 'uuid', filter: true },
    tag: { type: 'string', filter: ['eq', 'in'], repeatable: true },
    description: { type: 'string', search: true },
    project_id: { type: 'int' },
    password_hash: { type: 'string', select: false },
  },
  defaultSort: '-created_at',
  cursorSecret: SECRET,
});

/**
 * The query strings of the page links a full page of `query` carries: `limit + 1` rows (so there
 * is a next page) and a large total (so `last` is at the furthest offset or page). Rows hold `id`
 * and `name`, enough for a cursor over any sort of the collections here that use it.
 */
export function linkQueries(query: CollectionQuery): string[] {
  const full = Array.from({ length: query.pagination.limit + 1 }, (_, i) => ({ id: i + 1, name: 'n' }));
  const { body } = buildPage(query, full, { baseUrl: '/b', total: 1_000_000 });
  return Object.values(body.links).map((link) => link.slice(link.indexOf('?') + 1));
}
