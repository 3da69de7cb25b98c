/**
 * The reference service's Express app: every Plumbline package composed in the order a request
 * meets them. Kept apart from `main.ts` so tests drive exactly the app production runs.
 *
 *   telemetry → request id → version headers → access log → HTTPS check → failure rate limit (not for /health,
 *   /ready) → neutral routes → v1 | v2 (read as VERSIONING_STRATEGY says, service/versioning.ts):
 *   version headers → negotiation (406) → authentication (401/403)
 *     → rate limit per principal (429) → body type (415) → body parser (400/413)
 *     → idempotency (POST) → collection query (400) → handler
 *   → 404 → problem documents for every error
 *
 * Metrics (service/metrics.ts) time every request from before the request id; the access log is pino
 * (service/logging.ts). Neutral routes include `/` (pages/front-door.ts), `/docs` (pages/docs-ui.ts), `/metrics`,
 * `/errors/<code>` (pages/docs.ts); XML is written by api/xml-representation.ts from the OpenAPI schemas.
 */
import { isKeySetUnavailable } from '@plumbline/auth';
import {
  authenticate,
  getPrincipal,
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
import { negotiate } from '@plumbline/negotiation/express';
import { addressKey, principalKey } from '@plumbline/rate-limit';
import { rateLimit } from '@plumbline/rate-limit/express';
import { telemetry } from '@plumbline/telemetry/express';
import {
  getApiVersion,
  getResolvedVersion,
  versionedRouter,
  versioning,
} from '@plumbline/versioning/express';
import express, { type Express, type Request } from 'express';
import type { Logger } from 'pino';
import { notModified } from '../../api/preconditions.js';
import { closeSession, openSession } from '../../api/session.js';
import { xmlSerializerFor } from '../../api/xml-representation.js';
import type { ApiVersion } from '../../domain/model.js';
import { SUPPORTED_VERSIONS } from '../../domain/versions.js';
import { buildOpenApi } from '../../openapi/document.js';
import { documentForStrategy } from '../../openapi/strategy.js';
import { versionDocuments } from '../../openapi/versions.js';
import { negotiatedRoutes, neutralRoutes } from '../../pages/neutral-routes.js';
import { proxyPolicy } from '../../service/client-address.js';
import { type AppContext, apiAuthentication } from '../../service/context.js';
import { serviceCors } from '../../service/cors.js';
import { createServiceLimiters, NO_STORE_PATHS, PROBES } from '../../service/limits.js';
import { createMetrics } from '../../service/metrics.js';
import {
  TELEMETRY_OPTIONS,
  telemetryEnabled,
  telemetryRoute,
  versionSource,
} from '../../service/telemetry.js';
import { limitQueryString, noStore } from './limits.js';
import { accessLog, metricsMiddleware } from './observability.js';
import { negotiatedRouter, neutralRequest, unversionedContract } from './pages.js';
import { exactRouter, sendReply } from './reply.js';
import { serverWideOptions } from './request-target.js';
import { versionRouter } from './routes.js';

export function createApp(ctx: AppContext, logger: Logger): Express {
  const { config } = ctx;
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  // No automatic weak ETag: representations that have one compute it (api/preconditions.ts), the same
  // on every framework; Fastify and Hono send none elsewhere, so Express does not either.
  app.set('etag', false);
  // Paths match exactly, as on Fastify and Hono: /PROJECTS and /projects/ are 404 (http/express/reply.ts).
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  // res.send's 304 decision is the one every route makes on Fastify and Hono (api/preconditions.ts),
  // not the `fresh` package's, which ignores If-None-Match when the request says
  // `Cache-Control: no-cache` (as fetch does whenever it revalidates).
  Object.defineProperty(app.request, 'fresh', {
    configurable: true,
    get(this: Request) {
      return notModified(this.method, this.res?.statusCode ?? 200, this.headers, (name) =>
        this.res?.getHeader(name),
      );
    },
  });
  // The client address and the trusted peers come from service/client-address.ts, as on Fastify and Hono;
  // Express's `trust proxy` stays off, so `req.ip` is the socket's peer and is not used.
  const proxies = proxyPolicy(config.trustProxy);
  const clientIp = (req: Request) =>
    proxies.clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for']);

  const { api } = ctx;
  const built = buildOpenApi(ctx);
  const openapi = documentForStrategy(api, built);
  // `/openapi.json?version=1`: one version's document (openapi/versions.ts).
  const documents = versionDocuments(api, built);
  // Route templates are the OpenAPI document's paths (the document is built with the neutral routes).
  const metrics = createMetrics(ctx, () => Object.keys(openapi['paths'] as object));
  // OpenTelemetry (service/telemetry.ts): one server span per request, mounted only when an OTLP
  // endpoint is set (main.ts started the SDK).
  if (telemetryEnabled()) {
    const route = telemetryRoute(metrics.routeOf);
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
  app.use(metricsMiddleware(metrics));
  app.use(requestId());
  // Version headers go on before anything can refuse the request (HTTPS, query length, the per-IP
  // limit): every response carries API-Supported-Versions, and v1's its Deprecation, Sunset and
  // Link. A version the policy refuses is refused later, by versionedRouter, in its usual place.
  const earlyVersioning = versioning(api.policy);
  app.use((req, res, next) => earlyVersioning(req, res, () => next()));
  app.use(serverWideOptions);
  app.use(accessLog(logger, proxies));
  if (config.tls) {
    app.use((_req, res, next) => {
      res.setHeader('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
      next();
    });
  }
  // CORS_ORIGINS (service/cors.ts): preflights are answered here; every later answer, a refusal
  // included, carries the CORS headers.
  const corsPolicy = serviceCors(ctx, openapi);
  if (corsPolicy) app.use(cors(corsPolicy));
  app.use(requireHttps({ trustProxy: proxies.trustsPeer, allowLoopback: config.env !== 'production' }));
  app.use(limitQueryString);

  app.use([...NO_STORE_PATHS], noStore);

  // Failed requests count per client address, before authentication (service/limits.ts).
  const limiters = createServiceLimiters(ctx);
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
  neutral.use(unversionedContract());
  for (const route of neutralRoutes(ctx, { openapi, documents, metrics })) {
    neutral
      .route(route.path)
      .get(async (req, res) => sendReply(res, await route.reply(neutralRequest(req))))
      .all(methodNotAllowed(['GET']));
  }
  const clients = ctx.findClient;
  neutral
    .route('/oauth/token')
    .post(principalLimit, tokenEndpoint({ issuer: ctx.issuer, clients }))
    .all(methodNotAllowed(['POST']));
  neutral
    .route('/oauth/revoke')
    .post(
      principalLimit,
      revocationEndpoint({ clients, issuer: ctx.issuer, verifier: ctx.verifier, revocation: ctx.revocation }),
    )
    .all(methodNotAllowed(['POST']));
  if (ctx.session) {
    const session = ctx.session;
    const reply =
      (setCookie: (req: Request) => Promise<string>) => async (req: Request, res: express.Response) => {
        res.setHeader('Set-Cookie', await setCookie(req));
        res.status(204).end();
      };
    neutral
      .route('/session')
      .post(
        authenticate({ jwt: ctx.verifier }),
        principalLimit,
        reply((req) => openSession(session, getPrincipal(req)!)),
      )
      .delete(
        authenticate({ cookie: session.authenticate }),
        principalLimit,
        reply((req) => closeSession(session, getPrincipal(req)!)),
      )
      .all(methodNotAllowed(['POST', 'DELETE']));
  }
  neutral.use(negotiatedRouter(negotiatedRoutes(openapi, api)));

  const xml = xmlSerializerFor(openapi);
  const versioned = (version: ApiVersion) => {
    const router = exactRouter();
    const types = api.mediaTypes(version);
    router.use(
      negotiate({
        types,
        languages: ['en', 'de'],
        // Every XML type (application/xml, the vendor +xml type) is written from the OpenAPI schemas.
        serializers: Object.fromEntries(types.filter((t) => t.endsWith('xml')).map((t) => [t, xml])),
      }),
    );
    router.use(authenticate(apiAuthentication(ctx)));
    router.use(principalLimit);
    router.use(versionRouter(ctx, version));
    return router;
  };
  const routers = Object.fromEntries(
    SUPPORTED_VERSIONS.map((version) => [String(version), versioned(version)]),
  );
  app.use(versionedRouter(api.policy, routers, { neutral }));

  app.use(notFoundHandler());
  app.use(
    errorHandler({
      onError: ({ error, original, req }) => {
        metrics.recordError(req, error);
        // A key-set outage is logged once per failed fetch (onKeySetError), not per refused request.
        if (error.status >= 500 && !isKeySetUnavailable(original)) {
          const log =
            (req as Request & { log?: Logger }).log ?? logger.child({ request_id: getRequestId(req) });
          log.error({ err: original }, 'request failed');
        }
      },
    }),
  );
  return app;
}
