/**
 * The collection queries after migration 3 (issue #36): every page the database returns is the page
 * the in-memory reference (`applyToArray`, the query-parser's own semantics) returns for the same
 * rows, on SQLite and on PostgreSQL; and the plans read the page from an index rather than sorting
 * or scanning the table, so a page costs the same at 1 k rows as at 100 k
 * (apps/system-tests/bench/scale.mjs measures that).
 */
import {
  applyToArray,
  buildPage,
  type CollectionQuery,
  countInArray,
  parseQuery,
  toSql,
} from '@plumbline/query-parser';
import { DATABASE_URL, postgresAvailable, uniquePrefix } from '@plumbline/test-utils';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineCollections } from '../src/domain/collections.js';
import { type Db, openPostgres, openSqlite } from '../src/storage/db.js';
import { migrate } from '../src/storage/migrations.js';

const pgUp = await postgresAvailable();
const collections = defineCollections('a-cursor-secret-for-the-index-tests-0123456789');
const ROWS = 240;
const BASE = Date.UTC(2025, 0, 1);
// Names in mixed case and scripts, so the order is the code-point order on both databases.
const PREFIXES = ['alpha', 'Beta', 'gamma', 'Ωmega', '_delta', 'Zeta'];
const TASK_STATUSES = ['todo', 'in_progress', 'done'] as const;

const uuid = (i: number) => `00000000-0000-4000-8000-${(i * 7919).toString(16).padStart(12, '0')}`;
// Few distinct creation times (97), so the id tie-breaker decides the order inside each.
const createdAt = (i: number) => new Date(BASE + (i % 97) * 60_000).toISOString();

// Rows as the collections name their fields (a project's `budget` is the `budget_amount` column).
const projectRows = Array.from({ length: ROWS }, (_, i) => ({
  id: uuid(i),
  name: `${PREFIXES[i % PREFIXES.length]} ${i}`,
  description: null,
  status: i % 3 === 2 ? 'archived' : 'active',
  budget: i % 4 === 0 ? null : i * 10,
  created_at: createdAt(i),
  updated_at: createdAt(i),
}));
// Tasks of two projects, so /tasks across projects is more than one project's list.
const taskRows = Array.from({ length: ROWS }, (_, i) => ({
  id: uuid(ROWS + i),
  project_id: projectRows[i % 2]!.id,
  title: `Task ${i}`,
  status: TASK_STATUSES[i % 3]!,
  priority: (i % 5) + 1,
  due_date: i % 4 === 0 ? null : '2026-12-01',
  created_at: createdAt(i * 31),
  updated_at: createdAt(i * 31),
}));

type Table = 'projects' | 'tasks';
const TABLES = {
  projects: { collection: collections.projects, rows: projectRows as Record<string, unknown>[] },
  tasks: { collection: collections.tasks, rows: taskRows as Record<string, unknown>[] },
};

const sqlFor = (db: Db, table: Table) =>
  table === 'projects'
    ? ({ dialect: db.dialect, table, extraColumns: ['budget_currency'] } as const)
    : ({ dialect: db.dialect, table } as const);

async function page(db: Db, table: Table, query: CollectionQuery) {
  const statement = toSql(query, sqlFor(db, table));
  const found = await db.allNative<Record<string, unknown>>(statement.text, statement.params);
  return buildPage(query, found, { baseUrl: `/v2/${table}` }).body;
}

const memoryPage = (table: Table, query: CollectionQuery) =>
  buildPage(query, applyToArray(query, TABLES[table].rows), { baseUrl: `/v2/${table}` }).body;

