/**
 * The servers bench/instructions.mjs counts: for each framework (Express 5, Fastify 5, Hono on
 * @hono/node-server) a bare route and the same route behind exactly one Plumbline middleware, each
 * on its own port of 127.0.0.1, all in this one process (so valgrind starts Node once). Prints
 * `ready <JSON: name → port>`. Reads BENCH_PUBLIC_JWK, BENCH_ISSUER, BENCH_AUDIENCE, and REDIS_URL /
 * BENCH_REDIS_PREFIX when BENCH_REDIS=1 (then it adds the Express Redis rows); BENCH_FRAMEWORKS and
 * BENCH_ROUTE narrow it to some frameworks or one route.
 *
 * Every GET route answers the same small JSON body and every POST route 201 with the same body, so
 * (route with a middleware) − (bare route) is the middleware's own cost per request.
 */
import { createServer } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { createJwtVerifier } from '@plumbline/auth';
import * as authExpress from '@plumbline/auth/express';
import * as authFastify from '@plumbline/auth/fastify';
import * as authHono from '@plumbline/auth/hono';
import { route } from '@plumbline/contract';
import * as contractExpress from '@plumbline/contract/express';
import * as contractFastify from '@plumbline/contract/fastify';
import * as contractHono from '@plumbline/contract/hono';
import { HttpError, jsonPointer } from '@plumbline/errors';
import * as errorsExpress from '@plumbline/errors/express';
import * as errorsFastify from '@plumbline/errors/fastify';
import * as errorsHono from '@plumbline/errors/hono';
import { createMemoryStore, createRedisStore } from '@plumbline/idempotency';
import * as idemExpress from '@plumbline/idempotency/express';
import * as idemFastify from '@plumbline/idempotency/fastify';
import * as idemHono from '@plumbline/idempotency/hono';
import * as negExpress from '@plumbline/negotiation/express';
import * as negFastify from '@plumbline/negotiation/fastify';
import * as negHono from '@plumbline/negotiation/hono';
import { applyToArray, buildPage, defineCollection } from '@plumbline/query-parser';
import * as queryExpress from '@plumbline/query-parser/express';
import * as queryFastify from '@plumbline/query-parser/fastify';
import * as queryHono from '@plumbline/query-parser/hono';
import * as telExpress from '@plumbline/telemetry/express';
import * as telFastify from '@plumbline/telemetry/fastify';
import * as telHono from '@plumbline/telemetry/hono';
import { createVersionPolicy, fieldRenamed, versions } from '@plumbline/versioning';
import * as verExpress from '@plumbline/versioning/express';
import * as verFastify from '@plumbline/versioning/fastify';
import * as verHono from '@plumbline/versioning/hono';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { Redis } from 'ioredis';
import { z } from 'zod';

const env = process.env;
const BODY = { data: [{ id: 1, name: 'Apollo', status: 'active' }] };
const NEGOTIATION = { types: ['application/json', 'application/xml'], languages: ['en', 'de'] };
const policy = () => createVersionPolicy({ strategy: 'path', versions: ['2'] });
const verifier = () =>
  createJwtVerifier({
    issuers: [
      {
        issuer: env.BENCH_ISSUER,
        audience: env.BENCH_AUDIENCE,
        jwks: { keys: [JSON.parse(env.BENCH_PUBLIC_JWK)] },
      },
    ],
  });
const collection = defineCollection({
  fields: {
    id: { type: 'int', sort: true },
    name: { type: 'string', sort: true, search: true },
    status: { type: 'enum', values: ['active', 'archived', 'paused'], filter: ['eq', 'in'] },
    priority: { type: 'int', sort: true, filter: ['eq', 'gte', 'lte'] },
  },
  defaultSort: 'id',
});
let redis;
const redisClient = () => {
  redis ??= new Redis(env.REDIS_URL ?? 'redis://127.0.0.1:6379', { enableAutoPipelining: true });
  return redis;
};
const PREFIX = env.BENCH_REDIS_PREFIX ?? 'bench:instr:';
const REDIS_TIMEOUT_MS = Number(env.BENCH_REDIS_TIMEOUT_MS ?? 2000);

