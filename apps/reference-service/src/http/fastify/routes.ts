/**
 * The versioned API on Fastify 5: the route tables of api/routes/tables.ts, in order, mounted with
 * `@plumbline/contract`'s adapter as on Express and Hono. One plugin per version: http/fastify/app.ts
 * registers it under `/v1`, `/v2` (path strategy) or with the `apiVersion` route constraint (the other
 * strategies), so both versions share their paths. A path no route matches is 404 after the version's
 * own hooks, as the Express version router answers it.
 */
import { mount } from '@plumbline/contract/fastify';
import { HttpError } from '@plumbline/errors';
import type { FastifyPluginAsync, onRequestHookHandler, RouteOptions } from 'fastify';
import { mountOptions } from '../../api/routes/common.js';
import { ACCEPT_PATCH, versionRouteTables } from '../../api/routes/tables.js';
import type { ApiVersion } from '../../domain/model.js';
import type { AppContext } from '../../service/context.js';
import { expressBodies } from './http.js';

const acceptPatch: onRequestHookHandler = async (_request, reply) => {
  reply.header('Accept-Patch', ACCEPT_PATCH);
};

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
    const options = { ...mountOptions(ctx), context: () => ({ version }) };
    // Bodies as express.json reads them (http/fastify/http.ts), for the 404 of any other path at the
    // end (the mounted routes read their own).
    expressBodies(app, ctx.config.bodyLimitBytes);
    for (const table of versionRouteTables(ctx)) {
      const members = new Set(table.members);
      // Every answer on a member path (405 included) carries Accept-Patch.
      const routeOptions = (given: RouteOptions): RouteOptions => {
        const versioned = route(given);
        if (!members.has(given.url)) return versioned;
        const hooks = versioned.onRequest ?? [];
        return { ...versioned, onRequest: [acceptPatch, ...(Array.isArray(hooks) ? hooks : [hooks])] };
      };
      await mount(app, table.routes, { ...options, routeOptions });
    }
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