/** Every id of a walk through all the cursor pages of `raw`, from `read`. */
async function walk(
  table: Table,
  read: (
    q: CollectionQuery,
  ) => Promise<{ data: readonly Record<string, unknown>[]; page: { next_cursor?: string } }>,
  raw: string,
) {
  const ids: unknown[] = [];
  const { collection } = TABLES[table];
  let query = parseQuery(collection, raw);
  for (let n = 0; n < ROWS; n++) {
    const body = await read(query);
    ids.push(...body.data.map((r) => r['id']));
    if (body.page.next_cursor === undefined) return ids;
    query = parseQuery(collection, `${raw}&cursor=${body.page.next_cursor}`);
  }
  throw new Error('the walk did not end');
}

const PAGES: readonly (readonly [Table, string])[] = [
  ['projects', 'limit=20'],
  ['projects', 'status=archived&limit=20'],
  ['projects', 'status=active&sort=-created_at&limit=20&offset=100'],
  ['projects', 'status=archived&sort=created_at&limit=25&offset=30'],
  ['projects', 'sort=name&limit=20'],
  ['projects', 'sort=-name&limit=15&offset=40'],
  ['projects', `name=${encodeURIComponent('Ωmega 3')}`],
  ['projects', 'status[in]=active,archived&sort=name&limit=30&offset=200'],
  ['tasks', 'limit=20'],
  ['tasks', 'status=done&limit=20&offset=40'],
  ['tasks', 'status[ne]=todo&sort=created_at&limit=30'],
  ['tasks', 'status=in_progress&sort=-priority&limit=10'],
];

const WALKS: readonly (readonly [Table, string])[] = [
  ['projects', 'limit=17'],
  ['projects', 'status=archived&limit=9'],
  ['projects', 'status=active&sort=name&limit=23'],
  ['projects', 'sort=-created_at,name&limit=31'],
  ['tasks', 'limit=19'],
  ['tasks', 'status=todo&limit=7'],
];

function collectionSuite(
  name: string,
  open: () => Promise<Db>,
  plan: (db: Db, sql: string, params: readonly unknown[]) => Promise<string>,
  expectations: readonly (readonly [Table, string, boolean, RegExp, RegExp])[],
) {
  describe(name, () => {
    let db: Db;
    beforeAll(async () => {
      db = await open();
      await migrate(db);
      await db.transaction(async (tx) => {
        for (const r of projectRows)
          await tx.run(
            'INSERT INTO projects (id, name, description, status, budget_amount, budget_currency, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
            [
              r.id,
              r.name,
              r.description,
              r.status,
              r.budget,
              r.budget === null ? null : 'EUR',
              r.created_at,
              r.updated_at,
            ],
          );
        for (const t of taskRows)
          await tx.run(
            'INSERT INTO tasks (id, project_id, title, status, priority, due_date, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
            [t.id, t.project_id, t.title, t.status, t.priority, t.due_date, t.created_at, t.updated_at],
          );
      });
    });
    afterAll(async () => {
      await db.close();
    });

    it.each(PAGES)('%s?%s: the same page as in memory', async (table, raw) => {
      const query = parseQuery(TABLES[table].collection, raw);
      const expected = memoryPage(table, query);
      const actual = await page(db, table, query);
      expect(actual.data.map((r) => r['id'])).toEqual(expected.data.map((r) => r['id']));
      expect(actual.data.length).toBeGreaterThan(0);
      expect(actual.page).toEqual(expected.page);
    });

    it.each(WALKS)(
      '%s?%s: a cursor walk visits the rows the in-memory walk visits, in its order',
      async (table, raw) => {
        const expected = await walk(table, async (q) => memoryPage(table, q), raw);
        expect(new Set(expected).size).toBe(expected.length);
        expect(expected.length).toBe(
          countInArray(parseQuery(TABLES[table].collection, raw), TABLES[table].rows),
        );
        expect(await walk(table, (q) => page(db, table, q), raw)).toEqual(expected);
      },
    );

    it.each(expectations)(
      '%s?%s (deep cursor: %s): the plan reads the page from an index',
      async (table, raw, deep, uses, avoids) => {
        const { collection } = TABLES[table];
        let query = parseQuery(collection, raw);
        if (deep) {
          // A cursor 100 rows into the collection, as the service would have signed it.
          const head = parseQuery(collection, raw.replace(/limit=\d+/, 'limit=100'));
          const cursor = memoryPage(table, head).page.next_cursor;
          query = parseQuery(collection, `${raw}&cursor=${cursor}`);
        }
        const statement = toSql(query, sqlFor(db, table));
        const text = await plan(db, statement.text, statement.params);
        expect(text).toMatch(uses);
        expect(text).not.toMatch(avoids);
      },
    );
  });
}

