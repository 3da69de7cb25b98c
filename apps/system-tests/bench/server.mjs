/**
 * One benchmark server per process: `node bench/server.mjs <variant>`. Configuration comes from the
 * environment (BENCH_PUBLIC_JWK, BENCH_JWKS_URL, BENCH_ISSUER, BENCH_AUDIENCE, REDIS_URL,
 * BENCH_REDIS_PREFIX); it prints `ready <port>` once listening on 127.0.0.1.
 *
 * Variants
 *   bare             Express 5, GET /v2/projects filters and sorts an in-memory collection by hand
 *   stack            the same route behind requestId, versioning, negotiation, bearer JWT (verified-
 *                    token cache), collectionQuery, errorHandler
 *   stack-own-handler the same middleware, but the hand-written handler of `bare` answers (no
 *                    applyToArray / buildPage): separates the middleware's cost from the page's
 *   auth-plumbline   GET /projects behind @plumbline/auth authenticate() (JWKS from a URL)
 *   auth-oauth2      the same behind express-oauth2-jwt-bearer auth()
 *   auth-express-jwt the same behind express-jwt (key from the JWKS URL through jose)
 *   bare-fastify, stack-fastify, stack-own-handler-fastify
 *                    the same three on Fastify 5 (plumblineErrors, versioning, negotiation,
 *                    authenticate hook, collectionQuery hooks; the bare route reads request.query)
 *   layer0-fastify ... layer5-fastify, layer0-hono ... layer5-hono
 *                    the Fastify and Hono stacks one Plumbline layer at a time (layersFastify, layersHono)
 *   bare-hono, stack-hono, stack-own-handler-hono
 *                    the same three on Hono with @hono/node-server (problemDetails, versioning,
 *                    negotiate, authenticate, collectionQuery; the bare route reads c.req.query())
 *   post-plain       POST /orders with express.json(), 201
 *   post-idempotent  the same behind @plumbline/idempotency with the Redis store
 *   post-redis-floor no middleware, but the two Redis round trips a new key needs (a claim before the
 *                    handler, a write after the response) straight through ioredis, on the same client
 *                    options as post-idempotent: the transport floor of any Redis-backed middleware
 *   peer-get, peer-post the `stack` GET and the `post-idempotent` POST built from popular single-
 *                    purpose packages (bench/peer-stack.mjs)
 *   collection-plumbline, collection-hand
 *                    Express, no other middleware: GET /v2/projects through collectionQuery +
 *                    applyToArray + buildPage + sendPage (offset pages, no cursors), against qs + hand
 *                    validation + hand filter/sort/page with the same semantics (peer-stack.mjs)
 */
import { createPublicKey } from 'node:crypto';
import { createServer } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { createJwtVerifier } from '@plumbline/auth';
import { authenticate } from '@plumbline/auth/express';
import * as authFastify from '@plumbline/auth/fastify';
import * as authHono from '@plumbline/auth/hono';
import { errorHandler, notFoundHandler, requestId } from '@plumbline/errors/express';
import { plumblineErrors } from '@plumbline/errors/fastify';
import { problemDetails } from '@plumbline/errors/hono';
import { createRedisStore } from '@plumbline/idempotency';
import { idempotency } from '@plumbline/idempotency/express';
import { negotiate, represent } from '@plumbline/negotiation/express';
import { negotiation } from '@plumbline/negotiation/fastify';
import { negotiate as negotiateHono } from '@plumbline/negotiation/hono';
import { applyToArray, buildPage, defineCollection } from '@plumbline/query-parser';
import { collectionQuery, getCollectionQuery, sendPage } from '@plumbline/query-parser/express';
import * as queryFastify from '@plumbline/query-parser/fastify';
import * as queryHono from '@plumbline/query-parser/hono';
import { createVersionPolicy } from '@plumbline/versioning';
import { versionedRouter } from '@plumbline/versioning/express';
import { versioning as versioningFastify } from '@plumbline/versioning/fastify';
import { versioning as versioningHono } from '@plumbline/versioning/hono';
import express from 'express';
import { expressjwt } from 'express-jwt';
import { auth as oauth2Bearer } from 'express-oauth2-jwt-bearer';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { Redis } from 'ioredis';
import { createRemoteJWKSet } from 'jose';
import {
  handCollection,
  handCollectionQuery,
  errorHandler as handErrorHandler,
  handPage,
  peerGet,
  peerPost,
} from './peer-stack.mjs';
import { FIELDS, PROJECTS, STATUSES } from './projects.mjs';

