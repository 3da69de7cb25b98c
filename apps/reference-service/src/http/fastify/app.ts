/**
 * The reference service on Fastify 5: the pipeline of src/pipeline.ts in the order
 * http/express/app.ts runs it, as root `onRequest` hooks (they run for every request, one no route
 * matches included), then the neutral routes, then v1 | v2 (a prefix under the path strategy, else
 * the `apiVersion` route constraint). The app never listens: `serverFactory` hands over Fastify's
 * Node handler, which server.ts serves.
 */
import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import {
  authenticate,
  closeSessionEndpoint,
  getPrincipal,
  openSessionEndpoint,
  requireHttps,
  revocationEndpoint,
  tokenEndpoint,
} from '@plumbline/auth/fastify';
import { cors } from '@plumbline/cors/fastify';
import { HttpError } from '@plumbline/errors';
import { getRequestId, methodNotAllowed, plumblineErrors, routeEveryMethod } from '@plumbline/errors/fastify';
import type { NegotiatorOptions } from '@plumbline/negotiation';
import { negotiation, notModified } from '@plumbline/negotiation/fastify';
import { addressKey, principalKey } from '@plumbline/rate-limit';
import { rateLimit } from '@plumbline/rate-limit/fastify';
import { telemetry } from '@plumbline/telemetry/fastify';
import { versionConstraint, versioning } from '@plumbline/versioning/fastify';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type onRequestHookHandler,
  type RouteHandlerMethod,
  type RouteOptions,
} from 'fastify';
import type { Logger } from 'pino';
import { SUPPORTED_VERSIONS } from '../../domain/versions.js';
import { PAGE_HEADERS } from '../../pages/html-pages.js';
import { neutralRequestOf } from '../../pages/neutral-routes.js';
import { unversionedNegotiation } from '../../pages/unversioned.js';
import { servicePipeline } from '../../pipeline.js';
import { type AppContext, apiAuthentication } from '../../service/context.js';
import { checkQueryLength, NO_STORE_HEADERS, NO_STORE_PATHS, PROBES } from '../../service/limits.js';
import { createAccessLogger } from '../../service/logging.js';
import type { PlainReply } from '../../service/plain-reply.js';
import { serverWideOptionsReply } from '../../service/request-target.js';
import { TELEMETRY_OPTIONS, versionSource } from '../../service/telemetry.js';
import { versionRoutes } from './routes.js';

const pathOf = (request: FastifyRequest) => request.url.split('?', 1)[0] ?? '/';
/** Sends a neutral core's answer as it is. */
const sendPlain = (reply: FastifyReply, plain: PlainReply) =>
  reply.code(plain.status).headers(plain.headers).send(plain.body);