collectionSuite(
  'sqlite',
  async () => openSqlite(':memory:'),
  async (db, sql, params) =>
    (await db.allNative<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, params))
      .map((r) => r.detail)
      .join(' | '),
  [
    // The whole match sorted in a temporary B-tree ("FOR ORDER BY") is what grew with the table.
    [
      'projects',
      'status=archived&limit=20',
      false,
      /USING INDEX projects_status_created_at_idx \(status=\?\)/,
      /TEMP B-TREE FOR ORDER BY/,
    ],
    ['projects', 'sort=name&limit=20', false, /SCAN projects USING INDEX projects_name_key/, /TEMP B-TREE/],
    [
      'projects',
      'limit=20',
      true,
      /SEARCH projects USING INDEX projects_created_at_idx \(created_at<\?\)/,
      /TEMP B-TREE FOR ORDER BY/,
    ],
    [
      'projects',
      'status=active&limit=20',
      true,
      /projects_status_created_at_idx \(status=\? AND created_at<\?\)/,
      /TEMP B-TREE FOR ORDER BY/,
    ],
    ['tasks', 'limit=20', false, /SCAN tasks USING INDEX tasks_created_at_idx/, /TEMP B-TREE FOR ORDER BY/],
    [
      'tasks',
      'status=done&limit=20',
      false,
      /SEARCH tasks USING INDEX tasks_status_created_at_idx \(status=\?\)/,
      /TEMP B-TREE FOR ORDER BY/,
    ],
    [
      'tasks',
      'limit=20',
      true,
      /SEARCH tasks USING INDEX tasks_created_at_idx \(created_at<\?\)/,
      /TEMP B-TREE FOR ORDER BY/,
    ],
  ],
);

describe.skipIf(!pgUp)('postgres', () => {
  const schema = uniquePrefix('refsvc_idx').toLowerCase();
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  beforeAll(async () => {
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
  });
  afterAll(async () => {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  });
  collectionSuite(
    'postgres collections',
    async () => openPostgres(DATABASE_URL, { schema, max: 2 }),
    // 240 rows fit in a few pages, where a sequential scan is cheapest: with it priced out, the plan
    // shows whether an index can serve the query at all (an index in another collation cannot).
    (db, sql, params) =>
      db.transaction(async (tx) => {
        await tx.run('SET LOCAL enable_seqscan = off');
        const lines = await tx.allNative<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params);
        return lines.map((l) => l['QUERY PLAN']).join('\n');
      }),
    [
      [
        'projects',
        `name=${encodeURIComponent('Ωmega 3')}`,
        false,
        /Index Scan using projects_name_key/,
        /Seq Scan/,
      ],
      ['projects', 'sort=name&limit=20', false, /Index Scan using projects_name_key/, /Seq Scan/],
      ['projects', 'limit=20', true, /Index Cond: \(created_at <= /, /Seq Scan/],
      ['projects', 'status=active&limit=20', true, /Index Cond: .*created_at <= /, /Seq Scan/],
      ['tasks', 'limit=20', false, /Index Scan Backward using tasks_created_at_idx/, /Seq Scan/],
      ['tasks', 'status=done&limit=20', false, / (on|using) tasks_(status_)?created_at_idx /, /Seq Scan/],
      ['tasks', 'limit=20', true, /tasks_created_at_idx[\s\S]*Index Cond: \(created_at <= /, /Seq Scan/],
    ],
  );
});
