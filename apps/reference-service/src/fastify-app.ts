/**
 * The reference service on Fastify 5: the pipeline of app.ts, hook by hook in the same order, with
 * the Fastify adapters of every Plumbline package. Root `onRequest` hooks run for every request
 * (including one no route matches), in the order they are added:
 *
 *   request id → version headers → HTTPS check → query length → no-store (/oauth/*)
 *   → neutral routes → v1 | v2 (a prefix under the path strategy, else the `apiVersion` route
 *   constraint): negotiation (406) → authentication (401/403) → route hooks → handler
 *   → 404 (or the refused version) → problem documents for every error (`plumblineErrors`)
 *
 * The app never listens: `serverFactory` hands over Fastify's Node handler, which server.ts serves.
 */
import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import { isKeySetUnavailable } from '@plumbline/auth';
import { authenticate, requireHttps, revocationEndpoint, tokenEndpoint } from '@plumbline/auth/fastify';
import { HttpError } from '@plumbline/errors';
import { plumblineErrors } from '@plumbline/errors/fastify';
import { negotiation } from '@plumbline/negotiation/fastify';
import { combineHeader, createRequestVersioning, type VersioningOutcome } from '@plumbline/versioning';
import Fastify, { type FastifyRequest, type RouteOptions } from 'fastify';
import type { Logger } from 'pino';
import { apiStrategy } from './api-versioning.js';
import type { AppContext } from './context.js';
import type { ApiVersion } from './domain/model.js';
import { otherMethods, versionRoutes } from './fastify-routes.js';
import { buildOpenApi } from './openapi.js';
import { documentForStrategy } from './openapi-strategy.js';
import { checkReadiness, notReady } from './readiness.js';
import { xmlSerializerFor } from './xml-representation.js';

const MAX_QUERY_BYTES = 4096;

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
  const api = apiStrategy(config.versioningStrategy);
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

  let handler: RequestListener | undefined;
  const app = Fastify<Server, IncomingMessage, ServerResponse>({
    serverFactory: (listener) => {
      handler = listener;
      return createServer();
    },
    trustProxy: config.trustProxy,
    bodyLimit: config.bodyLimitBytes,
    // Express routes `/projects/` and `/PROJECTS` as `/projects`; ids stay as sent.
    routerOptions: {
      ignoreTrailingSlash: true,
      caseSensitive: false,
      constraints: { apiVersion: versionConstraint(outcomeOf) },
    },
  });

  await app.register(plumblineErrors, {
    onError: ({ error, original, req }) => {
      // A key-set outage is logged once per failed fetch (onKeySetError), not per refused request.
      if (error.status >= 500 && !isKeySetUnavailable(original))
        logger.child({ request_id: req.requestId }).error({ err: original }, 'request failed');
    },
  });
  // Version headers go on before anything can refuse the request; a refused version is refused
  // later, where the Express version router refuses it.
  app.addHook('onRequest', async (request, reply) => {
    const { headers } = outcomeOf(request.raw);
    for (const name in headers) {
      const current = reply.getHeader(name) as string | undefined;
      reply.header(name, combineHeader(name, current, headers[name]!));
    }
  });
  if (config.tls) {
    app.addHook('onRequest', async (_request, reply) => {
      reply.header('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
    });
  }
  app.addHook(
    'onRequest',
    requireHttps({ trustProxy: config.trustProxy, allowLoopback: config.env !== 'production' }),
  );
  // docs/design.md#d-limits: a query string longer than 4 KiB is refused before anything parses it.
  app.addHook('onRequest', async (request) => {
    const at = request.url.indexOf('?');
    if (at >= 0 && request.url.length - at - 1 > MAX_QUERY_BYTES)
      throw new HttpError('query_too_long', { params: { max: MAX_QUERY_BYTES } });
  });
  // Token and revocation answers are never cached, including the 405, 413 and 429 ones (RFC 6749 5.1).
  app.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?', 1)[0];
    if (path === '/oauth/token' || path === '/oauth/revoke')
      reply.header('Cache-Control', 'no-store').header('Pragma', 'no-cache');
  });
  // A refused version (unknown, sunset) is refused after the neutral routes, where Express's
  // version router refuses it: in front of the version's routes, and where no route matched.
  const refuseVersion = async (request: FastifyRequest) => {
    const outcome = outcomeOf(request.raw);
    if (outcome.kind === 'error') throw outcome.error;
  };
  app.addHook('onRequest', async (request) => {
    if (request.is404) await refuseVersion(request);
  });

  // Neutral routes.
  app.get('/health', async () => ({ status: 'ok' }));
  app.get('/ready', async () => {
    const readiness = await checkReadiness(ctx);
    if (!readiness.ready) throw notReady(readiness);
    return { status: 'ready', checks: readiness.checks };
  });
  const openapi = documentForStrategy(api, buildOpenApi(ctx));
  app.get('/openapi.json', async () => openapi);
  app.get('/.well-known/jwks.json', async (_request, reply) => {
    reply.header('Cache-Control', 'public, max-age=300');
    return ctx.issuer.jwks();
  });
  const clients = ctx.findClient;
  await app.register(tokenEndpoint({ issuer: ctx.issuer, clients }));
  otherMethods(app, '/oauth/token', ['POST']);
  await app.register(
    revocationEndpoint({ clients, issuer: ctx.issuer, verifier: ctx.verifier, revocation: ctx.revocation }),
  );
  otherMethods(app, '/oauth/revoke', ['POST']);

  // The versions.
  const xml = xmlSerializerFor(openapi);
  for (const version of [1, 2] as const satisfies readonly ApiVersion[]) {
    const path = api.strategy === 'path';
    await app.register(
      async (scope) => {
        scope.addHook('onRequest', refuseVersion);
        const types = api.mediaTypes(version);
        await scope.register(negotiation, {
          types,
          languages: ['en', 'de'],
          // Every XML type (application/xml, the vendor +xml type) is written from the OpenAPI schemas.
          serializers: Object.fromEntries(types.filter((t) => t.endsWith('xml')).map((t) => [t, xml])),
        });
        scope.addHook('onRequest', authenticate({ apiKeys: { store: ctx.apiKeys }, jwt: ctx.verifier }));
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
