/**
 * The versioned API on Fastify 5: the route tables of api/routes/tables.ts, in order, mounted with
 * `@plumbline/contract`'s adapter as on Express and Hono. One plugin per version: http/fastify/app.ts
 * registers it under `/v1`, `/v2` (path strategy) or with the `apiVersion` route constraint (the other
 * strategies), so both versions share their paths. A path no route matches is 404 after the version's
 * own hooks, as the Express version router answers it.
 */
import { mount } from '@plumbline/contract/fastify';
import { HttpError } from '@plumbline/errors';
import type { FastifyPluginAsync, RouteOptions } from 'fastify';
import { mountOptions } from '../../api/routes/common.js';
import { versionRouteTables } from '../../api/routes/tables.js';
import type { ApiVersion } from '../../domain/model.js';
import type { AppContext } from '../../service/context.js';

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
    const options = { ...mountOptions(ctx), context: () => ({ version }), routeOptions: route };
    for (const routes of versionRouteTables(ctx)) await mount(app, routes, options);
    // Any other path: 404 in onRequest, before a body is read, as Express reads none there.
    const notFound = async () => {
      throw new HttpError('not_found');
    };
    app.route(
      route({
        method: app.supportedMethods,
        url: '/*',
        exposeHeadRoute: false,
        onRequest: notFound,
        handler: notFound,
      }),
    );
  };
}
