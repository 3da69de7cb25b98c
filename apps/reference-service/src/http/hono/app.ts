/**
 * The reference service on Hono 4 (@hono/node-server): the pipeline of src/pipeline.ts in the order
 * http/express/app.ts runs it, with the `/hono` adapters of every Plumbline package.
 *
 *   metrics → request id → version headers (a refused version waits) → OPTIONS * → access log →
 *   HTTPS check → query length → failure rate limit (not /health, /ready) → neutral routes →
 *   the refused version, if any → v1 | v2: negotiation (406) → authentication (401/403) →
 *   rate limit per principal (429) → the route tables (http/hono/routes.ts) → 404 → problem documents
 */
import type { IncomingMessage, RequestListener } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import {
  authenticate,
  closeSessionEndpoint,
  getPrincipal,
  openSessionEndpoint,
  requireHttps,
  revocationEndpoint,
  tokenEndpoint,
} from '@plumbline/auth/hono';
import { cors } from '@plumbline/cors/hono';
import {
  getRequestId,
  methodNotAllowed,
  problemDetails,
  requestPath,
  setResponseHeaders,
} from '@plumbline/errors/hono';
import { negotiate, notModified, represent } from '@plumbline/negotiation/hono';
import { rawQueryOf } from '@plumbline/query-parser';
import { addressKey, principalKey } from '@plumbline/rate-limit';
import { rateLimit } from '@plumbline/rate-limit/hono';
import { telemetry } from '@plumbline/telemetry/hono';
import { getApiVersion, getResolvedVersion, refuseVersion, versioning } from '@plumbline/versioning/hono';
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import { SUPPORTED_VERSIONS } from '../../domain/versions.js';
import { PAGE_HEADERS } from '../../pages/html-pages.js';
import { type NeutralRequest, neutralRequestOf } from '../../pages/neutral-routes.js';
import { unversionedNegotiation } from '../../pages/unversioned.js';
import { servicePipeline } from '../../pipeline.js';
import { type AppContext, apiAuthentication } from '../../service/context.js';
import { checkQueryLength, NO_STORE_HEADERS, NO_STORE_PATHS, PROBES } from '../../service/limits.js';
import { createAccessLogger } from '../../service/logging.js';
import type { PlainReply } from '../../service/plain-reply.js';
import { serverWideOptionsReply } from '../../service/request-target.js';
import { TELEMETRY_OPTIONS, versionSource } from '../../service/telemetry.js';
import { versionOf, versionRoutes } from './routes.js';

type Env = { Bindings: HttpBindings };
type C = Context<Env>;

/** Sends a neutral core's answer as it is. */
const reply = (c: Context, answer: PlainReply) => {
  for (const [name, value] of Object.entries(answer.headers)) c.header(name, value);
  if (answer.status === 204) return c.body(null, 204);
  return c.body(answer.body as string, answer.status as 200);
};

/** A Hono request as the neutral routes read it (pages/neutral-routes.ts). */
const neutralRequest = (c: Context): NeutralRequest =>
  neutralRequestOf(c.env.incoming.url ?? '/', c.env.incoming.headers, c.req.param());

/**
 * Sets headers, then goes on. On @hono/node-server they go to Node's response, which keeps the
 * server's fast path for the handler's answer (@plumbline/errors/hono).
 */
const headers =
  (set: Readonly<Record<string, string>>): MiddlewareHandler =>
  async (c, next) => {
    setResponseHeaders(c, set);
    await next();
  };

/**
 * Request targets Hono cannot route as they are, sent on in a form it can and put back for the
 * app's own steps: `*` (OPTIONS *, asterisk-form), from which @hono/node-server builds no URL, and
 * a path segment `*` (`GET /*`), for which Hono's TrieRouter runs every middleware twice. No route
 * serves either form.
 */
const STAR_SEGMENT = /(?<=\/)(?:\*|%2a)(?=\/|$)/gi;
const received = new WeakMap<IncomingMessage, string>();

function routable(req: IncomingMessage): void {
  const target = req.url ?? '';
  const mark = target.indexOf('?');
  const path = mark < 0 ? target : target.slice(0, mark);
  const safe = path === '*' ? '/%252A' : path.replace(STAR_SEGMENT, '%252A');
  if (safe === path) return;
  received.set(req, target);
  req.url = safe + (mark < 0 ? '' : target.slice(mark));
}

/**
 * Builds the service on Hono and returns its Node request listener.
 *
 * @example
 * ```ts
 * createServer(await createHonoListener(ctx, logger), config).listen(config.port, config.host);
 * ```
 */