const variant = process.argv[2];
const env = process.env;
const ISSUER = env.BENCH_ISSUER ?? 'https://issuer.bench.test/';
const AUDIENCE = env.BENCH_AUDIENCE ?? 'https://api.bench.test';

const projects = defineCollection({ fields: FIELDS, defaultSort: '-created_at' });

/** The version policy and the token verifier every Plumbline stack of this file uses. */
function stackParts() {
  return {
    policy: createVersionPolicy({ strategy: 'path', versions: ['2'] }),
    verifier: createJwtVerifier({
      issuers: [{ issuer: ISSUER, audience: AUDIENCE, jwks: { keys: [JSON.parse(env.BENCH_PUBLIC_JWK)] } }],
    }),
  };
}

/**
 * The route without Plumbline: the same filtered, sorted first page of the same collection, with the
 * query read by hand (no validation, no auth, no problem documents), as a user would write it.
 */
function handWrittenPage({ status, sort, limit }) {
  const descending = typeof sort === 'string' && sort.startsWith('-');
  const field = typeof sort === 'string' ? sort.replace(/^-/, '') : 'created_at';
  const page = PROJECTS.filter((p) => status === undefined || p.status === status)
    .sort((a, b) => (a[field] < b[field] ? -1 : a[field] > b[field] ? 1 : 0) * (descending ? -1 : 1))
    .slice(0, Number(limit ?? 20));
  return { data: page };
}

function handWritten(req, res) {
  res.json(handWrittenPage(req.query));
}

/** The same hand-written route on Fastify (Fastify's own query parsing and JSON serialization). */
const handWrittenFastify = async (request) => handWrittenPage(request.query);

/** The same hand-written route on Hono. */
const handWrittenHono = (c) => c.json(handWrittenPage(c.req.query()));

function bare() {
  const app = express();
  app.get('/v2/projects', handWritten);
  return app;
}

/** The whole stack; `ownHandler` keeps the middleware but answers with the hand-written handler. */
function stack(ownHandler = false) {
  const { policy, verifier } = stackParts();
  const v2 = express.Router();
  v2.use(negotiate({ types: ['application/json', 'application/xml'], languages: ['en', 'de'] }));
  v2.use(authenticate({ jwt: verifier }));
  v2.get('/projects', collectionQuery(projects), (req, res) => {
    if (ownHandler) {
      handWritten(req, res);
      return;
    }
    const query = getCollectionQuery(req, projects);
    sendPage(res, buildPage(query, applyToArray(query, PROJECTS), { baseUrl: '/v2/projects' }));
  });
  v2.get('/projects/:id', (req, res) => represent(res, PROJECTS[0] ?? { id: req.params.id }));
  const app = express();
  app.use(requestId());
  app.use(versionedRouter(policy, { 2: v2 }));
  app.use(notFoundHandler());
  app.use(errorHandler());
  return app;
}

/**
 * The Fastify stack built up one Plumbline layer at a time (0: no Plumbline; 1: errors; 2: +versioning;
 * 3: +negotiation; 4: +auth; 5: +collectionQuery), all with the hand-written handler: what each layer
 * adds to the whole route, counted by instructions.mjs --routes layer0-fastify,...,layer5-fastify.
 */