// ---- @plumbline/contract: one GET and one POST, by mount() and wired by hand ----------------------
// The same route both ways, with the same packages: JWT authentication and a scope, the collection
// query, a page of the same rows (GET); Content-Type check, JSON body, the same zod body schema,
// idempotency on the memory store, 201 with Location (POST). The difference is the contract's cost.
const ITEMS = Array.from({ length: 40 }, (_, i) => ({
  id: i + 1,
  name: `item ${i + 1}`,
  status: ['active', 'archived', 'paused'][i % 3],
  priority: (i * 7) % 10,
}));
const Item = z.object({
  id: z.number().int(),
  name: z.string(),
  status: z.string(),
  priority: z.number().int(),
});
const ItemInput = z.strictObject({ sku: z.string().min(1).max(40), qty: z.number().int().min(1) });
const Created = z.object({ id: z.number().int(), sku: z.string(), qty: z.number().int() });
const contractRoutes = () => [
  route({
    method: 'GET',
    path: '/v2/items',
    collection,
    responses: { 200: Item },
    scopes: ['read:projects'],
    handler: ({ query }) => ({ status: 200, rows: applyToArray(query, ITEMS) }),
  }),
  route({
    method: 'POST',
    path: '/v2/items',
    body: ItemInput,
    responses: { 201: Created },
    idempotent: { required: true },
    handler: ({ body }) => {
      const id = ++created;
      return { status: 201, body: { id, ...body }, location: `/v2/items/${id}` };
    },
  }),
];
/** Validation failures answered as the contract answers them, for the hand-wired POST. */
const parseBody = (body) => {
  const result = ItemInput.safeParse(body);
  if (result.success) return result.data;
  throw new HttpError('validation_failed', {
    errors: result.error.issues.map((issue) => ({
      pointer: jsonPointer(issue.path),
      code: 'invalid_value',
      detail: issue.message,
    })),
  });
};

// ---- Express 5 -------------------------------------------------------------------------------
const sendBody = (_req, res) => res.json(BODY);

// Version changes (issue #33): three versions, each a field renamed on the items of the page. The
// `version-changes` routes send BODY through migrateResponse to the newest version (nothing to
// migrate: what every current client pays), `version-changes-2` down to v1 (two changes crossed).
// Renamed keys of the same total length keep the body the same size as the bare route's.
const itemChanges = versions([
  { version: '1' },
  { version: '2', changes: [fieldRenamed({ schema: 'Item', from: 'title', to: 'name' })] },
  { version: '3', changes: [fieldRenamed({ schema: 'Item', from: 'state', to: 'status' })] },
]);
const ITEMS_ENDPOINT = { method: 'GET', path: '/items', schemas: ['Item'], collection: 'data' };
const migrated = (version) => () => itemChanges.migrateResponse(version, BODY, ITEMS_ENDPOINT);
const newest = migrated('3');
const oldest = migrated('1');
let created = 0;
const sendCreated = (req, res) => res.status(201).json({ id: ++created, ...req.body });

/** The two raw round trips of a new key (claim, then completion after the response), no middleware. */
async function redisFloor() {
  const client = redisClient();
  const sha = await client.script('LOAD', 'return 1');
  return (req, res, next) => {
    const key = `${PREFIX}${req.headers['idempotency-key']}`;
    client.evalshaBuffer(sha, 1, key, 'fingerprint', 'token', 60_000).then(() => {
      res.once('finish', () => {
        client.evalshaBuffer(sha, 1, key, 'token', 201, '[]', Buffer.from('{}'), 86_400_000).catch(() => {});
      });
      next();
    }, next);
  };
}

