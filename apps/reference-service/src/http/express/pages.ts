/**
 * The version-neutral pages (pages/) on Express: `/`, `/errors/{code}` and the changelog, and the
 * request view of the neutral route table.
 * Each route reads the request, asks the neutral core and sends the plain answer it returns.
 */
import { methodNotAllowed } from '@plumbline/errors/express';
import { negotiate, represent } from '@plumbline/negotiation/express';
import type { Request, Router } from 'express';
import { PAGE_HEADERS } from '../../pages/html-pages.js';
import { type NegotiatedRoute, type NeutralRequest, neutralRequestOf } from '../../pages/neutral-routes.js';
import { exactRouter, headers } from './reply.js';

/**
 * The neutral routes that negotiate (`/`, `/errors/:code`, the changelog) on Express: negotiation,
 * `PAGE_HEADERS`, the body represented; any other method 405.
 *
 * @example
 * ```ts
 * neutral.use(negotiatedRouter(negotiatedRoutes(openapi, ctx.api)));
 * ```
 */
export function negotiatedRouter(routes: readonly NegotiatedRoute[]): Router {
  const router = exactRouter();
  for (const route of routes) {
    router
      .route(route.path)
      .get(negotiate(route.negotiation), headers(PAGE_HEADERS), (req, res) => {
        represent(res, route.body(neutralRequest(req)));
      })
      .all(methodNotAllowed(['GET']));
  }
  return router;
}

/** An Express request as the neutral routes read it (pages/neutral-routes.ts). */
export const neutralRequest = (req: Request): NeutralRequest =>
  neutralRequestOf(req.originalUrl, req.headers, req.params as Record<string, string>);
