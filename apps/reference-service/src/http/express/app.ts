/**
 * The reference service's Express app: the pipeline of src/pipeline.ts, each step with its Plumbline
 * adapter or a line of Express. Kept apart from `main.ts` so tests drive exactly the app production runs.
 *
 *   telemetry → metrics → request id → version headers → OPTIONS * → access log → HSTS → CORS → HTTPS
 *   check → query length → no-store → failure rate limit → neutral routes → v1 | v2 (read as
 *   VERSIONING_STRATEGY says): negotiation (406) → authentication (401/403) → rate limit per principal
 *   (429) → the route tables (http/express/routes.ts) → 404 → problem documents for every error
 */
import {
  authenticate,
  closeSessionEndpoint,
  getPrincipal,
  openSessionEndpoint,
  requireHttps,
  revocationEndpoint,
  tokenEndpoint,
} from '@plumbline/auth/express';
import { cors } from '@plumbline/cors/express';
import {
  errorHandler,
  getRequestId,
  methodNotAllowed,
  notFoundHandler,
  requestId,
} from '@plumbline/errors/express';
import { negotiate, notModified } from '@plumbline/negotiation/express';
import { addressKey, principalKey } from '@plumbline/rate-limit';
import { rateLimit } from '@plumbline/rate-limit/express';
import { telemetry } from '@plumbline/telemetry/express';
import {
  getApiVersion,
  getResolvedVersion,
  versionedRouter,
  versioning,
} from '@plumbline/versioning/express';
import express, { type Express, type Request, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import { SUPPORTED_VERSIONS } from '../../domain/versions.js';
import { unversionedNegotiation } from '../../pages/unversioned.js';
import { servicePipeline } from '../../pipeline.js';
import { type AppContext, apiAuthentication } from '../../service/context.js';
import { checkQueryLength, NO_STORE_HEADERS, NO_STORE_PATHS, PROBES } from '../../service/limits.js';
import { createAccessLogger } from '../../service/logging.js';
import { serverWideOptionsReply } from '../../service/request-target.js';
import { TELEMETRY_OPTIONS, versionSource } from '../../service/telemetry.js';
import { negotiatedRouter, neutralRequest } from './pages.js';
import { exactRouter, headers, sendReply } from './reply.js';
import { versionRouter } from './routes.js';

export function createApp(ctx: AppContext, logger: Logger): Express {
  const { api } = ctx;
  const pipeline = servicePipeline(ctx, logger);
  const { metrics, proxies, limiters } = pipeline;
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  // No automatic weak ETag: representations that have one compute it (api/preconditions.ts), the same
  // on every framework; Fastify and Hono send none elsewhere, so Express does not either.
  app.set('etag', false);
  // Paths match exactly, as on Fastify and Hono: /PROJECTS and /projects/ are 404 (http/express/reply.ts).
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  // res.send's 304 decision is the one every route makes on Fastify and Hono, not the `fresh`
  // package's, which ignores If-None-Match under `Cache-Control: no-cache` (as fetch revalidates).
  notModified(app);
  // Express's `trust proxy` stays off, so `req.ip` is the socket's peer and is not used.
  const clientIp = (req: Request) =>
    proxies.clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for']);

  if (pipeline.telemetryRoute) {
    const route = pipeline.telemetryRoute;
    app.use(
      telemetry({
        ...TELEMETRY_OPTIONS,
        principal: getPrincipal,
        apiVersion: getApiVersion,
        apiVersionSource: (req) => versionSource(api.strategy, getResolvedVersion(req)),
        route: (req) => route(req.originalUrl.split('?', 1)[0]!),
        // client.address: the rate limiter's client address (TRUST_PROXY), not `req.ip`.
        clientAddress: clientIp,
      }),
    );
  }
  app.use((req, res, next) => {
    metrics.track(req, res, req.originalUrl.split('?')[0] ?? '/', undefined, () => getApiVersion(req));
    next();
  });
  app.use(requestId());
  // Version headers go on before anything can refuse the request (HTTPS, query length, the per-IP
  // limit): every response carries API-Supported-Versions, and v1's its Deprecation, Sunset and
  // Link. A version the policy refuses is refused later, by versionedRouter, in its usual place.
  app.use(versioning(api.policy, { refuse: false }));
  app.use((req, res, next) => {
    const answer = serverWideOptionsReply(req.method, req.url);
    if (answer === undefined) return next();
    for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
    res.status(answer.status).end();
  });
  const accessLog = createAccessLogger(logger, (req) => getRequestId(req as Request), proxies);
  app.use((req, res, next) => {
    accessLog(req, res);
    next();
  });
  if (pipeline.hsts) app.use(headers(pipeline.hsts));
  // Preflights are answered here; every later answer, a refusal included, carries the CORS headers.
  if (pipeline.cors) app.use(cors(pipeline.cors));
  app.use(requireHttps(pipeline.https));
  app.use((req, _res, next) => {
    checkQueryLength(req.originalUrl);
    next();
  });
  app.use([...NO_STORE_PATHS], headers(NO_STORE_HEADERS));
  // Failed requests count per client address, before authentication; the principal limit after it.
  app.use(
    rateLimit(limiters.failures, {
      key: (req) => addressKey(clientIp(req)),
      skip: (req) => PROBES.has(req.path),
    }),
  );
  const principalLimit = rateLimit(limiters.principal, {
    key: (req) => principalKey(getPrincipal(req)?.clientId, clientIp(req)),
  });

  const neutral = exactRouter();
  for (const route of pipeline.neutral) {
    const negotiated = unversionedNegotiation(route.path);
    const accept: RequestHandler = negotiated ? negotiate(negotiated) : (_req, _res, next) => next();
    neutral
      .route(route.path)
      .get(accept, async (req, res) => sendReply(res, await route.reply(neutralRequest(req))))
      .all(methodNotAllowed(['GET']));
  }
  const clients = ctx.findClient;
  neutral
    .route('/oauth/token')
    .post(principalLimit, tokenEndpoint({ issuer: ctx.issuer, clients }))
    .all(methodNotAllowed(['POST']));
  const revocation = { clients, issuer: ctx.issuer, verifier: ctx.verifier, revocation: ctx.revocation };
  neutral
    .route('/oauth/revoke')
    .post(principalLimit, revocationEndpoint(revocation))
    .all(methodNotAllowed(['POST']));
  if (ctx.session) {
    const session = ctx.session;
    neutral
      .route('/session')
      .post(authenticate({ jwt: ctx.verifier }), principalLimit, openSessionEndpoint(session))
      .delete(authenticate({ cookie: session.authenticate }), principalLimit, closeSessionEndpoint(session))
      .all(methodNotAllowed(['POST', 'DELETE']));
  }
  neutral.use(negotiatedRouter(pipeline.negotiated));

  const routers: Record<string, express.Router> = {};
  for (const version of SUPPORTED_VERSIONS) {
    const router = exactRouter();
    router.use(negotiate(pipeline.negotiation(version)));
    router.use(authenticate(apiAuthentication(ctx)));
    router.use(principalLimit);
    router.use(versionRouter(ctx, version));
    routers[String(version)] = router;
  }
  app.use(versionedRouter(api.policy, routers, { neutral }));

  app.use(notFoundHandler());
  app.use(
    errorHandler({
      onError: ({ error, original, req }) =>
        pipeline.onError({ error, original, incoming: req, requestId: getRequestId(req) }),
    }),
  );
  return app;
}