/** A Fastify request as the neutral routes read it (pages/neutral-routes.ts). */
const neutralRequest = (request: FastifyRequest) =>
  neutralRequestOf(request.url, request.headers, request.params as Record<string, string>);

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
  // The version is resolved once per request, by the `apiVersion` route constraint (or the first
  // hook that asks): /projects of v1 and of v2 are two routes under the non-path strategies.
  const apiVersion = versionConstraint(api.policy);
  /** The version the request is served in (telemetry, metrics), undefined when neutral or refused. */
  const resolvedOf = (request: FastifyRequest | IncomingMessage) => {
    const outcome = apiVersion.outcome(request);
    return outcome.kind === 'resolved' ? outcome.resolved : undefined;
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
    routerOptions: { ignoreTrailingSlash: false, caseSensitive: true, maxParamLength: 16_384 },
  });

  // Every method Node's parser accepts is routable, so a path answers PROPFIND or SEARCH with 405
  // and its Allow, as on Express and Hono, rather than Fastify's 404 for a method it does not know.
  routeEveryMethod(app);

  // Fastify's `trustProxy` stays off, so `request.ip` is the socket's peer and is not used.
  const clientIp = (request: FastifyRequest) =>
    proxies.clientAddress(request.raw.socket.remoteAddress, request.raw.headers['x-forwarded-for']);
  if (pipeline.telemetryRoute) {
    const route = pipeline.telemetryRoute;
    await app.register(telemetry, {
      ...TELEMETRY_OPTIONS,
      route: (request) => route(pathOf(request)),
      // client.address: the rate limiter's client address (TRUST_PROXY), not `request.ip`.
      clientAddress: clientIp,
      principal: getPrincipal,
      apiVersion: (request) => resolvedOf(request)?.version,
      apiVersionSource: (request) => versionSource(api.strategy, resolvedOf(request)),
    });
  }

  // A current 200 GET or HEAD becomes 304 on every route, as Express's res.send answers it.
  await app.register(notModified);

  app.addHook('onRequest', async (request, reply) =>
    metrics.track(request.raw, reply.raw, pathOf(request), undefined, () => resolvedOf(request.raw)?.version),
  );
  // Every path answers its other methods itself (methodNotAllowed): what no route matched is 404,
  // as on Express, not the plugin's 405 for a path some method has.
  await app.register(plumblineErrors, {
    methodNotAllowed: false,
    onError: ({ error, original, req }) =>
      pipeline.onError({ error, original, incoming: req.raw, requestId: getRequestId(req) }),
  });
  // Version headers go on before anything can refuse the request; a refused version is refused
  // later, where the Express version router refuses it.
  await app.register(versioning, { constraint: apiVersion, refuse: false });
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
  app.addHook('onRequest', async (request) => {
    if (request.is404) await apiVersion.refuse(request);
    // `GET *` and other targets that are not a path: no resource (OPTIONS * was answered above).
    if (!request.raw.url?.startsWith('/')) throw new HttpError('not_found');
  });

  // Neutral routes: GET (and HEAD) after their negotiation (pages/unversioned.ts), every other method
  // 405 and OPTIONS 204 without it, so no other method of their path reaches a version's routes.
  const neutral = (
    url: string,
    handle: RouteHandlerMethod,
    negotiated: NegotiatorOptions | undefined = unversionedNegotiation(url),
  ) => {
    app.register(async (scope) => {
      if (negotiated) await scope.register(negotiation, negotiated);
      scope.get(url, handle);
    });
    methodNotAllowed(app, url, ['GET']);
  };
  for (const route of pipeline.neutral) {
    neutral(route.path, async (request, reply) =>
      sendPlain(reply, await route.reply(neutralRequest(request))),
    );
  }
  const clients = ctx.findClient;
  await app.register(async (scope) => {
    scope.addHook('onRequest', principalLimit);
    await scope.register(tokenEndpoint({ issuer: ctx.issuer, clients }));
    await scope.register(
      revocationEndpoint({ clients, issuer: ctx.issuer, verifier: ctx.verifier, revocation: ctx.revocation }),
    );
  });
  methodNotAllowed(app, '/oauth/token', ['POST']);
  methodNotAllowed(app, '/oauth/revoke', ['POST']);
  if (ctx.session) {
    const { session } = ctx;
    const limited = (auth: onRequestHookHandler) => ({ onRequest: [auth, principalLimit] });
    app.post('/session', limited(authenticate({ jwt: ctx.verifier })), openSessionEndpoint(session));
    app.delete(
      '/session',
      limited(authenticate({ cookie: session.authenticate })),
      closeSessionEndpoint(session),
    );
    methodNotAllowed(app, '/session', ['POST', 'DELETE']);
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
  }

  // The versions.
  for (const version of SUPPORTED_VERSIONS) {
    const path = api.strategy === 'path';
    await app.register(
      async (scope: FastifyInstance) => {
        scope.addHook('onRequest', apiVersion.refuse);
        await scope.register(negotiation, pipeline.negotiation(version));
        scope.addHook('onRequest', authenticate(apiAuthentication(ctx)));
        scope.addHook('onRequest', principalLimit);
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