async function layersFastify(level) {
  const { policy, verifier } = stackParts();
  const app = Fastify();
  if (level >= 1) await app.register(plumblineErrors);
  if (level >= 2) await app.register(versioningFastify, { policy });
  await app.register(
    async (v2) => {
      if (level >= 3)
        await v2.register(negotiation, {
          types: ['application/json', 'application/xml'],
          languages: ['en', 'de'],
        });
      if (level >= 4) v2.addHook('onRequest', authFastify.authenticate({ jwt: verifier }));
      if (level >= 5)
        v2.get('/projects', queryFastify.collectionQuery(projects), async (request) =>
          handWrittenFastify(request),
        );
      else v2.get('/projects', async (request) => handWrittenFastify(request));
    },
    { prefix: '/v2' },
  );
  return app;
}

function bareFastify() {
  const app = Fastify();
  app.get('/v2/projects', handWrittenFastify);
  return app;
}

/** The Plumbline stack on Fastify 5, in the order of the Express one. */
async function stackFastify(ownHandler = false) {
  const { policy, verifier } = stackParts();
  const app = Fastify();
  await app.register(plumblineErrors);
  await app.register(versioningFastify, { policy });
  await app.register(
    async (v2) => {
      await v2.register(negotiation, {
        types: ['application/json', 'application/xml'],
        languages: ['en', 'de'],
      });
      v2.addHook('onRequest', authFastify.authenticate({ jwt: verifier }));
      v2.get('/projects', queryFastify.collectionQuery(projects), async (request, reply) => {
        if (ownHandler) return handWrittenFastify(request);
        const query = queryFastify.getCollectionQuery(request, projects);
        return queryFastify.sendPage(
          reply,
          buildPage(query, applyToArray(query, PROJECTS), { baseUrl: '/v2/projects' }),
        );
      });
      v2.get('/projects/:id', async (request, reply) =>
        reply.represent(PROJECTS[0] ?? { id: request.params.id }),
      );
    },
    { prefix: '/v2' },
  );
  return app;
}

function bareHono() {
  const app = new Hono();
  app.get('/v2/projects', handWrittenHono);
  return app;
}

/** The Plumbline stack on Hono, in the order of the Express one. */
function stackHono(ownHandler = false) {
  const { policy, verifier } = stackParts();
  const problems = problemDetails();
  const v2 = new Hono();
  v2.use(negotiateHono({ types: ['application/json', 'application/xml'], languages: ['en', 'de'] }));
  v2.use(authHono.authenticate({ jwt: verifier }));
  v2.get('/projects', queryHono.collectionQuery(projects), (c) => {
    if (ownHandler) return handWrittenHono(c);
    const query = queryHono.getCollectionQuery(c, projects);
    return queryHono.sendPage(
      c,
      buildPage(query, applyToArray(query, PROJECTS), { baseUrl: '/v2/projects' }),
    );
  });
  const app = new Hono();
  app.use(problems.middleware);
  app.onError(problems.onError);
  app.notFound(problems.notFound);
  app.use(versioningHono(policy));
  app.route('/v2', v2);
  return app;
}

/**
 * The Hono stack built up one Plumbline layer at a time (0: no Plumbline; 1: problemDetails; 2:
 * +versioning; 3: +negotiate; 4: +authenticate; 5: +collectionQuery), all with the hand-written handler.
 */
function layersHono(level) {
  const { policy, verifier } = stackParts();
  const v2 = new Hono();
  if (level >= 3)
    v2.use(negotiateHono({ types: ['application/json', 'application/xml'], languages: ['en', 'de'] }));
  if (level >= 4) v2.use(authHono.authenticate({ jwt: verifier }));
  if (level >= 5) v2.get('/projects', queryHono.collectionQuery(projects), (c) => handWrittenHono(c));
  else v2.get('/projects', (c) => handWrittenHono(c));
  const app = new Hono();
  if (level >= 1) {
    const problems = problemDetails();
    app.use(problems.middleware);
    app.onError(problems.onError);
    app.notFound(problems.notFound);
  }
  if (level >= 2) app.use(versioningHono(policy));
  app.route('/v2', v2);
  return app;
}