/**
 * The OpenTelemetry SDK as a service runs it (AsyncLocalStorage context, a tracer provider with a
 * batch span processor, a meter provider with a periodic reader), registered globally for the
 * `telemetry-sdk` routes. Its exporters discard what they are given: the row counts recording spans
 * and metrics and queueing them for export, not encoding them or sending them over the network, which
 * a batch exporter does off the request path every few seconds. Only in a process of its own
 * (`BENCH_ROUTE`, the driver's default): registered in a shared process it would turn every other
 * route's telemetry on too.
 */
let sdkRegistered = false;
function registerSdk() {
  if (!env.BENCH_ROUTE) throw new Error('telemetry-sdk routes need a process of their own (BENCH_ROUTE)');
  if (sdkRegistered) return;
  sdkRegistered = true;
  const done = (_items, callback) => callback({ code: 0 });
  const settled = () => Promise.resolve();
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(
    new TracerProvider({
      spanProcessors: [new BatchSpanProcessor({ exporter: { export: done, shutdown: settled } })],
    }),
  );
  metrics.setGlobalMeterProvider(
    new MeterProvider({
      readers: [
        new PeriodicExportingMetricReader({
          exporter: { export: done, forceFlush: settled, shutdown: settled },
          exportIntervalMillis: 60_000,
        }),
      ],
    }),
  );
}

const expressApps = {
  bare: () => express().get('/v2/items', sendBody),
  errors: () =>
    express()
      .use(errorsExpress.requestId())
      .get('/v2/items', sendBody)
      .use(errorsExpress.notFoundHandler())
      .use(errorsExpress.errorHandler()),
  negotiation: () => express().use(negExpress.negotiate(NEGOTIATION)).get('/v2/items', sendBody),
  'version-changes': () => express().get('/v2/items', (_req, res) => res.json(newest())),
  'version-changes-2': () => express().get('/v2/items', (_req, res) => res.json(oldest())),
  versioning: () =>
    express().use(verExpress.versionedRouter(policy(), { 2: express.Router().get('/items', sendBody) })),
  'query-parser': () => express().get('/v2/items', queryExpress.collectionQuery(collection), sendBody),
  auth: () =>
    express()
      .use(authExpress.authenticate({ jwt: verifier() }))
      .get('/v2/items', sendBody),
  // No OpenTelemetry SDK is registered in this process: the row is what telemetry() costs a service
  // that has not turned tracing on (the issue's "nothing measurable").
  telemetry: () => express().use(telExpress.telemetry()).get('/v2/items', sendBody),
  // A middleware that only passes the request on: the anchor the `telemetry` row is read against.
  empty: () =>
    express()
      .use((_req, _res, next) => next())
      .get('/v2/items', sendBody),
  'telemetry-sdk': () => {
    registerSdk();
    return express().use(telExpress.telemetry()).get('/v2/items', sendBody);
  },
  'bare-post': () => express().post('/v2/items', express.json(), sendCreated),
  'contract-hand': () =>
    express()
      .use(negExpress.negotiate(NEGOTIATION), authExpress.authenticate({ jwt: verifier() }))
      .get(
        '/v2/items',
        authExpress.requireScopes('read:projects'),
        queryExpress.collectionQuery(collection),
        (req, res) => {
          const query = queryExpress.getCollectionQuery(req, collection);
          const page = buildPage(query, applyToArray(query, ITEMS), { baseUrl: req.path });
          queryExpress.setPageHeaders(res, page);
          negExpress.represent(res, page.body); // negotiated (JSON or XML) with its ETag, as the contract sends it
        },
      )
      .use(errorsExpress.errorHandler()),
  contract: () =>
    contractExpress
      .mount(
        express().use(negExpress.negotiate(NEGOTIATION), authExpress.authenticate({ jwt: verifier() })),
        contractRoutes().slice(0, 1),
        { responseValidation: false },
      )
      .use(errorsExpress.errorHandler()),
  'contract-validated': () =>
    contractExpress
      .mount(
        express().use(negExpress.negotiate(NEGOTIATION), authExpress.authenticate({ jwt: verifier() })),
        contractRoutes().slice(0, 1),
        { responseValidation: true },
      )
      .use(errorsExpress.errorHandler()),
  'contract-post-hand': () =>
    express()
      .use(negExpress.negotiate(NEGOTIATION), authExpress.authenticate({ jwt: verifier() }))
      .post(
        '/v2/items',
        negExpress.requireContentType('application/json'),
        express.json({ type: 'application/json', inflate: false }),
        (req, _res, next) => {
          req.body = parseBody(req.body);
          next();
        },
        idemExpress.idempotency({ store: createMemoryStore(), required: true }),
        (req, res) => {
          const id = ++created;
          res.location(`/v2/items/${id}`);
          negExpress.represent(res, { id, ...req.body }, 201);
        },
      )
      .use(errorsExpress.errorHandler()),
  'contract-post': () =>
    contractExpress
      .mount(
        express().use(negExpress.negotiate(NEGOTIATION), authExpress.authenticate({ jwt: verifier() })),
        contractRoutes().slice(1),
        { responseValidation: false, idempotency: { store: createMemoryStore() } },
      )
      .use(errorsExpress.errorHandler()),
  idempotency: () =>
    express().post(
      '/v2/items',
      express.json(),
      idemExpress.idempotency({ store: createMemoryStore(), required: true }),
      sendCreated,
    ),
};
if (env.BENCH_REDIS === '1') {
  expressApps['idempotency-redis'] = () =>
    express().post(
      '/v2/items',
      express.json(),
      idemExpress.idempotency({
        // Under valgrind on a busy machine a round trip can take seconds: no timeouts in the count.
        store: createRedisStore({ client: redisClient(), prefix: PREFIX, timeoutMs: REDIS_TIMEOUT_MS }),
        required: true,
      }),
      sendCreated,
    );
  expressApps['redis-floor'] = async () =>
    express().post('/v2/items', express.json(), await redisFloor(), sendCreated);
}

