/**
 * The version-neutral pages (pages/) on Express: the method and negotiation contract of the neutral
 * routes, `/`, `/errors/{code}` and the changelog, and the request view of the neutral route table.
 * Each route reads the request, asks the neutral core and sends the plain answer it returns.
 */
import { methodNotAllowed } from '@plumbline/errors/express';
import { negotiate, represent } from '@plumbline/negotiation/express';
import type { Request, RequestHandler, Response, Router } from 'express';
import { CHANGELOG_NEGOTIATION, CHANGELOG_PATHS, changelogBody } from '../../pages/changelog.js';
import { ERROR_PAGE_NEGOTIATION, errorCodeDocument } from '../../pages/docs.js';
import { frontDoorBody, frontDoorNegotiation } from '../../pages/front-door.js';
import { PAGE_HEADERS } from '../../pages/html-pages.js';
import type { NeutralRequest } from '../../pages/neutral-routes.js';
import { UNVERSIONED_ROUTES, unversionedRoute } from '../../pages/unversioned.js';
import type { ApiStrategy } from '../../service/versioning.js';
import { exactRouter } from './reply.js';

type Json = Record<string, unknown>;

/** Sets {@link PAGE_HEADERS} on Express. */
const htmlHeaders: RequestHandler = (_req, res, next) => {
  for (const [name, value] of Object.entries(PAGE_HEADERS)) res.setHeader(name, value);
  next();
};

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
 * `GET /` on Express.
 *
 * @example
 * ```ts
 * neutral.use(frontDoorRouter(openapi, ctx.api));
 * ```
 */
export function frontDoorRouter(openapi: Json, api: ApiStrategy): Router {
  const router = exactRouter();
  const negotiated = negotiate(frontDoorNegotiation(openapi));
  router
    .route('/')
    .get(negotiated, htmlHeaders, (_req, res) => {
      represent(res, frontDoorBody(openapi, api, Date.now()));
    })
    .all(methodNotAllowed(['GET']));
  return router;
}

/** `/errors/{code}` and `/changelog` (and `/docs/changelog`) on Express: the neutral pages that negotiate. */
export function docsRouter(): Router {
  const router = exactRouter();
  const errorDoc = negotiate(ERROR_PAGE_NEGOTIATION);
  router.get('/errors/:code', errorDoc, htmlHeaders, (req: Request, res: Response) => {
    represent(res, errorCodeDocument(req.params['code'], req.headers['accept-language']));
  });
  const changelogNegotiation = negotiate(CHANGELOG_NEGOTIATION);
  for (const path of CHANGELOG_PATHS) {
    router.get(path, changelogNegotiation, htmlHeaders, (req: Request, res: Response) => {
      represent(res, changelogBody(req.headers['accept-language']));
    });
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
