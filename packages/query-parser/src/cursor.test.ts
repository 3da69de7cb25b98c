import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import { DATABASE_URL, postgresAvailable, uniquePrefix } from '@plumbline/test-utils';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundedMemo } from './cursor.js';
import { applyToArray, buildPage, defineCollection, parseQuery, type SqlOptions, toSql } from './index.js';

const pgUp = await postgresAvailable();

const events = defineCollection({
  fields: {
    id: { type: 'int', sort: true },
    created_at: { type: 'date-time', sort: true },
    kind: { type: 'enum', values: ['a', 'b'], filter: true },
  },
  defaultSort: '-created_at',
  pagination: ['cursor'],
  cursorSecret: 'another-test-secret-of-32-bytes-or-more',
});

const ROWS = 10_000;
const LIMIT = 100;
const BASE = Date.UTC(2024, 0, 1);
// Few distinct timestamps, so the id tie-breaker is what keeps the walk exact.
const timeOf = (n: number) => new Date(BASE + (n % 997) * 60_000).toISOString();

type Row = { id: number; created_at: string; kind: string };

/**
 * Walks every page through the cursor while `insert` adds rows between (or during) page reads,
 * and returns the ids seen, in order.
 */
async function walk(
  fetchPage: (text: string, params: readonly unknown[]) => Promise<Row[]>,
  options: SqlOptions,
  insert: (page: number) => Promise<void>,
): Promise<number[]> {
  const seen: number[] = [];
  let query = parseQuery(events, `limit=${LIMIT}`);
  for (let page = 0; page < 1000; page++) {
    const sql = toSql(query, options);
    const [rows] = await Promise.all([fetchPage(sql.text, sql.params), insert(page)]);
    const { body } = buildPage(query, rows, { baseUrl: '/events' });
    for (const row of body.data) seen.push(row['id'] as number);
    if (!body.page.has_more) return seen;
    query = parseQuery(events, `limit=${LIMIT}&cursor=${body.page.next_cursor}`);
  }
  throw new Error('the walk did not end');
}

function checkVisits(seen: readonly number[]) {
  expect(new Set(seen).size).toBe(seen.length);
  const originals = seen.filter((id) => id <= ROWS);
  expect(originals.length).toBe(ROWS);
  expect(new Set(originals).size).toBe(ROWS);
}

describe('cursor pagination over 10 000 rows visits every row exactly once under concurrent inserts', () => {
  it('in memory', async () => {
    const rows: Row[] = Array.from({ length: ROWS }, (_, i) => ({
      id: i + 1,
      created_at: timeOf(i),
      kind: 'a',
    }));
    let next = ROWS + 1;
    const seen: number[] = [];
    let query = parseQuery(events, `limit=${LIMIT}`);
    for (;;) {
      const page = buildPage(query, applyToArray(query, rows), { baseUrl: '/events' }).body;
      for (const row of page.data) seen.push(row['id'] as number);
      for (let k = 0; k < 7; k++, next++) rows.push({ id: next, created_at: timeOf(next * 31), kind: 'b' });
      if (!page.page.has_more) break;
      query = parseQuery(events, `limit=${LIMIT}&cursor=${page.page.next_cursor}`);
    }
    checkVisits(seen);
  });

  it('on SQLite', async () => {
    const db = new DatabaseSync(':memory:');
    db.exec('CREATE TABLE events (id INTEGER PRIMARY KEY, created_at TEXT NOT NULL, kind TEXT NOT NULL)');
    db.exec('CREATE INDEX events_keyset ON events (created_at DESC, id)');
    const insert = db.prepare('INSERT INTO events VALUES (?, ?, ?)');
    db.exec('BEGIN');
    for (let i = 0; i < ROWS; i++) insert.run(i + 1, timeOf(i), 'a');
    db.exec('COMMIT');
    let next = ROWS + 1;
    try {
      const seen = await walk(
        async (text, params) => db.prepare(text).all(...(params as SQLInputValue[])) as Row[],
        { dialect: 'sqlite', table: 'events' },
        async () => {
          for (let k = 0; k < 7; k++, next++) insert.run(next, timeOf(next * 31), 'b');
        },
      );
      checkVisits(seen);
      const first = toSql(parseQuery(events, 'limit=5'), { dialect: 'sqlite', table: 'events' });
      const plan = db
        .prepare(`EXPLAIN QUERY PLAN ${first.text}`)
        .all(...(first.params as SQLInputValue[])) as {
        detail: string;
      }[];
      expect(plan.map((p) => p.detail).join(' ')).not.toMatch(/TEMP B-TREE/);
      // A page deep in the walk is found through the index too (a range on the first sort key),
      // not by reading and discarding every row before the cursor.
      const head = parseQuery(events, 'limit=100');
      const headSql = toSql(head, { dialect: 'sqlite', table: 'events' });
      const headRows = db.prepare(headSql.text).all(...(headSql.params as SQLInputValue[])) as Row[];
      const cursor = buildPage(head, headRows, { baseUrl: '/events' }).body.page.next_cursor;
      const deep = toSql(parseQuery(events, `limit=100&cursor=${cursor}`), {
        dialect: 'sqlite',
        table: 'events',
      });
      const deepPlan = db
        .prepare(`EXPLAIN QUERY PLAN ${deep.text}`)
        .all(...(deep.params as SQLInputValue[])) as { detail: string }[];
      expect(deepPlan.map((p) => p.detail).join(' ')).toMatch(
        /^SEARCH events USING INDEX events_keyset \(created_at<\?\)$/,
      );
    } finally {
      db.close();
    }
  });

  describe.skipIf(!pgUp)('on PostgreSQL, with a second connection inserting while pages are read', () => {
    const table = uniquePrefix('qp_events');
    const reader = new pg.Client({ connectionString: DATABASE_URL });
    const writer = new pg.Client({ connectionString: DATABASE_URL });
    beforeAll(async () => {
      await Promise.all([reader.connect(), writer.connect()]);
      await writer.query(
        `CREATE TABLE ${table} (id integer PRIMARY KEY, created_at timestamptz NOT NULL, kind text NOT NULL)`,
      );
      await writer.query(
        `INSERT INTO ${table} SELECT i, $1::timestamptz + ((i - 1) % 997) * interval '1 minute', 'a' FROM generate_series(1, ${ROWS}) AS i`,
        [new Date(BASE).toISOString()],
      );
    });
    afterAll(async () => {
      await writer.query(`DROP TABLE IF EXISTS ${table}`);
      await Promise.all([reader.end(), writer.end()]);
    });

    it('walks the table', async () => {
      let next = ROWS + 1;
      const seen = await walk(
        async (text, params) => (await reader.query(text, [...params])).rows as Row[],
        { dialect: 'postgres', table },
        async () => {
          const ids = Array.from({ length: 7 }, () => next++);
          await writer.query(
            `INSERT INTO ${table} SELECT id, $1::timestamptz + ((id * 31) % 997) * interval '1 minute', 'b' FROM unnest($2::int[]) AS id`,
            [new Date(BASE).toISOString(), ids],
          );
        },
      );
      checkVisits(seen);
    });
  });
});

