/**
 * The version-neutral GET routes whose answer is a {@link PlainReply} (no negotiated
 * representation): `/health`, `/ready`, `/openapi.json`, `/.well-known/jwks.json`, `/errors`, the
 * deprecation pages, `/docs` with its script and assets, the stylesheet and `/metrics`. Declared
 * once here; each wiring mounts the list in one loop (`GET` the route, any other method 405 with
 * `Allow`), reading the request through a {@link NeutralRequest}. The routes that negotiate a
 * representation (`/`, `/errors/{code}`, the changelog) are a second list, {@link negotiatedRoutes},
 * mounted the same way behind the negotiation adapter; those that run a package's endpoint (OAuth,
 * the session) stay in the wirings.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import type { NegotiatorOptions } from '@plumbline/negotiation';
import { rawQueryOf } from '@plumbline/query-parser';
import { openapiFor } from '../openapi/versions.js';
import type { AppContext } from '../service/context.js';
import type { ServiceMetrics } from '../service/metrics.js';
import type { PlainReply } from '../service/plain-reply.js';
import { checkReadiness, notReady } from '../service/readiness.js';
import type { ApiStrategy } from '../service/versioning.js';
import { CHANGELOG_NEGOTIATION, CHANGELOG_PATHS, changelogBody } from './changelog.js';
import { ERROR_PAGE_NEGOTIATION, errorCatalogue, errorCodeDocument, TEXT_PAGES } from './docs.js';
import { createDocsUi, docsCodeFlow } from './docs-ui.js';
import { frontDoorBody, frontDoorNegotiation } from './front-door.js';
import { SITE_CSS_REPLY } from './html-pages.js';

/** What a neutral route reads from a request, whatever the framework. */
export interface NeutralRequest {
  /** Every value of a query parameter, in order (empty when it is absent). */
  readonly query: (name: string) => readonly string[];
  /** A request header (lower-case name). */
  readonly header: (name: string) => string | undefined;
  /** A path parameter (`:file`). */
  readonly param: (name: string) => string;
}

/**
 * A request as the neutral routes read it, from what every framework hands over: the request
 * target, Node's headers and the router's (decoded) path parameters. The query is read with
 * node:querystring, Express's `simple` query parser, on every framework.
 *
 * @example
 * ```ts
 * route.reply(neutralRequestOf(req.originalUrl, req.headers, req.params));
 * ```
 */
export function neutralRequestOf(
  url: string,
  headers: IncomingHttpHeaders,
  params: Readonly<Record<string, string | undefined>> | undefined,
): NeutralRequest {
  // Parsed on the first read: only `/openapi.json` reads its query.
  let query: ReturnType<typeof parseQuery> | undefined;
  return {
    query: (name) => {
      query ??= parseQuery(rawQueryOf(url));
      const value = query[name];
      return value === undefined ? [] : Array.isArray(value) ? value : [value];
    },
    header: (name) => {
      const value = headers[name];
      return Array.isArray(value) ? value.join(', ') : value;
    },
    param: (name) => params?.[name] ?? '',
  };
}

/** One neutral GET route: its path (`:name` for a parameter, as all three routers write it) and its answer. */
export interface NeutralRoute {
  readonly path: string;
  readonly reply: (request: NeutralRequest) => PlainReply | Promise<PlainReply>;
}

/** What the neutral routes answer from, built once at start. */
export interface NeutralSources {
  /** The whole document (`/openapi.json`). */
  readonly openapi: Record<string, unknown>;
  /** One document per version (`/openapi.json?version=`), `openapi/versions.ts`' `versionDocuments`. */
  readonly documents: ReadonlyMap<string, Record<string, unknown>>;
  readonly metrics: Pick<ServiceMetrics, 'render'>;
}

