/**
 * The session cookie's behaviour table, run against the core and the Express 5, Express 4,
 * Fastify 5 and Hono adapters: sealing failures, rotation, revocation after logout, the CSRF rule on
 * unsafe methods, and the precedence of two credentials.
 */
import { randomBytes } from 'node:crypto';
import * as errorsExpress from '@plumbline/errors/express';
import { plumblineErrors } from '@plumbline/errors/fastify';
import { problemDetails } from '@plumbline/errors/hono';
import {
  coreOutcome,
  describeAdapters,
  FRAMEWORKS,
  type FrameworkApps,
  frameworkRunners,
  frameworkSenders,
  type HttpRequestSpec,
} from '@plumbline/test-utils';
import type { Request, Response } from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import * as ex from './express.js';
import * as fa from './fastify.js';
import * as ho from './hono.js';
import {
  type AuthenticateOptions,
  createAuthenticator,
  createJwtVerifier,
  createSessionCookie,
  createSessionSealer,
  generateApiKey,
  MemoryApiKeyStore,
  MemoryRevocationStore,
  type Principal,
} from './index.js';
import { createIssuer } from './issuer.js';

const ISS = 'https://issuer.sessions.test';
const APP = 'https://app.example.com';
const issuer = await createIssuer({ issuer: ISS, audience: ISS });
const revocation = new MemoryRevocationStore();
const verifier = createJwtVerifier({
  issuers: [{ issuer: ISS, audience: ISS, jwks: issuer.jwks() }],
  revocation,
});
const store = new MemoryApiKeyStore();
const apiKey = generateApiKey();
store.add(apiKey, { clientId: 'machine', access: 'read' });

const current = { kid: 'k1', key: randomBytes(32) };
const previous = { kid: 'k0', key: randomBytes(32) };
const sealer = createSessionSealer({ keys: [current, previous] });
const cookie = createSessionCookie();
const options: AuthenticateOptions = {
  jwt: verifier,
  apiKeys: { store },
  cookie: { sealer, revocation, csrf: { origins: [APP] } },
};
const authenticator = createAuthenticator(options);

const user = { subject: 'user-1', clientId: 'web', scopes: ['read:projects', 'write:projects'] };
const good = (await sealer.seal(user)).value;
const reader = (await sealer.seal({ ...user, scopes: ['read:projects'] })).value;
const tampered = `${good.slice(0, 60)}${good[60] === 'A' ? 'B' : 'A'}${good.slice(61)}`;
const expired = (
  await createSessionSealer({ keys: [current], now: () => Date.now() - 7_200_000, lifetimeSec: 600 }).seal(
    user,
  )
).value;
const wrongKey = (await createSessionSealer({ keys: [{ kid: 'k1', key: randomBytes(32) }] }).seal(user))
  .value;
const rotated = (await createSessionSealer({ keys: [previous] }).seal(user)).value;
const retired = (await createSessionSealer({ keys: [{ kid: 'k-retired', key: randomBytes(32) }] }).seal(user))
  .value;
const loggedOut = await sealer.seal(user);
await revocation.revoke(loggedOut.claims.jti, loggedOut.claims.exp);
const writer = (
  await issuer.signAccessToken({ clientId: 'cli', scopes: ['read:projects', 'write:projects'] })
).accessToken;

const ok = (p: Principal | undefined) => ({
  client: p?.clientId ?? null,
  type: p?.type ?? null,
  subject: p?.subject ?? null,
});
const silent = { onError: () => {} };

async function logout(principal: Principal | undefined): Promise<string> {
  const claims = principal?.claims as { jti: string; exp: number };
  await revocation.revoke(claims.jti, claims.exp);
  return cookie.clear();
}

