/**
 * The versioned API on Express: every route, in order, as route → Plumbline middleware → neutral
 * handler (resources/*.ts) → send. The handlers read no request and write no response: this file
 * reads their input from the request and sends their {@link Outcome}, and does nothing else.
 *
 * http/fastify/routes.ts and http/hono/routes.ts map the same handlers with the same steps in the same order
 * per route (the order decides which error wins, e.g. 403 before 404 before 415 before 400); read
 * the three side by side. What each framework lacks and its wiring adds is said at the top of
 * http/fastify/http.ts (express.json's strict parser, `.all(methodNotAllowed)`) and http/hono/routes.ts (the
 * JSON body parser with express.json's 400/413/415 answers). The service's own steps (limits,
 * access log, metrics, the neutral routes) are neutral cores that all three call. The project, task
 * and comment routes are declared once (api/routes/projects.ts, tasks.ts, comments.ts) and mounted
 * with `@plumbline/contract`'s adapter, which runs the same steps in the same order; the searches
 * stay written out here.
 */
import { getPrincipal, requireScopes } from '@plumbline/auth/express';
import { mount } from '@plumbline/contract/express';
import { methodNotAllowed } from '@plumbline/errors/express';
import { idempotency } from '@plumbline/idempotency/express';
import { represent, requireContentType } from '@plumbline/negotiation/express';
import type { Collection } from '@plumbline/query-parser';
import { collectionQuery, getCollectionQuery, setPageHeaders } from '@plumbline/query-parser/express';
import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
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
import type { ApiStrategy } from '../../service/versioning.js';
import { exactRouter } from './reply.js';

/**
 * Runs `handler` with the version parameter taken out of `req.originalUrl` (`api.withoutVersion`),
 * so the strict collection query does not see it as an unknown parameter; the URL is restored
 * when `handler` passes the request on.
 */
function withoutVersionParameter(api: ApiStrategy, handler: RequestHandler): RequestHandler {
  if (api.strategy !== 'query') return handler;
  return (req, res, next) => {
    const { originalUrl } = req;
    req.originalUrl = api.withoutVersion(originalUrl);
    handler(req, res, (err?: unknown) => {
      req.originalUrl = originalUrl;
      next(err as Error | undefined);
    });
  };
}

/** Sends a handler's outcome: 204 empty, else the body in the negotiated type, after Location or the page headers. */
function send(res: Response, outcome: Outcome): void {
  if (outcome.status === 204) {
    res.status(204).end();
    return;
  }
  if (outcome.status === 201) res.location(outcome.location);
  else if (outcome.page) setPageHeaders(res, outcome.page);
  represent(res, outcome.body, outcome.status);
}

/** The route's handler: reads the neutral input from the request, runs the handler, sends its outcome. */
const handle =
  <I>(input: (req: Request) => I, handler: (input: I) => Promise<Outcome>): RequestHandler =>
  async (req, res) => {
    send(res, await handler(input(req)));
  };

/** A check that runs between middleware (the parent of a nested resource exists). */
const step =
  (check: (req: Request) => Promise<void>): RequestHandler =>
  async (req, _res, next) => {
    await check(req);
    next();
  };

export function versionRouter(ctx: AppContext, version: ApiVersion): Router {
  const { collections } = ctx;
  const router = exactRouter();
  // Links and the version parameter follow VERSIONING_STRATEGY (service/versioning.ts).
  const { api } = ctx;
  const deps = { repo: ctx.repo, db: ctx.db, links: api };
  const projects = projectHandlers(deps);
  const tasks = taskHandlers(deps);
  // The route tables (api/routes/) get the version this router serves as their `context`.
  const routeOptions = { ...mountOptions(ctx), context: () => ({ version }) };

  // The Plumbline middleware, configured once.
  const parsedQuery = (collection: Collection, options?: Parameters<typeof collectionQuery>[1]) =>
    withoutVersionParameter(api, collectionQuery(collection, options));
  const noQuery =
    (collection: Collection): RequestHandler =>
    (req, _res, next) => {
      assertNoQuery(api, collection, req.originalUrl);
      next();
    };
  const limit = ctx.config.bodyLimitBytes;
  // No content coding (`inflate: false`: gzip, deflate and br are 415 too), as on Fastify and Hono:
  // a body is read as sent, and a small compressed body cannot inflate past the limit unseen.
  const jsonBody: RequestHandler[] = [
    requireContentType('application/json'),
    express.json({ limit, type: 'application/json', inflate: false }),
  ];
  const principal = (req: Request) => getPrincipal(req)?.clientId;
  // Search POSTs use the shared store (the creating POSTs are declared in api/routes/).
  const stores = idempotencyStores(ctx);
  const idempotent = idempotency({ ...stores.shared, principal });
  const acceptPatch: RequestHandler = (_req, res, next) => {
    res.setHeader('Accept-Patch', 'application/merge-patch+json, application/json');
    next();
  };
  // The handlers' inputs, read from the request once the middleware ran.
  const route = (req: Request): RouteInput => ({ version, params: req.params });
  const listing =
    (collection: Collection) =>
    (req: Request): ListInput => ({
      ...route(req),
      query: getCollectionQuery(req, collection),
      path: `${req.baseUrl}${req.path}`,
    });

  /** POST …/search: a collection query in the body, read like a GET's query string. */
  const searchRoute = (
    path: string,
    scope: string,
    collection: Collection,
    list: (input: ListInput) => Promise<Outcome>,
    before: RequestHandler[] = [],
    options?: Parameters<typeof collectionQuery>[1],
  ) =>
    router
      .route(path)
      .post(
        requireScopes(scope),
        noQuery(collection),
        ...before,
        ...jsonBody,
        idempotent,
        parsedQuery(collection, options),
        handle(listing(collection), list),
      )
      .all(methodNotAllowed(['POST']));

  // Projects: the search first (its query is read from the body after the idempotency key is
  // taken), then the routes declared once in api/routes/projects.ts; every answer on one project
  // carries Accept-Patch.

  searchRoute('/projects/search', 'read:projects', collections.projects, projects.list);
  router.all(colonPath(PROJECT_MEMBER_PATH), acceptPatch);
  mount(router, projectRoutes(ctx), routeOptions);

  // Tasks: the searches first (their query is read from the body after the idempotency key is
  // taken, api/routes/tasks.ts), then the routes declared once in api/routes/tasks.ts; every answer
  // on one task carries Accept-Patch. A task of another project is 404.

  const existingProject = step((req) => tasks.requireProject(req.params));
  const ofProject = { scope: (req: Request) => tasks.projectScope(req.params) };
  searchRoute(
    '/projects/:projectId/tasks/search',
    'read:tasks',
    collections.tasks,
    tasks.list,
    [existingProject],
    ofProject,
  );
  searchRoute('/tasks/search', 'read:tasks', collections.tasks, tasks.list);
  router.all(TASK_MEMBER_PATHS.map(colonPath), acceptPatch);
  mount(router, taskRoutes(ctx), routeOptions);

  // Comments on a task (nesting stays at two levels: /tasks/{id}/comments, docs/conventions.md 4.1 (2)),
  // declared once in api/routes/comments.ts.
  mount(router, commentRoutes(ctx), routeOptions);

  return router;
}
