/**
 * What a consumer does with each package, as JavaScript source that runs unchanged under `import()`
 * and `require()`: a small real use of the core (verify a token, render a problem, ...) and a small
 * Express app per adapter with the requests that prove it works. Both are bodies of async functions;
 * `load(specifier)` is `import()` or `require()`, `assert` is node:assert/strict.
 */

/** Core use per package directory: `async (load, assert) => { ... }`. */
export const CORE_USES: Readonly<Record<string, string>> = {
  errors: `
    const { HttpError, toProblem, serializeProblem } = await load('@plumbline/errors');
    const problem = toProblem(new HttpError('not_found'), { instance: '/projects/42', language: 'de' });
    assert.equal(problem.status, 404);
    assert.equal(problem.error_code, 'not_found');
    assert.equal(problem.detail, 'Die angeforderte Ressource existiert nicht.');
    const { contentType } = serializeProblem(problem, 'application/xml');
    assert.equal(contentType, 'application/problem+xml; charset=utf-8');
  `,
  auth: `
    const { createJwtVerifier, generateApiKey, hashApiKey } = await load('@plumbline/auth');
    const { createIssuer } = await load('@plumbline/auth/issuer');
    const issuer = await createIssuer({ issuer: 'https://issuer.test', audience: 'https://api.test' });
    const { accessToken } = await issuer.signAccessToken({ clientId: 'reporting', scopes: ['read:projects'] });
    const verifier = createJwtVerifier({
      issuers: [{ issuer: 'https://issuer.test', audience: 'https://api.test', jwks: issuer.jwks() }],
    });
    const principal = await verifier.verify(accessToken);
    assert.equal(principal.type, 'jwt');
    assert.equal(principal.clientId, 'reporting');
    assert.deepEqual([...principal.scopes], ['read:projects']);
    await assert.rejects(verifier.verify(accessToken.slice(0, -4) + 'AAAA'), (e) => e.code === 'invalid_token' || e.errorCode === 'invalid_token' || e.status === 401);
    assert.match(hashApiKey(generateApiKey()), /^[0-9a-f]{64}$/);
  `,
  'query-parser': `
    const { defineCollection, parseQuery } = await load('@plumbline/query-parser');
    const tasks = defineCollection({
      fields: { id: { type: 'uuid', sort: true }, title: { type: 'string', sort: true, search: true } },
    });
    const query = parseQuery(tasks, 'sort=-title&limit=5');
    assert.deepEqual(query.sort[0], { field: 'title', direction: 'desc' });
    assert.deepEqual(query.pagination, { mode: 'offset', limit: 5, offset: 0 });
    assert.throws(() => parseQuery(tasks, 'sort=password'), (e) => e.status === 400);
  `,
  negotiation: `
    const { createNegotiator } = await load('@plumbline/negotiation');
    const negotiator = createNegotiator({ languages: ['en', 'de'] });
    const result = negotiator.negotiate({ accept: 'application/xml;q=0.9, application/json;q=0.8', acceptLanguage: 'de-DE' });
    assert.equal(result.ok, true);
    assert.equal(result.mediaType, 'application/xml');
    assert.equal(result.language, 'de');
    assert.equal(negotiator.negotiate({ accept: 'image/png' }).ok, false);
  `,
  versioning: `
    const { createVersionPolicy, resolveVersion } = await load('@plumbline/versioning');
    const policy = createVersionPolicy({ strategy: 'header', versions: ['1', '2'] });
    assert.equal(resolveVersion(policy, { headers: { 'x-api-version': '1' } }).version, '1');
    assert.throws(() => resolveVersion(policy, { headers: { 'x-api-version': '9' } }), (e) => e.status === 400);
  `,
  idempotency: `
    const { createIdempotency, createMemoryStore } = await load('@plumbline/idempotency');
    const idem = createIdempotency({ store: createMemoryStore() });
    const request = {
      method: 'POST', path: '/orders', query: '', route: '/orders', principal: 'client-7',
      headers: { 'idempotency-key': 'k1' }, body: { qty: 1 }, required: true,
    };
    const first = await idem.begin(request);
    assert.equal(first.action, 'execute');
    await first.claim.complete({ status: 201, headers: { 'content-type': 'application/json' }, body: new TextEncoder().encode('{"id":1}') });
    const second = await idem.begin(request);
    assert.equal(second.action, 'replay');
    assert.equal(second.response.status, 201);
  `,
  contract: `
    // Any Standard Schema works: this one is hand-written (no validator library in this project).
    const nameSchema = {
      '~standard': {
        version: 1,
        vendor: 'hand-written',
        validate: (v) =>
          typeof v === 'object' && v !== null && typeof v.name === 'string' && v.name.length > 0
            ? { value: { name: v.name } }
            : { issues: [{ message: 'name must be a non-empty string', path: ['name'] }] },
        jsonSchema: {
          input: () => ({ type: 'object', properties: { name: { type: 'string', minLength: 1 } }, required: ['name'] }),
          output: () => ({ type: 'object', properties: { name: { type: 'string', minLength: 1 } }, required: ['name'] }),
        },
      },
    };
    const { compileRoutes, route, toOpenApi, validateRequest } = await load('@plumbline/contract');
    const create = route({
      method: 'POST', path: '/projects', body: nameSchema, responses: { 201: nameSchema },
      handler: ({ body }) => ({ status: 201, body, location: '/projects/1' }),
    });
    const [compiled] = compileRoutes([create]);
    const request = { method: 'POST', path: '/projects', params: {}, rawQuery: '', header: () => undefined, headers: () => ({}), principal: undefined };
    assert.throws(
      () => validateRequest(compiled, { ...request, body: { name: '' } }, {}),
      (e) => e.status === 400 && e.code === 'validation_failed' && e.errors[0].pointer === '#/name',
    );
    assert.deepEqual(validateRequest(compiled, { ...request, body: { name: 'Apollo' } }, {}).body, { name: 'Apollo' });
    const document = toOpenApi([create], { info: { title: 'Projects', version: '1' } });
    assert.equal(document.openapi, '3.1.0');
    assert.ok(document.paths['/projects'].post.responses['201'].headers.Location);
    assert.throws(
      () => compileRoutes([route({ method: 'GET', path: '/projects/{id}', responses: { 200: nameSchema }, handler: () => ({ status: 200 }) })]),
      (e) => e.name === 'RouteDefinitionError' && e.problems.length === 1,
    );
  `,
  'rate-limit': `
    const { addressKey, createLimiter, MemoryStore } = await load('@plumbline/rate-limit');
    assert.equal(addressKey('2001:db8:1234:5678::1'), 'ip:2001:db8:1234:5600::/56');
    const limiter = createLimiter({ limit: 1, headers: 'draft-10', store: new MemoryStore() });
    const first = await limiter.consume('client:demo');
    assert.deepEqual([first.exceeded, first.headers.RateLimit], [false, '"1-in-1min"; r=0; t=60']);
    const second = await limiter.consume('client:demo');
    assert.deepEqual([second.exceeded, second.error.status, second.error.code], [true, 429, 'rate_limited']);
    assert.deepEqual(second.error.extensions, { 'violated-policies': ['1-in-1min'] });
  `,
  cors: `
    const { createCors } = await load('@plumbline/cors');
    const cors = createCors({ origins: ['https://app.example.com'], credentials: true });
    const preflight = cors.decide({
      method: 'OPTIONS',
      origin: 'https://app.example.com',
      accessControlRequestMethod: 'PATCH',
      accessControlRequestHeaders: 'content-type,if-match',
    });
    assert.deepEqual([preflight.preflight, preflight.status, preflight.headers['Access-Control-Max-Age']], [true, 204, '600']);
    const evil = cors.decide({ method: 'GET', origin: 'https://app.example.com.evil.com' });
    assert.deepEqual([evil.allowed, evil.headers], [false, { Vary: 'Origin' }]);
    assert.throws(() => createCors({ origins: '*', credentials: true }), TypeError);
  `,
  telemetry: `
    const { createTelemetry, idempotencyOutcome, problemErrorCode, rateLimitPolicy } = await load('@plumbline/telemetry');
    // No SDK registered: nothing is started and the carrier is never read.
    const reads = [];
    const getter = { keys: () => { reads.push('keys'); return []; }, get: (_c, key) => { reads.push(key); return undefined; } };
    assert.deepEqual([createTelemetry().start('GET', {}, getter), reads], [undefined, []]);
    assert.equal(problemErrorCode('application/problem+json; charset=utf-8', '{"error_code":"invalid_sort"}'), 'invalid_sort');
    assert.deepEqual([idempotencyOutcome(true, 201, undefined, 'true'), idempotencyOutcome(true, 409, 'idempotency_key_in_use', undefined)], ['replayed', 'in_flight']);
    assert.equal(rateLimitPolicy('"60-in-1min";q=60;w=60'), '60-in-1min');
  `,
  conformance: `
    const { lint } = await load('@plumbline/conformance');
    const { createRuleset } = await load('@plumbline/conformance/ruleset');
    assert.equal(typeof createRuleset().rules, 'object');
    const findings = await lint({
      openapi: '3.1.0', info: { title: 't', version: '1' },
      paths: { '/getProjects': { get: { responses: { '200': { description: 'ok' } } } } },
    });
    assert.ok(findings.some((f) => f.rule === 'plumbline-path-no-verbs'), JSON.stringify(findings.map((f) => f.rule)));
  `,
};