/** The same collection with offset pages only (no signed cursors), for the collection pair. */
const projectsOffset = defineCollection({
  fields: FIELDS,
  defaultSort: '-created_at',
  pagination: ['offset'],
});

function collectionPlumbline() {
  const app = express();
  app.get('/v2/projects', collectionQuery(projectsOffset), (req, res) => {
    const query = getCollectionQuery(req, projectsOffset);
    sendPage(res, buildPage(query, applyToArray(query, PROJECTS), { baseUrl: '/v2/projects' }));
  });
  app.use(errorHandler());
  return app;
}

function collectionHand() {
  const app = express();
  app.get('/v2/projects', handCollectionQuery(handCollection({ statuses: STATUSES })), (req, res) => {
    res.json(handPage(PROJECTS, req.collectionQuery, '/v2/projects'));
  });
  app.use(handErrorHandler);
  return app;
}

function authRoute(middleware) {
  const app = express();
  app.get('/projects', middleware, (_req, res) => {
    res.json({ data: [{ id: 1, name: 'Apollo' }] });
  });
  return app;
}

function authPlumbline() {
  const verifier = createJwtVerifier({
    issuers: [{ issuer: ISSUER, audience: AUDIENCE, jwksUri: env.BENCH_JWKS_URL }],
  });
  const app = authRoute(authenticate({ jwt: verifier }));
  app.use(errorHandler());
  return app;
}

function authOauth2() {
  const app = authRoute(
    oauth2Bearer({
      issuer: ISSUER,
      audience: AUDIENCE,
      jwksUri: env.BENCH_JWKS_URL,
      tokenSigningAlg: 'ES256',
    }),
  );
  return app;
}

function authExpressJwt() {
  // jwks-rsa is not installed; jose's remote key set (cached) fetches the same JWKS URL.
  const keySet = createRemoteJWKSet(new URL(env.BENCH_JWKS_URL));
  const cache = new Map();
  const secret = async (_req, token) => {
    const kid = token?.header?.kid ?? '';
    let key = cache.get(kid);
    if (!key) {
      const cryptoKey = await keySet(token.header);
      key = createPublicKey({ key: await crypto.subtle.exportKey('jwk', cryptoKey), format: 'jwk' });
      cache.set(kid, key);
    }
    return key;
  };
  return authRoute(expressjwt({ secret, algorithms: ['ES256'], issuer: ISSUER, audience: AUDIENCE }));
}

let redis;
let closeRedis;
const REDIS_PREFIX = env.BENCH_REDIS_PREFIX ?? 'bench:idem:';
/** The Redis client of post-idempotent and post-redis-floor (same options for both). */
const benchRedis = () => {
  redis = new Redis(env.REDIS_URL ?? 'redis://127.0.0.1:6379', { enableAutoPipelining: true });
  return redis;
};

/**
 * The two round trips a new key costs, with no middleware logic: an EVALSHA before the handler (the
 * claim) and one after the response ends (the completion), as packages/idempotency/bench does.
 */
async function redisFloor() {
  const client = benchRedis();
  const sha = await client.script('LOAD', 'return 1');
  return (req, res, next) => {
    const key = `${REDIS_PREFIX}${req.headers['idempotency-key']}`;
    client.evalshaBuffer(sha, 1, key, 'fingerprint', 'token', 60_000).then(() => {
      res.once('finish', () => {
        client.evalshaBuffer(sha, 1, key, 'token', 201, '[]', Buffer.from('{}'), 86_400_000).catch(() => {});
      });
      next();
    }, next);
  };
}

