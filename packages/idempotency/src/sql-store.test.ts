import { DATABASE_URL, postgresAvailable, uniquePrefix } from '@plumbline/test-utils';
import { postgresDb, sqliteDb, type TestDb } from '@plumbline/test-utils/sql';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqlStore, type SqlClaim, type SqlIdempotencyStore } from './sql-store.js';
import type { StoredResponse } from './store.js';

const pgUp = await postgresAvailable();
const schema = uniquePrefix('idem_sql').toLowerCase();

const response: StoredResponse = {
  status: 201,
  headers: [
    ['location', '/orders/1'],
    ['link', '</a>; rel="a"'],
    ['link', '</b>; rel="b"'],
  ],
  body: Uint8Array.from([0, 1, 2, 255, 0x7b, 0x7d]),
};

const plain = (claim: SqlClaim) =>
  claim.state === 'completed'
    ? { ...claim, response: { ...claim.response, body: Buffer.from(claim.response.body) } }
    : claim;

function contract(name: string, open: () => Promise<TestDb>) {
  describe(`${name} transactional store`, () => {
    let db: TestDb;
    let clock = 1_000_000;
    let store: SqlIdempotencyStore;
    beforeAll(async () => {
      db = await open();
      store = createSqlStore({ dialect: db.dialect, now: () => clock });
      for (const statement of store.schema()) await db.query(statement, []);
      // Idempotent DDL: a second run (another instance starting) changes nothing.
      for (const statement of store.schema()) await db.query(statement, []);
    });
    afterAll(async () => {
      await db?.close();
    });

    it('claims a new key, stores the response in the transaction, then replays exact bytes', async () => {
      const claimed = await db.transaction(async (q) => {
        const claim = await store.claim(q, 'k1', 'f1');
        await store.save(q, 'k1', 'f1', response, 60_000);
        return claim;
      });
      expect(claimed).toEqual({ state: 'new' });
      const replay = await db.transaction((q) => store.claim(q, 'k1', 'f1'));
      expect(plain(replay)).toEqual({
        state: 'completed',
        response: { ...response, body: Buffer.from(response.body) },
      });
    });

    it('reports another fingerprint as mismatch', async () => {
      expect(await db.transaction((q) => store.claim(q, 'k1', 'f2'))).toEqual({ state: 'mismatch' });
    });

    it('a rolled-back transaction leaves no record: the key is new again', async () => {
      const failed = db.transaction(async (q) => {
        await store.claim(q, 'k2', 'f1');
        await store.save(q, 'k2', 'f1', response, 60_000);
        throw new Error('the side effect failed');
      });
      await expect(failed).rejects.toThrow('the side effect failed');
      expect(await db.transaction((q) => store.claim(q, 'k2', 'f1'))).toEqual({ state: 'new' });
    });

    it('an expired record is deleted on claim, and purgeExpired removes the rest', async () => {
      await db.transaction(async (q) => {
        await store.claim(q, 'k3', 'f1');
        await store.save(q, 'k3', 'f1', response, 1000);
        await store.claim(q, 'k4', 'f1');
        await store.save(q, 'k4', 'f1', response, 1000);
      });
      clock += 1000;
      expect(await db.transaction((q) => store.claim(q, 'k3', 'other'))).toEqual({ state: 'new' });
      expect(await db.query(`SELECT key FROM ${store.table} WHERE key = 'k3'`, [])).toEqual([]);
      // k4 has expired; k1 (kept for 60 s) has not; k2 was rolled back and never existed.
      expect(await db.transaction((q) => store.purgeExpired(q))).toBe(1);
      expect(
        (await db.query(`SELECT key FROM ${store.table} ORDER BY key`, [])).map((r) => r['key']),
      ).toEqual(['k1']);
    });

    it.each([
      ['an empty body', new Uint8Array(0)],
      ['invalid UTF-8', Uint8Array.from([0x7b, 0xff, 0x7d])],
      ['NUL bytes', Uint8Array.from([0, 0, 0])],
    ])('keeps %s byte for byte', async (_name, body) => {
      const key = `bytes-${body.length}-${body[1] ?? 'x'}`;
      await db.transaction(async (q) => {
        await store.claim(q, key, 'f');
        await store.save(q, key, 'f', { status: 200, headers: [], body }, 60_000);
      });
      const replay = await db.transaction((q) => store.claim(q, key, 'f'));
      expect(replay.state === 'completed' && Buffer.from(replay.response.body)).toEqual(Buffer.from(body));
    });
  });
}

contract('SQLite', async () => sqliteDb());

describe.skipIf(!pgUp)('PostgreSQL', () => {
  beforeAll(async () => {
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.end();
  });
  afterAll(async () => {
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  });

  contract('PostgreSQL', async () => postgresDb(DATABASE_URL, schema));

  it('a key held by an open transaction is in flight for another, and replayed once that one commits', async () => {
    const db = postgresDb(DATABASE_URL, schema);
    const store = createSqlStore({ dialect: 'postgres', table: `${schema}.idem_concurrent` });
    for (const statement of store.schema()) await db.query(statement, []);
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let claimedFirst: () => void = () => {};
    const firstClaimed = new Promise<void>((resolve) => {
      claimedFirst = resolve;
    });
    const first = db.transaction(async (q) => {
      const claim = await store.claim(q, 'race', 'f');
      claimedFirst();
      await gate;
      await store.save(q, 'race', 'f', response, 60_000);
      return claim;
    });
    await firstClaimed;
    const during = await db.transaction((q) => store.claim(q, 'race', 'f'));
    release();
    const after = await first.then(() => db.transaction((q) => store.claim(q, 'race', 'f')));
    await db.close();
    expect([(await first).state, during.state, after.state]).toEqual(['new', 'in_flight', 'completed']);
  });
});

describe('createSqlStore options', () => {
  it.each([
    [
      'a table name with a quote',
      { dialect: 'postgres' as const, table: 'keys"; DROP TABLE x' },
      'is not an SQL identifier',
    ],
    ['an unknown dialect', { dialect: 'mysql' as 'postgres' }, 'unknown SQL dialect'],
  ])('rejects %s', (_name, options, message) => {
    expect(() => createSqlStore(options)).toThrow(message);
  });
});
