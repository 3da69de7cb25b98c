/**
 * The versioned API on Hono: every route of http/express/routes.ts, in the same order, as route →
 * Plumbline middleware (`/hono` adapters) → neutral handler (resources/*.ts) → send. One app
 * serves both versions: the handlers' `version` is the one `versioning()` resolved (http/hono/app.ts),
 * so under the path strategy the same routes are mounted at `/v1` and `/v2`.
 * The task and comment routes (api/routes/tasks.ts, comments.ts) are mounted with
 * `@plumbline/contract`'s adapter, which hands them that version as its `context`.
 *
 * What Hono lacks is provided here: a JSON body parser with express.json's answers (see
 * {@link jsonBody}), and, under the query strategy, a collection query that does not see `version=`.
 */
import { getPrincipal, requireScopes } from '@plumbline/auth/hono';
import { mount } from '@plumbline/contract/hono';
import { methodNotAllowed, requestPath } from '@plumbline/errors/hono';
import { getTransaction, idempotency, idempotencyTransaction } from '@plumbline/idempotency/hono';
import {
  conditional,
  entityTagOf,
  getJsonBody,
  getPreconditions,
  jsonBody,
  represent,
  requireContentType,
} from '@plumbline/negotiation/hono';
import type { Collection } from '@plumbline/query-parser';
import {
  type CollectionQueryOptions,
  collectionQuery,
  getCollectionQuery,
  setPageHeaders,
} from '@plumbline/query-parser/hono';
import { getApiVersion } from '@plumbline/versioning/hono';
import { type Context, type Handler, Hono, type MiddlewareHandler } from 'hono';
import { every } from 'hono/combine';
import type { Checked, Member } from '../../api/preconditions.js';
import type { Outcome } from '../../api/representation.js';
import {
  assertNoQuery,
  type CreateInput,
  type EditableMemberHandlers,
  idempotencyStores,
  type ListInput,
  memberFields,
  type ReadInput,
  type RouteInput,
  type WriteInput,
} from '../../api/resources/common.js';
import { projectHandlers } from '../../api/resources/projects.js';
import { taskHandlers } from '../../api/resources/tasks.js';
import { commentRoutes } from '../../api/routes/comments.js';
import { colonPath, mountOptions } from '../../api/routes/common.js';
import { TASK_MEMBER_PATHS, taskRoutes } from '../../api/routes/tasks.js';
import type { ApiVersion } from '../../domain/model.js';
import type { AppContext } from '../../service/context.js';
import type { Db } from '../../storage/db.js';

/** What the versioned routes keep per request: the parsed body and the row the preconditions checked. */
export type ApiEnv = { Variables: { checkedRow: unknown } };

/** The version `versioning()` resolved for this request (http/hono/app.ts runs it before any route). */
export const versionOf = (c: Context): ApiVersion => Number(getApiVersion(c)) as ApiVersion;

/** Sends a handler's outcome: 204 empty, else the body in the negotiated type, after Location or the page headers. */
function send(c: Context, outcome: Outcome): Response {
  if (outcome.status === 204) return c.body(null, 204);
  if (outcome.status === 201) c.header('Location', outcome.location);
  else if (outcome.page) setPageHeaders(c, outcome.page);
  return represent(c, outcome.body, outcome.status);
}

/** The route's handler: reads the neutral input from the request, runs the handler, sends its outcome. */
const handle =
  <I>(input: (c: Context<ApiEnv>) => I, handler: (input: I) => Promise<Outcome>): Handler<ApiEnv> =>
  async (c) =>
    send(c, await handler(input(c)));

/** A check that runs between middleware (the parent of a nested resource exists). */
const step =
  (check: (c: Context) => Promise<void>): MiddlewareHandler =>
  async (c, next) => {
    await check(c);
    await next();
  };

const pass: MiddlewareHandler = (_c, next) => next();