// ---- Fastify 5 -------------------------------------------------------------------------------
const fastifyBody = async () => BODY;
const fastifyCreated = async (request, reply) => reply.code(201).send({ id: ++created, ...request.body });
/** The front of the contract rows on Fastify: problem documents, negotiation, JWT authentication. */
async function fastifyFront() {
  const app = Fastify();
  await app.register(errorsFastify.plumblineErrors);
  await app.register(negFastify.negotiation, NEGOTIATION);
  app.addHook('onRequest', authFastify.authenticate({ jwt: verifier() }));
  return app;
}
const fastifyApps = {
  bare: async () => Fastify().get('/v2/items', fastifyBody),
  'version-changes': async () => Fastify().get('/v2/items', async () => newest()),
  'version-changes-2': async () => Fastify().get('/v2/items', async () => oldest()),
  errors: async () => {
    const app = Fastify();
    await app.register(errorsFastify.plumblineErrors);
    return app.get('/v2/items', fastifyBody);
  },
  negotiation: async () => {
    const app = Fastify();
    await app.register(negFastify.negotiation, NEGOTIATION);
    return app.get('/v2/items', fastifyBody);
  },
  versioning: async () => {
    const app = Fastify();
    await app.register(verFastify.versioning, { policy: policy() });
    return app.get('/v2/items', fastifyBody);
  },
  'query-parser': async () =>
    Fastify().get('/v2/items', queryFastify.collectionQuery(collection), fastifyBody),
  auth: async () =>
    Fastify()
      .addHook('onRequest', authFastify.authenticate({ jwt: verifier() }))
      .get('/v2/items', fastifyBody),
  // The three hooks telemetry adds, doing nothing.
  empty: async () => {
    const app = Fastify();
    app.addHook('onRequest', (_request, _reply, next) => next());
    app.addHook('onSend', (_request, _reply, payload, next) => next(null, payload));
    app.addHook('onResponse', (_request, _reply, next) => next());
    return app.get('/v2/items', fastifyBody);
  },
  telemetry: async () => {
    const app = Fastify();
    await app.register(telFastify.telemetry);
    return app.get('/v2/items', fastifyBody);
  },
  'telemetry-sdk': async () => {
    registerSdk();
    const app = Fastify();
    await app.register(telFastify.telemetry);
    return app.get('/v2/items', fastifyBody);
  },
  'bare-post': async () => Fastify().post('/v2/items', fastifyCreated),
  'contract-hand': async () => {
    const app = await fastifyFront();
    const query = queryFastify.collectionQuery(collection);
    return app.get(
      '/v2/items',
      { ...query, onRequest: [authFastify.requireScopes('read:projects'), query.onRequest] },
      async (request, reply) => {
        const parsed = queryFastify.getCollectionQuery(request, collection);
        const page = buildPage(parsed, applyToArray(parsed, ITEMS), { baseUrl: '/v2/items' });
        queryFastify.setPageHeaders(reply, page);
        return reply.represent(page.body);
      },
    );
  },
  contract: async () => {
    const app = await fastifyFront();
    await contractFastify.mount(app, contractRoutes().slice(0, 1), { responseValidation: false });
    return app;
  },
  'contract-validated': async () => {
    const app = await fastifyFront();
    await contractFastify.mount(app, contractRoutes().slice(0, 1), { responseValidation: true });
    return app;
  },
  'contract-post-hand': async () => {
    const app = await fastifyFront();
    await app.register(async (scope) => {
      await scope.register(idemFastify.idempotency, { store: createMemoryStore(), required: true });
      scope.post(
        '/v2/items',
        {
          onRequest: negFastify.requireContentType('application/json'),
          preValidation: async (request) => {
            request.body = parseBody(request.body);
          },
        },
        async (request, reply) => {
          const id = ++created;
          reply.header('Location', `/v2/items/${id}`);
          return reply.represent({ id, ...request.body }, 201);
        },
      );
    });
    return app;
  },
  'contract-post': async () => {
    const app = await fastifyFront();
    await contractFastify.mount(app, contractRoutes().slice(1), {
      responseValidation: false,
      idempotency: { store: createMemoryStore() },
    });
    return app;
  },
  idempotency: async () => {
    const app = Fastify();
    await app.register(idemFastify.idempotency, { store: createMemoryStore(), required: true });
    return app.post('/v2/items', fastifyCreated);
  },
};

