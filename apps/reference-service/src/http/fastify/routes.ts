/**
 * The versioned API on Fastify 5: the routes of http/express/routes.ts, in the same order, each as
 * route → Plumbline hooks → neutral handler (resources/*.ts) → send. The steps run in Express's
 * order per route: `onRequest` hooks (scopes, query check, parent exists, body type) before the
 * body is parsed, `preHandler` hooks (idempotency, preconditions) after it.
 *
 * One plugin per version: http/fastify/app.ts registers it under `/v1`, `/v2` (path strategy) or with
 * the `apiVersion` route constraint (the other strategies), so both versions share their paths.
 * Every path answers its other methods with 405 (OPTIONS 204) after the version's own hooks, and
 * a path no route matches is 404 there too, as the Express version router does. The project, task
 * and comment routes (api/routes/projects.ts, tasks.ts, comments.ts) and the searches
 * (api/routes/searches.ts) are mounted with `@plumbline/contract`'s adapter, under the same constraint.
 */
import { mount } from '@plumbline/contract/fastify';
import { HttpError } from '@plumbline/errors';
import type { FastifyPluginAsync, onRequestHookHandler, RouteOptions } from 'fastify';
import { commentRoutes } from '../../api/routes/comments.js';
import { colonPath, mountOptions } from '../../api/routes/common.js';
import { PROJECT_MEMBER_PATH, projectRoutes } from '../../api/routes/projects.js';
import { searchRoutes } from '../../api/routes/searches.js';
import { TASK_MEMBER_PATHS, taskRoutes } from '../../api/routes/tasks.js';
import type { ApiVersion } from '../../domain/model.js';
import type { AppContext } from '../../service/context.js';
import { expressBodies } from './http.js';

/**
 * The routes of one API version as a Fastify plugin. The scope registering it has the version's
 * prefix (path strategy), negotiation, authentication and per-principal rate limit; `route` adds
 * the version's constraint (the other strategies) to every route.
 */
export function versionRoutes(
  ctx: AppContext,
  version: ApiVersion,
  route: (options: RouteOptions) => RouteOptions,
): FastifyPluginAsync {
  return async (app) => {
    // The route tables (api/routes/) get the version of this plugin as their `context`.
    const routeOptions = { ...mountOptions(ctx), context: () => ({ version }) };
    // Bodies as express.json reads them (http/fastify/http.ts), up to BODY_LIMIT_BYTES, for the 404
    // of any other path at the end (the mounted routes read their own).
    expressBodies(app, ctx.config.bodyLimitBytes);
    const acceptPatch: onRequestHookHandler = async (_request, reply) => {
      reply.header('Accept-Patch', 'application/merge-patch+json, application/json');
    };

    // The searches (api/routes/searches.ts), first as on Express and Hono; Fastify's router
    // prefers /projects/search and /tasks/search to the member paths, which carry Accept-Patch.
    await mount(app, searchRoutes(ctx), { ...routeOptions, routeOptions: route });

    // Projects, declared once in api/routes/projects.ts; every answer on one project carries Accept-Patch.
    // The member paths of the route tables: every answer there (405 included) carries Accept-Patch.
    const members = new Set([PROJECT_MEMBER_PATH, ...TASK_MEMBER_PATHS].map(colonPath));
    const withAcceptPatch = (options: RouteOptions): RouteOptions => {
      const versioned = route(options);
      if (!members.has(options.url)) return versioned;
      const hooks = versioned.onRequest ?? [];
      return { ...versioned, onRequest: [acceptPatch, ...(Array.isArray(hooks) ? hooks : [hooks])] };
    };
    await mount(app, projectRoutes(ctx), { ...routeOptions, routeOptions: withAcceptPatch });

    // Tasks, declared once in api/routes/tasks.ts; every answer on one task carries Accept-Patch.
    // A task of another project is 404.
    await mount(app, taskRoutes(ctx), { ...routeOptions, routeOptions: withAcceptPatch });

    // Comments on a task (nesting stays at two levels: /tasks/{id}/comments, docs/conventions.md 4.1 (2)),
    // declared once in api/routes/comments.ts.
    await mount(app, commentRoutes(ctx), { ...routeOptions, routeOptions: route });

    // Any other path of the version: 404, after the version's negotiation and authentication.
    app.route(
      route({
        method: app.supportedMethods,
        url: '/*',
        exposeHeadRoute: false,
        handler: async () => {
          throw new HttpError('not_found');
        },
      }),
    );
  };
}
