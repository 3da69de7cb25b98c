import { defineCollection } from '../src/index.js';

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