describe('boundedMemo (the binding-hash and signature caches)', () => {
  it('computes each key once while it fits, and never holds more than its bound', () => {
    const calls: string[] = [];
    const memo = boundedMemo((key) => {
      calls.push(key);
      return `v:${key}`;
    }, 3);
    expect(['a', 'b', 'a', 'c', 'b'].map(memo)).toEqual(['v:a', 'v:b', 'v:a', 'v:c', 'v:b']);
    expect(calls).toEqual(['a', 'b', 'c']);
    // A fourth key starts a new table: the earlier keys are computed again.
    expect(memo('d')).toBe('v:d');
    expect(memo('a')).toBe('v:a');
    expect(calls).toEqual(['a', 'b', 'c', 'd', 'a']);
  });

  it('does not remember keys longer than the length bound', () => {
    const calls: string[] = [];
    const memo = boundedMemo(
      (key) => {
        calls.push(key);
        return key.toUpperCase();
      },
      8,
      4,
    );
    expect([memo('abcde'), memo('abcde'), memo('abcd'), memo('abcd')]).toEqual([
      'ABCDE',
      'ABCDE',
      'ABCD',
      'ABCD',
    ]);
    expect(calls).toEqual(['abcde', 'abcde', 'abcd']);
  });

  it('gives cursors of pages with different filters, values or collections different signatures', () => {
    const other = defineCollection({
      fields: { id: { type: 'int', sort: true } },
      cursorSecret: 'a-third-test-secret-of-32-bytes-or-more',
      pagination: ['cursor'],
    });
    const rows = Array.from({ length: 5 }, (_, i) => ({
      id: i + 1,
      created_at: timeOf(i),
      kind: i % 2 ? 'a' : 'b',
    }));
    const next = (collection: typeof events | typeof other, text: string) => {
      const query = parseQuery(collection, text);
      return buildPage(query, applyToArray(query, rows), { baseUrl: '/e' }).body.page.next_cursor;
    };
    const cursors = [
      next(events, 'limit=1'),
      next(events, 'limit=2'),
      next(events, 'limit=1&kind=a'),
      next(events, 'limit=1&kind=b'),
      next(other, 'limit=1&sort=id'),
      next(other, 'limit=2&sort=id'),
    ];
    expect(cursors.every((c) => typeof c === 'string')).toBe(true);
    expect(new Set(cursors).size).toBe(cursors.length);
    // Each cursor continues only the query it was issued for.
    const query = parseQuery(events, `limit=1&kind=a&cursor=${cursors[2]}`);
    expect(applyToArray(query, rows).length).toBeGreaterThan(0);
    expect(() => parseQuery(events, `limit=1&kind=b&cursor=${cursors[2]}`)).toThrow();
    expect(() => parseQuery(other, `limit=1&sort=id&cursor=${cursors[0]}`)).toThrow();
  });
});