/**
 * express.json's answers on Hono (@plumbline/negotiation/hono's `jsonBody`): the route's JSON types
 * only (415 with Accept-Post/Accept-Patch otherwise), more than `limit` bytes 413, a charset other
 * than UTF-8 or any Content-Encoding 415, anything but a JSON object or array 400 `malformed_json`;
 * an empty body is `{}`, no body `undefined`. Handlers read it with `getJsonBody(c)`.
 */
function jsonBodyOf(limit: number, ...types: string[]): MiddlewareHandler {
  return every(requireContentType(...types), jsonBody({ types, limit }));
}

/** The versioned routes, for both versions (mounted by http/hono/app.ts behind negotiation and authentication). */
export function versionRoutes(ctx: AppContext): Hono<ApiEnv> {
  const { collections } = ctx;
  const router = new Hono<ApiEnv>({ strict: true });
  // Links and the version parameter follow VERSIONING_STRATEGY (service/versioning.ts).
  const { api } = ctx;
  const deps = { repo: ctx.repo, db: ctx.db, links: api };
  const projects = projectHandlers(deps);
  const tasks = taskHandlers(deps);
  // The route tables (api/routes/) get the version `versioning()` resolved as their `context`.
  const routeOptions = { ...mountOptions(ctx), context: (c: Context) => ({ version: versionOf(c) }) };

  // The Plumbline middleware, configured once.
  // Under the query strategy the strict collection query must not see `version=`: it parses a
  // request URL without it (a GET has no body, so the request is cheap to copy).
  const parsedQuery = (collection: Collection, options?: CollectionQueryOptions): MiddlewareHandler => {
    const parse = collectionQuery(collection, options);
    if (api.strategy !== 'query') return parse;
    return async (c, next) => {
      if (c.req.method === 'POST') return parse(c, next);
      const raw = c.req.raw;
      c.req.raw = new Request(api.withoutVersion(raw.url), raw);
      try {
        await parse(c, async () => {
          c.req.raw = raw;
          await next();
        });
      } finally {
        c.req.raw = raw;
      }
    };
  };
  const noQuery =
    (collection: Collection): MiddlewareHandler =>
    async (c, next) => {
      assertNoQuery(api, collection, c.req.url);
      await next();
    };
  const limit = ctx.config.bodyLimitBytes;
  const jsonBodies = jsonBodyOf(limit, 'application/json');
  const patchBodies = jsonBodyOf(limit, 'application/merge-patch+json', 'application/json');
  const principal = (c: Context) => getPrincipal(c)?.clientId;
  const stores = idempotencyStores(ctx);
  const idempotent = idempotency({ ...stores.shared, principal });
  const { transactional } = stores;
  // POST /projects requires a key (the other creating POSTs are declared in api/routes/).
  const createOnceRequired: MiddlewareHandler = transactional
    ? idempotencyTransaction<Db>({ ...transactional, principal, required: true })
    : idempotency({ ...stores.shared, principal, required: true });
  const acceptPatch: MiddlewareHandler = async (c, next) => {
    c.header('Accept-Patch', 'application/merge-patch+json, application/json');
    await next();
  };
  // Writes to a member evaluate the preconditions against the representation a GET would send.
  const preconditions = <T>(member: Member<T>): MiddlewareHandler<ApiEnv> =>
    conditional({
      current: async (c) => {
        const row = await member.load(c.req.param());
        c.set('checkedRow', row);
        const modified = member.modified(row);
        return {
          etag: entityTagOf(c, member.represent(row, versionOf(c))),
          lastModified: modified === undefined ? undefined : Date.parse(modified),
        };
      },
      requirePrecondition: ctx.config.requirePreconditions,
    });
  const projectChecked = preconditions(projects.member);

  // The handlers' inputs, read from the request once the middleware ran.
  const route = (c: Context): RouteInput => ({ version: versionOf(c), params: c.req.param() });
  const listing =
    (collection: Collection) =>
    (c: Context): ListInput => ({
      ...route(c),
      query: getCollectionQuery(c, collection),
      path: requestPath(c),
    });
  const reading =
    (collection: Collection) =>
    (c: Context): ReadInput => ({ ...route(c), fields: memberFields(api, collection, c.req.url) });
  const creation = (c: Context<ApiEnv>): CreateInput => ({
    ...route(c),
    body: getJsonBody(c),
    principal: principal(c),
    transaction: getTransaction<Db>(c),
  });
  const checked = <T>(c: Context<ApiEnv>): Checked<T> => {
    const row = c.get('checkedRow');
    if (row === undefined) throw new Error('preconditions() must run before this handler');
    return { row: row as T, conditional: getPreconditions(c)?.conditional === true };
  };
  const writing = <T>(c: Context<ApiEnv>): WriteInput<T> => ({
    ...route(c),
    checked: checked<T>(c),
    body: getJsonBody(c),
  });

  /** POST …/search: a collection query in the body, read like a GET's query string. */
  const searchRoute = (
    path: string,
    scope: string,
    collection: Collection,
    list: (input: ListInput) => Promise<Outcome>,
    before: MiddlewareHandler = pass,
    options?: CollectionQueryOptions,
  ) =>
    router
      .post(
        path,
        requireScopes(scope),
        noQuery(collection),
        before,
        jsonBodies,
        idempotent,
        parsedQuery(collection, options),
        handle(listing(collection), list),
      )
      .all(path, methodNotAllowed(['POST']));

  /** A member clients read, replace, patch and delete (projects, tasks). */
  const editableMember = <T>(
    path: string,
    resource: 'projects' | 'tasks',
    handlers: EditableMemberHandlers<T>,
    checkedRow: MiddlewareHandler<ApiEnv>,
  ) => {
    const collection = collections[resource];
    const read = requireScopes(`read:${resource}`);
    const write = requireScopes(`write:${resource}`);
    const noQueryHere = noQuery(collection);
    return router
      .use(path, acceptPatch)
      .get(path, read, handle(reading(collection), handlers.read))
      .put(path, write, noQueryHere, jsonBodies, checkedRow, handle(writing<T>, handlers.replace))
      .patch(path, write, noQueryHere, patchBodies, checkedRow, handle(writing<T>, handlers.patch))
      .delete(path, write, noQueryHere, checkedRow, handle(writing<T>, handlers.remove))
      .all(path, methodNotAllowed(['GET', 'PUT', 'PATCH', 'DELETE']));
  };

  // Projects

  router
    .get(
      '/projects',
      requireScopes('read:projects'),
      parsedQuery(collections.projects),
      handle(listing(collections.projects), projects.list),
    )
    .post(
      '/projects',
      requireScopes('write:projects'),
      noQuery(collections.projects),
      jsonBodies,
      createOnceRequired,
      handle(creation, projects.create),
    )
    .all('/projects', methodNotAllowed(['GET', 'POST']));

  searchRoute('/projects/search', 'read:projects', collections.projects, projects.list);

  editableMember('/projects/:projectId', 'projects', projects, projectChecked);

  // Tasks: the searches (their query is read from the body after the idempotency key is taken),
  // and the routes declared once in api/routes/tasks.ts, where every answer on one task carries
  // Accept-Patch. A task of another project is 404.

  const existingProject = step((c) => tasks.requireProject(c.req.param()));
  const ofProject = { scope: (c: Context) => tasks.projectScope(c.req.param()) };
  searchRoute(
    '/projects/:projectId/tasks/search',
    'read:tasks',
    collections.tasks,
    tasks.list,
    existingProject,
    ofProject,
  );
  searchRoute('/tasks/search', 'read:tasks', collections.tasks, tasks.list);
  for (const path of TASK_MEMBER_PATHS) router.use(colonPath(path), acceptPatch);
  mount(router, taskRoutes(ctx), routeOptions);

  // Comments on a task (nesting stays at two levels: /tasks/{id}/comments, docs/conventions.md 4.1 (2)),
  // declared once in api/routes/comments.ts.
  mount(router, commentRoutes(ctx), routeOptions);

  return router;
}
