/**
 * Schema migrations, applied in order on start. Plain SQL that both SQLite and PostgreSQL accept:
 * timestamps are ISO-8601 UTC text (they sort correctly as text), ids are UUID text.
 */
import { createSqlStore } from '@plumbline/idempotency';
import type { Db, Dialect } from './db.js';

/** The table of idempotency records written inside each creating POST's transaction. */
export const IDEMPOTENCY_TABLE = 'idempotency_keys';

type Migration = readonly string[] | ((dialect: Dialect) => readonly string[]);

const MIGRATIONS: readonly Migration[] = [
  [
    `CREATE TABLE IF NOT EXISTS projects (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      description TEXT,
      status TEXT NOT NULL,
      budget_amount DOUBLE PRECISION,
      budget_currency TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`,
    'CREATE UNIQUE INDEX IF NOT EXISTS projects_name_key ON projects (name)',
    'CREATE INDEX IF NOT EXISTS projects_created_at_idx ON projects (created_at, id)',
    'CREATE INDEX IF NOT EXISTS projects_status_idx ON projects (status)',
    `CREATE TABLE IF NOT EXISTS tasks (
      id TEXT PRIMARY KEY,
      project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      title TEXT NOT NULL,
      status TEXT NOT NULL,
      priority INTEGER NOT NULL,
      due_date TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`,
    'CREATE INDEX IF NOT EXISTS tasks_project_idx ON tasks (project_id, created_at, id)',
    'CREATE INDEX IF NOT EXISTS tasks_priority_idx ON tasks (priority)',
    `CREATE TABLE IF NOT EXISTS comments (
      id TEXT PRIMARY KEY,
      task_id TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
      body TEXT NOT NULL,
      author TEXT NOT NULL,
      created_at TEXT NOT NULL
    )`,
    'CREATE INDEX IF NOT EXISTS comments_task_idx ON comments (task_id, created_at, id)',
    `CREATE TABLE IF NOT EXISTS tombstones (
      resource TEXT NOT NULL,
      id TEXT NOT NULL,
      deleted_at TEXT NOT NULL,
      PRIMARY KEY (resource, id)
    )`,
    `CREATE TABLE IF NOT EXISTS api_keys (
      hash TEXT PRIMARY KEY,
      client_id TEXT NOT NULL,
      access TEXT NOT NULL,
      revoked INTEGER NOT NULL DEFAULT 0,
      created_at TEXT NOT NULL
    )`,
    `CREATE TABLE IF NOT EXISTS oauth_clients (
      client_id TEXT PRIMARY KEY,
      secret_hash TEXT NOT NULL,
      scopes TEXT NOT NULL,
      name TEXT NOT NULL,
      created_at TEXT NOT NULL
    )`,
  ],
  // 2: idempotency records that commit (or roll back) with the row a POST creates.
  (dialect) => createSqlStore({ dialect, table: IDEMPOTENCY_TABLE }).schema(),
  // 3: indexes the collection queries can use at any size (issue #36). A status filter with the
  // default sort reads the page straight from (status, created_at, id) instead of sorting every
  // match (the old index on status alone is a prefix of it); /tasks across projects gets the
  // (created_at, id) index projects have, where it sorted every task for its first page. On
  // PostgreSQL the query-parser compares and orders text fields in the "C" collation, and an index
  // serves only comparisons in its own collation: the name and status indexes are made in "C", or
  // filters and sorts on them scan the table.
  (dialect) => {
    const c = dialect === 'postgres' ? ' COLLATE "C"' : '';
    return [
      ...(dialect === 'postgres'
        ? [
            'DROP INDEX IF EXISTS projects_name_key',
            'CREATE UNIQUE INDEX IF NOT EXISTS projects_name_key ON projects (name COLLATE "C")',
          ]
        : []),
      `CREATE INDEX IF NOT EXISTS projects_status_created_at_idx ON projects (status${c}, created_at, id)`,
      'DROP INDEX IF EXISTS projects_status_idx',
      'CREATE INDEX IF NOT EXISTS tasks_created_at_idx ON tasks (created_at, id)',
      `CREATE INDEX IF NOT EXISTS tasks_status_created_at_idx ON tasks (status${c}, created_at, id)`,
    ];
  },
];

/**
 * Applies every migration not yet recorded in `schema_migrations`, all in one transaction; returns how
 * many ran. Several instances may start at once against one PostgreSQL: the advisory lock lets the
 * first migrate while the others wait and then find everything recorded.
 */
export async function migrate(db: Db): Promise<number> {
  return db.transaction(async (tx) => {
    if (tx.dialect === 'postgres') await tx.all('SELECT pg_advisory_xact_lock(7102201) AS locked');
    await tx.run(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)',
    );
    const done = new Set(
      (await tx.all<{ version: number }>('SELECT version FROM schema_migrations')).map((r) =>
        Number(r.version),
      ),
    );
    let applied = 0;
    for (const [index, migration] of MIGRATIONS.entries()) {
      const version = index + 1;
      if (done.has(version)) continue;
      const statements = typeof migration === 'function' ? migration(tx.dialect) : migration;
      for (const statement of statements) await tx.run(statement);
      await tx.run('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)', [
        version,
        new Date().toISOString(),
      ]);
      applied += 1;
    }
    return applied;
  });
}
