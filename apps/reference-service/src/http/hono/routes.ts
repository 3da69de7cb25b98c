/**
 * The versioned API on Hono: every route of http/express/routes.ts, in the same order, as route →
 * Plumbline middleware (`/hono` adapters) → neutral handler (resources/*.ts) → send. One app
 * serves both versions: the handlers' `version` is the one `versioning()` resolved (http/hono/app.ts),
 * so under the path strategy the same routes are mounted at `/v1` and `/v2`.
 * The project, task and comment routes (api/routes/projects.ts, tasks.ts, comments.ts) are mounted
 * with `@plumbline/contract`'s adapter, which hands them that version as its `context`; the
 * searches stay written out here.
 *
 * What Hono lacks is provided here: a JSON body parser with express.json's answers (see
 * {@link jsonBody}); the contract mount ignores the query strategy's `version=` in a GET's query.
 */
import { getPrincipal, requireScopes } from '@plumbline/auth/hono';
import { mount } from '@plumbline/contract/hono';
import { methodNotAllowed, requestPath } from '@plumbline/errors/hono';
import { idempotency } from '@plumbline/idempotency/hono';
import { jsonBody, represent, requireContentType } from '@plumbline/negotiation/hono';
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
import type { Outcome } from '../../api/representation.js';
import {
  assertNoQuery,
  idempotencyStores,
  type ListInput,
  type RouteInput,
} from '../../api/resources/common.js';
import { projectHandlers } from '../../api/resources/projects.js';
import { taskHandlers } from '../../api/resources/tasks.js';
import { commentRoutes } from '../../api/routes/comments.js';
import { colonPath, mountOptions } from '../../api/routes/common.js';
import { PROJECT_MEMBER_PATH, projectRoutes } from '../../api/routes/projects.js';
import { TASK_MEMBER_PATHS, taskRoutes } from '../../api/routes/tasks.js';
import type { ApiVersion } from '../../domain/model.js';
import type { AppContext } from '../../service/context.js';

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
  <I>(input: (c: Context) => I, handler: (input: I) => Promise<Outcome>): Handler =>
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
export function versionRoutes(ctx: AppContext): Hono {
  const { collections } = ctx;
  const router = new Hono({ strict: true });
  // Links and the version parameter follow VERSIONING_STRATEGY (service/versioning.ts).
  const { api } = ctx;
  const deps = { repo: ctx.repo, db: ctx.db, links: api };
  const projects = projectHandlers(deps);
  const tasks = taskHandlers(deps);
  // The route tables (api/routes/) get the version `versioning()` resolved as their `context`.
  const routeOptions = { ...mountOptions(ctx), context: (c: Context) => ({ version: versionOf(c) }) };

  // The Plumbline middleware, configured once.
  const noQuery =
    (collection: Collection): MiddlewareHandler =>
    async (c, next) => {
      assertNoQuery(api, collection, c.req.url);
      await next();
    };
  const limit = ctx.config.bodyLimitBytes;
  const jsonBodies = jsonBodyOf(limit, 'application/json');
  const principal = (c: Context) => getPrincipal(c)?.clientId;
  const stores = idempotencyStores(ctx);
  const idempotent = idempotency({ ...stores.shared, principal });
  const acceptPatch: MiddlewareHandler = async (c, next) => {
    c.header('Accept-Patch', 'application/merge-patch+json, application/json');
    await next();
  };
  // The handlers' inputs, read from the request once the middleware ran.
  const route = (c: Context): RouteInput => ({ version: versionOf(c), params: c.req.param() });
  const listing =
    (collection: Collection) =>
    (c: Context): ListInput => ({
      ...route(c),
      query: getCollectionQuery(c, collection),
      path: requestPath(c),
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
        collectionQuery(collection, options),
        handle(listing(collection), list),
      )
      .all(path, methodNotAllowed(['POST']));

  // Projects: the search first (its query is read from the body after the idempotency key is
  // taken; it answers before the member path's Accept-Patch), then the routes declared once in
  // api/routes/projects.ts, where every answer on one project carries Accept-Patch.

  searchRoute('/projects/search', 'read:projects', collections.projects, projects.list);
  router.use(colonPath(PROJECT_MEMBER_PATH), acceptPatch);
  mount(router, projectRoutes(ctx), routeOptions);

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