// ---- Hono on @hono/node-server ---------------------------------------------------------------
const honoBody = (c) => c.json(BODY);
const honoCreated = async (c) => c.json({ id: ++created, ...(await c.req.json()) }, 201);
/** The front of the contract rows on Hono: problem documents, negotiation, JWT authentication. */
function honoFront() {
  const problems = errorsHono.problemDetails();
  const app = new Hono();
  app.use(problems.middleware);
  app.onError(problems.onError);
  app.notFound(problems.notFound);
  return app.use(negHono.negotiate(NEGOTIATION)).use(authHono.authenticate({ jwt: verifier() }));
}
const honoApps = {
  bare: () => new Hono().get('/v2/items', honoBody),
  errors: () => {
    const problems = errorsHono.problemDetails();
    const app = new Hono();
    app.use(problems.middleware);
    app.onError(problems.onError);
    app.notFound(problems.notFound);
    return app.get('/v2/items', honoBody);
  },
  negotiation: () => new Hono().use(negHono.negotiate(NEGOTIATION)).get('/v2/items', honoBody),
  'version-changes': () => new Hono().get('/v2/items', (c) => c.json(newest())),
  'version-changes-2': () => new Hono().get('/v2/items', (c) => c.json(oldest())),
  versioning: () => new Hono().use(verHono.versioning(policy())).get('/v2/items', honoBody),
  'query-parser': () => new Hono().get('/v2/items', queryHono.collectionQuery(collection), honoBody),
  auth: () => new Hono().use(authHono.authenticate({ jwt: verifier() })).get('/v2/items', honoBody),
  telemetry: () => new Hono().use(telHono.telemetry()).get('/v2/items', honoBody),
  empty: () => new Hono().use((_c, next) => next()).get('/v2/items', honoBody),
  'telemetry-sdk': () => {
    registerSdk();
    return new Hono().use(telHono.telemetry()).get('/v2/items', honoBody);
  },
  'bare-post': () => new Hono().post('/v2/items', honoCreated),
  'contract-hand': () =>
    honoFront().get(
      '/v2/items',
      authHono.requireScopes('read:projects'),
      queryHono.collectionQuery(collection),
      (c) => {
        const query = queryHono.getCollectionQuery(c, collection);
        const page = buildPage(query, applyToArray(query, ITEMS), { baseUrl: '/v2/items' });
        queryHono.setPageHeaders(c, page);
        return negHono.represent(c, page.body);
      },
    ),
  contract: () =>
    contractHono.mount(honoFront(), contractRoutes().slice(0, 1), { responseValidation: false }),
  'contract-validated': () =>
    contractHono.mount(honoFront(), contractRoutes().slice(0, 1), { responseValidation: true }),
  'contract-post-hand': () => {
    const bodies = new WeakMap();
    return honoFront().post(
      '/v2/items',
      negHono.requireContentType('application/json'),
      async (c, next) => {
        bodies.set(c.req.raw, parseBody(await c.req.json()));
        await next();
      },
      idemHono.idempotency({ store: createMemoryStore(), required: true }),
      (c) => {
        const id = ++created;
        c.header('Location', `/v2/items/${id}`);
        return negHono.represent(c, { id, ...bodies.get(c.req.raw) }, 201);
      },
    );
  },
  'contract-post': () =>
    contractHono.mount(honoFront(), contractRoutes().slice(1), {
      responseValidation: false,
      idempotency: { store: createMemoryStore() },
    }),
  idempotency: () =>
    new Hono().post(
      '/v2/items',
      idemHono.idempotency({ store: createMemoryStore(), required: true }),
      honoCreated,
    ),
};