/**
 * Express app per package with an /express subpath: `async (express, load, assert, request) => { ... }`.
 * `request(app, { method, path, headers, body })` listens on loopback and answers
 * `{ status, headers, text, json }`. The same body runs on Express 4 and Express 5.
 */
export const EXPRESS_APPS: Readonly<Record<string, string>> = {
  contract: `
    const nameSchema = {
      '~standard': {
        version: 1,
        vendor: 'hand-written',
        validate: (v) =>
          typeof v === 'object' && v !== null && typeof v.name === 'string' && v.name.length > 0
            ? { value: { name: v.name } }
            : { issues: [{ message: 'name must be a non-empty string', path: ['name'] }] },
        jsonSchema: {
          input: () => ({ type: 'object', properties: { name: { type: 'string', minLength: 1 } }, required: ['name'] }),
          output: () => ({ type: 'object', properties: { name: { type: 'string', minLength: 1 } }, required: ['name'] }),
        },
      },
    };
    const { route } = await load('@plumbline/contract');
    const { mount } = await load('@plumbline/contract/express');
    const { errorHandler } = await load('@plumbline/errors/express');
    const { negotiate } = await load('@plumbline/negotiation/express');
    const app = express();
    app.use(negotiate());
    mount(app, [route({
      method: 'POST', path: '/projects', body: nameSchema, responses: { 201: nameSchema },
      handler: ({ body }) => ({ status: 201, body, location: '/projects/1' }),
    })]);
    app.use(errorHandler({ onError: () => {} }));
    const headers = { 'content-type': 'application/json' };
    const invalid = await request(app, { method: 'POST', path: '/projects', headers, body: '{"name":""}' });
    assert.deepEqual([invalid.status, invalid.json.error_code, invalid.json.errors[0].pointer], [400, 'validation_failed', '#/name']);
    const created = await request(app, { method: 'POST', path: '/projects', headers, body: '{"name":"Apollo"}' });
    assert.deepEqual([created.status, created.headers.location, created.json], [201, '/projects/1', { name: 'Apollo' }]);
    const other = await request(app, { method: 'DELETE', path: '/projects' });
    assert.deepEqual([other.status, other.headers.allow], [405, 'POST, OPTIONS']);
  `,
  errors: `
    const { HttpError } = await load('@plumbline/errors');
    const { errorHandler, notFoundHandler, requestId } = await load('@plumbline/errors/express');
    const app = express();
    app.use(requestId());
    app.get('/projects/:id', () => { throw new HttpError('not_found'); });
    app.use(notFoundHandler());
    app.use(errorHandler({ onError: () => {} }));
    const res = await request(app, { path: '/projects/42', headers: { 'accept-language': 'de-DE' } });
    assert.equal(res.status, 404);
    assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.equal(res.json.error_code, 'not_found');
    assert.equal(res.json.instance, '/projects/42');
    assert.equal(res.json.detail, 'Die angeforderte Ressource existiert nicht.');
    const missing = await request(app, { path: '/nope' });
    assert.equal(missing.status, 404);
    assert.equal(missing.json.request_id, missing.headers['x-request-id']);
  `,
  auth: `
    const { createJwtVerifier, MemoryApiKeyStore } = await load('@plumbline/auth');
    const { createIssuer } = await load('@plumbline/auth/issuer');
    const { authenticate, getPrincipal, requireScopes } = await load('@plumbline/auth/express');
    const { errorHandler } = await load('@plumbline/errors/express');
    const issuer = await createIssuer({ issuer: 'https://issuer.test', audience: 'https://api.test' });
    const jwt = createJwtVerifier({ issuers: [{ issuer: 'https://issuer.test', audience: 'https://api.test', jwks: issuer.jwks() }] });
    const app = express();
    app.use(authenticate({ apiKeys: { store: new MemoryApiKeyStore() }, jwt }));
    app.get('/projects', requireScopes('read:projects'), (req, res) => res.json({ caller: getPrincipal(req).clientId }));
    app.post('/projects', requireScopes('write:projects'), (req, res) => res.status(201).json({}));
    app.use(errorHandler({ onError: () => {} }));
    const anonymous = await request(app, { path: '/projects' });
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.headers['www-authenticate'], 'Bearer realm="plumbline"');
    const { accessToken } = await issuer.signAccessToken({ clientId: 'reporting', scopes: ['read:projects'] });
    const ok = await request(app, { path: '/projects', headers: { authorization: 'Bearer ' + accessToken } });
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.json, { caller: 'reporting' });
    const denied = await request(app, { method: 'POST', path: '/projects', headers: { authorization: 'Bearer ' + accessToken } });
    assert.equal(denied.status, 403);
    assert.equal(denied.json.error_code, 'insufficient_scope');
  `,
  'query-parser': `
    const { defineCollection } = await load('@plumbline/query-parser');
    const { collectionQuery, getCollectionQuery } = await load('@plumbline/query-parser/express');
    const { errorHandler } = await load('@plumbline/errors/express');
    const tasks = defineCollection({ fields: { id: { type: 'uuid', sort: true }, title: { type: 'string', sort: true } } });
    const app = express();
    app.get('/tasks', collectionQuery(tasks), (req, res) => res.json(getCollectionQuery(req, tasks).sort));
    app.use(errorHandler({ onError: () => {} }));
    const ok = await request(app, { path: '/tasks?sort=-title' });
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.json[0], { field: 'title', direction: 'desc' });
    const bad = await request(app, { path: '/tasks?colour=red' });
    assert.equal(bad.status, 400);
    assert.equal(bad.headers['content-type'], 'application/problem+json; charset=utf-8');
  `,
  negotiation: `
    const { negotiate, represent } = await load('@plumbline/negotiation/express');
    const { errorHandler } = await load('@plumbline/errors/express');
    const app = express();
    app.use(negotiate({ languages: ['en', 'de'] }));
    app.get('/projects/:id', (req, res) => { represent(res, { id: req.params.id }); });
    app.use(errorHandler({ onError: () => {} }));
    const xml = await request(app, { path: '/projects/7', headers: { accept: 'application/xml' } });
    assert.equal(xml.status, 200);
    assert.match(xml.headers['content-type'], /^application\\/xml/);
    assert.match(xml.text, /<id>7<\\/id>/);
    const refused = await request(app, { path: '/projects/7', headers: { accept: 'image/png' } });
    assert.equal(refused.status, 406);
  `,
  versioning: `
    const { createVersionPolicy } = await load('@plumbline/versioning');
    const { getApiVersion, versioning } = await load('@plumbline/versioning/express');
    const { errorHandler } = await load('@plumbline/errors/express');
    const policy = createVersionPolicy({ strategy: 'header', versions: ['1', '2'] });
    const app = express();
    app.use(versioning(policy));
    app.get('/projects', (req, res) => res.json({ version: getApiVersion(req) }));
    app.use(errorHandler({ onError: () => {} }));
    const v1 = await request(app, { path: '/projects', headers: { 'x-api-version': '1' } });
    assert.equal(v1.status, 200);
    assert.deepEqual(v1.json, { version: '1' });
    const unknown = await request(app, { path: '/projects', headers: { 'x-api-version': '9' } });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.json.error_code, 'unsupported_api_version');
  `,
  idempotency: `
    const { createMemoryStore } = await load('@plumbline/idempotency');
    const { idempotency } = await load('@plumbline/idempotency/express');
    const { errorHandler } = await load('@plumbline/errors/express');
    let runs = 0;
    const app = express();
    app.use(express.json());
    app.post('/orders', idempotency({ store: createMemoryStore(), required: true }), (req, res) => {
      runs += 1;
      res.status(201).json({ id: runs, ...req.body });
    });
    app.use(errorHandler({ onError: () => {} }));
    const body = JSON.stringify({ qty: 1 });
    const headers = { 'content-type': 'application/json', 'idempotency-key': 'k1' };
    const missing = await request(app, { method: 'POST', path: '/orders', headers: { 'content-type': 'application/json' }, body });
    assert.equal(missing.status, 400);
    assert.equal(missing.json.error_code, 'idempotency_key_missing');
    const first = await request(app, { method: 'POST', path: '/orders', headers, body });
    const replay = await request(app, { method: 'POST', path: '/orders', headers, body });
    assert.equal(first.status, 201);
    assert.equal(replay.status, 201);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.text, first.text);
    assert.equal(runs, 1);
  `,
  'rate-limit': `
    const { addressKey, createLimiter } = await load('@plumbline/rate-limit');
    const { rateLimit } = await load('@plumbline/rate-limit/express');
    const { errorHandler } = await load('@plumbline/errors/express');
    const app = express();
    app.use(rateLimit(createLimiter({ limit: 1 }), { key: (req) => addressKey(req.ip) }));
    app.get('/projects', (req, res) => res.json([]));
    app.use(errorHandler({ onError: () => {} }));
    const first = await request(app, { path: '/projects' });
    assert.deepEqual([first.status, first.headers.ratelimit], [200, '"1-in-1min"; r=0; t=60']);
    const refused = await request(app, { path: '/projects' });
    assert.deepEqual([refused.status, refused.headers['retry-after'], refused.json.error_code], [429, '60', 'rate_limited']);
  `,
  telemetry: `
    const { telemetry } = await load('@plumbline/telemetry/express');
    const { errorHandler, notFoundHandler, requestId } = await load('@plumbline/errors/express');
    const app = express();
    app.use(telemetry());
    app.use(requestId());
    app.get('/projects/:id', (req, res) => res.json({ id: Number(req.params.id) }));
    app.use(notFoundHandler());
    app.use(errorHandler({ onError: () => {} }));
    // No SDK registered: the middleware passes every request through untouched.
    const found = await request(app, { path: '/projects/42', headers: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' } });
    assert.deepEqual([found.status, found.json], [200, { id: 42 }]);
    const missing = await request(app, { path: '/nope' });
    assert.deepEqual([missing.status, missing.json.error_code], [404, 'not_found']);
  `,
  cors: `
    const { cors } = await load('@plumbline/cors/express');
    const { errorHandler, notFoundHandler } = await load('@plumbline/errors/express');
    const app = express();
    app.use(cors({ origins: ['https://app.example.com'], credentials: true }));
    app.get('/projects', (req, res) => res.json([]));
    app.use(notFoundHandler());
    app.use(errorHandler({ onError: () => {} }));
    const preflight = await request(app, {
      method: 'OPTIONS',
      path: '/projects',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'if-match' },
    });
    assert.deepEqual([preflight.status, preflight.headers['access-control-allow-origin'], preflight.headers['access-control-max-age']], [204, 'https://app.example.com', '600']);
    const missing = await request(app, { path: '/nope', headers: { origin: 'https://app.example.com' } });
    assert.deepEqual([missing.status, missing.headers['access-control-allow-credentials'], missing.json.error_code], [404, 'true', 'not_found']);
    assert.match(missing.headers['access-control-expose-headers'], /ETag/);
  `,
};

