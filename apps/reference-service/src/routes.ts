/**
 * The versioned API: projects, their tasks, and comments on tasks, in v1 and v2. Both versions
 * read and write the same rows; they differ only in the project `budget` (v1: a number, v2:
 * `{ amount, currency }`).
 */
import { getPrincipal, requireScopes } from '@plumbline/auth/express';
import { HttpError } from '@plumbline/errors';
import { methodNotAllowed } from '@plumbline/errors/express';
import type { SqlQuery } from '@plumbline/idempotency';
import { getTransaction, idempotency, idempotencyTransaction } from '@plumbline/idempotency/express';
import { represent, requireContentType } from '@plumbline/negotiation/express';
import {
  type Collection,
  type CollectionQuery,
  parseMemberQuery,
  rawQueryOf,
  toSql,
} from '@plumbline/query-parser';
import { collectionQuery, getCollectionQuery } from '@plumbline/query-parser/express';
import express, { type Request, type RequestHandler, type Response, Router } from 'express';
import { type ApiStrategy, apiStrategy } from './api-versioning.js';
import type { AppContext } from './context.js';
import {
  type ApiVersion,
  type CommentRow,
  commentRepresentation,
  type ProjectRow,
  projectRepresentation,
  selectFields,
  type TaskRow,
  taskRepresentation,
} from './domain/model.js';
import { commentInput, projectInput, taskInput } from './domain/schemas.js';
import { validateBody } from './domain/validation.js';
import { afterWrite, checkedRow, memberPreconditions, versionGuard } from './preconditions.js';
import { sendCollection, sendCreated } from './representation.js';
import type { Db } from './storage/db.js';
import { type Lookup, type ProjectData, Repository, type TaskData } from './storage/repository.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const READ_ONLY = ['id', 'created_at', 'updated_at', 'project_id', 'task_id', 'author'] as const;

/** The member a lookup found, or the error for what it found instead (410 for a tombstone, 404 else). */
function found<T>(lookup: Lookup<T>): T {
  if (lookup.state === 'found') return lookup.row;
  throw new HttpError(lookup.state === 'gone' ? 'gone' : 'not_found');
}

/** An id that is not a UUID can never name a member: 404 without a database round trip. */
function idParam(req: Request, name: string): string {
  const id = req.params[name];
  if (typeof id !== 'string' || !UUID.test(id)) throw new HttpError('not_found');
  return id.toLowerCase();
}

/** RFC 7396 JSON merge patch. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const result: Record<string, unknown> =
    typeof target === 'object' && target !== null && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

function withoutReadOnly(representation: Record<string, unknown>): Record<string, unknown> {
  const out = { ...representation };
  for (const key of READ_ONLY) delete out[key];
  return out;
}

function patchObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HttpError('validation_failed', {
      params: { count: 1 },
      errors: [{ pointer: '#', code: 'invalid_value', detail: 'A merge patch must be a JSON object.' }],
    });
  }
  return body as Record<string, unknown>;
}

function projectData(version: ApiVersion, body: unknown, current?: ProjectRow): ProjectData {
  const base = { description: null, status: 'active' as const };
  if (version === 1) {
    const input = validateBody(projectInput[1], body);
    const amount = input.budget ?? null;
    return {
      ...base,
      name: input.name,
      description: input.description ?? null,
      status: input.status ?? 'active',
      budget_amount: amount,
      // v1 clients cannot see or set a currency: keep the stored one, EUR for a new budget.
      budget_currency: amount === null ? null : (current?.budget_currency ?? 'EUR'),
    };
  }
  const input = validateBody(projectInput[2], body);
  return {
    name: input.name,
    description: input.description ?? null,
    status: input.status ?? 'active',
    budget_amount: input.budget?.amount ?? null,
    budget_currency: input.budget?.currency ?? null,
  };
}

function taskData(body: unknown): TaskData {
  const input = validateBody(taskInput, body);
  return {
    title: input.title,
    status: input.status ?? 'todo',
    priority: input.priority ?? 3,
    due_date: input.due_date ?? null,
  };
}

/** A list row carries field names (`budget` is the `budget_amount` column) plus `budget_currency`. */
function projectFromListRow(row: Record<string, unknown>): ProjectRow {
  return {
    ...(row as unknown as ProjectRow),
    budget_amount: (row['budget'] as number | null | undefined) ?? null,
  };
}

