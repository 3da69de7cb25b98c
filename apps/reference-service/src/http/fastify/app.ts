/**
 * The reference service on Fastify 5: the pipeline of src/pipeline.ts, hook by hook in the order
 * http/express/app.ts runs it, with the Fastify adapters of every Plumbline package. Root `onRequest`
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
import { combineHeader, type VersioningOutcome } from '@plumbline/versioning';
import Fastify, {
  type FastifyInstance,
  type FastifyRequest,
  type RouteHandlerMethod,
  type RouteOptions,
} from 'fastify';
import type { Logger } from 'pino';
import { notModified } from '../../api/preconditions.js';
import { closeSession, openSession } from '../../api/session.js';
import { SUPPORTED_VERSIONS } from '../../domain/versions.js';
import { PAGE_HEADERS } from '../../pages/html-pages.js';
import { unversionedRoute } from '../../pages/unversioned.js';
import { servicePipeline } from '../../pipeline.js';
import { type AppContext, apiAuthentication } from '../../service/context.js';
import { checkQueryLength, NO_STORE_HEADERS, NO_STORE_PATHS, PROBES } from '../../service/limits.js';
import { createAccessLogger } from '../../service/logging.js';
import { serverWideOptionsReply } from '../../service/request-target.js';
import { TELEMETRY_OPTIONS, versionSource } from '../../service/telemetry.js';
import { requestOutcomes } from '../../service/versioning.js';
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
  const { config, api } = ctx;
  const pipeline = servicePipeline(ctx, logger);
  const { metrics, proxies, limiters } = pipeline;
  // The version is resolved once per request: by the route constraint, or by the first hook.
  const outcomeOf = requestOutcomes(api.policy);
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

  // Fastify's `trustProxy` stays off, so `request.ip` is the socket's peer and is not used.
  const clientIp = (request: FastifyRequest) =>
    proxies.clientAddress(request.raw.socket.remoteAddress, request.raw.headers['x-forwarded-for']);
  // The version served is the one the route constraint resolved.
  if (pipeline.telemetryRoute) {
    const route = pipeline.telemetryRoute;
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

  app.addHook('onRequest', async (request, reply) =>
    metrics.track(request.raw, reply.raw, pathOf(request), undefined, () => versionOf(request.raw)),
  );
  // Every path answers its other methods itself (otherMethods, pages/unversioned.ts): what no route
  // matched is 404, as on Express, not the plugin's 405 for a path some method has.
  await app.register(plumblineErrors, {
    methodNotAllowed: false,
    onError: ({ error, original, req }) =>
      pipeline.onError({ error, original, incoming: req.raw, requestId: getRequestId(req) }),
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
  const { hsts } = pipeline;
  if (hsts) app.addHook('onRequest', async (_request, reply) => void reply.headers(hsts));
  // Preflights are answered here; every later answer, a refusal included, carries the CORS headers.
  if (pipeline.cors) await app.register(cors, { policy: pipeline.cors });
  app.addHook('onRequest', requireHttps(pipeline.https));
  app.addHook('onRequest', async (request) => checkQueryLength(request.url));
  app.addHook('onRequest', async (request, reply) => {
    if (NO_STORE_PATHS.includes(pathOf(request))) reply.headers(NO_STORE_HEADERS);
  });
  // Failed requests count per client address, before authentication; the principal limit after it.
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
  for (const route of pipeline.neutral) {
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
  for (const route of pipeline.negotiated) {
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
  for (const version of SUPPORTED_VERSIONS) {
    const path = api.strategy === 'path';
    await app.register(
      async (scope: FastifyInstance) => {
        scope.addHook('onRequest', refuseVersion);
        await scope.register(negotiation, pipeline.negotiation(version));
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
