import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import { type HttpError, isHttpError } from '@plumbline/errors';
import { DATABASE_URL, postgresAvailable, uniquePrefix } from '@plumbline/test-utils';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseQueryArb, join, paginationArb, rowsArb } from '../test/data.js';
import { linkQueries, SECRET, tasks } from '../test/fixtures.js';
import {
  applyToArray,
  buildPage,
  type CollectionQuery,
  countInArray,
  defineCollection,
  parseQuery,
  parseSearchBody,
  type SqlOptions,
  toQueryString,
  toSql,
} from './index.js';
import { linkQueryLength, linkQueryLengthBound } from './query-string.js';

type Row = Record<string, unknown>;

const pgUp = await postgresAvailable();

function tryParse(query: string): CollectionQuery | undefined {
  try {
    return parseQuery(tasks, query);
  } catch (error) {
    if (isHttpError(error) && error.status === 400) return undefined;
    throw error;
  }
}

const NAMES = [
  'id',
  'name',
  'status',
  'priority',
  'sort',
  'q',
  'limit',
  'offset',
  'page',
  'size',
  'cursor',
  'fields',
];
const queryish = fc
  .array(
    fc.tuple(
      fc.oneof(fc.constantFrom(...NAMES, '__proto__', 'constructor', 'status[in]', 'name[$ne]'), fc.string()),
      fc.oneof(fc.string(), fc.constantFrom('%', '%E0%A4%A', '1', '-1', '1e3', '', ',', ':desc', '-name')),
    ),
    { maxLength: 8 },
  )
  .map((pairs) => pairs.map(([n, v]) => `${n}=${v}`).join('&'));

