/**
 * The smallest database interface the service needs, over SQLite (Node's own `node:sqlite`, the
 * embedded default) and PostgreSQL (pg). Statements are written once with `?` placeholders and rewritten to
 * `$n` for PostgreSQL; collection queries come ready-made from @plumbline/query-parser's `toSql`.
 */

import type { SQLInputValue, StatementSync } from 'node:sqlite';
import { HttpError } from '@plumbline/errors';
import pg from 'pg';

export type Dialect = 'sqlite' | 'postgres';

export interface Db {
  readonly dialect: Dialect;
  /** Rows of a query written with `?` placeholders. */
  all<T>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /** Rows of a query already written for this dialect (from `toSql`). */
  allNative<T>(sql: string, params: readonly unknown[]): Promise<T[]>;
  /** Runs a statement written with `?` placeholders; resolves to the number of affected rows. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
  /** Runs `work` in one transaction; a thrown error rolls back. */
  transaction<T>(work: (tx: Db) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** `?` → `$1, $2, ...` (our statements never contain a literal `?`). */
export function toPostgresPlaceholders(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

// Driver failures that mean "the database is not reachable right now", as opposed to a bad query:
// connection errors (08), insufficient resources (53), shutdown (57P01-3), a statement cancelled by
// statement_timeout (57014) or a lock not granted within lock_timeout (55P03).
const PG_UNAVAILABLE = /^(08|53|57P0[1-3]|57014|55P03)/;
const NET_UNAVAILABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
]);

// SQLite's extended result codes, as node:sqlite reports them (`errcode`): a UNIQUE or PRIMARY KEY
// constraint, and SQLITE_BUSY (5) with its extended forms in the high bits.
const SQLITE_CONSTRAINT_UNIQUE = 2067;
const SQLITE_CONSTRAINT_PRIMARYKEY = 1555;
const SQLITE_BUSY = 5;

/**
 * Maps driver errors onto HTTP errors: a lost connection is 503 (retry later), a unique-constraint
 * violation is 409; anything else stays an internal error. The driver's message never reaches the client.
 */
export function mapDbError(error: unknown): unknown {
  if (typeof error !== 'object' || error === null) return error;
  const { code, errcode, message } = error as { code?: unknown; errcode?: unknown; message?: unknown };
  if (code === 'ERR_SQLITE_ERROR' && typeof errcode === 'number') {
    if (errcode === SQLITE_CONSTRAINT_UNIQUE || errcode === SQLITE_CONSTRAINT_PRIMARYKEY)
      return new HttpError('conflict', { cause: error });
    // Another connection held the lock for longer than busy_timeout.
    if ((errcode & 0xff) === SQLITE_BUSY)
      return new HttpError('service_unavailable', { cause: error, headers: { 'Retry-After': '1' } });
    return error;
  }
  if (typeof code === 'string') {
    if (code === '23505') return new HttpError('conflict', { cause: error });
    if (PG_UNAVAILABLE.test(code) || NET_UNAVAILABLE.has(code)) {
      return new HttpError('service_unavailable', { cause: error, headers: { 'Retry-After': '1' } });
    }
  }
  if (
    typeof message === 'string' &&
    // pg's own deadlines: `query_timeout` ("Query read timeout"), and `connectionTimeoutMillis` while
    // connecting or waiting for a pooled connection.
    /Connection terminated|Client has encountered a connection error|not queryable|Query read timeout|timeout exceeded when trying to connect/i.test(
      message,
    )
  ) {
    return new HttpError('service_unavailable', { cause: error, headers: { 'Retry-After': '1' } });
  }
  return error;
}

/**
 * SQLite through Node's own `node:sqlite` (`:memory:` or a file): no native addon to build, and nothing
 * to rebuild when Node is upgraded. Synchronous driver, promise interface.
 * `busyTimeoutMs` bounds how long a statement waits for a lock another process holds; the driver
 * waits synchronously, so the whole process waits with it: keep it short when several processes
 * share one file. Past it the statement fails with SQLITE_BUSY, answered 503.
 */
export function openSqlite(file: string, options: { busyTimeoutMs?: number } = {}): Db {
  // Loaded here rather than imported: on a Node without node:sqlite (20), a static import would fail
  // before main() could say which Node the service needs.
  const { DatabaseSync } = process.getBuiltinModule('node:sqlite');
  const database = new DatabaseSync(file);
  database.exec('PRAGMA journal_mode = WAL');
  database.exec('PRAGMA foreign_keys = ON');
  // A pragma rather than the constructor's `timeout` option, which Node 22 has only from 22.16.
  database.exec(`PRAGMA busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 5000)}`);
  const statements = new Map<string, StatementSync>();
  let queue: Promise<void> = Promise.resolve();
  const prepare = (sql: string) => {
    let statement = statements.get(sql);
    if (!statement) {
      statement = database.prepare(sql);
      if (statements.size < 500) statements.set(sql, statement);
    }
    return statement;
  };
  const db: Db = {
    dialect: 'sqlite',
    async all<T>(sql: string, params: readonly unknown[] = []) {
      try {
        return prepare(sql).all(...(params as SQLInputValue[])) as T[];
      } catch (error) {
        throw mapDbError(error);
      }
    },
    allNative<T>(sql: string, params: readonly unknown[]) {
      return db.all<T>(sql, params);
    },
    async run(sql: string, params: readonly unknown[] = []) {
      try {
        return Number(prepare(sql).run(...(params as SQLInputValue[])).changes);
      } catch (error) {
        throw mapDbError(error);
      }
    },
    async transaction<T>(work: (tx: Db) => Promise<T>) {
      // One connection, so transactions must not interleave: queue them. Plain statements from other
      // requests cannot slip in either, because the synchronous driver resolves every awaited call
      // in the same microtask run.
      const run = queue.then(async () => {
        try {
          database.exec('BEGIN IMMEDIATE');
        } catch (error) {
          throw mapDbError(error);
        }
        try {
          const result = await work(db);
          database.exec('COMMIT');
          return result;
        } catch (error) {
          database.exec('ROLLBACK');
          throw error;
        }
      });
      queue = run.then(
        () => undefined,
        () => undefined,
      );
      return run;
    },
    async close() {
      database.close();
    },
  };
  return db;
}

/** Deadlines of the PostgreSQL pool (ms). */
export interface PostgresTimeouts {
  /** One statement: server-side `statement_timeout` and the client-side read timeout. Default 5000. */
  readonly statementMs?: number;
  /** Connecting, or waiting for a free pooled connection. Default 2000. */
  readonly connectMs?: number;
}

/**
 * PostgreSQL through a pg pool. Connection losses become 503 and the pool reconnects by itself.
 * Every call has a deadline: the pool refuses to wait for a connection longer than `connectMs`; the
 * server cancels a statement (a lock wait included) after `statementMs`, and the client gives up on
 * an answer after the same time (a network path that swallows packets), dropping that connection.
 */
export function openPostgres(
  connectionString: string,
  options: { max?: number; schema?: string; timeouts?: PostgresTimeouts } = {},
): Db {
  const statementMs = options.timeouts?.statementMs ?? 5000;
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.timeouts?.connectMs ?? 2000,
    idleTimeoutMillis: 30_000,
    statement_timeout: statementMs,
    // Slightly later than the server's own deadline, so a lock wait ends with the server's cancel
    // (the connection stays usable) and only a silent network path ends with the client's.
    query_timeout: statementMs + 250,
    // A transaction left open by a stalled caller must not hold its locks for ever.
    idle_in_transaction_session_timeout: Math.max(statementMs * 2, 10_000),
    keepAlive: true,
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  });
  // An idle client losing its connection emits on the pool; without a listener that would crash.
  pool.on('error', () => {});
  // So does a client the pool has already dropped (after a failed query) when the server's
  // "terminating connection" message arrives after the failure: every client keeps a listener.
  // The failure itself reaches the caller through its query.
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
  const make = (query: (text: string, params: unknown[]) => Promise<pg.QueryResult>): Db => {
    const db: Db = {
      dialect: 'postgres',
      async all<T>(sql: string, params: readonly unknown[] = []) {
        return db.allNative<T>(toPostgresPlaceholders(sql), params);
      },
      async allNative<T>(sql: string, params: readonly unknown[]) {
        try {
          return (await query(sql, [...params])).rows as T[];
        } catch (error) {
          throw mapDbError(error);
        }
      },
      async run(sql: string, params: readonly unknown[] = []) {
        try {
          return (await query(toPostgresPlaceholders(sql), [...params])).rowCount ?? 0;
        } catch (error) {
          throw mapDbError(error);
        }
      },
      async transaction<T>(work: (tx: Db) => Promise<T>) {
        let client: pg.PoolClient;
        try {
          client = await pool.connect();
        } catch (error) {
          throw mapDbError(error);
        }
        let broken = false;
        // A checked-out client has no pool listener: a connection lost while the transaction waits
        // for the handler would otherwise be an unhandled 'error' event, and crash the process.
        const lost = () => {
          broken = true;
        };
        client.on('error', lost);
        try {
          await client.query('BEGIN');
          const result = await work(make((text, params) => client.query(text, params)));
          await client.query('COMMIT');
          return result;
        } catch (error) {
          const mapped = mapDbError(error);
          // A connection whose answer never came cannot be trusted with a ROLLBACK (it would wait
          // behind the lost reply); destroying it ends the transaction on the server.
          if (error instanceof Error && /Query read timeout|Connection terminated/i.test(error.message)) {
            broken = true;
          } else {
            await client.query('ROLLBACK').catch(() => {
              broken = true;
            });
          }
          throw mapped;
        } finally {
          // A destroyed client may still report its lost connection after the release: keep
          // listening then. A healthy one goes back to the pool, which listens while it is idle.
          if (!broken) client.removeListener('error', lost);
          client.release(broken);
        }
      },
      async close() {
        await pool.end();
      },
    };
    return db;
  };
  return make((text, params) => pool.query(text, params));
}
