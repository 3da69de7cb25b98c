/**
 * Tiny transaction runners over `node:sqlite` and `pg`, the shape an application's own data layer
 * has (autocommit statements plus `transaction(work)`), for the tests of the packages that write
 * inside the caller's transaction (`@plumbline/idempotency`'s SQL store, `@plumbline/contract`'s
 * `idempotencyTransaction`). Kept on its own entry point so test files that do not use a database do
 * not load `node:sqlite` or `pg`.
 */
import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import pg from 'pg';

/** One statement with `?` (SQLite) or `$n` (PostgreSQL) placeholders, resolving to its rows; structurally `@plumbline/idempotency`'s `SqlQuery`. */
export type SqlQuery = (
  sql: string,
  params: readonly unknown[],
) => Promise<readonly Record<string, unknown>[]>;

/** A database as an application's data layer has it: autocommit statements and `transaction(work)`. */
export interface TestDb {
  readonly dialect: 'sqlite' | 'postgres';
  /** Statement runner outside any transaction (autocommit). */
  readonly query: SqlQuery;
  transaction<T>(work: (query: SqlQuery) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** An in-memory SQLite database on one connection: transactions take turns, as SQLite's single writer does. */
export function sqliteDb(): TestDb {
  const db = new DatabaseSync(':memory:');
  const query: SqlQuery = async (sql, params) => {
    const statement = db.prepare(sql);
    const values = params as SQLInputValue[];
    // A statement that returns rows: a SELECT, or a write with RETURNING.
    if (statement.columns().length > 0) return statement.all(...values) as Record<string, unknown>[];
    statement.run(...values);
    return [];
  };
  let queue: Promise<unknown> = Promise.resolve();
  return {
    dialect: 'sqlite',
    query,
    transaction(work) {
      const run = queue.then(async () => {
        db.exec('BEGIN IMMEDIATE');
        try {
          const result = await work(query);
          db.exec('COMMIT');
          return result;
        } catch (error) {
          db.exec('ROLLBACK');
          throw error;
        }
      });
      queue = run.catch(() => undefined);
      return run;
    },
    async close() {
      db.close();
    },
  };
}

/** A PostgreSQL pool on `url` whose statements run in `schema` (the caller creates and drops it). */
export function postgresDb(url: string, schema: string): TestDb {
  const pool = new pg.Pool({ connectionString: url, max: 4, options: `-c search_path=${schema}` });
  const on =
    (client: pg.Pool | pg.PoolClient): SqlQuery =>
    async (sql, params) =>
      (await client.query(sql, [...params])).rows;
  return {
    dialect: 'postgres',
    query: on(pool),
    async transaction(work) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await work(on(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      } finally {
        client.release();
      }
    },
    async close() {
      await pool.end();
    },
  };
}
