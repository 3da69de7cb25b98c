import type { StoredResponse } from './store.js';

/**
 * SQL dialects the transactional store writes.
 *
 * @example
 * ```ts
 * const dialect: SqlDialect = 'postgres';
 * ```
 */
export type SqlDialect = 'postgres' | 'sqlite';

/**
 * Runs one statement inside the caller's transaction and resolves to its rows. Placeholders are
 * the dialect's own: `$1, $2, …` for PostgreSQL, `?` for SQLite.
 *
 * @example
 * ```ts
 * const query: SqlQuery = async (sql, params) => (await client.query(sql, [...params])).rows;
 * ```
 */
export type SqlQuery = (
  sql: string,
  params: readonly unknown[],
) => Promise<readonly Record<string, unknown>[]>;

/**
 * What the record for a key says, read inside the transaction that holds the key: nothing (run
 * the operation), a completed response, a different request (mismatch), or another transaction
 * holding the key right now (in flight).
 *
 * @example
 * ```ts
 * const lookup: SqlClaim = { state: 'new' };
 * ```
 */
export type SqlClaim =
  | { readonly state: 'new' }
  | { readonly state: 'in_flight' }
  | { readonly state: 'completed'; readonly response: StoredResponse }
  | { readonly state: 'mismatch' };

/**
 * Options for {@link createSqlStore}.
 *
 * @example
 * ```ts
 * const options: SqlStoreOptions = { dialect: 'postgres', table: 'idempotency_keys' };
 * ```
 */
export interface SqlStoreOptions {
  readonly dialect: SqlDialect;
  /** Table of the records (an SQL identifier, optionally schema-qualified). Default `idempotency_keys`. */
  readonly table?: string;
  /** Clock, for tests. Default `Date.now`. */
  readonly now?: () => number;
}

/**
 * An idempotency store that lives in the application's own database and takes part in the
 * handler's transaction: the key is claimed, and its response stored, in the same transaction as
 * the side effect, so a crash commits both or neither. There is no lease: a transaction holds the
 * key until it commits or rolls back (a crashed process's transaction is rolled back by the
 * database), so nothing has to expire before a retry may run.
 *
 * @example
 * ```ts
 * const store = createSqlStore({ dialect: 'postgres' });
 * for (const statement of store.schema()) await pool.query(statement);
 * ```
 */
export interface SqlIdempotencyStore {
  readonly dialect: SqlDialect;
  readonly table: string;
  /** `CREATE TABLE IF NOT EXISTS` statements for the records table and its expiry index. */
  schema(): readonly string[];
  /**
   * Inside the transaction: takes the key for this transaction (PostgreSQL: a transaction-scoped
   * advisory lock, not waited for; SQLite: the write lock of `BEGIN IMMEDIATE`) and reads its record.
   * An expired record is deleted and reported as `new`.
   */
  claim(query: SqlQuery, key: string, fingerprint: string): Promise<SqlClaim>;
  /** Inside the same transaction, before it commits: writes the response for `retentionMs`. */
  save(
    query: SqlQuery,
    key: string,
    fingerprint: string,
    response: StoredResponse,
    retentionMs: number,
  ): Promise<void>;
  /** Deletes every expired record; resolves to how many. Run it now and then (e.g. hourly). */
  purgeExpired(query: SqlQuery): Promise<number>;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}(\.[A-Za-z_][A-Za-z0-9_]{0,62})?$/;
// A constant mixed into the advisory-lock hash so these locks do not collide with an
// application's own advisory locks on the same text.
const LOCK_SEED = 7_102_023;

function bytes(value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value;
  if (typeof value === 'string') return Buffer.from(value, 'utf8');
  return new Uint8Array(0);
}

/**
 * Creates the transactional store for PostgreSQL or SQLite. The statements use only the
 * placeholders of `dialect`; the caller's {@link SqlQuery} runs them in its transaction.
 * Requirements: PostgreSQL at `READ COMMITTED` (the default), SQLite with `BEGIN IMMEDIATE`
 * transactions. The primary key on `key` is the last guard: should two transactions ever both
 * insert, the second fails and rolls back its side effect.
 *
 * @example
 * ```ts
 * const store = createSqlStore({ dialect: 'sqlite' });
 * app.post('/orders', idempotencyTransaction({ store, transaction: (work) => db.transaction(work), query: (tx) => tx.all }), createOrder);
 * ```
 */
export function createSqlStore(options: SqlStoreOptions): SqlIdempotencyStore {
  const { dialect } = options;
  if (dialect !== 'postgres' && dialect !== 'sqlite') throw new TypeError(`unknown SQL dialect "${dialect}"`);
  const table = options.table ?? 'idempotency_keys';
  if (!IDENTIFIER.test(table)) throw new TypeError(`table: "${table}" is not an SQL identifier`);
  const now = options.now ?? Date.now;
  const p = (n: number) => (dialect === 'postgres' ? `$${n}` : '?');
  const index = `${table.replace('.', '_')}_expires_idx`;
  const select = `SELECT fingerprint, status, headers, body, expires_at FROM ${table} WHERE key = ${p(1)}`;
  const remove = `DELETE FROM ${table} WHERE key = ${p(1)}`;
  const insert = `INSERT INTO ${table} (key, fingerprint, status, headers, body, expires_at) VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}, ${p(6)})`;
  const purge = `DELETE FROM ${table} WHERE expires_at <= ${p(1)}`;
  const lock = `SELECT pg_try_advisory_xact_lock(hashtextextended(${p(1)}, ${LOCK_SEED})) AS locked`;

  return {
    dialect,
    table,
    schema() {
      return [
        `CREATE TABLE IF NOT EXISTS ${table} (
  key TEXT PRIMARY KEY,
  fingerprint TEXT NOT NULL,
  status INTEGER NOT NULL,
  headers TEXT NOT NULL,
  body ${dialect === 'postgres' ? 'BYTEA' : 'BLOB'} NOT NULL,
  expires_at BIGINT NOT NULL
)`,
        `CREATE INDEX IF NOT EXISTS ${index} ON ${table} (expires_at)`,
      ];
    },
    async claim(query, key, fingerprint) {
      if (dialect === 'postgres') {
        const [row] = await query(lock, [key]);
        if (row?.['locked'] !== true) return { state: 'in_flight' };
      }
      const [row] = await query(select, [key]);
      if (row === undefined) return { state: 'new' };
      if (Number(row['expires_at']) <= now()) {
        await query(remove, [key]);
        return { state: 'new' };
      }
      if (row['fingerprint'] !== fingerprint) return { state: 'mismatch' };
      return {
        state: 'completed',
        response: {
          status: Number(row['status']),
          headers: JSON.parse(String(row['headers'])) as [string, string][],
          body: bytes(row['body']),
        },
      };
    },
    async save(query, key, fingerprint, response, retentionMs) {
      const body = Buffer.from(response.body.buffer, response.body.byteOffset, response.body.byteLength);
      await query(insert, [
        key,
        fingerprint,
        response.status,
        JSON.stringify(response.headers),
        body,
        Math.ceil(now() + retentionMs),
      ]);
    },
    async purgeExpired(query) {
      const rows = await query(`${purge} RETURNING key`, [now()]);
      return rows.length;
    },
  };
}
