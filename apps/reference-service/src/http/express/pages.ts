/**
 * The version-neutral pages (pages/) on Express: the method and negotiation contract of the neutral
 * routes, `/`, `/errors/{code}` and the changelog, and the request view of the neutral route table.
 * Each route reads the request, asks the neutral core and sends the plain answer it returns.
 */
import { methodNotAllowed } from '@plumbline/errors/express';
import { negotiate, represent } from '@plumbline/negotiation/express';
import type { Request, RequestHandler, Router } from 'express';
import { PAGE_HEADERS } from '../../pages/html-pages.js';
import type { NegotiatedRoute, NeutralRequest } from '../../pages/neutral-routes.js';
import { UNVERSIONED_ROUTES, unversionedRoute } from '../../pages/unversioned.js';
import { exactRouter, headers } from './reply.js';

/**
 * Method check and negotiation for the neutral routes on Express, in front of their handlers; any
 * other path passes through untouched.
 *
 * @example
 * ```ts
 * const neutral = Router();
 * neutral.use(unversionedContract());
 * ```
 */
export function unversionedContract(): RequestHandler {
  const negotiators = new Map(
    UNVERSIONED_ROUTES.map((route) => [route, route.negotiation && negotiate(route.negotiation)]),
  );
  return (req, res, next) => {
    const route = unversionedRoute(req.path);
    if (route === undefined) {
      next();
      return;
    }
    const answer = route.methodAnswer(req.method);
    if (answer !== undefined) {
      for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
      res.status(answer.status).end();
      return;
    }
    const negotiated = negotiators.get(route);
    if (negotiated === undefined) next();
    else negotiated(req, res, next);
  };
}

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
export function neutralRequest(req: Request): NeutralRequest {
  return {
    query: (name) => {
      const value = req.query[name];
      return value === undefined ? [] : Array.isArray(value) ? value.map(String) : [String(value)];
    },
    header: (name) => req.get(name),
    param: (name) => String(req.params[name] ?? ''),
  };
}