/** JSON as Express's `res.json` sends it. */
function jsonReply(data: unknown, headers: Readonly<Record<string, string>> = {}): PlainReply {
  return {
    status: 200,
    headers: { ...headers, 'Content-Type': 'application/json; charset=utf-8' },
    body: JSON.stringify(data),
  };
}

/**
 * The neutral GET routes of the service.
 *
 * @example
 * ```ts
 * for (const route of neutralRoutes(ctx, { openapi, documents, metrics })) router.get(route.path, async (req, res) => sendReply(res, await route.reply(view(req))));
 * ```
 */
export function neutralRoutes(ctx: AppContext, sources: NeutralSources): readonly NeutralRoute[] {
  const docs = createDocsUi({
    title: 'Plumbline reference service',
    demoApiKey: ctx.demoCredentials?.apiKeys.readOnly,
    codeFlow: docsCodeFlow(ctx.config),
  });
  return [
    { path: '/health', reply: () => jsonReply({ status: 'ok' }) },
    {
      path: '/ready',
      reply: async () => {
        const readiness = await checkReadiness(ctx);
        if (!readiness.ready) throw notReady(readiness);
        return jsonReply({ status: 'ready', checks: readiness.checks });
      },
    },
    {
      path: '/openapi.json',
      reply: (request) => {
        const sent = request.query('version');
        const version = sent.length === 0 ? undefined : sent.length === 1 ? sent[0] : sent;
        return jsonReply(openapiFor(sources.openapi, sources.documents, version));
      },
    },
    {
      path: '/.well-known/jwks.json',
      reply: () => jsonReply(ctx.issuer.jwks(), { 'Cache-Control': 'public, max-age=300' }),
    },
    {
      path: '/errors',
      reply: (request) => {
        // `Vary: Accept, Accept-Language` is the negotiation's (pages/unversioned.ts).
        const catalogue = errorCatalogue(request.header('accept-language'));
        return jsonReply(catalogue.body, { 'Content-Language': catalogue.language });
      },
    },
    ...Object.entries(TEXT_PAGES).map(([path, page]) => ({ path, reply: () => page })),
    { path: '/assets/site.css', reply: () => SITE_CSS_REPLY },
    { path: '/docs', reply: () => docs.page },
    { path: '/docs/init.js', reply: () => docs.init },
    { path: '/docs/assets/:file', reply: (request) => docs.asset(request.param('file')) },
    { path: '/metrics', reply: () => sources.metrics.render() },
  ];
}

/**
 * One neutral GET route that negotiates its representation (JSON, XML, Markdown or an HTML page, in
 * English or German): its path, the options of the wiring's negotiation adapter, and the body the
 * adapter's `represent` writes, with `PAGE_HEADERS` (pages/html-pages.ts).
 */
export interface NegotiatedRoute {
  readonly path: string;
  readonly negotiation: NegotiatorOptions;
  readonly body: (request: NeutralRequest) => unknown;
}

/**
 * The neutral routes that negotiate: the front door `/`, `/errors/:code` and the changelog.
 *
 * @example
 * ```ts
 * for (const route of negotiatedRoutes(openapi, ctx.api)) app.get(route.path, negotiate(route.negotiation), (c) => represent(c, route.body(view(c))));
 * ```
 */
export function negotiatedRoutes(
  openapi: Record<string, unknown>,
  api: ApiStrategy,
): readonly NegotiatedRoute[] {
  const language = (request: NeutralRequest) => request.header('accept-language');
  return [
    {
      path: '/',
      negotiation: frontDoorNegotiation(openapi),
      body: () => frontDoorBody(openapi, api, Date.now()),
    },
    {
      path: '/errors/:code',
      negotiation: ERROR_PAGE_NEGOTIATION,
      body: (request) => errorCodeDocument(request.param('code'), language(request)),
    },
    ...CHANGELOG_PATHS.map((path) => ({
      path,
      negotiation: CHANGELOG_NEGOTIATION,
      body: (request: NeutralRequest) => changelogBody(language(request)),
    })),
  ];
}