const apps: FrameworkApps = {
  express: (express) => {
    const app = express();
    app.post('/login', async (_req, res) => {
      res.setHeader('Set-Cookie', cookie.serialize(await sealer.seal(user)));
      res.json({});
    });
    app.use(ex.authenticate(options));
    app.get('/me', (req: Request, res: Response) => res.json(ok(ex.getPrincipal(req))));
    app.post('/me', (req: Request, res: Response) => res.json(ok(ex.getPrincipal(req))));
    app.delete('/me', (req: Request, res: Response) => res.json(ok(ex.getPrincipal(req))));
    app.post('/projects', ex.requireScopes('write:projects'), (req: Request, res: Response) => {
      res.status(201).json(ok(ex.getPrincipal(req)));
    });
    app.post('/logout', async (req, res) => {
      res.setHeader('Set-Cookie', await logout(ex.getPrincipal(req)));
      res.json({});
    });
    app.use(errorsExpress.errorHandler(silent));
    return app;
  },
  fastify: async () => {
    const app = Fastify();
    await app.register(plumblineErrors, silent);
    app.post('/login', async (_request, reply) =>
      reply.header('Set-Cookie', cookie.serialize(await sealer.seal(user))).send({}),
    );
    await app.register(async (api) => {
      api.addHook('onRequest', fa.authenticate(options));
      api.get('/me', async (request) => ok(fa.getPrincipal(request)));
      api.post('/me', async (request) => ok(fa.getPrincipal(request)));
      api.delete('/me', async (request) => ok(fa.getPrincipal(request)));
      api.post('/projects', { preHandler: fa.requireScopes('write:projects') }, async (request, reply) =>
        reply.code(201).send(ok(request.principal)),
      );
      api.post('/logout', async (request, reply) =>
        reply.header('Set-Cookie', await logout(request.principal)).send({}),
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
    app.post('/login', async (c) => {
      c.header('Set-Cookie', cookie.serialize(await sealer.seal(user)));
      return c.json({});
    });
    for (const path of ['/me', '/projects', '/logout']) app.use(path, ho.authenticate(options));
    app.get('/me', (c) => c.json(ok(ho.getPrincipal(c))));
    app.post('/me', (c) => c.json(ok(ho.getPrincipal(c))));
    app.delete('/me', (c) => c.json(ok(ho.getPrincipal(c))));
    app.post('/projects', ho.requireScopes('write:projects'), (c) => c.json(ok(c.get('principal')), 201));
    app.post('/logout', async (c) => {
      c.header('Set-Cookie', await logout(ho.getPrincipal(c)));
      return c.json({});
    });
    return app;
  },
};

interface Case {
  readonly name: string;
  readonly request: HttpRequestSpec;
  readonly status: number;
  readonly body?: unknown;
  readonly code?: string;
  readonly headers?: Readonly<Record<string, string | undefined>>;
  /** Whether the core alone gives the same answer (authentication, not routing or scopes). */
  readonly core?: boolean;
}

const session = (value: string) => ({ Cookie: `theme=dark; ${cookie.name}=${value}` });
const sameOrigin = { 'Sec-Fetch-Site': 'same-origin', 'X-Requested-With': 'fetch' };
const get = (headers: Record<string, string | string[]>): HttpRequestSpec => ({ path: '/me', headers });
const post = (
  headers: Record<string, string | string[]>,
  path = '/me',
  method = 'POST',
): HttpRequestSpec => ({
  method,
  path,
  headers,
});
const USER = { client: 'web', type: 'session', subject: 'user-1' };
const CHALLENGE = 'Bearer realm="plumbline"';

const cases: Case[] = [
  {
    name: 'a valid cookie on GET → 200 with the principal',
    request: get(session(good)),
    status: 200,
    body: USER,
    core: true,
  },
  {
    name: 'the cookie alone on its line',
    request: get({ Cookie: `${cookie.name}=${good}` }),
    status: 200,
    body: USER,
    core: true,
  },
  {
    name: 'a tampered cookie → 401 with the bare challenge',
    request: get(session(tampered)),
    status: 401,
    code: 'unauthorized',
    headers: { 'www-authenticate': CHALLENGE },
    core: true,
  },
  {
    name: 'an expired cookie → 401',
    request: get(session(expired)),
    status: 401,
    code: 'unauthorized',
    core: true,
  },
  {
    name: 'a cookie sealed with another key → 401',
    request: get(session(wrongKey)),
    status: 401,
    code: 'unauthorized',
    core: true,
  },
  {
    name: 'a cookie sealed with the previous, still listed key → 200',
    request: get(session(rotated)),
    status: 200,
    body: USER,
    core: true,
  },
  {
    name: 'a cookie sealed with a removed key → 401',
    request: get(session(retired)),
    status: 401,
    code: 'unauthorized',
    core: true,
  },
  {
    name: 'a cookie revoked at logout, resent → 401',
    request: get(session(loggedOut.value)),
    status: 401,
    code: 'unauthorized',
    headers: { 'www-authenticate': CHALLENGE },
    core: true,
  },
  {
    name: 'two session cookies → 400 invalid_request',
    request: get({ Cookie: `${cookie.name}=${good}; ${cookie.name}=${reader}` }),
    status: 400,
    code: 'invalid_request',
    core: true,
  },
  {
    name: 'a cookie and a bearer token → 400 invalid_request',
    request: get({ ...session(good), Authorization: `Bearer ${writer}` }),
    status: 400,
    code: 'invalid_request',
    core: true,
  },
  {
    name: 'a cookie and an API key → 400 invalid_request',
    request: get({ ...session(good), 'X-API-Key': apiKey }),
    status: 400,
    code: 'invalid_request',
    core: true,
  },
  {
    name: 'an emptied cookie counts as none → 401',
    request: get({ Cookie: `${cookie.name}=` }),
    status: 401,
    code: 'unauthorized',
    core: true,
  },
  {
    name: 'GET is not CSRF-checked (cross-site, no header) → 200',
    request: get({ ...session(good), 'Sec-Fetch-Site': 'cross-site' }),
    status: 200,
    body: USER,
    core: true,
  },
  {
    name: 'POST with the cookie and no custom header → 403 csrf_rejected',
    request: post({ ...session(good), 'Sec-Fetch-Site': 'same-origin' }),
    status: 403,
    code: 'csrf_rejected',
    core: true,
  },
  {
    name: 'POST with the custom header but Sec-Fetch-Site: cross-site → 403',
    request: post({ ...session(good), 'X-Requested-With': 'fetch', 'Sec-Fetch-Site': 'cross-site' }),
    status: 403,
    code: 'csrf_rejected',
    core: true,
  },
  {
    name: 'POST from same-site (not allowed by default) → 403',
    request: post({ ...session(good), 'X-Requested-With': 'fetch', 'Sec-Fetch-Site': 'same-site' }),
    status: 403,
    code: 'csrf_rejected',
    core: true,
  },
  {
    name: 'POST same-origin with the custom header → 200',
    request: post({ ...session(good), ...sameOrigin }),
    status: 200,
    body: USER,
    core: true,
  },
  {
    name: 'POST same-origin with the header, to a route needing write:projects → 201',
    request: post({ ...session(good), ...sameOrigin }, '/projects'),
    status: 201,
    body: USER,
  },
  {
    name: 'a session without the scope → 403 insufficient_scope, no Bearer challenge',
    request: post({ ...session(reader), ...sameOrigin }, '/projects'),
    status: 403,
    code: 'insufficient_scope',
    headers: { 'www-authenticate': undefined },
  },
  {
    name: 'no Sec-Fetch-Site, an allowed Origin and the header → 200',
    request: post({ ...session(good), Origin: APP, 'X-Requested-With': 'fetch' }),
    status: 200,
    body: USER,
    core: true,
  },
  {
    name: 'no Sec-Fetch-Site, a foreign Origin and the header → 403',
    request: post({ ...session(good), Origin: 'https://evil.example', 'X-Requested-With': 'fetch' }),
    status: 403,
    code: 'csrf_rejected',
    core: true,
  },
  {
    name: 'neither Sec-Fetch-Site nor Origin → 403',
    request: post({ ...session(good), 'X-Requested-With': 'fetch' }),
    status: 403,
    code: 'csrf_rejected',
    core: true,
  },
  {
    name: 'DELETE with the cookie and no custom header → 403',
    request: post({ ...session(good), Origin: APP }, '/me', 'DELETE'),
    status: 403,
    code: 'csrf_rejected',
    core: true,
  },
  {
    name: 'a bearer token POST without the CSRF header, even cross-site → 201 (CSRF is for cookies)',
    request: post({ Authorization: `Bearer ${writer}`, 'Sec-Fetch-Site': 'cross-site' }, '/projects'),
    status: 201,
    body: { client: 'cli', type: 'jwt', subject: 'cli' },
  },
  {
    name: 'an API key POST without the CSRF header → 200',
    request: post({ 'X-API-Key': apiKey }),
    status: 200,
    body: { client: 'machine', type: 'api_key', subject: null },
    core: true,
  },
];

describeAdapters(
  'session cookie on the core, Express 5, Express 4, Fastify 5 and Hono',
  cases,
  {
    core: (c) =>
      c.core
        ? coreOutcome(async () => {
            const raw: string[] = [];
            for (const [name, value] of Object.entries(c.request.headers ?? {}))
              for (const line of typeof value === 'string' ? [value] : value) raw.push(name, line);
            return ok(
              await authenticator.authenticate({ rawHeaders: raw, method: c.request.method ?? 'GET' }),
            );
          })
        : { status: c.status, headers: {}, body: c.body },
    ...frameworkRunners<Case>(apps, (c) => c.request),
  },
  (outcome, c, adapter) => {
    expect(outcome.status).toBe(c.status);
    if (adapter === 'core' && !c.core) return;
    const body = outcome.body as Record<string, unknown>;
    if (c.code !== undefined) expect(body['error_code']).toBe(c.code);
    else expect(body).toEqual(c.body);
    for (const [name, value] of Object.entries(c.headers ?? {})) expect(outcome.headers[name]).toBe(value);
  },
);

describe('login, logout and a replayed cookie', () => {
  const senders = frameworkSenders(apps);
  it.each(FRAMEWORKS)(
    '%s: the cookie works until logout revokes it, then 401 when resent',
    async (framework) => {
      const send = senders[framework]!;
      const login = await send({ method: 'POST', path: '/login' });
      const setCookie = login.headers['set-cookie']!;
      expect(setCookie).toMatch(
        /^__Host-session=[\w-]+\.\.[\w-]+\.[\w-]+\.[\w-]+; Max-Age=(3599|3600); Path=\/; HttpOnly; Secure; SameSite=Lax$/,
      );
      const value = setCookie.slice(cookie.name.length + 1, setCookie.indexOf(';'));
      const headers = { Cookie: `${cookie.name}=${value}` };
      expect((await send({ path: '/me', headers })).status).toBe(200);
      const out = await send({ method: 'POST', path: '/logout', headers: { ...headers, ...sameOrigin } });
      expect([out.status, out.headers['set-cookie']]).toEqual([200, cookie.clear()]);
      const replay = await send({ path: '/me', headers });
      expect([replay.status, (replay.body as { error_code: string }).error_code]).toEqual([
        401,
        'unauthorized',
      ]);
    },
  );
});