/** The `request` helper the Express apps use, as source. */
export const REQUEST_HELPER = `
async function request(app, { method = 'GET', path, headers = {}, body } = {}) {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const res = await fetch('http://127.0.0.1:' + server.address().port + path, { method, headers, body });
    const text = await res.text();
    let json;
    try { json = JSON.parse(text); } catch {}
    return { status: res.status, headers: Object.fromEntries(res.headers), text, json };
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}
`;

/** One package's app for the Fastify and Hono cells, in TypeScript; every part is source text. */
export interface FrameworkApp {
  /** Imports every variant needs (the package's core, assert helpers come with the prelude). */
  readonly imports: string;
  /** Statements before the app is built (an issuer, a collection, a counter). */
  readonly setup: string;
  /** Per framework: its imports, and the statements that build `app` (created by `newApp()`). */
  readonly fastify: { readonly imports: string; readonly build: string };
  readonly hono: { readonly imports: string; readonly build: string };
  /** The requests and assertions, the same on every framework, inside `serve(app, async (address) => ...)`. */
  readonly checks: string;
}

/**
 * The TypeScript prelude of every Fastify and Hono app: `call(address, request)` answers
 * `{ status, headers, text, json }` over a real loopback connection. It compiles as ESM (`.mts`)
 * and as CommonJS (`.cts`).
 */
