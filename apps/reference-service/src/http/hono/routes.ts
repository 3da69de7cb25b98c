/**
 * The versioned API on Hono: every route of http/express/routes.ts, in the same order. One app
 * serves both versions: the handlers' `version` is the one `versioning()` resolved (http/hono/app.ts),
 * so under the path strategy the same routes are mounted at `/v1` and `/v2`.
 * The searches, project, task and comment routes (api/routes/searches.ts, projects.ts, tasks.ts,
 * comments.ts) are mounted with `@plumbline/contract`'s adapter, which hands them that version as
 * its `context` and reads their JSON bodies with express.json's answers; the contract mount
 * ignores the query strategy's `version=` in the query.
 */
import { mount } from '@plumbline/contract/hono';
import { getApiVersion } from '@plumbline/versioning/hono';
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { commentRoutes } from '../../api/routes/comments.js';
import { colonPath, mountOptions } from '../../api/routes/common.js';
import { PROJECT_MEMBER_PATH, projectRoutes } from '../../api/routes/projects.js';
import { searchRoutes } from '../../api/routes/searches.js';
import { TASK_MEMBER_PATHS, taskRoutes } from '../../api/routes/tasks.js';
import type { ApiVersion } from '../../domain/model.js';
import type { AppContext } from '../../service/context.js';

/** The version `versioning()` resolved for this request (http/hono/app.ts runs it before any route). */
export const versionOf = (c: Context): ApiVersion => Number(getApiVersion(c)) as ApiVersion;

/** The versioned routes, for both versions (mounted by http/hono/app.ts behind negotiation and authentication). */
export function versionRoutes(ctx: AppContext): Hono {
  const router = new Hono({ strict: true });
  // The route tables (api/routes/) get the version `versioning()` resolved as their `context`.
  const routeOptions = { ...mountOptions(ctx), context: (c: Context) => ({ version: versionOf(c) }) };
  const acceptPatch: MiddlewareHandler = async (c, next) => {
    c.header('Accept-Patch', 'application/merge-patch+json, application/json');
    await next();
  };

  // The searches first (api/routes/searches.ts): /projects/search and /tasks/search also fit the
  // member paths below, whose Accept-Patch and routes must not answer them.
  mount(router, searchRoutes(ctx), routeOptions);

  // Projects, declared once in api/routes/projects.ts; every answer on one project carries Accept-Patch.
  router.use(colonPath(PROJECT_MEMBER_PATH), acceptPatch);
  mount(router, projectRoutes(ctx), routeOptions);

  // Tasks, declared once in api/routes/tasks.ts; every answer on one task carries Accept-Patch.
  // A task of another project is 404.
  for (const path of TASK_MEMBER_PATHS) router.use(colonPath(path), acceptPatch);
  mount(router, taskRoutes(ctx), routeOptions);

  // Comments on a task (nesting stays at two levels: /tasks/{id}/comments, docs/conventions.md 4.1 (2)),
  // declared once in api/routes/comments.ts.
  mount(router, commentRoutes(ctx), routeOptions);

  return router;
}