/**
 * A member GET's query: `fields=` selects members as on the collection; any other parameter is 400
 * `unknown_parameter`, never silently ignored (docs/design.md#d-filters).
 */
function memberFields(req: Request, collection: Collection, api: ApiStrategy): readonly string[] | undefined {
  return parseMemberQuery(collection, rawQueryOf(api.withoutVersion(req.originalUrl))).fields;
}

/**
 * Writes answer with the whole resource: there, every query parameter is 400 `unknown_parameter`
 * (but for `version=` under the query strategy).
 */
const noQueryWith =
  (api: ApiStrategy) =>
  (collection: Collection): RequestHandler =>
  (req, _res, next) => {
    parseMemberQuery(collection, rawQueryOf(api.withoutVersion(req.originalUrl)), { allowFields: false });
    next();
  };

export function versionRouter(ctx: AppContext, version: ApiVersion): Router {
  const { repo, db, collections } = ctx;
  const router = Router();
  // Links and the version parameter follow VERSIONING_STRATEGY (api-versioning.ts).
  const api = apiStrategy(ctx.config.versioningStrategy);
  const parsedQuery = (collection: Collection, options?: Parameters<typeof collectionQuery>[1]) =>
    api.withoutVersionParameter(collectionQuery(collection, options));
  const noQuery = noQueryWith(api);
  const limit = ctx.config.bodyLimitBytes;
  const jsonBody: RequestHandler[] = [
    requireContentType('application/json'),
    express.json({ limit, type: 'application/json' }),
  ];
  const patchBody: RequestHandler[] = [
    requireContentType('application/merge-patch+json', 'application/json'),
    express.json({ limit, type: ['application/merge-patch+json', 'application/json'] }),
  ];
  const principal = (req: Request) => getPrincipal(req)?.clientId;
  const leaseMs = ctx.config.idempotencyLeaseMs;
  // Search POSTs change nothing: the shared store (Redis or memory) is enough for them.
  const idempotent = idempotency({ store: ctx.idempotencyStore, principal, leaseMs });
  // Creating POSTs: with the database store, the key and the response are written in the same
  // transaction as the new row, so a crash commits both or neither (and the response is sent only
  // after the commit). With IDEMPOTENCY_STORE=shared, Redis (or memory) keeps them instead.
  const sqlStore = ctx.transactionalIdempotencyStore;
  const statements =
    (tx: Db): SqlQuery =>
    async (text, params) => {
      if (tx.dialect === 'postgres' || /^\s*SELECT|\bRETURNING\b/i.test(text))
        return tx.allNative(text, params);
      await tx.run(text, params);
      return [];
    };
  const creating = (required: boolean): RequestHandler =>
    sqlStore
      ? idempotencyTransaction<Db>({
          store: sqlStore,
          transaction: (work) => db.transaction(work),
          query: statements,
          principal,
          required,
        })
      : idempotency({ store: ctx.idempotencyStore, principal, required, leaseMs });
  const createOnce = creating(false);
  const createOnceRequired = creating(true);
  /** The repository writing in the request's idempotency transaction, when one is open. */
  const writer = (req: Request): Repository => {
    const tx = getTransaction<Db>(req);
    return tx ? new Repository(tx) : repo;
  };
  const acceptPatch: RequestHandler = (_req, res, next) => {
    res.setHeader('Accept-Patch', 'application/merge-patch+json, application/json');
    next();
  };
  // toSql compiles once per options object, so each table's options are made once here.
  const sql = {
    projects: { dialect: db.dialect, table: 'projects', extraColumns: ['budget_currency'] },
    tasks: { dialect: db.dialect, table: 'tasks' },
    comments: { dialect: db.dialect, table: 'comments' },
  } as const;

  async function list(
    req: Request,
    res: Response,
    collection: Collection,
    options: (typeof sql)[keyof typeof sql],
    toRepresentation: (row: Record<string, unknown>) => Record<string, unknown>,
  ): Promise<void> {
    const query: CollectionQuery = getCollectionQuery(req, collection);
    const statement = toSql(query, options);
    const rows = await db.allNative<Record<string, unknown>>(statement.text, statement.params);
    const total = query.count
      ? (await db.allNative<{ total: number | string }>(statement.countText, statement.countParams))[0]?.total
      : undefined;
    sendCollection(req, res, query, rows, total, toRepresentation, (url) => api.pageLink(version, url));
  }

  const asProject = (row: Record<string, unknown>) => projectRepresentation(projectFromListRow(row), version);
  const asTask = (row: Record<string, unknown>) => taskRepresentation(row as unknown as TaskRow);
  const asComment = (row: Record<string, unknown>) => commentRepresentation(row as unknown as CommentRow);
  const projectUrl = (id: string) => api.link(version, `/projects/${id}`);
  const taskUrl = (task: TaskRow) => api.link(version, `/projects/${task.project_id}/tasks/${task.id}`);

  // Projects

  router
    .route('/projects')
    .get(requireScopes('read:projects'), parsedQuery(collections.projects), (req, res) =>
      list(req, res, collections.projects, sql.projects, asProject),
    )
    .post(
      requireScopes('write:projects'),
      noQuery(collections.projects),
      ...jsonBody,
      createOnceRequired,
      async (req, res) => {
        const row = await writer(req).createProject(projectData(version, req.body));
        sendCreated(res, projectUrl(row.id), projectRepresentation(row, version));
      },
    )
    .all(methodNotAllowed(['GET', 'POST']));

  router
    .route('/projects/search')
    .post(
      requireScopes('read:projects'),
      noQuery(collections.projects),
      ...jsonBody,
      idempotent,
      parsedQuery(collections.projects),
      (req, res) => list(req, res, collections.projects, sql.projects, asProject),
    )
    .all(methodNotAllowed(['POST']));

  // Writes to a member evaluate If-Match / If-None-Match / If-Unmodified-Since (preconditions.ts).
  const requirePreconditions = ctx.config.requirePreconditions;
  const projectChecked = memberPreconditions<ProjectRow>(
    {
      load: async (req) => found(await repo.getProject(idParam(req, 'projectId'))),
      represent: (row) => projectRepresentation(row, version),
      modified: (row) => row.updated_at,
    },
    requirePreconditions,
  );

  router
    .route('/projects/:projectId')
    .all(acceptPatch)
    .get(requireScopes('read:projects'), async (req, res) => {
      const fields = memberFields(req, collections.projects, api);
      const row = found(await repo.getProject(idParam(req, 'projectId')));
      represent(res, selectFields(projectRepresentation(row, version), fields));
    })
    .put(
      requireScopes('write:projects'),
      noQuery(collections.projects),
      ...jsonBody,
      projectChecked,
      async (req, res) => {
        const id = idParam(req, 'projectId');
        const current = checkedRow<ProjectRow>(req);
        const updated = await repo.updateProject(
          id,
          projectData(version, req.body, current),
          versionGuard(req, current.updated_at),
        );
        represent(
          res,
          projectRepresentation(found(await afterWrite(req, updated, () => repo.getProject(id))), version),
        );
      },
    )
    .patch(
      requireScopes('write:projects'),
      noQuery(collections.projects),
      ...patchBody,
      projectChecked,
      async (req, res) => {
        const id = idParam(req, 'projectId');
        const current = checkedRow<ProjectRow>(req);
        const merged = mergePatch(
          withoutReadOnly(projectRepresentation(current, version)),
          patchObject(req.body),
        );
        const updated = await repo.updateProject(
          id,
          projectData(version, merged, current),
          versionGuard(req, current.updated_at),
        );
        represent(
          res,
          projectRepresentation(found(await afterWrite(req, updated, () => repo.getProject(id))), version),
        );
      },
    )
    .delete(
      requireScopes('write:projects'),
      noQuery(collections.projects),
      projectChecked,
      async (req, res) => {
        const id = idParam(req, 'projectId');
        const current = checkedRow<ProjectRow>(req);
        if (!(await repo.deleteProject(id, versionGuard(req, current.updated_at)))) {
          found(await afterWrite(req, undefined, () => repo.getProject(id)));
        }
        res.status(204).end();
      },
    )
    .all(methodNotAllowed(['GET', 'PUT', 'PATCH', 'DELETE']));

  // Tasks of a project

  const projectScope = (req: Request) => ({ project_id: idParam(req, 'projectId') });
  const existingProject: RequestHandler = async (req, _res, next) => {
    found(await repo.getProject(idParam(req, 'projectId')));
    next();
  };

  router
    .route('/projects/:projectId/tasks')
    .get(
      requireScopes('read:tasks'),
      existingProject,
      parsedQuery(collections.tasks, { scope: projectScope }),
      (req, res) => list(req, res, collections.tasks, sql.tasks, asTask),
    )
    .post(
      requireScopes('write:tasks'),
      noQuery(collections.tasks),
      existingProject,
      ...jsonBody,
      createOnce,
      async (req, res) => {
        const task = await writer(req).createTask(idParam(req, 'projectId'), taskData(req.body));
        sendCreated(res, taskUrl(task), taskRepresentation(task));
      },
    )
    .all(methodNotAllowed(['GET', 'POST']));

  router
    .route('/projects/:projectId/tasks/search')
    .post(
      requireScopes('read:tasks'),
      noQuery(collections.tasks),
      existingProject,
      ...jsonBody,
      idempotent,
      parsedQuery(collections.tasks, { scope: projectScope }),
      (req, res) => list(req, res, collections.tasks, sql.tasks, asTask),
    )
    .all(methodNotAllowed(['POST']));

  // One task, addressed under its project or directly (/tasks/{id}); a task of another project is 404.
  const taskOf = async (req: Request): Promise<TaskRow> => {
    const task = found(await repo.getTask(idParam(req, 'taskId')));
    if (req.params['projectId'] !== undefined && task.project_id !== idParam(req, 'projectId')) {
      throw new HttpError('not_found');
    }
    return task;
  };
  const taskChecked = memberPreconditions<TaskRow>(
    { load: taskOf, represent: taskRepresentation, modified: (row) => row.updated_at },
    requirePreconditions,
  );
  const taskMember = (path: string) =>
    router
      .route(path)
      .all(acceptPatch)
      .get(requireScopes('read:tasks'), async (req, res) => {
        const fields = memberFields(req, collections.tasks, api);
        represent(res, selectFields(taskRepresentation(await taskOf(req)), fields));
      })
      .put(
        requireScopes('write:tasks'),
        noQuery(collections.tasks),
        ...jsonBody,
        taskChecked,
        async (req, res) => {
          const task = checkedRow<TaskRow>(req);
          const updated = await repo.updateTask(
            task.id,
            taskData(req.body),
            versionGuard(req, task.updated_at),
          );
          represent(
            res,
            taskRepresentation(found(await afterWrite(req, updated, () => repo.getTask(task.id)))),
          );
        },
      )
      .patch(
        requireScopes('write:tasks'),
        noQuery(collections.tasks),
        ...patchBody,
        taskChecked,
        async (req, res) => {
          const task = checkedRow<TaskRow>(req);
          const merged = mergePatch(withoutReadOnly(taskRepresentation(task)), patchObject(req.body));
          const updated = await repo.updateTask(
            task.id,
            taskData(merged),
            versionGuard(req, task.updated_at),
          );
          represent(
            res,
            taskRepresentation(found(await afterWrite(req, updated, () => repo.getTask(task.id)))),
          );
        },
      )
      .delete(requireScopes('write:tasks'), noQuery(collections.tasks), taskChecked, async (req, res) => {
        const task = checkedRow<TaskRow>(req);
        if (!(await repo.deleteTask(task.id, versionGuard(req, task.updated_at)))) {
          found(await afterWrite(req, undefined, () => repo.getTask(task.id)));
        }
        res.status(204).end();
      })
      .all(methodNotAllowed(['GET', 'PUT', 'PATCH', 'DELETE']));
  taskMember('/projects/:projectId/tasks/:taskId');

  // All tasks

  router
    .route('/tasks')
    .get(requireScopes('read:tasks'), parsedQuery(collections.tasks), (req, res) =>
      list(req, res, collections.tasks, sql.tasks, asTask),
    )
    .all(methodNotAllowed(['GET']));
  router
    .route('/tasks/search')
    .post(
      requireScopes('read:tasks'),
      noQuery(collections.tasks),
      ...jsonBody,
      idempotent,
      parsedQuery(collections.tasks),
      (req, res) => list(req, res, collections.tasks, sql.tasks, asTask),
    )
    .all(methodNotAllowed(['POST']));
  taskMember('/tasks/:taskId');

  // Comments on a task (nesting stays at two levels: /tasks/{id}/comments, docs/conventions.md 4.1 (2))

  const taskScope = (req: Request) => ({ task_id: idParam(req, 'taskId') });
  const existingTask: RequestHandler = async (req, _res, next) => {
    found(await repo.getTask(idParam(req, 'taskId')));
    next();
  };
  const commentUrl = (comment: CommentRow) =>
    api.link(version, `/tasks/${comment.task_id}/comments/${comment.id}`);

  router
    .route('/tasks/:taskId/comments')
    .get(
      requireScopes('read:comments'),
      existingTask,
      parsedQuery(collections.comments, { scope: taskScope }),
      (req, res) => list(req, res, collections.comments, sql.comments, asComment),
    )
    .post(
      requireScopes('write:comments'),
      noQuery(collections.comments),
      existingTask,
      ...jsonBody,
      createOnce,
      async (req, res) => {
        const input = validateBody(commentInput, req.body);
        const author = getPrincipal(req)?.clientId ?? 'anonymous';
        const comment = await writer(req).createComment(idParam(req, 'taskId'), input.body, author);
        sendCreated(res, commentUrl(comment), commentRepresentation(comment));
      },
    )
    .all(methodNotAllowed(['GET', 'POST']));

  const commentChecked = memberPreconditions<CommentRow>(
    {
      load: async (req) => {
        const comment = found(await repo.getComment(idParam(req, 'commentId')));
        if (comment.task_id !== idParam(req, 'taskId')) throw new HttpError('not_found');
        return comment;
      },
      represent: commentRepresentation,
      modified: (row) => row.created_at,
    },
    requirePreconditions,
  );

  router
    .route('/tasks/:taskId/comments/:commentId')
    .get(requireScopes('read:comments'), async (req, res) => {
      const fields = memberFields(req, collections.comments, api);
      const comment = found(await repo.getComment(idParam(req, 'commentId')));
      if (comment.task_id !== idParam(req, 'taskId')) throw new HttpError('not_found');
      represent(res, selectFields(commentRepresentation(comment), fields));
    })
    .delete(
      requireScopes('write:comments'),
      noQuery(collections.comments),
      commentChecked,
      async (req, res) => {
        // Comments never change, so there is no version to race on: the first DELETE wins, the next is 410.
        const id = checkedRow<CommentRow>(req).id;
        if (!(await repo.deleteComment(id))) found(await repo.getComment(id));
        res.status(204).end();
      },
    )
    .all(methodNotAllowed(['GET', 'DELETE']));

  return router;
}
