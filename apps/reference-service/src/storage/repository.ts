/**
 * Persistence for projects, tasks and comments, written once over {@link Db} for SQLite and
 * PostgreSQL. Deleting a member leaves a tombstone, so a later request for it is told 410 Gone
 * rather than 404 (docs/design.md#d-delete).
 */
import { randomUUID } from 'node:crypto';
import type { CommentRow, ProjectRow, TaskRow } from '../domain/model.js';
import type { Db } from './db.js';

export type Resource = 'projects' | 'tasks' | 'comments';

/** What a lookup of one member found. */
export type Lookup<T> = { state: 'found'; row: T } | { state: 'gone' } | { state: 'missing' };

export interface ProjectData {
  name: string;
  description: string | null;
  status: ProjectRow['status'];
  budget_amount: number | null;
  budget_currency: string | null;
}

export interface TaskData {
  title: string;
  status: TaskRow['status'];
  priority: number;
  due_date: string | null;
}

const now = () => new Date().toISOString();

/**
 * How a write treats the version it read: `previous` is the `updated_at` the handler saw; with
 * `expected`, the row is written only if it still has that `updated_at` (a conditional request,
 * docs/design.md#d-conditional).
 */
export interface VersionGuard {
  readonly previous: string;
  readonly expected: string | undefined;
}

/** The next `updated_at`: now, but strictly after the version read, so every write is a new version. */
function nextVersion(guard: VersionGuard | undefined): string {
  const previous = guard === undefined ? Number.NEGATIVE_INFINITY : Date.parse(guard.previous);
  return new Date(Math.max(Date.now(), previous + 1)).toISOString();
}

/** The SQL condition and parameter that make a write apply only to the expected version. */
function versionCondition(guard: VersionGuard | undefined): [string, unknown[]] {
  return guard?.expected === undefined ? ['', []] : [' AND updated_at = ?', [guard.expected]];
}

export class Repository {
  constructor(readonly db: Db) {}

  private async lookup<T>(resource: Resource, row: T | undefined, id: string): Promise<Lookup<T>> {
    if (row) return { state: 'found', row };
    const tombstone = await this.db.all('SELECT id FROM tombstones WHERE resource = ? AND id = ?', [
      resource,
      id,
    ]);
    return tombstone.length > 0 ? { state: 'gone' } : { state: 'missing' };
  }

  /**
   * Deletes one member and leaves tombstones for it and for the dependants the cascade removes
   * (each listed by a query taking the member's id), in one transaction. False when it did not exist.
   */
  private remove(
    resource: Resource,
    id: string,
    dependants: readonly (readonly [Resource, string])[],
    guard?: VersionGuard,
  ): Promise<boolean> {
    const [condition, expected] = versionCondition(guard);
    return this.db.transaction(async (tx) => {
      const buried: (readonly [Resource, string])[] = [];
      for (const [child, sql] of dependants) {
        for (const row of await tx.all<{ id: string }>(sql, [id])) buried.push([child, row.id]);
      }
      if ((await tx.run(`DELETE FROM ${resource} WHERE id = ?${condition}`, [id, ...expected])) === 0) {
        return false;
      }
      const at = now();
      for (const [kind, removed] of [[resource, id] as const, ...buried]) {
        await tx.run('INSERT INTO tombstones (resource, id, deleted_at) VALUES (?, ?, ?)', [
          kind,
          removed,
          at,
        ]);
      }
      return true;
    });
  }

  // Projects

  async getProject(id: string): Promise<Lookup<ProjectRow>> {
    const [row] = await this.db.all<ProjectRow>('SELECT * FROM projects WHERE id = ?', [id]);
    return this.lookup('projects', row, id);
  }

