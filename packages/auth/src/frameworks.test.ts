/**
 * One behaviour table for @plumbline/auth, run against the core and the Express 5, Express 4,
 * Fastify 5 and Hono adapters: authentication, scopes, HTTPS and the OAuth endpoints give the same
 * status, challenge and body on every framework.
 */
import * as errorsExpress from '@plumbline/errors/express';
import { plumblineErrors } from '@plumbline/errors/fastify';
import { problemDetails } from '@plumbline/errors/hono';
import {
  coreOutcome,
  describeAdapters,
  type FrameworkApps,
  frameworkRunners,
  type HttpRequestSpec,
  send,
} from '@plumbline/test-utils';
import type { Request, Response } from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import * as ex from './express.js';
import * as fa from './fastify.js';
import * as ho from './hono.js';
import {
  createAuthenticator,
  createJwtVerifier,
  generateApiKey,
  MemoryApiKeyStore,
  MemoryRevocationStore,
} from './index.js';
import { createIssuer } from './issuer.js';

const ISS = 'https://issuer.frameworks.test';
const issuer = await createIssuer({ issuer: ISS, audience: ISS });
const revocation = new MemoryRevocationStore();
const verifier = createJwtVerifier({
  issuers: [{ issuer: ISS, audience: ISS, jwks: issuer.jwks() }],
  revocation,
});
const store = new MemoryApiKeyStore();
const apiKey = generateApiKey();
store.add(apiKey, { clientId: 'machine', access: 'read' });
const options = { jwt: verifier, apiKeys: { store } };
const authenticator = createAuthenticator(options);
const clients = [
  { clientId: 'cli', secret: 'cli-secret-0123456789', scopes: ['read:projects', 'write:projects'] },
];
const basic = `Basic ${Buffer.from('cli:cli-secret-0123456789').toString('base64')}`;
const FORM = 'application/x-www-form-urlencoded';

