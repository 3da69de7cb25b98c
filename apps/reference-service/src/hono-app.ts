/**
 * The reference service on Hono 4 (@hono/node-server): the pipeline of app.ts, in the same order,
 * with the `/hono` adapters of every Plumbline package.
 *
 *   request id → version headers (a refused version waits, as in app.ts) → HTTPS check → query
 *   length → neutral routes → the refused version, if any → v1 | v2 (hono-routes.ts):
 *   negotiation (406) → authentication (401/403) → the route's middleware and handler
 *   → 404 → problem documents for every error
 */
import type { RequestListener } from 'node:http';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import { isKeySetUnavailable } from '@plumbline/auth';
import { authenticate, requireHttps, revocationEndpoint, tokenEndpoint } from '@plumbline/auth/hono';
import { HttpError } from '@plumbline/errors';
import { getRequestId, methodNotAllowed, problemDetails } from '@plumbline/errors/hono';
import { negotiate } from '@plumbline/negotiation/hono';
import { versioning } from '@plumbline/versioning/hono';
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import { apiStrategy } from './api-versioning.js';
import type { AppContext } from './context.js';
import { versionOf, versionRoutes } from './hono-routes.js';
import { buildOpenApi } from './openapi.js';
import { documentForStrategy } from './openapi-strategy.js';
import { checkReadiness, notReady } from './readiness.js';
import { xmlSerializerFor } from './xml-representation.js';

type Env = { Bindings: HttpBindings; Variables: { refusedVersion: unknown } };

const MAX_QUERY_BYTES = 4096;

/** docs/design.md#d-limits: a query string longer than 4 KiB is refused before anything parses it. */
const limitQueryString: MiddlewareHandler = async (c, next) => {
  const url = c.req.url;
  const at = url.indexOf('?');
  if (at >= 0 && url.length - at - 1 > MAX_QUERY_BYTES)
    throw new HttpError('query_too_long', { params: { max: MAX_QUERY_BYTES } });
  await next();
};

/** Token and revocation answers are never cached, including the 405, 413 and 429 ones (RFC 6749 5.1). */
const noStore: MiddlewareHandler = async (c, next) => {
  c.header('Cache-Control', 'no-store');
  c.header('Pragma', 'no-cache');
  await next();
};

const ignore = async () => {};

/** JSON as Express's `res.json` sends it: `application/json; charset=utf-8` (Hono's `c.json` has no charset). */
const json = (c: Context, data: unknown) =>
  c.body(JSON.stringify(data), 200, { 'Content-Type': 'application/json; charset=utf-8' });

/**
 * Builds the service on Hono and returns its Node request listener.
 *
 * @example
 * ```ts
 * createServer(await createHonoListener(ctx, logger), config).listen(config.port, config.host);
 * ```
 */
export async function createHonoListener(ctx: AppContext, logger: Logger): Promise<RequestListener> {
  const { config } = ctx;
  const app = new Hono<Env>({ strict: false });
  const problems = problemDetails({
    onError: ({ error, original, req: c }) => {
      // A key-set outage is logged once per failed fetch (onKeySetError), not per refused request.
      if (error.status >= 500 && !isKeySetUnavailable(original))
        logger.child({ request_id: getRequestId(c) }).error({ err: original }, 'request failed');
    },
  });
  app.use(problems.middleware);
  app.onError(problems.onError);
  app.notFound(problems.notFound);

  // Version headers go on before anything can refuse the request; a version the policy refuses
  // is refused later, after the neutral routes, in its usual place (app.ts).
  const api = apiStrategy(config.versioningStrategy);
  const earlyVersioning = versioning(api.policy);
  app.use(async (c, next) => {
    try {
      await earlyVersioning(c, ignore);
    } catch (refused) {
      c.set('refusedVersion', refused);
    }
    await next();
  });
  if (config.tls) {
    app.use(async (c, next) => {
      c.header('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
      await next();
    });
  }
  app.use(requireHttps({ trustProxy: config.trustProxy, allowLoopback: config.env !== 'production' }));
  app.use(limitQueryString);
  app.use('/oauth/token', noStore);
  app.use('/oauth/revoke', noStore);

  app.get('/health', (c) => json(c, { status: 'ok' })).all('/health', methodNotAllowed(['GET']));
  app
    .get('/ready', async (c) => {
      const readiness = await checkReadiness(ctx);
      if (!readiness.ready) throw notReady(readiness);
      return json(c, { status: 'ready', checks: readiness.checks });
    })
    .all('/ready', methodNotAllowed(['GET']));
  const openapi = documentForStrategy(api, buildOpenApi(ctx));
  app.get('/openapi.json', (c) => json(c, openapi)).all('/openapi.json', methodNotAllowed(['GET']));
  app
    .get('/.well-known/jwks.json', (c) => {
      c.header('Cache-Control', 'public, max-age=300');
      return json(c, ctx.issuer.jwks());
    })
    .all('/.well-known/jwks.json', methodNotAllowed(['GET']));
  const clients = ctx.findClient;
  app
    .post('/oauth/token', tokenEndpoint({ issuer: ctx.issuer, clients }))
    .all('/oauth/token', methodNotAllowed(['POST']));
  app
    .post(
      '/oauth/revoke',
      revocationEndpoint({ clients, issuer: ctx.issuer, verifier: ctx.verifier, revocation: ctx.revocation }),
    )
    .all('/oauth/revoke', methodNotAllowed(['POST']));

  // Past the neutral routes, a refused version is answered.
  app.use(async (c, next) => {
    const refused = c.get('refusedVersion');
    if (refused !== undefined) throw refused;
    await next();
  });

  const xml = xmlSerializerFor(openapi);
  const negotiated = (version: 1 | 2) => {
    const types = api.mediaTypes(version);
    return negotiate({
      types,
      languages: ['en', 'de'],
      // Every XML type (application/xml, the vendor +xml type) is written from the OpenAPI schemas.
      serializers: Object.fromEntries(types.filter((t) => t.endsWith('xml')).map((t) => [t, xml])),
    });
  };
  const negotiators = { 1: negotiated(1), 2: negotiated(2) };
  const versioned = new Hono({ strict: false });
  versioned.use((c, next) => negotiators[versionOf(c)](c, next));
  versioned.use(authenticate({ apiKeys: { store: ctx.apiKeys }, jwt: ctx.verifier }));
  versioned.route('/', versionRoutes(ctx));
  if (api.strategy === 'path') app.route('/v1', versioned).route('/v2', versioned);
  else app.route('/', versioned);

  // Node itself reads and discards a body the app left unread (a 413, a 401 before the body), as
  // under Express; @hono/node-server's own clean-up gives up after 500 ms and closes the connection.
  return getRequestListener(app.fetch, { autoCleanupIncoming: false }) as RequestListener;
}