export const TS_REQUEST_HELPER = `
import type { AddressInfo } from 'node:net';
import assert from 'node:assert/strict';

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly text: string;
  readonly json: any;
}

async function call(
  address: AddressInfo | string | null,
  spec: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<Answer> {
  if (address === null || typeof address === 'string') throw new Error('not listening on TCP');
  const res = await fetch('http://127.0.0.1:' + address.port + spec.path, {
    method: spec.method ?? 'GET',
    headers: spec.headers ?? {},
    ...(spec.body === undefined ? {} : { body: spec.body }),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {}
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return { status: res.status, headers, text, json };
}
`;

/**
 * Per framework: `newApp()` (with the `@plumbline/errors` adapter, as every app has it) and
 * `serve(app, check)`, which starts the app on 127.0.0.1:0, calls `check(address)` and stops it.
 */
export const TS_SERVE: Readonly<Record<'fastify' | 'hono', string>> = {
  fastify: `import Fastify, { type FastifyInstance } from 'fastify';
import { plumblineErrors } from '@plumbline/errors/fastify';

async function newApp(): Promise<FastifyInstance> {
  const app = Fastify();
  await app.register(plumblineErrors, { onError: () => {} });
  return app;
}

async function serve(app: FastifyInstance, check: (address: AddressInfo | string | null) => Promise<void>): Promise<void> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    await check(app.server.address());
  } finally {
    await app.close();
  }
}`,
  hono: `import { serve as honoServe } from '@hono/node-server';
import { Hono } from 'hono';
import { problemDetails } from '@plumbline/errors/hono';

async function newApp(): Promise<Hono> {
  const app = new Hono();
  const problems = problemDetails({ onError: () => {} });
  app.use(problems.middleware);
  app.onError(problems.onError);
  app.notFound(problems.notFound);
  return app;
}

async function serve(app: Hono, check: (address: AddressInfo | string | null) => Promise<void>): Promise<void> {
  const server = honoServe({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  if (!server.listening) await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  try {
    await check(server.address());
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}`,
};

