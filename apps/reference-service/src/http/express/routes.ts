/**
 * The versioned API on Express: the route tables of api/routes/tables.ts, in order, mounted with
 * `@plumbline/contract`'s adapter, which runs each route's steps (scopes, query, body type, body,
 * idempotency, preconditions, handler) in the same order on every framework; the order decides which
 * error wins, e.g. 403 before 404 before 415 before 400. http/fastify/routes.ts and
 * http/hono/routes.ts mount the same list.
 */
import { mount } from '@plumbline/contract/express';
import type { Router } from 'express';
import { mountOptions } from '../../api/routes/common.js';
import { versionRouteTables } from '../../api/routes/tables.js';
import type { ApiVersion } from '../../domain/model.js';
import type { AppContext } from '../../service/context.js';
import { exactRouter } from './reply.js';

export function versionRouter(ctx: AppContext, version: ApiVersion): Router {
  const router = exactRouter();
  // The route tables get the version this router serves as their `context`.
  const options = { ...mountOptions(ctx), context: () => ({ version }) };
  for (const routes of versionRouteTables(ctx)) mount(router, routes, options);
  return router;
}
