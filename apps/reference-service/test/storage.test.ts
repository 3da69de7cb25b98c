import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { isHttpError } from '@plumbline/errors';
import { DATABASE_URL, postgresAvailable, uniquePrefix } from '@plumbline/test-utils';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, mapDbError, openPostgres, openSqlite, toPostgresPlaceholders } from '../src/storage/db.js';
import { migrate } from '../src/storage/migrations.js';
import { Repository } from '../src/storage/repository.js';

const pgUp = await postgresAvailable();
const schema = uniquePrefix('refsvc').toLowerCase();

const project = {
  name: 'Apollo',
  description: null,
  status: 'active' as const,
  budget_amount: 1000,
  budget_currency: 'EUR',
};
const task = { title: 'Launch', status: 'todo' as const, priority: 3, due_date: '2026-12-01' };

function storageSuite(name: string, open: () => Promise<Db>) {
  describe(name, () => {
    let db: Db;
    let repo: Repository;
    beforeAll(async () => {
      db = await open();
      expect(await migrate(db)).toBe(3);
      expect(await migrate(db)).toBe(0);
      repo = new Repository(db);
    });
    afterAll(async () => {
      await db.close();
    });

    it('creates, reads, replaces a project; names are unique (409)', async () => {
      const created = await repo.createProject({ ...project, name: `${name}-a` });
      expect(await repo.getProject(created.id)).toEqual({ state: 'found', row: created });
      const updated = await repo.updateProject(created.id, {
        ...project,
        name: `${name}-b`,
        budget_amount: null,
      });
      expect(updated).toMatchObject({
        name: `${name}-b`,
        budget_amount: null,
        created_at: created.created_at,
      });
      const conflict = await repo.createProject({ ...project, name: `${name}-b` }).catch((e: unknown) => e);
      expect(isHttpError(conflict) && conflict.code).toBe('conflict');
      expect(await repo.updateProject('00000000-0000-4000-8000-000000000000', project)).toBeUndefined();
    });

    it('deleting a project tombstones it with its tasks and comments: gone, not missing', async () => {
      const p = await repo.createProject({ ...project, name: `${name}-del` });
      const t = await repo.createTask(p.id, task);
      const c = await repo.createComment(t.id, 'hello', 'client-1');
      expect(await repo.deleteProject(p.id)).toBe(true);
      expect(await repo.deleteProject(p.id)).toBe(false);
      expect(await repo.getProject(p.id)).toEqual({ state: 'gone' });
      expect(await repo.getTask(t.id)).toEqual({ state: 'gone' });
      expect(await repo.getComment(c.id)).toEqual({ state: 'gone' });
      expect(await repo.getProject('00000000-0000-4000-8000-000000000001')).toEqual({ state: 'missing' });
      // The name is free again.
      await expect(repo.createProject({ ...project, name: `${name}-del` })).resolves.toMatchObject({
        name: `${name}-del`,
      });
    });

    it('tasks and comments have their own lifecycle', async () => {
      const p = await repo.createProject({ ...project, name: `${name}-tasks` });
      const t = await repo.createTask(p.id, task);
      expect(await repo.updateTask(t.id, { ...task, priority: 5, due_date: null })).toMatchObject({
        priority: 5,
        due_date: null,
      });
      const c = await repo.createComment(t.id, 'note', 'me');
      expect(await repo.deleteComment(c.id)).toBe(true);
      expect(await repo.getComment(c.id)).toEqual({ state: 'gone' });
      expect(await repo.deleteTask(t.id)).toBe(true);
      expect(await repo.getTask(t.id)).toEqual({ state: 'gone' });
    });

    it('stores API keys and OAuth clients by hash only', async () => {
      await repo.insertApiKey(`${name}-hash`, 'client-1', 'read');
      expect(await repo.findApiKey(`${name}-hash`)).toEqual({
        client_id: 'client-1',
        access: 'read',
        revoked: 0,
      });
      expect(await repo.revokeApiKey(`${name}-hash`)).toBe(true);
      expect((await repo.findApiKey(`${name}-hash`))?.revoked).toBe(1);
      await repo.upsertClient('c1', 'h1', ['read:projects'], 'one');
      await repo.upsertClient('c1', 'h2', ['read:projects', 'write:projects'], 'one');
      expect(await repo.findClient('c1')).toEqual({
        client_id: 'c1',
        secret_hash: 'h2',
        scopes: 'read:projects write:projects',
      });
    });

    it('rolls a failed transaction back', async () => {
      const before = await repo.countProjects();
      await expect(
        db.transaction(async (tx) => {
          await tx.run(
            'INSERT INTO projects (id, name, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
            ['x', `${name}-rollback`, 'active', 'a', 'a'],
          );
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      expect(await repo.countProjects()).toBe(before);
    });
  });
}

storageSuite('sqlite', async () => openSqlite(':memory:'));

describe.skipIf(!pgUp)('postgres', () => {
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  beforeAll(async () => {
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
  });
  afterAll(async () => {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  });
  storageSuite('postgres repository', async () => openPostgres(DATABASE_URL, { schema, max: 2 }));

  it('a terminated connection is a 503, and the pool recovers by itself', async () => {
    const db = openPostgres(DATABASE_URL, { schema, max: 1 });
    try {
      const [backend] = await db.all<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await admin.query('SELECT pg_terminate_backend($1)', [backend!.pid]);
      const failure = await db.all('SELECT 1 AS one').catch((e: unknown) => e);
      if (isHttpError(failure)) expect([failure.status, failure.code]).toEqual([503, 'service_unavailable']);
      // Whether the broken socket was noticed on that query or before it, the next one works.
      await expect(db.all<{ one: number }>('SELECT 1 AS one')).resolves.toEqual([{ one: 1 }]);
    } finally {
      await db.close();
    }
  });

  it('concurrent migrations against one database apply once', async () => {
    const fresh = `${schema}_m`;
    await admin.query(`CREATE SCHEMA ${fresh}`);
    const dbs = [0, 1, 2].map(() => openPostgres(DATABASE_URL, { schema: fresh, max: 1 }));
    try {
      const applied = await Promise.all(dbs.map((db) => migrate(db)));
      expect(applied.sort()).toEqual([0, 0, 3]);
    } finally {
      await Promise.all(dbs.map((db) => db.close()));
      await admin.query(`DROP SCHEMA ${fresh} CASCADE`);
    }
  });
});

describe('driver errors', () => {
  it.each([
    ['unique violation (pg)', { code: '23505' }, 409],
    ['admin shutdown', { code: '57P01' }, 503],
    ['connection failure', { code: '08006' }, 503],
    ['refused', { code: 'ECONNREFUSED' }, 503],
    ['terminated', new Error('Connection terminated unexpectedly'), 503],
    ['statement_timeout cancelled the statement', { code: '57014' }, 503],
    ['lock_timeout', { code: '55P03' }, 503],
    ['pg client read timeout', new Error('Query read timeout'), 503],
    ['pool acquire timeout', new Error('timeout exceeded when trying to connect'), 503],
    ['connect timeout', new Error('Connection terminated due to connection timeout'), 503],
  ])('%s → %i', (_name, error, status) => {
    const mapped = mapDbError(error);
    expect(isHttpError(mapped) && mapped.status).toBe(status);
  });

  it('maps what node:sqlite throws: UNIQUE and PRIMARY KEY violations → 409, a lock held past busy_timeout → 503, a bad statement left alone', () => {
    const dir = mkdtempSync(join(tmpdir(), 'plumbline-sqlite-'));
    const file = join(dir, 'errors.db');
    const holder = new DatabaseSync(file);
    const waiter = new DatabaseSync(file, { timeout: 0 });
    const statusOf = (work: () => void) => {
      try {
        work();
      } catch (error) {
        const mapped = mapDbError(error);
        return isHttpError(mapped) ? mapped.status : `unmapped ${(error as Error).message}`;
      }
      return 'no error';
    };
    try {
      holder.exec('CREATE TABLE t (id TEXT PRIMARY KEY, name TEXT UNIQUE)');
      holder.exec("INSERT INTO t VALUES ('a', 'one')");
      holder.exec('BEGIN IMMEDIATE');
      expect({
        primaryKey: statusOf(() => holder.exec("INSERT INTO t VALUES ('a', 'two')")),
        unique: statusOf(() => holder.exec("INSERT INTO t VALUES ('b', 'one')")),
        busy: statusOf(() => waiter.exec("INSERT INTO t VALUES ('c', 'three')")),
        syntax: statusOf(() => holder.exec('SELEC 1')),
      }).toEqual({ primaryKey: 409, unique: 409, busy: 503, syntax: 'unmapped near "SELEC": syntax error' });
    } finally {
      holder.close();
      waiter.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('openSqlite: a write waiting on a lock another connection holds past busyTimeoutMs is 503, after about that long', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plumbline-sqlite-'));
    const file = join(dir, 'busy.db');
    const holder = openSqlite(file);
    const waiter = openSqlite(file, { busyTimeoutMs: 200 });
    try {
      await holder.run('CREATE TABLE t (id TEXT PRIMARY KEY)');
      const outcome = await holder.transaction(async (tx) => {
        await tx.run("INSERT INTO t VALUES ('held')");
        const started = performance.now();
        const status = await waiter.run("INSERT INTO t VALUES ('waits')").then(
          () => 'written',
          (error: unknown) => (isHttpError(error) ? error.status : String(error)),
        );
        return { status, waitedAtLeastTimeout: performance.now() - started >= 150 };
      });
      expect(outcome).toEqual({ status: 503, waitedAtLeastTimeout: true });
      expect(await waiter.all('SELECT id FROM t')).toEqual([{ id: 'held' }]);
    } finally {
      await holder.close();
      await waiter.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('leaves other errors alone', () => {
    const error = Object.assign(new Error('syntax error'), { code: '42601' });
    expect(mapDbError(error)).toBe(error);
  });

  it('rewrites placeholders for PostgreSQL', () => {
    expect(toPostgresPlaceholders('a = ? AND b = ?')).toBe('a = $1 AND b = $2');
  });
});