const reader = (await issuer.signAccessToken({ clientId: 'cli', scopes: ['read:projects'] })).accessToken;
const writer = (
  await issuer.signAccessToken({ clientId: 'cli', scopes: ['read:projects', 'write:projects'] })
).accessToken;
const expired = await new SignJWT({ scope: 'read:projects', client_id: 'cli' })
  .setProtectedHeader({ alg: 'ES256', kid: issuer.kid, typ: 'at+jwt' })
  .setIssuer(ISS)
  .setAudience(ISS)
  .setIssuedAt(1_700_000_000)
  .setExpirationTime(1_700_000_060)
  .sign((await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign'])).privateKey);
const forged = `${reader.slice(0, reader.lastIndexOf('.'))}.${'A'.repeat(86)}`;
const noneAlg = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${reader.split('.')[1]}.`;

const ok = (request: import('./principal.js').Principal | undefined) => ({
  client: request?.clientId ?? null,
  type: request?.type ?? null,
});
const silent = { onError: () => {} };

const apps: FrameworkApps = {
  express: (express) => {
    const app = express();
    app.post('/oauth/token', ex.tokenEndpoint({ issuer, clients }));
    app.post('/oauth/revoke', ex.revocationEndpoint({ clients, issuer, verifier, revocation }));
    app.get('/https', ex.requireHttps({ allowLoopback: false, trustProxy: ['127.0.0.1'] }), (_q, res) => {
      res.json({ secure: true });
    });
    app.use(ex.authenticate(options));
    app.get('/me', (req: Request, res: Response) => res.json(ok(ex.getPrincipal(req))));
    app.post('/projects', ex.requireScopes('write:projects'), (req: Request, res: Response) => {
      res.status(201).json(ok(ex.getPrincipal(req)));
    });
    app.use(errorsExpress.errorHandler(silent));
    return app;
  },
  fastify: async () => {
    const app = Fastify();
    await app.register(plumblineErrors, silent);
    await app.register(fa.tokenEndpoint({ issuer, clients }));
    await app.register(fa.revocationEndpoint({ clients, issuer, verifier, revocation }));
    const https = fa.requireHttps({ allowLoopback: false, trustProxy: ['127.0.0.1'] });
    app.get('/https', { onRequest: https }, async () => ({ secure: true }));
    await app.register(async (api) => {
      api.addHook('onRequest', fa.authenticate(options));
      api.get('/me', async (request) => ok(fa.getPrincipal(request)));
      api.post('/projects', { preHandler: fa.requireScopes('write:projects') }, async (request, reply) =>
        reply.code(201).send(ok(request.principal)),
      );
    });
    return app;
  },
  hono: () => {
    const app = new Hono();
    const problems = problemDetails(silent);
    app.use(problems.middleware);
    app.onError(problems.onError);
    app.notFound(problems.notFound);
    app.post('/oauth/token', ho.tokenEndpoint({ issuer, clients }));
    app.post('/oauth/revoke', ho.revocationEndpoint({ clients, issuer, verifier, revocation }));
    const https = ho.requireHttps({ allowLoopback: false, trustProxy: ['127.0.0.1'] });
    app.get('/https', https, (c) => c.json({ secure: true }));
    app.use('/me', ho.authenticate(options));
    app.use('/projects', ho.authenticate(options));
    app.get('/me', (c) => c.json(ok(ho.getPrincipal(c))));
    app.post('/projects', ho.requireScopes('write:projects'), (c) => c.json(ok(c.get('principal')), 201));
    return app;
  },
};

interface Case {
  readonly name: string;
  readonly request: HttpRequestSpec;
  readonly status: number;
  /** 2xx: the JSON body; errors: the error code (problem) or OAuth `error`. */
  readonly body?: unknown;
  readonly code?: string;
  readonly headers?: Readonly<Record<string, string | undefined>>;
  /** The core's own answer for `/me`, when the case is about authentication. */
  readonly core?: boolean;
}

const me = (headers: Record<string, string | string[]>, path = '/me'): HttpRequestSpec => ({ path, headers });
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const form = (path: string, body: string, headers: Record<string, string> = { 'Content-Type': FORM }) => ({
  method: 'POST',
  path,
  headers: { Authorization: basic, ...headers },
  body,
});
const REALM = 'Bearer realm="plumbline"';

const cases: Case[] = [
  {
    name: 'a valid bearer JWT',
    request: me(bearer(reader)),
    status: 200,
    body: { client: 'cli', type: 'jwt' },
    core: true,
  },
  {
    name: 'a valid API key',
    request: me({ 'X-API-Key': apiKey }),
    status: 200,
    body: { client: 'machine', type: 'api_key' },
    core: true,
  },
  {
    name: 'no credentials → 401 with the challenge',
    request: me({}),
    status: 401,
    code: 'unauthorized',
    headers: { 'www-authenticate': REALM },
    core: true,
  },
  {
    name: 'an expired (and foreign) token → 401 invalid_token',
    request: me(bearer(expired)),
    status: 401,
    code: 'invalid_token',
    core: true,
  },
  {
    name: 'a forged signature → 401 invalid_token',
    request: me(bearer(forged)),
    status: 401,
    code: 'invalid_token',
    core: true,
  },
  {
    name: 'alg none → 401 invalid_token',
    request: me(bearer(noneAlg)),
    status: 401,
    code: 'invalid_token',
    core: true,
  },
  {
    name: 'an API key with a bad checksum → 401 unauthorized (no lookup)',
    // The last character changed to another one (a generated key ends in `x` once in 62).
    request: me({ 'X-API-Key': `${apiKey.slice(0, -1)}${apiKey.endsWith('x') ? 'y' : 'x'}` }),
    status: 401,
    code: 'unauthorized',
    core: true,
  },
  {
    name: 'a bearer token with a space → 400 invalid_request',
    request: me({ Authorization: 'Bearer a b' }),
    status: 400,
    code: 'invalid_request',
    core: true,
  },
  {
    name: 'an empty bearer token → 400 invalid_request',
    request: me({ Authorization: 'Bearer ' }),
    status: 400,
    code: 'invalid_request',
    core: true,
  },
  {
    name: 'two Authorization lines → 400 invalid_request',
    request: me({ Authorization: [`Bearer ${reader}`, `Bearer ${writer}`] }),
    status: 400,
    code: 'invalid_request',
    core: true,
  },
  {
    name: 'two API key lines → 400 invalid_request',
    request: me({ 'X-API-Key': [apiKey, apiKey] }),
    status: 400,
    code: 'invalid_request',
    core: true,
  },
  {
    name: 'an API key and a bearer token → 400',
    request: me({ ...bearer(reader), 'X-API-Key': apiKey }),
    status: 400,
    code: 'invalid_request',
    core: true,
  },
  {
    name: 'a token in the query → 400 credentials_in_query',
    request: me({}, `/me?access_token=${reader}`),
    status: 400,
    code: 'credentials_in_query',
    core: true,
  },
  {
    name: 'an API key in the query (any case) → 400',
    request: me({}, '/me?API_KEY=x'),
    status: 400,
    code: 'credentials_in_query',
    core: true,
  },
  {
    name: 'Basic credentials are not ours → 401 unauthorized',
    request: me({ Authorization: basic }),
    status: 401,
    code: 'unauthorized',
    core: true,
  },
  {
    name: 'a scope the token lacks → 403 insufficient_scope with the scope in the challenge',
    request: { method: 'POST', path: '/projects', headers: bearer(reader) },
    status: 403,
    code: 'insufficient_scope',
    headers: {
      'www-authenticate': 'Bearer realm="plumbline", error="insufficient_scope", scope="write:projects"',
    },
  },
  {
    name: 'the scope present → 201',
    request: { method: 'POST', path: '/projects', headers: bearer(writer) },
    status: 201,
    body: { client: 'cli', type: 'jwt' },
  },
  { name: 'plain HTTP → 403 https_required', request: me({}, '/https'), status: 403, code: 'https_required' },
  {
    name: 'X-Forwarded-Proto: https from a trusted proxy',
    request: me({ 'X-Forwarded-Proto': 'http, https' }, '/https'),
    status: 200,
    body: { secure: true },
  },
  {
    name: 'token endpoint: client_credentials',
    request: form('/oauth/token', 'grant_type=client_credentials&scope=read%3Aprojects'),
    status: 200,
    headers: { 'cache-control': 'no-store' },
  },
  {
    name: 'token endpoint: JSON instead of a form → 400 invalid_request',
    request: form('/oauth/token', '{"grant_type":"client_credentials"}', {
      'Content-Type': 'application/json',
    }),
    status: 400,
    code: 'invalid_request',
  },
  {
    name: 'token endpoint: no body → 400 invalid_request',
    request: { method: 'POST', path: '/oauth/token', headers: { Authorization: basic } },
    status: 400,
    code: 'invalid_request',
  },
  {
    name: 'token endpoint: a wrong secret → 401 invalid_client',
    request: {
      ...form('/oauth/token', 'grant_type=client_credentials'),
      headers: { Authorization: `Basic ${btoa('cli:nope')}`, 'Content-Type': FORM },
    },
    status: 401,
    code: 'invalid_client',
  },
  {
    name: 'token endpoint: an unknown grant → 400',
    request: form('/oauth/token', 'grant_type=password&username=a&password=b'),
    status: 400,
    code: 'unsupported_grant_type',
  },
  {
    name: 'token endpoint: a body over 16 KiB → 413',
    request: form('/oauth/token', `grant_type=client_credentials&x=${'a'.repeat(17 * 1024)}`),
    status: 413,
    code: 'payload_too_large',
    headers: { 'content-type': 'application/problem+json; charset=utf-8' },
  },
  {
    name: 'revocation endpoint answers 200 for an unknown token',
    request: form('/oauth/revoke', 'token=nope'),
    status: 200,
    body: {},
  },
];

describeAdapters(
  'authentication on the core, Express 5, Express 4, Fastify 5 and Hono',
  cases,
  {
    core: (c) =>
      c.core
        ? coreOutcome(async () => {
            const raw: string[] = [];
            for (const [name, value] of Object.entries(c.request.headers ?? {}))
              for (const line of typeof value === 'string' ? [value] : value) raw.push(name, line);
            const path = c.request.path ?? '/';
            return ok(await authenticator.authenticate({ rawHeaders: raw, query: path.split('?')[1] ?? '' }));
          })
        : { status: c.status, headers: {}, body: c.body },
    ...frameworkRunners<Case>(apps, (c) => c.request),
  },
  (outcome, c, adapter) => {
    expect(outcome.status).toBe(c.status);
    if (adapter === 'core' && !c.core) return;
    const body = outcome.body as Record<string, unknown>;
    if (c.code !== undefined && adapter !== 'core') {
      expect(body['error_code'] ?? body['error']).toBe(c.code);
      expect(JSON.stringify(body)).not.toContain('cli-secret');
    } else if (c.code !== undefined) expect(body['error_code']).toBe(c.code);
    else if (c.body !== undefined) expect(body).toEqual(c.body);
    else expect(typeof body['access_token']).toBe('string');
    for (const [name, value] of Object.entries(c.headers ?? {})) expect(outcome.headers[name]).toBe(value);
    // The OAuth endpoints' responses are the adapters' own (the other 200s are the test handlers').
    if (
      adapter !== 'core' &&
      c.request.path?.startsWith('/oauth/') &&
      c.headers?.['content-type'] === undefined
    )
      expect(outcome.headers['content-type']).toBe('application/json; charset=utf-8');
  },
);

// Node keeps only the first Authorization line in request.headers; the endpoint must see both.
describe('Fastify token endpoint', () => {
  it('refuses two Authorization lines, good then bad, with 400 invalid_request', async () => {
    const app = await apps.fastify!();
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const port = (app.server.address() as { port: number }).port;
      const outcome = await send(port, {
        ...form('/oauth/token', 'grant_type=client_credentials'),
        headers: { Authorization: [basic, `Basic ${btoa('cli:nope')}`], 'Content-Type': FORM },
      });
      expect([outcome.status, (outcome.body as { error?: string }).error]).toEqual([400, 'invalid_request']);
    } finally {
      await app.close();
    }
  });
});