export async function createHonoListener(ctx: AppContext, logger: Logger): Promise<RequestListener> {
  const { api } = ctx;
  const pipeline = servicePipeline(ctx, logger);
  const { metrics, proxies, limiters } = pipeline;
  const app = new Hono<Env>({ strict: true });
  const ip = (c: C) =>
    proxies.clientAddress(c.env.incoming.socket.remoteAddress, c.env.incoming.headers['x-forwarded-for']);
  if (pipeline.telemetryRoute) {
    const route = pipeline.telemetryRoute;
    app.use(
      telemetry({
        ...TELEMETRY_OPTIONS,
        principal: getPrincipal,
        apiVersion: getApiVersion,
        apiVersionSource: (c) => versionSource(api.strategy, getResolvedVersion(c)),
        route: (c) => route(c.req.path),
        // client.address: the rate limiter's client address (TRUST_PROXY), not the socket's.
        clientAddress: ip,
      }),
    );
  }
  app.use(async (c, next) => {
    const { incoming, outgoing } = c.env;
    incoming.url = received.get(incoming) ?? incoming.url;
    // The response's headers are read from Hono's response (@hono/node-server hands them to writeHead)
    // and from Node's.
    metrics.track(
      incoming,
      outgoing,
      incoming.url?.split('?')[0] ?? '/',
      // Plumbline's version headers go on Node's response (@plumbline/errors/hono), the rest on Hono's.
      (name) => c.res.headers.get(name) ?? outgoing.getHeader(name),
      () => getApiVersion(c),
    );
    await next();
  });
  // A current 200 GET or HEAD becomes 304, and a HEAD answer carries its GET's Content-Length, as
  // Node writes them for Express and Fastify (@plumbline/negotiation's notModified).
  app.use(notModified());
  const problems = problemDetails({
    onError: ({ error, original, req: c }) =>
      pipeline.onError({ error, original, incoming: (c as C).env.incoming, requestId: getRequestId(c) }),
  });
  app.use(problems.middleware);
  app.onError(problems.onError);
  app.notFound(problems.notFound);

  // Version headers go on before anything can refuse the request; a version the policy refuses is
  // refused after the neutral routes (refuseVersion), where http/express/app.ts's versionedRouter does.
  app.use(versioning(api.policy, { refuse: false }));
  app.use(async (c, next) => {
    const answer = serverWideOptionsReply(c.req.method, c.env.incoming.url);
    return answer ? reply(c, answer) : next();
  });
  const ids = new WeakMap<IncomingMessage, string>();
  const accessLog = createAccessLogger(logger, (req) => ids.get(req), proxies);
  app.use(async (c, next) => {
    const { incoming } = c.env;
    ids.set(incoming, getRequestId(c) ?? '-');
    // The line shows the parsed query (credentials masked) as on Express, whose `simple` parser
    // is node:querystring; read only when the line is written.
    Object.defineProperty(incoming, 'query', { get: () => parseQuery(rawQueryOf(incoming.url ?? '')) });
    accessLog(incoming, c.env.outgoing);
    await next();
  });
  if (pipeline.hsts) app.use(headers(pipeline.hsts));
  // Preflights are answered here; every later answer, a refusal included, carries the CORS headers.
  if (pipeline.cors) app.use(cors(pipeline.cors));
  app.use(requireHttps(pipeline.https));
  app.use(async (c, next) => {
    checkQueryLength(c.env.incoming.url ?? '');
    await next();
  });
  for (const path of NO_STORE_PATHS) app.use(path, headers(NO_STORE_HEADERS));

  // Failed requests count per client address, before authentication; the principal limit after it.
  app.use(
    rateLimit(limiters.failures, {
      key: (c) => addressKey(ip(c)),
      skip: (c) => PROBES.has(requestPath(c)),
    }),
  );
  const principalLimit = rateLimit(limiters.principal, {
    key: (c) => principalKey(getPrincipal(c)?.clientId, ip(c)),
  });

  // The neutral routes: GET behind its negotiation (pages/unversioned.ts), every other method 405.
  for (const route of pipeline.neutral) {
    const negotiated = unversionedNegotiation(route.path);
    app
      .get(route.path, negotiated ? negotiate(negotiated) : (_c, next) => next(), async (c) =>
        reply(c, await route.reply(neutralRequest(c))),
      )
      .all(route.path, methodNotAllowed(['GET']));
  }
  const clients = ctx.findClient;
  app
    .post('/oauth/token', principalLimit, tokenEndpoint({ issuer: ctx.issuer, clients }))
    .all('/oauth/token', methodNotAllowed(['POST']));
  const revocation = { clients, issuer: ctx.issuer, verifier: ctx.verifier, revocation: ctx.revocation };
  app
    .post('/oauth/revoke', principalLimit, revocationEndpoint(revocation))
    .all('/oauth/revoke', methodNotAllowed(['POST']));
  if (ctx.session) {
    const session = ctx.session;
    app
      .post('/session', authenticate({ jwt: ctx.verifier }), principalLimit, openSessionEndpoint(session))
      .delete(
        '/session',
        authenticate({ cookie: session.authenticate }),
        principalLimit,
        closeSessionEndpoint(session),
      )
      .all('/session', methodNotAllowed(['POST', 'DELETE']));
  }
  // The neutral routes that negotiate (`/`, `/errors/:code`, the changelog).
  for (const route of pipeline.negotiated) {
    app
      .get(route.path, negotiate(route.negotiation), headers(PAGE_HEADERS), (c) =>
        represent(c, route.body(neutralRequest(c))),
      )
      .all(route.path, methodNotAllowed(['GET']));
  }

  // Past the neutral routes, a refused version is answered.
  app.use(refuseVersion());

  const negotiators = new Map(
    SUPPORTED_VERSIONS.map((version) => [version, negotiate(pipeline.negotiation(version))]),
  );
  const versioned = new Hono<Env>({ strict: true });
  versioned.use((c, next) => negotiators.get(versionOf(c))!(c, next));
  versioned.use(authenticate(apiAuthentication(ctx)));
  versioned.use(principalLimit);
  versioned.route('/', versionRoutes(ctx));
  if (api.strategy === 'path') for (const version of SUPPORTED_VERSIONS) app.route(`/v${version}`, versioned);
  else app.route('/', versioned);

  // Node itself reads and discards a body the app left unread (a 413, a 401 before the body), as
  // under Express; @hono/node-server's own clean-up gives up after 500 ms and closes the connection.
  const listener = getRequestListener(app.fetch, { autoCleanupIncoming: false });
  return (req, res) => {
    routable(req);
    void listener(req, res);
  };
}
