/**
 * The reference service on Fastify 5: the pipeline of http/express/app.ts, hook by hook in the same order, with
 * the Fastify adapters of every Plumbline package and the service's neutral cores. Root `onRequest`
 * hooks run for every request (one no route matches included), in the order they are added:
 *
 *   metrics → request id → version headers → OPTIONS * → access log → HTTPS check → query length
 *   → no-store (/oauth/*) → failure rate limit (not for /health, /ready) → neutral routes
 *   → v1 | v2 (a prefix under the path strategy, else the `apiVersion` route constraint):
 *   negotiation (406) → authentication (401/403) → rate limit per principal (429) → route hooks
 *   → handler → 404 (or the refused version) → problem documents for every error
 *
 * The app never listens: `serverFactory` hands over Fastify's Node handler, which server.ts serves.
 */
import {
  createServer,
  type IncomingMessage,
  METHODS,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import { isKeySetUnavailable } from '@plumbline/auth';
import {
  authenticate,
  getPrincipal,
  requireHttps,
  revocationEndpoint,
  tokenEndpoint,
} from '@plumbline/auth/fastify';
import { cors } from '@plumbline/cors/fastify';
import { HttpError } from '@plumbline/errors';
import { getRequestId, plumblineErrors } from '@plumbline/errors/fastify';
import type { NegotiatorOptions } from '@plumbline/negotiation';
import { negotiation } from '@plumbline/negotiation/fastify';
import { addressKey, principalKey } from '@plumbline/rate-limit';
import { rateLimit } from '@plumbline/rate-limit/fastify';
import { telemetry } from '@plumbline/telemetry/fastify';
import { combineHeader, createRequestVersioning, type VersioningOutcome } from '@plumbline/versioning';
import Fastify, {
  type FastifyInstance,
  type FastifyRequest,
  type RouteHandlerMethod,
  type RouteOptions,
} from 'fastify';
import type { Logger } from 'pino';
import { notModified } from '../../api/preconditions.js';
import { closeSession, openSession } from '../../api/session.js';
import { xmlSerializerFor } from '../../api/xml-representation.js';
import { SUPPORTED_VERSIONS } from '../../domain/versions.js';
import { buildOpenApi } from '../../openapi/document.js';
import { documentForStrategy } from '../../openapi/strategy.js';
import { versionDocuments } from '../../openapi/versions.js';
import { PAGE_HEADERS } from '../../pages/html-pages.js';
import { negotiatedRoutes, neutralRoutes } from '../../pages/neutral-routes.js';
import { unversionedRoute } from '../../pages/unversioned.js';
import { proxyPolicy } from '../../service/client-address.js';
import { type AppContext, apiAuthentication } from '../../service/context.js';
import { serviceCors } from '../../service/cors.js';
import {
  checkQueryLength,
  createServiceLimiters,
  NO_STORE_HEADERS,
  NO_STORE_PATHS,
  PROBES,
} from '../../service/limits.js';
import { createAccessLogger } from '../../service/logging.js';
import { createMetrics } from '../../service/metrics.js';
import { serverWideOptionsReply } from '../../service/request-target.js';
import {
  TELEMETRY_OPTIONS,
  telemetryEnabled,
  telemetryRoute,
  versionSource,
} from '../../service/telemetry.js';
import { neutralRequest, otherMethods, sendPlain } from './http.js';
import { versionRoutes } from './routes.js';

const pathOf = (request: FastifyRequest) => request.url.split('?', 1)[0] ?? '/';

/**
 * The `apiVersion` route constraint: the version the policy resolves for the request (the
 * header, query or media-type strategy), so /projects of v1 and of v2 are two routes. A request
 * whose version is refused matches neither, and the 404 path answers with the refusal.
 */
function versionConstraint(outcomeOf: (req: IncomingMessage) => VersioningOutcome) {
  return {
    name: 'apiVersion',
    mustMatchWhenDerived: false,
    storage: () => {
      const stores = new Map<string, never>();
      return {
        get: (version: string) => stores.get(version) ?? null,
        set: (version: string, store: never) => stores.set(version, store),
      };
    },
    deriveConstraint: (req: IncomingMessage) => {
      const outcome = outcomeOf(req);
      return outcome.kind === 'resolved' ? outcome.resolved.version : '';
    },
  };
}

/**
 * Builds the service on Fastify and returns its Node request listener (createListener in listener.ts).
 *
 * @example
 * ```ts
 * createServer(await createFastifyListener(ctx, logger), config).listen(config.port, config.host);
 * ```
 */
export async function createFastifyListener(ctx: AppContext, logger: Logger): Promise<RequestListener> {
  const { config } = ctx;
  const { api } = ctx;
  // The version is resolved once per request: by the route constraint, or by the first hook.
  const resolve = createRequestVersioning(api.policy);
  const outcomes = new WeakMap<IncomingMessage, VersioningOutcome>();
  const outcomeOf = (req: IncomingMessage): VersioningOutcome => {
    let outcome = outcomes.get(req);
    if (outcome === undefined) {
      const url = req.url ?? '/';
      const mark = url.indexOf('?');
      outcome = resolve({
        path: mark < 0 ? url : url.slice(0, mark),
        query: mark < 0 ? '' : url.slice(mark + 1),
        headers: req.headers,
      });
      outcomes.set(req, outcome);
    }
    return outcome;
  };
  /** The API version the request is served in (the telemetry attribute and the metrics label). */
  const versionOf = (req: IncomingMessage): string | undefined => {
    const outcome = outcomeOf(req);
    return outcome.kind === 'resolved' ? outcome.resolved.version : undefined;
  };

  let handler: RequestListener | undefined;
  const app = Fastify<Server, IncomingMessage, ServerResponse>({
    serverFactory: (listener) => {
      handler = listener;
      return createServer();
    },
    bodyLimit: config.bodyLimitBytes,
    // Paths match exactly on every framework (`/PROJECTS` and `/projects/` are 404), ids stay as
    // sent, and an id of any length reaches its route (which answers 404 after its own checks).
    routerOptions: {
      ignoreTrailingSlash: false,
      caseSensitive: true,
      maxParamLength: 16_384,
      constraints: { apiVersion: versionConstraint(outcomeOf) },
    },
  });

  // Every method Node's parser accepts is routable, so a path answers PROPFIND or SEARCH with 405
  // and its Allow, as on Express and Hono, rather than Fastify's 404 for a method it does not know.
  for (const method of METHODS) {
    if (method !== 'CONNECT' && !app.supportedMethods.includes(method))
      app.addHttpMethod(method, { hasBody: true });
  }

  // The client address and the trusted peers come from service/client-address.ts, as on Express and Hono;
  // Fastify's `trustProxy` stays off, so `request.ip` is the socket's peer and is not used.
  const proxies = proxyPolicy(config.trustProxy);
  const clientIp = (request: FastifyRequest) =>
    proxies.clientAddress(request.raw.socket.remoteAddress, request.raw.headers['x-forwarded-for']);
  // OpenTelemetry (service/telemetry.ts): one server span per request, registered only when an OTLP
  // endpoint is set (main.ts started the SDK). The version served is the one the route constraint
  // resolved.
  if (telemetryEnabled()) {
    const route = telemetryRoute((path) => metrics.routeOf(path));
    await app.register(telemetry, {
      ...TELEMETRY_OPTIONS,
      route: (request) => route(pathOf(request)),
      // client.address: the rate limiter's client address (TRUST_PROXY), not `request.ip`.
      clientAddress: clientIp,
      principal: getPrincipal,
      apiVersion: (request) => versionOf(request.raw),
      apiVersionSource: (request) => {
        const outcome = outcomeOf(request.raw);
        return versionSource(api.strategy, outcome.kind === 'resolved' ? outcome.resolved : undefined);
      },
    });
  }

  // A GET answered 200 whose conditions say the client's copy is current becomes 304 on every
  // route (RFC 9110 13.2.2; `If-None-Match: *` matches any current representation), as Express's
  // res.send and the negotiation adapters' represent() answer it.
  app.addHook('onSend', async (request, reply, payload) => {
    if (!notModified(request.method, reply.statusCode, request.headers, (name) => reply.getHeader(name)))
      return payload;
    reply.code(304).removeHeader('content-type').removeHeader('content-length');
    return null;
  });

  // Route templates are the OpenAPI document's paths (the document is built with the neutral routes).
  const built = buildOpenApi(ctx);
  const openapi = documentForStrategy(api, built);
  // `/openapi.json?version=1`: one version's document (openapi/versions.ts).
  const documents = versionDocuments(api, built);
  const metrics = createMetrics(ctx, () => Object.keys(openapi['paths'] as object));
  app.addHook('onRequest', async (request, reply) =>
    metrics.track(request.raw, reply.raw, pathOf(request), undefined, () => versionOf(request.raw)),
  );
  // Every path answers its other methods itself (otherMethods, pages/unversioned.ts): what no route
  // matched is 404, as on Express, not the plugin's 405 for a path some method has.
  await app.register(plumblineErrors, {
    methodNotAllowed: false,
    onError: ({ error, original, req }) => {
      metrics.recordError(req.raw, error);
      // A key-set outage is logged once per failed fetch (onKeySetError), not per refused request.
      if (error.status >= 500 && !isKeySetUnavailable(original)) {
        const log = (req.raw as { log?: Logger }).log ?? logger.child({ request_id: getRequestId(req) });
        log.error({ err: original }, 'request failed');
      }
    },
  });
  // Version headers go on before anything can refuse the request; a refused version is refused
  // later, where the Express version router refuses it.
  app.addHook('onRequest', async (request, reply) => {
    const { headers } = outcomeOf(request.raw);
    for (const name in headers) {
      reply.header(name, combineHeader(name, reply.getHeader(name) as string | undefined, headers[name]!));
    }
  });
  app.addHook('onRequest', async (request, reply) => {
    const plain = serverWideOptionsReply(request.method, request.raw.url);
    if (plain) return sendPlain(reply, plain);
  });
  const requestIds = new WeakMap<IncomingMessage, string | undefined>();
  const accessLog = createAccessLogger(logger, (req) => requestIds.get(req), proxies);
  app.addHook('onRequest', async (request, reply) => {
    const id = getRequestId(request);
    requestIds.set(request.raw, id);
    // The access log and the metrics read Node's response, but Fastify hands every header to
    // writeHead at once, where getHeaders() never sees them; with one header set on Node's
    // response first, writeHead merges the others into it.
    if (id !== undefined) reply.raw.setHeader('X-Request-Id', id);
    // The access log masks credentials in the parsed query, which Express leaves on Node's request.
    (request.raw as IncomingMessage & { query?: unknown }).query = request.query;
    accessLog(request.raw, reply.raw);
  });
  if (config.tls) {
    app.addHook('onRequest', async (_request, reply) => {
      reply.header('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
    });
  }
  // CORS_ORIGINS (service/cors.ts): preflights are answered here; every later answer, a refusal
  // included, carries the CORS headers.
  const corsPolicy = serviceCors(ctx, openapi);
  if (corsPolicy) await app.register(cors, { policy: corsPolicy });
  app.addHook(
    'onRequest',
    requireHttps({ trustProxy: proxies.trustsPeer, allowLoopback: config.env !== 'production' }),
  );
  app.addHook('onRequest', async (request) => checkQueryLength(request.url));
  app.addHook('onRequest', async (request, reply) => {
    if (NO_STORE_PATHS.includes(pathOf(request))) reply.headers(NO_STORE_HEADERS);
  });
  // Failed requests count per client address, before authentication (service/limits.ts).
  const limiters = createServiceLimiters(ctx);
  app.addHook(
    'onRequest',
    rateLimit(limiters.failures, {
      key: (request) => addressKey(clientIp(request)),
      skip: (request) => PROBES.has(pathOf(request)),
    }),
  );
  const principalLimit = rateLimit(limiters.principal, {
    key: (request) => principalKey(getPrincipal(request)?.clientId, clientIp(request)),
  });
  // A refused version (unknown, sunset) is refused after the neutral routes, where Express's
  // version router refuses it: in front of the version's routes, and where no route matched.
  const refuseVersion = async (request: FastifyRequest) => {
    const outcome = outcomeOf(request.raw);
    if (outcome.kind === 'error') throw outcome.error;
  };
  app.addHook('onRequest', async (request) => {
    if (request.is404) await refuseVersion(request);
    // `GET *` and other targets that are not a path: no resource (OPTIONS * was answered above).
    if (!request.raw.url?.startsWith('/')) throw new HttpError('not_found');
  });

  // Neutral routes. Each takes every method (pages/unversioned.ts answers OPTIONS and 405 first, then
  // negotiates), so no other method of its path reaches a version's routes.
  const neutral = (
    url: string,
    handle: RouteHandlerMethod,
    negotiated: NegotiatorOptions | undefined = unversionedRoute(url)?.negotiation,
  ) =>
    app.register(async (scope) => {
      const contract = unversionedRoute(url);
      if (contract) {
        scope.addHook('onRequest', async (request, reply) => {
          const plain = contract.methodAnswer(request.method);
          if (plain) return sendPlain(reply, plain);
        });
      }
      if (negotiated) await scope.register(negotiation, negotiated);
      scope.route({
        method: contract ? scope.supportedMethods : 'GET',
        exposeHeadRoute: !contract,
        url,
        handler: handle,
      });
    });
  for (const route of neutralRoutes(ctx, { openapi, documents, metrics })) {
    const handle: RouteHandlerMethod = async (request, reply) =>
      sendPlain(reply, await route.reply(neutralRequest(request)));
    if (unversionedRoute(route.path)) neutral(route.path, handle);
    else {
      app.get(route.path, handle);
      otherMethods(app, route.path, ['GET']);
    }
  }
  const clients = ctx.findClient;
  await app.register(async (scope) => {
    scope.addHook('onRequest', principalLimit);
    await scope.register(tokenEndpoint({ issuer: ctx.issuer, clients }));
    await scope.register(
      revocationEndpoint({ clients, issuer: ctx.issuer, verifier: ctx.verifier, revocation: ctx.revocation }),
    );
  });
  otherMethods(app, '/oauth/token', ['POST']);
  otherMethods(app, '/oauth/revoke', ['POST']);
  if (ctx.session) {
    const session = ctx.session;
    const reply =
      (setCookie: (request: FastifyRequest) => Promise<string>): RouteHandlerMethod =>
      async (request, reply) =>
        reply
          .header('Set-Cookie', await setCookie(request))
          .code(204)
          .send();
    app.post(
      '/session',
      { onRequest: [authenticate({ jwt: ctx.verifier }), principalLimit] },
      reply((request) => openSession(session, getPrincipal(request)!)),
    );
    app.delete(
      '/session',
      { onRequest: [authenticate({ cookie: session.authenticate }), principalLimit] },
      reply((request) => closeSession(session, getPrincipal(request)!)),
    );
    otherMethods(app, '/session', ['POST', 'DELETE']);
  }
  // The neutral routes that negotiate (`/`, `/errors/:code`, the changelog).
  for (const route of negotiatedRoutes(openapi, api)) {
    neutral(
      route.path,
      async (request, reply) => {
        // `/errors/` is another path (Fastify hands `/errors/:code` an empty code), 404 as elsewhere.
        if ((request.params as { code?: string }).code === '') throw new HttpError('not_found');
        return reply.headers(PAGE_HEADERS).represent(route.body(neutralRequest(request)));
      },
      route.negotiation,
    );
    if (!unversionedRoute(route.path)) otherMethods(app, route.path, ['GET']);
  }

  // The versions.
  const xml = xmlSerializerFor(openapi);
  for (const version of SUPPORTED_VERSIONS) {
    const path = api.strategy === 'path';
    await app.register(
      async (scope: FastifyInstance) => {
        scope.addHook('onRequest', refuseVersion);
        const types = api.mediaTypes(version);
        await scope.register(negotiation, {
          types,
          languages: ['en', 'de'],
          // Every XML type (application/xml, the vendor +xml type) is written from the OpenAPI schemas.
          serializers: Object.fromEntries(types.filter((t) => t.endsWith('xml')).map((t) => [t, xml])),
        });
        scope.addHook('onRequest', authenticate(apiAuthentication(ctx)));
        scope.addHook('onRequest', principalLimit);
        // `/projects/` reaches `/projects/:id` with an empty id on Fastify; it is another path (404).
        scope.addHook('onRequest', async (request) => {
          if (Object.values(request.params as Record<string, string>).includes(''))
            throw new HttpError('not_found');
        });
        await scope.register(
          versionRoutes(ctx, version, (options: RouteOptions) =>
            path ? options : { ...options, constraints: { apiVersion: String(version) } },
          ),
        );
      },
      path ? { prefix: `/v${version}` } : {},
    );
  }

  await app.ready();
  if (handler === undefined) throw new Error('Fastify did not call serverFactory');
  return handler;
}