  async createProject(data: ProjectData): Promise<ProjectRow> {
    const at = now();
    const row: ProjectRow = { id: randomUUID(), ...data, created_at: at, updated_at: at };
    await this.db.run(
      'INSERT INTO projects (id, name, description, status, budget_amount, budget_currency, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      [
        row.id,
        row.name,
        row.description,
        row.status,
        row.budget_amount,
        row.budget_currency,
        row.created_at,
        row.updated_at,
      ],
    );
    return row;
  }

  /**
   * Replaces the stored fields; resolves to undefined when the project no longer exists (or, with a
   * guard's `expected` version, no longer has it).
   */
  async updateProject(id: string, data: ProjectData, guard?: VersionGuard): Promise<ProjectRow | undefined> {
    const [condition, expected] = versionCondition(guard);
    const changed = await this.db.run(
      `UPDATE projects SET name = ?, description = ?, status = ?, budget_amount = ?, budget_currency = ?, updated_at = ? WHERE id = ?${condition}`,
      [
        data.name,
        data.description,
        data.status,
        data.budget_amount,
        data.budget_currency,
        nextVersion(guard),
        id,
        ...expected,
      ],
    );
    if (changed === 0) return undefined;
    const [row] = await this.db.all<ProjectRow>('SELECT * FROM projects WHERE id = ?', [id]);
    return row;
  }

  /** Deletes a project with its tasks and their comments, leaving tombstones for all of them. */
  deleteProject(id: string, guard?: VersionGuard): Promise<boolean> {
    return this.remove(
      'projects',
      id,
      [
        ['tasks', 'SELECT id FROM tasks WHERE project_id = ?'],
        ['comments', 'SELECT c.id FROM comments c JOIN tasks t ON t.id = c.task_id WHERE t.project_id = ?'],
      ],
      guard,
    );
  }

  // Tasks

  async getTask(id: string): Promise<Lookup<TaskRow>> {
    const [row] = await this.db.all<TaskRow>('SELECT * FROM tasks WHERE id = ?', [id]);
    return this.lookup('tasks', row, id);
  }

  async createTask(projectId: string, data: TaskData): Promise<TaskRow> {
    const at = now();
    const row: TaskRow = { id: randomUUID(), project_id: projectId, ...data, created_at: at, updated_at: at };
    await this.db.run(
      'INSERT INTO tasks (id, project_id, title, status, priority, due_date, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      [
        row.id,
        row.project_id,
        row.title,
        row.status,
        row.priority,
        row.due_date,
        row.created_at,
        row.updated_at,
      ],
    );
    return row;
  }

  async updateTask(id: string, data: TaskData, guard?: VersionGuard): Promise<TaskRow | undefined> {
    const [condition, expected] = versionCondition(guard);
    const changed = await this.db.run(
      `UPDATE tasks SET title = ?, status = ?, priority = ?, due_date = ?, updated_at = ? WHERE id = ?${condition}`,
      [data.title, data.status, data.priority, data.due_date, nextVersion(guard), id, ...expected],
    );
    if (changed === 0) return undefined;
    const [row] = await this.db.all<TaskRow>('SELECT * FROM tasks WHERE id = ?', [id]);
    return row;
  }

  deleteTask(id: string, guard?: VersionGuard): Promise<boolean> {
    return this.remove('tasks', id, [['comments', 'SELECT id FROM comments WHERE task_id = ?']], guard);
  }

  // Comments

  async getComment(id: string): Promise<Lookup<CommentRow>> {
    const [row] = await this.db.all<CommentRow>('SELECT * FROM comments WHERE id = ?', [id]);
    return this.lookup('comments', row, id);
  }

  async createComment(taskId: string, body: string, author: string): Promise<CommentRow> {
    const row: CommentRow = { id: randomUUID(), task_id: taskId, body, author, created_at: now() };
    await this.db.run('INSERT INTO comments (id, task_id, body, author, created_at) VALUES (?, ?, ?, ?, ?)', [
      row.id,
      row.task_id,
      row.body,
      row.author,
      row.created_at,
    ]);
    return row;
  }

  deleteComment(id: string): Promise<boolean> {
    return this.remove('comments', id, []);
  }

  // Credentials

  async insertApiKey(hash: string, clientId: string, access: 'read' | 'read-write'): Promise<void> {
    await this.db.run(
      'INSERT INTO api_keys (hash, client_id, access, revoked, created_at) VALUES (?, ?, ?, 0, ?)',
      [hash, clientId, access, now()],
    );
  }

  async findApiKey(
    hash: string,
  ): Promise<{ client_id: string; access: string; revoked: number } | undefined> {
    const [row] = await this.db.all<{ client_id: string; access: string; revoked: number }>(
      'SELECT client_id, access, revoked FROM api_keys WHERE hash = ?',
      [hash],
    );
    return row;
  }

  async revokeApiKey(hash: string): Promise<boolean> {
    return (await this.db.run('UPDATE api_keys SET revoked = 1 WHERE hash = ?', [hash])) > 0;
  }

  async upsertClient(
    clientId: string,
    secretHash: string,
    scopes: readonly string[],
    name: string,
  ): Promise<void> {
    await this.db.run('DELETE FROM oauth_clients WHERE client_id = ?', [clientId]);
    await this.db.run(
      'INSERT INTO oauth_clients (client_id, secret_hash, scopes, name, created_at) VALUES (?, ?, ?, ?, ?)',
      [clientId, secretHash, scopes.join(' '), name, now()],
    );
  }

  async findClient(
    clientId: string,
  ): Promise<{ client_id: string; secret_hash: string; scopes: string } | undefined> {
    const [row] = await this.db.all<{ client_id: string; secret_hash: string; scopes: string }>(
      'SELECT client_id, secret_hash, scopes FROM oauth_clients WHERE client_id = ?',
      [clientId],
    );
    return row;
  }

  async countProjects(): Promise<number> {
    const [row] = await this.db.all<{ n: number | string }>('SELECT COUNT(*) AS n FROM projects');
    return Number(row?.n ?? 0);
  }
}