async function post(mode) {
  const app = express();
  const chain = [express.json()];
  if (mode === 'idempotent') {
    const store = createRedisStore({
      client: benchRedis(),
      prefix: REDIS_PREFIX,
      // bench/instructions.mjs runs this under valgrind, where a round trip can take seconds.
      timeoutMs: Number(env.BENCH_REDIS_TIMEOUT_MS ?? 2000),
    });
    chain.push(idempotency({ store, required: true }));
  } else if (mode === 'floor') chain.push(await redisFloor());
  let next = 1;
  app.post('/orders', ...chain, (req, res) => {
    const id = next++;
    res
      .status(201)
      .location(`/orders/${id}`)
      .json({ id, ...req.body });
  });
  app.use(errorHandler());
  return app;
}

const honoServer = (app) => createServer(getRequestListener(app.fetch));
// Fastify listens itself, as it is deployed (its server options, its keep-alive handling).
const fastifyServer = async (app) => {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return app.server;
};

const apps = {
  bare,
  stack: () => stack(false),
  'stack-own-handler': () => stack(true),
  'bare-fastify': () => fastifyServer(bareFastify()),
  'stack-fastify': async () => fastifyServer(await stackFastify(false)),
  'layer0-fastify': async () => fastifyServer(await layersFastify(0)),
  'layer1-fastify': async () => fastifyServer(await layersFastify(1)),
  'layer2-fastify': async () => fastifyServer(await layersFastify(2)),
  'layer3-fastify': async () => fastifyServer(await layersFastify(3)),
  'layer4-fastify': async () => fastifyServer(await layersFastify(4)),
  'layer5-fastify': async () => fastifyServer(await layersFastify(5)),
  'stack-own-handler-fastify': async () => fastifyServer(await stackFastify(true)),
  'bare-hono': () => honoServer(bareHono()),
  'stack-hono': () => honoServer(stackHono(false)),
  'stack-own-handler-hono': () => honoServer(stackHono(true)),
  'layer0-hono': () => honoServer(layersHono(0)),
  'layer1-hono': () => honoServer(layersHono(1)),
  'layer2-hono': () => honoServer(layersHono(2)),
  'layer3-hono': () => honoServer(layersHono(3)),
  'layer4-hono': () => honoServer(layersHono(4)),
  'layer5-hono': () => honoServer(layersHono(5)),
  'auth-plumbline': authPlumbline,
  'auth-oauth2': authOauth2,
  'auth-express-jwt': authExpressJwt,
  'post-plain': () => post('plain'),
  'post-idempotent': () => post('idempotent'),
  'post-redis-floor': () => post('floor'),
  'peer-get': () =>
    peerGet({
      issuer: ISSUER,
      audience: AUDIENCE,
      jwksUri: env.BENCH_JWKS_URL,
      rows: PROJECTS,
      statuses: STATUSES,
    }),
  'peer-post': async () => {
    const peer = await peerPost({ redisUrl: env.REDIS_URL ?? 'redis://127.0.0.1:6379' });
    closeRedis = peer.close;
    return peer.app;
  },
  'collection-plumbline': collectionPlumbline,
  'collection-hand': collectionHand,
};

const make = apps[variant];
if (!make) {
  process.stderr.write(`unknown variant ${variant}; one of ${Object.keys(apps).join(', ')}\n`);
  process.exit(2);
}
// Express apps are request listeners; the Fastify and Hono variants hand over a Node server.
const made = await make();
const server = typeof made === 'function' ? createServer(made) : made;
// bench/instructions.mjs keeps connections open across its (slow) callgrind switches.
if (env.BENCH_KEEPALIVE_MS) server.keepAliveTimeout = Number(env.BENCH_KEEPALIVE_MS);
const announce = () => process.stdout.write(`ready ${server.address().port}\n`);
if (server.listening) announce();
else server.listen(0, '127.0.0.1', announce);
process.on('SIGTERM', () => {
  server.close(() => {
    redis?.disconnect();
    Promise.resolve(closeRedis?.()).finally(() => process.exit(0));
  });
  server.closeAllConnections();
});
