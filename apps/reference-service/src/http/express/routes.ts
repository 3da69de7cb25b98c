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
 * with `@plumbline/contract`'s adapter, which runs the same steps in the same order; so are the
 * searches (api/routes/searches.ts), mounted first.
 */
import { mount } from '@plumbline/contract/express';
import type { RequestHandler, Router } from 'express';
import { commentRoutes } from '../../api/routes/comments.js';
import { colonPath, mountOptions } from '../../api/routes/common.js';
import { PROJECT_MEMBER_PATH, projectRoutes } from '../../api/routes/projects.js';
import { searchRoutes } from '../../api/routes/searches.js';
import { TASK_MEMBER_PATHS, taskRoutes } from '../../api/routes/tasks.js';
import type { ApiVersion } from '../../domain/model.js';
import type { AppContext } from '../../service/context.js';
import { exactRouter } from './reply.js';

export function versionRouter(ctx: AppContext, version: ApiVersion): Router {
  const router = exactRouter();
  // The route tables (api/routes/) get the version this router serves as their `context`.
  const routeOptions = { ...mountOptions(ctx), context: () => ({ version }) };
  const acceptPatch: RequestHandler = (_req, res, next) => {
    res.setHeader('Accept-Patch', 'application/merge-patch+json, application/json');
    next();
  };

  // The searches first (api/routes/searches.ts): /projects/search and /tasks/search also fit the
  // member paths below, whose Accept-Patch and routes must not answer them.
  mount(router, searchRoutes(ctx), routeOptions);

  // Projects, declared once in api/routes/projects.ts; every answer on one project carries Accept-Patch.
  router.all(colonPath(PROJECT_MEMBER_PATH), acceptPatch);
  mount(router, projectRoutes(ctx), routeOptions);

  // Tasks, declared once in api/routes/tasks.ts; every answer on one task carries Accept-Patch.
  // A task of another project is 404.
  router.all(TASK_MEMBER_PATHS.map(colonPath), acceptPatch);
  mount(router, taskRoutes(ctx), routeOptions);

  // Comments on a task (nesting stays at two levels: /tasks/{id}/comments, docs/conventions.md 4.1 (2)),
  // declared once in api/routes/comments.ts.
  mount(router, commentRoutes(ctx), routeOptions);

  return router;
}
