/**
 * The collection every load and profile benchmark serves: 200 projects in memory and the
 * query-parser definition of their fields (server.mjs, profile-collection.mjs).
 */
export const STATUSES = ['active', 'archived', 'paused'];

export const PROJECTS = Array.from({ length: 200 }, (_, i) => ({
  id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  name: `Project ${i}`,
  status: STATUSES[i % 3],
  priority: (i * 7) % 5,
  created_at: new Date(Date.UTC(2026, 0, 1 + (i % 300))).toISOString(),
}));

export const FIELDS = {
  id: { type: 'uuid', sort: true },
  name: { type: 'string', sort: true, search: true },
  status: { type: 'enum', values: STATUSES, filter: ['eq', 'in'] },
  priority: { type: 'int', sort: true, filter: ['eq', 'gte', 'lte'] },
  created_at: { type: 'date-time', sort: true },
};
