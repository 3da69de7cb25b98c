/**
 * The versioned API on Hono: the route tables of api/routes/tables.ts, in order, mounted with
 * `@plumbline/contract`'s adapter, as on Express and Fastify. One app serves both versions: the
 * handlers' `version` is the one `versioning()` resolved (http/hono/app.ts), so under the path
 * strategy the same routes are mounted at `/v1` and `/v2`; the contract mount ignores the query
 * strategy's `version=` in the query.
 */
import { mount } from '@plumbline/contract/hono';
import { getApiVersion } from '@plumbline/versioning/hono';
import { type Context, Hono } from 'hono';
import { mountOptions } from '../../api/routes/common.js';
import { versionRouteTables } from '../../api/routes/tables.js';
import type { ApiVersion } from '../../domain/model.js';
import type { AppContext } from '../../service/context.js';

/** The version `versioning()` resolved for this request (http/hono/app.ts runs it before any route). */
export const versionOf = (c: Context): ApiVersion => Number(getApiVersion(c)) as ApiVersion;

/** The versioned routes, for both versions (mounted by http/hono/app.ts behind negotiation and authentication). */
export function versionRoutes(ctx: AppContext): Hono {
  const router = new Hono({ strict: true });
  const options = { ...mountOptions(ctx), context: (c: Context) => ({ version: versionOf(c) }) };
  for (const routes of versionRouteTables(ctx)) mount(router, routes, options);
  return router;
}