describe('properties', () => {
  it('parsing any string returns a query or throws a 400 HttpError, nothing else', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: 'binary', maxLength: 300 }), queryish, baseQueryArb),
        (input) => {
          try {
            const query = parseQuery(tasks, input);
            expect(Object.isFrozen(query)).toBe(true);
          } catch (error) {
            expect(isHttpError(error)).toBe(true);
            expect((error as { status: number }).status).toBe(400);
          }
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('parsing any JSON body returns a query or throws a 400 HttpError, nothing else', () => {
    const bodyish = fc.record(
      {
        filter: fc.dictionary(
          fc.constantFrom('status', 'priority', 'tag', 'id', '__proto__', 'nope'),
          fc.jsonValue(),
        ),
        q: fc.oneof(fc.jsonValue(), fc.string({ unit: 'binary' })),
        sort: fc.oneof(fc.string(), fc.array(fc.string())),
        limit: fc.jsonValue(),
        fields: fc.oneof(fc.string(), fc.array(fc.jsonValue())),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), bodyish), (body) => {
        try {
          parseSearchBody(tasks, body);
        } catch (error) {
          expect(isHttpError(error)).toBe(true);
          expect((error as { status: number }).status).toBe(400);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('a query rebuilt from its canonical string parses to the same value', () => {
    fc.assert(
      fc.property(baseQueryArb, fc.option(paginationArb, { nil: '' }), (base, pagination) => {
        const query = tryParse(join(base, pagination));
        fc.pre(query !== undefined);
        expect(parseQuery(tasks, toQueryString(query!))).toEqual(query);
      }),
      { numRuns: 500 },
    );
  });

  it('a cursor query rebuilt from its canonical string parses to the same value', () => {
    fc.assert(
      fc.property(rowsArb, baseQueryArb, fc.integer({ min: 1, max: 5 }), (rows, base, limit) => {
        const first = tryParse(join(base, `limit=${limit}`));
        fc.pre(first !== undefined);
        const cursor = buildPage(first!, applyToArray(first!, rows), { baseUrl: '/t' }).body.page.next_cursor;
        fc.pre(cursor !== undefined);
        const next = parseQuery(tasks, join(base, `limit=${limit}&cursor=${cursor}`));
        expect(parseQuery(tasks, toQueryString(next))).toEqual(next);
      }),
      { numRuns: 200 },
    );
  });
});

// One field list, two bounds: `wide` takes every body `narrow` could take but for its length.
const boundFields = {
  id: { type: 'int', sort: true, filter: ['eq', 'in'] },
  name: { type: 'string', sort: true, search: true, filter: ['eq', 'ne'] },
  tag: { type: 'string', filter: ['eq'], repeatable: true },
} as const;
const narrow = defineCollection({ fields: boundFields, maxQueryLength: 160, cursorSecret: SECRET });
const wide = defineCollection({ fields: boundFields, maxQueryLength: 1_000_000, cursorSecret: SECRET });

/** Any text, in every plane: what a link writes percent-encoded (up to 12 bytes per character). */
const anyText = (min: number, max: number) => fc.string({ unit: 'grapheme', minLength: min, maxLength: max });
const boundedBodyArb = fc
  .record(
    {
      filter: fc.record(
        {
          name: fc.oneof(anyText(1, 60), fc.record({ ne: anyText(1, 60) })),
          tag: fc.array(anyText(1, 12), { minLength: 1, maxLength: 6 }),
          id: fc.record({ in: fc.array(fc.integer({ min: 0, max: 1e9 }), { minLength: 1, maxLength: 8 }) }),
        },
        { requiredKeys: [] },
      ),
      q: anyText(3, 20).filter((q) => q.trim().length >= 3),
      sort: fc.constantFrom('-name', 'name,-id', 'id'),
      fields: fc.constantFrom('name', ['id', 'name']),
      pagination: fc.oneof(
        fc.record({ limit: fc.integer({ min: 1, max: 100 }), offset: fc.integer({ min: 0, max: 10_000 }) }),
        fc.record({ page: fc.integer({ min: 1, max: 100 }), size: fc.integer({ min: 1, max: 100 }) }),
      ),
    },
    { requiredKeys: [] },
  )
  .map(({ pagination, ...rest }) => ({ ...rest, ...pagination }));

function outcomeOf(run: () => CollectionQuery): CollectionQuery | HttpError {
  try {
    return run();
  } catch (error) {
    if (isHttpError(error)) return error;
    throw error;
  }
}

describe('the bound of every page link', () => {
  it('a search body is accepted exactly when every page link it gives is at most maxQueryLength bytes', () => {
    fc.assert(
      fc.property(boundedBodyArb, (body) => {
        const full = outcomeOf(() => parseSearchBody(wide, body));
        fc.pre(!isHttpError(full));
        const longest = Math.max(...linkQueries(full as CollectionQuery).map((q) => q.length));
        expect(linkQueryLength(full as CollectionQuery)).toBe(longest);
        expect(linkQueryLengthBound(full as CollectionQuery)).toBeGreaterThanOrEqual(longest);
        const bounded = outcomeOf(() => parseSearchBody(narrow, body));
        if (longest <= narrow.maxQueryLength) {
          expect(bounded).toEqual(full);
          for (const link of linkQueries(bounded as CollectionQuery))
            expect(link.length).toBeLessThanOrEqual(160);
        } else {
          expect(bounded).toMatchObject({
            status: 400,
            code: 'query_too_long',
            params: { max: 160, body_length: longest },
            errors: [],
          });
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('the quick bound the parser checks first is never below the exact length', () => {
    const loose = defineCollection({
      fields: { id: { type: 'int', sort: true }, at: { type: 'date-time', filter: ['gte'] } },
      unknownParameters: 'passthrough',
      maxQueryLength: 1_000_000,
    });
    const extraArb = fc
      .array(fc.tuple(anyText(1, 8), anyText(0, 8)), { maxLength: 4 })
      .map((pairs) => pairs.map(([n, v]) => `${encodeURIComponent(n)}=${encodeURIComponent(v)}`));
    fc.assert(
      fc.property(
        baseQueryArb,
        fc.option(paginationArb, { nil: '' }),
        extraArb,
        fc.option(fc.date({ noInvalidDate: true }), { nil: undefined }),
        (base, pagination, extra, at) => {
          const query = tryParse(join(base, pagination));
          if (query !== undefined) {
            expect(linkQueryLengthBound(query)).toBeGreaterThanOrEqual(linkQueryLength(query));
          }
          const raw = [...extra, ...(at ? [`at[gte]=${encodeURIComponent(at.toISOString())}`] : [])].join(
            '&',
          );
          const kept = outcomeOf(() => parseQuery(loose, raw));
          fc.pre(!isHttpError(kept));
          expect(linkQueryLengthBound(kept as CollectionQuery)).toBeGreaterThanOrEqual(
            linkQueryLength(kept as CollectionQuery),
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  it('a query string likewise, whatever it grows to once written canonically', () => {
    const queryArb = fc
      .tuple(anyText(1, 50), fc.constantFrom('name', 'name[ne]', 'tag'), fc.boolean())
      .map(([text, name, plus]) => {
        const value = encodeURIComponent(text);
        return `${name}=${plus ? value.replaceAll('%20', '+') : value}`;
      });
    fc.assert(
      fc.property(fc.array(queryArb, { minLength: 1, maxLength: 3 }), (parts) => {
        const raw = parts.join('&');
        const full = outcomeOf(() => parseQuery(wide, raw));
        fc.pre(!isHttpError(full) && Buffer.byteLength(raw) <= narrow.maxQueryLength);
        const longest = Math.max(...linkQueries(full as CollectionQuery).map((q) => q.length));
        const bounded = outcomeOf(() => parseQuery(narrow, raw));
        if (longest <= narrow.maxQueryLength) expect(bounded).toEqual(full);
        else expect(bounded).toMatchObject({ code: 'query_too_long', params: { max: 160 }, errors: [] });
      }),
      { numRuns: 1000 },
    );
  });
});

interface Store {
  load(rows: readonly Row[]): Promise<void>;
  all(text: string, params: readonly unknown[]): Promise<Row[]>;
  options: SqlOptions;
}

/**
 * For random data and random valid queries: the SQL gives the same ids in the same order as
 * `applyToArray`, the same count, and the same next page through the cursor.
 */
async function checkAgreement(store: Store, numRuns: number): Promise<void> {
  await fc.assert(
    fc.asyncProperty(
      rowsArb,
      baseQueryArb,
      fc.option(paginationArb, { nil: '' }),
      async (rows, base, pagination) => {
        const query = tryParse(join(base, pagination));
        fc.pre(query !== undefined);
        const q = query!;
        await store.load(rows);
        const sql = toSql(q, store.options);
        const fromSql = await store.all(sql.text, sql.params);
        const inMemory = applyToArray(q, rows);
        expect(fromSql.map((r) => r['id'])).toEqual(inMemory.map((r) => r.id));
        const [count] = await store.all(sql.countText, sql.countParams);
        expect(Number(count?.['total'])).toBe(countInArray(q, rows));
        expect(buildPage(q, fromSql, { baseUrl: '/t' }).body).toEqual(
          buildPage(q, inMemory, { baseUrl: '/t' }).body,
        );

        const cursor = buildPage(q, inMemory, { baseUrl: '/t' }).body.page.next_cursor;
        if (cursor === undefined) return;
        const next = parseQuery(tasks, join(base, `limit=${q.pagination.limit}&cursor=${cursor}`));
        const nextSql = toSql(next, store.options);
        const nextRows = await store.all(nextSql.text, nextSql.params);
        expect(nextRows.map((r) => r['id'])).toEqual(applyToArray(next, rows).map((r) => r.id));
      },
    ),
    { numRuns },
  );
}

const SQLITE_TABLE = `CREATE TABLE tasks (
  id INTEGER PRIMARY KEY, name TEXT NOT NULL, status TEXT NOT NULL, priority INTEGER NOT NULL,
  age INTEGER NOT NULL, score REAL NOT NULL, active INTEGER NOT NULL, date TEXT NOT NULL,
  created_at TEXT NOT NULL, owner_id TEXT NOT NULL, tag TEXT NOT NULL, description TEXT NOT NULL,
  project_id INTEGER NOT NULL, password_hash TEXT NOT NULL)`;
const COLUMNS = [
  'id',
  'name',
  'status',
  'priority',
  'age',
  'score',
  'active',
  'date',
  'created_at',
  'owner_id',
  'tag',
  'description',
  'project_id',
  'password_hash',
];

describe('applyToArray and toSql agree', () => {
  it('on SQLite (in-process)', async () => {
    const db = new DatabaseSync(':memory:');
    db.exec(SQLITE_TABLE);
    const insert = db.prepare(`INSERT INTO tasks VALUES (${COLUMNS.map(() => '?').join(', ')})`);
    const load = (rows: readonly Row[]) => {
      db.exec('BEGIN');
      db.exec('DELETE FROM tasks');
      for (const row of rows)
        insert.run(
          ...COLUMNS.map((c) => (typeof row[c] === 'boolean' ? Number(row[c]) : row[c]) as SQLInputValue),
        );
      db.exec('COMMIT');
    };

    try {
      await checkAgreement(
        {
          load: async (rows) => load(rows),
          all: async (text, params) => db.prepare(text).all(...(params as SQLInputValue[])) as Row[],
          options: { dialect: 'sqlite', table: 'tasks' },
        },
        400,
      );
    } finally {
      db.close();
    }
  });

  describe.skipIf(!pgUp)('on PostgreSQL', () => {
    const schema = uniquePrefix('qp');
    const client = new pg.Client({ connectionString: DATABASE_URL });
    // DATE as text: the driver's default makes a local-midnight Date, which shifts with the TZ.
    client.setTypeParser(1082, (value: string) => value);
    beforeAll(async () => {
      await client.connect();
      await client.query(`CREATE SCHEMA ${schema}`);
      await client.query(`CREATE TABLE ${schema}.tasks (
        id integer PRIMARY KEY, name text NOT NULL, status text NOT NULL, priority integer NOT NULL,
        age integer NOT NULL, score double precision NOT NULL, active boolean NOT NULL, date date NOT NULL,
        created_at timestamptz NOT NULL, owner_id uuid NOT NULL, tag text NOT NULL, description text NOT NULL,
        project_id integer NOT NULL, password_hash text NOT NULL)`);
    });
    afterAll(async () => {
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    });

    it('on random data and queries', async () => {
      await checkAgreement(
        {
          load: async (rows) => {
            await client.query(`DELETE FROM ${schema}.tasks`);
            if (rows.length === 0) return;
            const params: unknown[] = [];
            const values = rows.map((row) => `(${COLUMNS.map((c) => `$${params.push(row[c])}`).join(', ')})`);
            await client.query(
              `INSERT INTO ${schema}.tasks (${COLUMNS.join(', ')}) VALUES ${values.join(', ')}`,
              params,
            );
          },
          all: async (text, params) => (await client.query(text, [...params])).rows as Row[],
          options: { dialect: 'postgres', table: `${schema}.tasks` },
        },
        150,
      );
    });
  });
});