/**
 * A tiny Fastify 5 and Hono app per package with /fastify and /hono subpaths, in TypeScript: started
 * on 127.0.0.1:0, real requests that go through the adapter (a 404 problem, a 401 challenge, a parsed
 * query, a negotiated XML body, a version error, a replay).
 */
export const FRAMEWORK_APPS: Readonly<Record<string, FrameworkApp>> = {
  contract: {
    imports: "import { route } from '@plumbline/contract';",
    setup: `
    const nameSchema = {
      '~standard': {
        version: 1 as const,
        vendor: 'hand-written',
        validate: (v: any) =>
          typeof v === 'object' && v !== null && typeof v.name === 'string' && v.name.length > 0
            ? { value: { name: v.name } }
            : { issues: [{ message: 'name must be a non-empty string', path: ['name'] }] },
        jsonSchema: {
          input: () => ({ type: 'object', properties: { name: { type: 'string', minLength: 1 } }, required: ['name'] }),
          output: () => ({ type: 'object', properties: { name: { type: 'string', minLength: 1 } }, required: ['name'] }),
        },
      },
    };
    const createProject = route({
      method: 'POST', path: '/projects', body: nameSchema, responses: { 201: nameSchema },
      handler: ({ body }) => ({ status: 201 as const, body, location: '/projects/1' }),
    });`,
    fastify: {
      imports: `import { mount } from '@plumbline/contract/fastify';
import { negotiation } from '@plumbline/negotiation/fastify';`,
      build: `
    await app.register(negotiation);
    await mount(app, [createProject]);`,
    },
    hono: {
      imports: `import { mount } from '@plumbline/contract/hono';
import { negotiate } from '@plumbline/negotiation/hono';`,
      build: `
    app.use(negotiate());
    mount(app, [createProject]);`,
    },
    checks: `
      const headers = { 'content-type': 'application/json' };
      const invalid = await call(address, { method: 'POST', path: '/projects', headers, body: '{"name":""}' });
      assert.deepEqual([invalid.status, invalid.json.error_code, invalid.json.errors[0].pointer], [400, 'validation_failed', '#/name']);
      const created = await call(address, { method: 'POST', path: '/projects', headers, body: '{"name":"Apollo"}' });
      assert.deepEqual([created.status, created.headers['location'], created.json], [201, '/projects/1', { name: 'Apollo' }]);`,
  },
  errors: {
    imports: '',
    setup: '',
    fastify: { imports: '', build: "app.get('/projects/:id', async () => ({ id: 1 }));" },
    hono: { imports: '', build: "app.get('/projects/:id', (c) => c.json({ id: c.req.param('id') }));" },
    checks: `
      const res = await call(address, { path: '/nope' });
      assert.equal(res.status, 404);
      assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
      assert.equal(res.json.error_code, 'not_found');
      assert.equal(res.json.request_id, res.headers['x-request-id']);`,
  },
  auth: {
    imports: `import { createJwtVerifier } from '@plumbline/auth';
import { createIssuer } from '@plumbline/auth/issuer';`,
    setup: `
    const issuer = await createIssuer({ issuer: 'https://issuer.test', audience: 'https://api.test' });
    const jwt = createJwtVerifier({ issuers: [{ issuer: 'https://issuer.test', audience: 'https://api.test', jwks: issuer.jwks() }] });`,
    fastify: {
      imports: "import { authenticate, requireScopes } from '@plumbline/auth/fastify';",
      build: `
    await app.register(async (api) => {
      api.addHook('onRequest', authenticate({ jwt }));
      api.get('/projects', { preHandler: requireScopes('read:projects') }, async (request) => ({ caller: request.principal?.clientId }));
    });`,
    },
    hono: {
      imports: "import { authenticate, requireScopes } from '@plumbline/auth/hono';",
      build: `
    app.use('/projects', authenticate({ jwt }));
    app.get('/projects', requireScopes('read:projects'), (c) => c.json({ caller: c.get('principal')?.clientId }));`,
    },
    checks: `
      const anonymous = await call(address, { path: '/projects' });
      assert.equal(anonymous.status, 401);
      assert.equal(anonymous.headers['www-authenticate'], 'Bearer realm="plumbline"');
      const { accessToken } = await issuer.signAccessToken({ clientId: 'reporting', scopes: ['read:projects'] });
      const ok = await call(address, { path: '/projects', headers: { authorization: 'Bearer ' + accessToken } });
      assert.deepEqual([ok.status, ok.json], [200, { caller: 'reporting' }]);`,
  },
  'query-parser': {
    imports: "import { defineCollection } from '@plumbline/query-parser';",
    setup: `
    const tasks = defineCollection({ fields: { id: { type: 'uuid', sort: true }, title: { type: 'string', sort: true } } });`,
    fastify: {
      imports: "import { collectionQuery, getCollectionQuery } from '@plumbline/query-parser/fastify';",
      build:
        "app.get('/tasks', collectionQuery(tasks), async (request) => getCollectionQuery(request, tasks).sort);",
    },
    hono: {
      imports: "import { collectionQuery, getCollectionQuery } from '@plumbline/query-parser/hono';",
      build: "app.get('/tasks', collectionQuery(tasks), (c) => c.json(getCollectionQuery(c, tasks).sort));",
    },
    checks: `
      const ok = await call(address, { path: '/tasks?sort=-title' });
      assert.deepEqual([ok.status, ok.json[0]], [200, { field: 'title', direction: 'desc' }]);
      const bad = await call(address, { path: '/tasks?colour=red' });
      assert.deepEqual([bad.status, bad.json.error_code], [400, 'unknown_parameter']);`,
  },
  negotiation: {
    imports: '',
    setup: '',
    fastify: {
      imports: "import { negotiation } from '@plumbline/negotiation/fastify';",
      build: `
    await app.register(async (api) => {
      await api.register(negotiation, { languages: ['en', 'de'] });
      api.get<{ Params: { id: string } }>('/projects/:id', async (request, reply) => reply.represent({ id: request.params.id }));
    });`,
    },
    hono: {
      imports: "import { negotiate, represent } from '@plumbline/negotiation/hono';",
      build: `
    app.use('/projects/*', negotiate({ languages: ['en', 'de'] }));
    app.get('/projects/:id', (c) => represent(c, { id: c.req.param('id') }));`,
    },
    checks: `
      const xml = await call(address, { path: '/projects/7', headers: { accept: 'application/xml' } });
      assert.equal(xml.status, 200);
      assert.match(xml.headers['content-type'] ?? '', /^application\\/xml/);
      assert.match(xml.text, /<id>7<\\/id>/);
      const refused = await call(address, { path: '/projects/7', headers: { accept: 'image/png' } });
      assert.equal(refused.status, 406);`,
  },
  versioning: {
    imports: "import { createVersionPolicy } from '@plumbline/versioning';",
    setup: `
    const policy = createVersionPolicy({ strategy: 'header', versions: ['1', '2'] });`,
    fastify: {
      imports: "import { versioning } from '@plumbline/versioning/fastify';",
      build: `
    await app.register(versioning, { policy });
    app.get('/projects', async (request) => ({ version: request.apiVersion?.version }));`,
    },
    hono: {
      imports: "import { getApiVersion, versioning } from '@plumbline/versioning/hono';",
      build: `
    app.use(versioning(policy));
    app.get('/projects', (c) => c.json({ version: getApiVersion(c) }));`,
    },
    checks: `
      const v1 = await call(address, { path: '/projects', headers: { 'x-api-version': '1' } });
      assert.deepEqual([v1.status, v1.json], [200, { version: '1' }]);
      const unknown = await call(address, { path: '/projects', headers: { 'x-api-version': '9' } });
      assert.deepEqual([unknown.status, unknown.json.error_code], [400, 'unsupported_api_version']);`,
  },
  idempotency: {
    imports: "import { createMemoryStore } from '@plumbline/idempotency';",
    setup: `
    let runs = 0;`,
    fastify: {
      imports: "import { idempotency } from '@plumbline/idempotency/fastify';",
      build: `
    await app.register(async (orders) => {
      await orders.register(idempotency, { store: createMemoryStore(), required: true });
      orders.post('/orders', async (request, reply) => reply.code(201).send({ id: ++runs, ...(request.body as object) }));
    });`,
    },
    hono: {
      imports: "import { idempotency } from '@plumbline/idempotency/hono';",
      build: `
    app.post('/orders', idempotency({ store: createMemoryStore(), required: true }), async (c) =>
      c.json({ id: ++runs, ...(await c.req.json<object>()) }, 201),
    );`,
    },
    checks: `
      const post = (key?: string) =>
        call(address, {
          method: 'POST',
          path: '/orders',
          headers: { 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
          body: '{"qty":1}',
        });
      const missing = await post();
      assert.deepEqual([missing.status, missing.json.error_code], [400, 'idempotency_key_missing']);
      const first = await post('k1');
      const replay = await post('k1');
      assert.deepEqual([first.status, replay.status, replay.headers['idempotent-replayed'], replay.text, runs], [201, 201, 'true', first.text, 1]);`,
  },
  'rate-limit': {
    imports: "import { addressKey, createLimiter } from '@plumbline/rate-limit';",
    setup: `
    const limiter = createLimiter({ limit: 1 });`,
    fastify: {
      imports: "import { rateLimit } from '@plumbline/rate-limit/fastify';",
      build: `
    app.addHook('onRequest', rateLimit(limiter, { key: (request) => addressKey(request.ip) }));
    app.get('/projects', async () => []);`,
    },
    hono: {
      imports: "import { rateLimit } from '@plumbline/rate-limit/hono';",
      build: `
    app.use(rateLimit(limiter, { key: (c) => addressKey(c.req.header('x-client')) }));
    app.get('/projects', (c) => c.json([]));`,
    },
    checks: `
      const first = await call(address, { path: '/projects', headers: { 'x-client': '203.0.113.7' } });
      assert.deepEqual([first.status, first.headers['ratelimit']], [200, '"1-in-1min"; r=0; t=60']);
      const refused = await call(address, { path: '/projects', headers: { 'x-client': '203.0.113.7' } });
      assert.deepEqual([refused.status, refused.headers['retry-after'], refused.json.error_code], [429, '60', 'rate_limited']);`,
  },
  cors: {
    imports: "import { createCors } from '@plumbline/cors';",
    setup: `
    const policy = createCors({ origins: ['https://app.example.com'], credentials: true });`,
    fastify: {
      imports: "import { cors } from '@plumbline/cors/fastify';",
      build: `
    await app.register(cors, { policy });
    app.get('/projects', async () => []);`,
    },
    hono: {
      imports: "import { cors } from '@plumbline/cors/hono';",
      build: `
    app.use(cors(policy));
    app.get('/projects', (c) => c.json([]));`,
    },
    checks: `
      const preflight = await call(address, {
        method: 'OPTIONS',
        path: '/projects',
        headers: { origin: 'https://app.example.com', 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'if-match' },
      });
      assert.deepEqual([preflight.status, preflight.headers['access-control-allow-origin'], preflight.headers['access-control-max-age']], [204, 'https://app.example.com', '600']);
      const missing = await call(address, { path: '/nope', headers: { origin: 'https://app.example.com' } });
      assert.deepEqual([missing.status, missing.headers['access-control-allow-credentials'], missing.json.error_code], [404, 'true', 'not_found']);`,
  },
  telemetry: {
    imports: '',
    setup: '',
    fastify: {
      imports: "import { telemetry } from '@plumbline/telemetry/fastify';",
      build: `
    await app.register(telemetry);
    app.get('/projects/:id', async (request) => ({ id: Number((request.params as { id: string }).id) }));`,
    },
    hono: {
      imports: "import { telemetry } from '@plumbline/telemetry/hono';",
      build: `
    app.use(telemetry());
    app.get('/projects/:id', (c) => c.json({ id: Number(c.req.param('id')) }));`,
    },
    checks: `
      // No SDK registered: the middleware passes every request through untouched.
      const found = await call(address, { path: '/projects/42' });
      assert.deepEqual([found.status, found.json], [200, { id: 42 }]);
      const missing = await call(address, { path: '/nope' });
      assert.deepEqual([missing.status, missing.json.error_code], [404, 'not_found']);`,
  },
};
