/**
 * The version-neutral pages (pages/) on Express: the method and negotiation contract of the neutral
 * routes, `/` and its stylesheet, `/errors`, `/errors/{code}`, the deprecation pages and `/docs`.
 * Each route reads the request, asks the neutral core and sends the plain answer it returns.
 */
import { methodNotAllowed } from '@plumbline/errors/express';
import { negotiate, represent } from '@plumbline/negotiation/express';
import type { Request, RequestHandler, Response, Router } from 'express';
import { CHANGELOG_NEGOTIATION, CHANGELOG_PATHS, changelogBody } from '../../pages/changelog.js';
import { ERROR_PAGE_NEGOTIATION, errorCatalogue, errorCodeDocument, TEXT_PAGES } from '../../pages/docs.js';
import { createDocsUi, type DocsCodeFlow } from '../../pages/docs-ui.js';
import { frontDoorBody, frontDoorNegotiation } from '../../pages/front-door.js';
import { PAGE_HEADERS, SITE_CSS_REPLY } from '../../pages/html-pages.js';
import { UNVERSIONED_ROUTES, unversionedRoute } from '../../pages/unversioned.js';
import type { VersionEntry } from '../../service/versioning.js';
import { exactRouter, sendReply } from './reply.js';

type Json = Record<string, unknown>;

/** Serves `/assets/site.css` on Express ({@link SITE_CSS_REPLY}). */
const siteCss: RequestHandler = (_req, res) => {
  sendReply(res, SITE_CSS_REPLY);
};

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
 * `GET /` and the stylesheet of the service's HTML pages on Express.
 *
 * @example
 * ```ts
 * neutral.use(frontDoorRouter(openapi, API_VERSIONS));
 * ```
 */
export function frontDoorRouter(
  openapi: Json,
  versions: readonly VersionEntry[],
  href: (version: string) => string = (version) => `/v${version}`,
): Router {
  const router = exactRouter();
  const negotiated = negotiate(frontDoorNegotiation(openapi));
  router
    .route('/')
    .get(negotiated, htmlHeaders, (_req, res) => {
      represent(res, frontDoorBody(openapi, versions, href, Date.now()));
    })
    .all(methodNotAllowed(['GET']));
  router.get('/assets/site.css', siteCss);
  return router;
}

/** `/errors`, `/errors/{code}`, `/changelog` (and `/docs/changelog`) and {@link TEXT_PAGES} on Express. */
export function docsRouter(): Router {
  const router = exactRouter();
  router.get('/errors', (req: Request, res: Response) => {
    const catalogue = errorCatalogue(req.headers['accept-language']);
    res.setHeader('Content-Language', catalogue.language);
    res.vary('Accept-Language');
    res.json(catalogue.body);
  });
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
  for (const [path, reply] of Object.entries(TEXT_PAGES)) {
    router.get(path, (_req, res) => {
      sendReply(res, reply);
    });
  }
  return router;
}

/**
 * The `/docs` routes on Express ({@link createDocsUi}).
 *
 * @example
 * ```ts
 * neutral.use(docsUiRouter({ title: 'Plumbline reference service', demoApiKey: ctx.demoCredentials?.apiKeys.readOnly }));
 * ```
 */
export function docsUiRouter(options: {
  readonly title: string;
  readonly demoApiKey?: string | undefined;
  readonly codeFlow?: DocsCodeFlow | undefined;
}): Router {
  const ui = createDocsUi(options);
  const router = exactRouter();
  router
    .route('/docs')
    .get((_req, res) => {
      sendReply(res, ui.page);
    })
    .all(methodNotAllowed(['GET']));
  router
    .route('/docs/init.js')
    .get((_req, res) => {
      sendReply(res, ui.init);
    })
    .all(methodNotAllowed(['GET']));
  router
    .route('/docs/assets/:file')
    .get((req, res) => {
      for (const [name, value] of Object.entries(ui.headers)) res.setHeader(name, value);
      sendReply(res, ui.asset(String(req.params['file'])));
    })
    .all(methodNotAllowed(['GET']));
  return router;
}