const KEEPALIVE_MS = Number(env.BENCH_KEEPALIVE_MS ?? 5000);
const listen = (server) => {
  server.keepAliveTimeout = KEEPALIVE_MS;
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
};
// Fastify listens itself, as deployed; Express and Hono through node:http.
const frameworks = [
  ['express', expressApps, (app) => listen(createServer(app))],
  [
    'fastify',
    fastifyApps,
    async (app) => {
      await app.listen({ port: 0, host: '127.0.0.1' });
      app.server.keepAliveTimeout = KEEPALIVE_MS;
      return app.server;
    },
  ],
  ['hono', honoApps, (app) => listen(createServer(getRequestListener(app.fetch)))],
];
const ports = {};
const only = env.BENCH_FRAMEWORKS ? new Set(env.BENCH_FRAMEWORKS.split(',')) : undefined;
const servers = [];
for (const [framework, apps, serve] of frameworks) {
  if (only && !only.has(framework)) continue;
  for (const [middleware, make] of Object.entries(apps)) {
    if (env.BENCH_ROUTE && env.BENCH_ROUTE !== middleware) continue;
    const server = await serve(await make());
    servers.push(server);
    ports[`${framework}/${middleware}`] = server.address().port;
  }
}
// The driver collects garbage between routes (node --expose-gc), so no route pays for another's.
const admin = await listen(
  createServer((_req, res) => {
    globalThis.gc?.();
    res.end('ok');
  }),
);
servers.push(admin);
process.stdout.write(`ready ${JSON.stringify({ ...ports, _gc: admin.address().port })}\n`);
process.on('SIGTERM', () => {
  for (const server of servers) server.close();
  redis?.disconnect();
  process.exit(0);
});
