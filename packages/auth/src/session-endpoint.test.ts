/**
 * The session cookie's endpoints (`openSession` / `closeSession` and the adapters'
 * `openSessionEndpoint` / `closeSessionEndpoint`): one table of real requests run against the core and
 * the Express 5, Express 4, Fastify 5 and Hono adapters, a login-to-replay flow on each framework,
 * and the core's option checks and claims rules.
 */
import { randomBytes } from 'node:crypto';
import { HttpError } from '@plumbline/errors';
import * as errorsExpress from '@plumbline/errors/express';
import { plumblineErrors } from '@plumbline/errors/fastify';
import { problemDetails } from '@plumbline/errors/hono';
import {
  coreOutcome,
  describeAdapters,
  FRAMEWORKS,
  type FrameworkApps,
  frameworkSenders,
  type HttpRequestSpec,
  type Outcome,
} from '@plumbline/test-utils';
import type { Request, Response } from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { EncryptJWT, generateKeyPair, SignJWT } from 'jose';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as ex from './express.js';
import * as fa from './fastify.js';
import * as ho from './hono.js';
import {
  type AuthenticateOptions,
  type Authenticator,
  closeSession,
  createAuthenticator,
  createJwtVerifier,
  createSessionCookie,
  createSessionSealer,
  generateApiKey,
  MemoryApiKeyStore,
  MemoryRevocationStore,
  openSession,
  type Principal,
  type SessionEndpointOptions,
} from './index.js';

const ISS = 'https://issuer.session-endpoint.test';
const { privateKey, publicKey } = await generateKeyPair('ES256');
const revocation = new MemoryRevocationStore();
const verifier = createJwtVerifier({
  issuers: [{ issuer: ISS, audience: ISS, key: publicKey, algorithms: ['ES256'] }],
  revocation,
});
const store = new MemoryApiKeyStore();
const apiKey = generateApiKey();
store.add(apiKey, { clientId: 'machine', access: 'read' });

const sessionKey = { kid: 'k1', key: randomBytes(32) };
const sealer = createSessionSealer({ keys: [sessionKey] });
const cookie = createSessionCookie();
const endpoints: SessionEndpointOptions = { sealer, cookie, revocation };
const SHORT = 600;

// Opening takes a bearer token (API keys too here, to reach the core's claims check); closing the cookie.
const bearerAuth: AuthenticateOptions = { jwt: verifier, apiKeys: { store } };
const optionalAuth: AuthenticateOptions = { jwt: verifier, optional: true };
const cookieAuth: AuthenticateOptions = { cookie: { sealer, revocation } };
const silent = { onError: () => {} };

const nowSec = () => Math.floor(Date.now() / 1000);

/** A bearer token of ours: `exp` seconds from now (`null`: no `exp`), `sub`/`jti` unless left out. */
async function token(
  expIn: number | null,
  claims: { sub?: string | null; jti?: string | null; scope?: string } = {},
): Promise<string> {
  const jwt = new SignJWT({ client_id: 'web', scope: claims.scope ?? 'read:projects write:projects' })
    .setProtectedHeader({ alg: 'ES256' })
    .setIssuer(ISS)
    .setAudience(ISS)
    .setIssuedAt();
  if (claims.sub !== null) jwt.setSubject(claims.sub ?? 'user-1');
  if (claims.jti !== null) jwt.setJti(claims.jti ?? crypto.randomUUID());
  if (expIn !== null) jwt.setExpirationTime(nowSec() + expIn);
  return jwt.sign(privateKey);
}

const user = { subject: 'user-1', clientId: 'web', scopes: ['read:projects', 'write:projects'] };
/** A fresh session cookie value (each run revokes its own). */
const freshCookie = async () => (await sealer.seal(user)).value;
/** A well-sealed session cookie without a `jti`: `authenticate({ cookie })` refuses it. */
async function cookieWithoutJti(): Promise<string> {
  const iat = nowSec();
  return new EncryptJWT({ sub: 'user-1', client_id: 'web', scope: 'read:projects', iat, exp: iat + 600 })
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid: sessionKey.kid })
    .encrypt(sessionKey.key);
}

const principalOf = (p: Principal | undefined) => ({
  type: p?.type ?? null,
  client: p?.clientId ?? null,
  subject: p?.subject ?? null,
  scopes: p?.scopes ?? null,
});

const apps: FrameworkApps = {
  express: (express) => {
    const app = express();
    app.post('/session', ex.authenticate(bearerAuth), ex.openSessionEndpoint(endpoints));
    app.post(
      '/session/short',
      ex.authenticate(bearerAuth),
      ex.openSessionEndpoint({ ...endpoints, maxLifetimeSec: SHORT }),
    );
    app.post('/session/optional', ex.authenticate(optionalAuth), ex.openSessionEndpoint(endpoints));
    app.delete('/session', ex.authenticate(cookieAuth), ex.closeSessionEndpoint(endpoints));
    app.delete('/session/unauthenticated', ex.closeSessionEndpoint(endpoints));
    app.delete('/session/bearer', ex.authenticate(bearerAuth), ex.closeSessionEndpoint(endpoints));
    app.get('/me', ex.authenticate(cookieAuth), (req: Request, res: Response) => {
      res.json(principalOf(ex.getPrincipal(req)));
    });
    app.use(errorsExpress.errorHandler(silent));
    return app;
  },
  fastify: async () => {
    const app = Fastify();
    await app.register(plumblineErrors, silent);
    const bearer = { onRequest: fa.authenticate(bearerAuth) };
    const session = { onRequest: fa.authenticate(cookieAuth) };
    app.post('/session', bearer, fa.openSessionEndpoint(endpoints));
    app.post('/session/short', bearer, fa.openSessionEndpoint({ ...endpoints, maxLifetimeSec: SHORT }));
    app.post(
      '/session/optional',
      { onRequest: fa.authenticate(optionalAuth) },
      fa.openSessionEndpoint(endpoints),
    );
    app.delete('/session', session, fa.closeSessionEndpoint(endpoints));
    app.delete('/session/unauthenticated', fa.closeSessionEndpoint(endpoints));
    app.delete('/session/bearer', bearer, fa.closeSessionEndpoint(endpoints));
    app.get('/me', session, async (request) => principalOf(fa.getPrincipal(request)));
    return app;
  },
  hono: () => {
    const app = new Hono();
    const problems = problemDetails(silent);
    app.use(problems.middleware);
    app.onError(problems.onError);
    app.notFound(problems.notFound);
    app.post('/session', ho.authenticate(bearerAuth), ho.openSessionEndpoint(endpoints));
    app.post(
      '/session/short',
      ho.authenticate(bearerAuth),
      ho.openSessionEndpoint({ ...endpoints, maxLifetimeSec: SHORT }),
    );
    app.post('/session/optional', ho.authenticate(optionalAuth), ho.openSessionEndpoint(endpoints));
    app.delete('/session', ho.authenticate(cookieAuth), ho.closeSessionEndpoint(endpoints));
    app.delete('/session/unauthenticated', ho.closeSessionEndpoint(endpoints));
    app.delete('/session/bearer', ho.authenticate(bearerAuth), ho.closeSessionEndpoint(endpoints));
    app.get('/me', ho.authenticate(cookieAuth), (c) => c.json(principalOf(ho.getPrincipal(c))));
    return app;
  },
};

/** The same routes on the core: the authenticator each route runs, then `openSession` / `closeSession`. */
const coreRoutes: Record<
  string,
  { auth?: Authenticator; run: (principal: Principal | undefined) => Promise<string> }
> = {
  'POST /session': { auth: createAuthenticator(bearerAuth), run: (p) => openSession(endpoints, p) },
  'POST /session/short': {
    auth: createAuthenticator(bearerAuth),
    run: (p) => openSession({ ...endpoints, maxLifetimeSec: SHORT }, p),
  },
  'POST /session/optional': {
    auth: createAuthenticator(optionalAuth),
    run: (p) => openSession(endpoints, p),
  },
  'DELETE /session': { auth: createAuthenticator(cookieAuth), run: (p) => closeSession(endpoints, p) },
  'DELETE /session/unauthenticated': { run: (p) => closeSession(endpoints, p) },
  'DELETE /session/bearer': {
    auth: createAuthenticator(bearerAuth),
    run: (p) => closeSession(endpoints, p),
  },
};

async function coreRun(spec: HttpRequestSpec): Promise<Outcome> {
  const route = coreRoutes[`${spec.method} ${spec.path}`]!;
  const rawHeaders: string[] = [];
  for (const [name, value] of Object.entries(spec.headers ?? {}))
    for (const line of typeof value === 'string' ? [value] : value) rawHeaders.push(name, line);
  const outcome = await coreOutcome(async () =>
    route.run(await route.auth?.authenticate({ rawHeaders, method: spec.method ?? 'GET' })),
  );
  // What the adapters send for the core's answer: 204, the Set-Cookie value, no body.
  return outcome.status === 200
    ? { status: 204, headers: { 'set-cookie': outcome.body as string }, body: '' }
    : outcome;
}

interface Case {
  readonly name: string;
  /** Built per run: tokens and cookies are fresh, and a cookie one run closes is not another's. */
  readonly request: () => Promise<HttpRequestSpec>;
  readonly status: number;
  /** 204 from opening: the token's `exp` (seconds from when the request is built) and the lifetime cap. */
  readonly opens?: { readonly expIn: number; readonly cap: number };
  /** 204 from closing: the clearing value, exactly. */
  readonly clears?: true;
  readonly code?: string;
  readonly headers?: Readonly<Record<string, string | undefined>>;
  readonly challenge?: RegExp;
}

const bearer = (value: string) => ({ Authorization: `Bearer ${value}` });
const sent = (value: string) => ({ Cookie: `theme=dark; ${cookie.name}=${value}` });
const sameOrigin = { 'Sec-Fetch-Site': 'same-origin', 'X-Requested-With': 'fetch' };
const open = (path: string, headers: Record<string, string> = {}): HttpRequestSpec => ({
  method: 'POST',
  path,
  headers,
});
const close = (path: string, headers: Record<string, string> = {}): HttpRequestSpec => ({
  method: 'DELETE',
  path,
  headers,
});
const CHALLENGE = 'Bearer realm="plumbline"';
const SET_COOKIE =
  /^__Host-session=[\w-]+\.\.[\w-]+\.[\w-]+\.[\w-]+; Max-Age=(\d+); Path=\/; HttpOnly; Secure; SameSite=Lax$/;
/** When the last request was built (ms): no cookie it got can have been issued earlier. */
let builtAt = 0;
const built = (spec: HttpRequestSpec): HttpRequestSpec => {
  builtAt = Date.now();
  return spec;
};

const cases: Case[] = [
  {
    name: 'open with a bearer token good for two hours → 204, a one-hour cookie',
    request: async () => built(open('/session', bearer(await token(7200)))),
    status: 204,
    opens: { expIn: 7200, cap: 3600 },
  },
  {
    name: 'open with a token expiring in five minutes → the cookie ends with the token',
    request: async () => built(open('/session', bearer(await token(300)))),
    status: 204,
    opens: { expIn: 300, cap: 3600 },
  },
  {
    name: 'open with maxLifetimeSec 600 and a two-hour token → a 600 s cookie',
    request: async () => built(open('/session/short', bearer(await token(7200)))),
    status: 204,
    opens: { expIn: 7200, cap: SHORT },
  },
  {
    name: 'open with maxLifetimeSec 600 and a token good for 120 s → a 120 s cookie at most',
    request: async () => built(open('/session/short', bearer(await token(120)))),
    status: 204,
    opens: { expIn: 120, cap: SHORT },
  },
  {
    name: 'open with a token without sub → 204 (the session is the client’s)',
    request: async () => built(open('/session', bearer(await token(7200, { sub: null })))),
    status: 204,
    opens: { expIn: 7200, cap: 3600 },
  },
  {
    name: 'open without credentials → 401 from authenticate, with the challenge',
    request: async () => open('/session'),
    status: 401,
    code: 'unauthorized',
    headers: { 'www-authenticate': CHALLENGE, 'set-cookie': undefined },
  },
  {
    name: 'open with a token that has no exp → 401 invalid_token',
    request: async () => open('/session', bearer(await token(null))),
    status: 401,
    code: 'invalid_token',
    challenge: /^Bearer realm="plumbline", error="invalid_token"/,
    headers: { 'set-cookie': undefined },
  },
  {
    name: 'open with a token just past its exp (inside the verifier’s tolerance) → 401 unauthorized',
    request: async () => open('/session', bearer(await token(-2))),
    status: 401,
    code: 'unauthorized',
    headers: { 'set-cookie': undefined },
  },
  {
    name: 'open with an API key (no exp to bound the session) → 401 unauthorized',
    request: async () => open('/session', { 'X-API-Key': apiKey }),
    status: 401,
    code: 'unauthorized',
    headers: { 'set-cookie': undefined },
  },
  {
    name: 'open where authentication is optional and nothing was sent (no principal) → 401',
    request: async () => open('/session/optional'),
    status: 401,
    code: 'unauthorized',
    headers: { 'set-cookie': undefined },
  },
  {
    name: 'open with the session cookie instead of a token → 401 (a session cannot renew itself)',
    request: async () => open('/session', { ...sent(await freshCookie()), ...sameOrigin }),
    status: 401,
    code: 'unauthorized',
    headers: { 'set-cookie': undefined },
  },
  {
    name: 'close with the cookie, same-origin and the custom header → 204 with the clearing value',
    request: async () => close('/session', { ...sent(await freshCookie()), ...sameOrigin }),
    status: 204,
    clears: true,
  },
  {
    name: 'close with the cookie and an allowed Sec-Fetch-Site but no custom header → 403',
    request: async () => close('/session', { ...sent(await freshCookie()), 'Sec-Fetch-Site': 'same-origin' }),
    status: 403,
    code: 'csrf_rejected',
    headers: { 'set-cookie': undefined },
  },
  {
    name: 'close from another site → 403',
    request: async () =>
      close('/session', {
        ...sent(await freshCookie()),
        'Sec-Fetch-Site': 'cross-site',
        'X-Requested-With': 'fetch',
      }),
    status: 403,
    code: 'csrf_rejected',
    headers: { 'set-cookie': undefined },
  },
  {
    name: 'close with a cookie already revoked → 401',
    request: async () => {
      const sealed = await sealer.seal(user);
      await revocation.revoke(sealed.claims.jti, sealed.claims.exp);
      return close('/session', { ...sent(sealed.value), ...sameOrigin });
    },
    status: 401,
    code: 'unauthorized',
    headers: { 'www-authenticate': CHALLENGE, 'set-cookie': undefined },
  },
  {
    name: 'close with a sealed cookie lacking jti → 401',
    request: async () => close('/session', { ...sent(await cookieWithoutJti()), ...sameOrigin }),
    status: 401,
    code: 'unauthorized',
    headers: { 'set-cookie': undefined },
  },
  {
    name: 'close without a cookie → 401',
    request: async () => close('/session', sameOrigin),
    status: 401,
    code: 'unauthorized',
    headers: { 'www-authenticate': CHALLENGE, 'set-cookie': undefined },
  },
  {
    name: 'close on a route with no authenticate in front (no principal) → 401',
    request: async () => close('/session/unauthenticated', { ...sent(await freshCookie()), ...sameOrigin }),
    status: 401,
    code: 'unauthorized',
    headers: { 'set-cookie': undefined },
  },
  {
    name: 'close with a principal lacking jti (a bearer token without one) → 401',
    request: async () => close('/session/bearer', bearer(await token(600, { jti: null }))),
    status: 401,
    code: 'unauthorized',
    headers: { 'set-cookie': undefined },
  },
];

const senders = frameworkSenders(apps);
const runners = Object.fromEntries(
  FRAMEWORKS.map((framework) => [framework, async (c: Case) => senders[framework]!(await c.request())]),
);

describeAdapters(
  'session endpoints on the core, Express 5, Express 4, Fastify 5 and Hono',
  cases,
  { core: async (c) => coreRun(await c.request()), ...runners },
  (outcome, c) => {
    const received = Date.now();
    expect(outcome.status).toBe(c.status);
    if (c.status === 204) {
      // No body and nothing describing one.
      expect([outcome.body, outcome.headers['content-type']]).toEqual(['', undefined]);
      const setCookie = outcome.headers['set-cookie'];
      if (c.clears)
        expect(setCookie).toBe('__Host-session=; Max-Age=0; Path=/; HttpOnly; Secure; SameSite=Lax');
      if (c.opens) {
        expect(setCookie).toMatch(SET_COOKIE);
        const maxAge = Number(SET_COOKIE.exec(setCookie!)![1]);
        const exp = Math.floor(builtAt / 1000) + c.opens.expIn;
        // Never past the token's exp (counted from before the request), never above the cap, and
        // short of neither by more than the seconds the sealing can lose to rounding.
        expect(maxAge).toBeLessThanOrEqual(Math.min(c.opens.cap, exp - builtAt / 1000));
        expect(maxAge).toBeGreaterThanOrEqual(Math.min(c.opens.cap, exp - received / 1000) - 2);
      }
      return;
    }
    expect((outcome.body as { error_code?: string }).error_code).toBe(c.code);
    for (const [name, value] of Object.entries(c.headers ?? {})) expect(outcome.headers[name]).toBe(value);
    if (c.challenge) expect(outcome.headers['www-authenticate']).toMatch(c.challenge);
  },
);

describe('open, use, close and replay on each framework', () => {
  const cookieValue = (setCookie: string | undefined) =>
    (setCookie ?? '').slice(cookie.name.length + 1, (setCookie ?? '').indexOf(';'));

  it.each(FRAMEWORKS)(
    '%s: the opened cookie authenticates until closed, then 401 when resent',
    async (framework) => {
      const send = senders[framework]!;
      const opened = await send(open('/session', bearer(await token(7200))));
      expect([opened.status, opened.body]).toEqual([204, '']);
      const headers = { Cookie: `${cookie.name}=${cookieValue(opened.headers['set-cookie'])}` };
      const me = await send({ path: '/me', headers });
      expect([me.status, me.body]).toEqual([
        200,
        { type: 'session', client: 'web', subject: 'user-1', scopes: ['read:projects', 'write:projects'] },
      ]);
      const closed = await send(close('/session', { ...headers, ...sameOrigin }));
      expect([closed.status, closed.headers['set-cookie'], closed.body]).toEqual([204, cookie.clear(), '']);
      const replay = await send({ path: '/me', headers });
      expect([replay.status, (replay.body as { error_code: string }).error_code]).toEqual([
        401,
        'unauthorized',
      ]);
      const again = await send(close('/session', { ...headers, ...sameOrigin }));
      expect([again.status, again.headers['set-cookie']]).toEqual([401, undefined]);
    },
  );

  it.each(FRAMEWORKS)(
    '%s: a token without sub opens a session whose subject is the client',
    async (framework) => {
      const send = senders[framework]!;
      const opened = await send(
        open('/session', bearer(await token(7200, { sub: null, scope: 'read:projects' }))),
      );
      const me = await send({
        path: '/me',
        headers: { Cookie: `${cookie.name}=${cookieValue(opened.headers['set-cookie'])}` },
      });
      expect([opened.status, me.status, me.body]).toEqual([
        204,
        200,
        { type: 'session', client: 'web', subject: 'web', scopes: ['read:projects'] },
      ]);
    },
  );
});

describe('openSession / closeSession', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  const NOW_MS = 1_800_000_000_500;
  const jwtPrincipal = (claims: Record<string, unknown>, extra: Partial<Principal> = {}): Principal => ({
    type: 'jwt',
    clientId: 'web',
    subject: 'user-1',
    scopes: ['read:projects'],
    claims,
    ...extra,
  });

  /** A sealer that records what it was asked to seal; it and the cookie read the (mocked) `Date.now`. */
  function recording() {
    const inputs: Parameters<typeof sealer.seal>[0][] = [];
    const clocked = createSessionSealer({ keys: [sessionKey], now: () => Date.now() });
    const options: SessionEndpointOptions = {
      ...endpoints,
      cookie: createSessionCookie({ now: () => Date.now() }),
      sealer: {
        seal: (input) => {
          inputs.push(input);
          return clocked.seal(input);
        },
        open: (value) => clocked.open(value),
      },
    };
    return { inputs, options };
  }

  it.each([
    ['0', 0],
    ['negative', -60],
    ['fractional', 1.5],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['a string', '60' as unknown as number],
  ])(
    'maxLifetimeSec %s → TypeError, from the core and from every adapter at construction',
    async (_name, max) => {
      const options = { ...endpoints, maxLifetimeSec: max };
      const principal = jwtPrincipal({ exp: nowSec() + 600, jti: 'j' });
      await expect(openSession(options, principal)).rejects.toThrow(TypeError);
      await expect(closeSession(options, principal)).rejects.toThrow(TypeError);
      for (const adapter of [ex, fa, ho]) {
        expect(() => adapter.openSessionEndpoint(options)).toThrow(
          /maxLifetimeSec must be a positive whole number/,
        );
        expect(() => adapter.closeSessionEndpoint(options)).toThrow(TypeError);
      }
    },
  );

  it.each([
    ['no sealer', { cookie, revocation }, /sealer/],
    ['no cookie', { sealer, revocation }, /cookie/],
    [
      'a cookie without clear()',
      { sealer, revocation, cookie: { name: 'x', serialize: () => '' } },
      /cookie/,
    ],
    ['no revocation list', { sealer, cookie }, /revocation/],
  ])('%s → TypeError at construction', (_name, options, message) => {
    const given = options as unknown as SessionEndpointOptions;
    for (const adapter of [ex, fa, ho]) {
      expect(() => adapter.openSessionEndpoint(given)).toThrow(TypeError);
      expect(() => adapter.closeSessionEndpoint(given)).toThrow(message);
    }
  });

  it('accepts maxLifetimeSec 1 and whole numbers; the default is 3600', async () => {
    vi.spyOn(Date, 'now').mockReturnValue(NOW_MS);
    const { inputs, options } = recording();
    const principal = jwtPrincipal({ exp: 1_800_000_001 + 7200 });
    await openSession({ ...options, maxLifetimeSec: 1 }, principal);
    await openSession(options, principal);
    expect(() => ex.openSessionEndpoint({ ...endpoints, maxLifetimeSec: 86_400 })).not.toThrow();
    expect(inputs.map((input) => input.lifetimeSec)).toEqual([1, 3600]);
  });

  it('seals subject, client and scopes for min(maxLifetimeSec, seconds left on the token)', async () => {
    vi.spyOn(Date, 'now').mockReturnValue(NOW_MS);
    const { inputs, options } = recording();
    // 1_800_000_001 is the next whole second: 250 s left, 250 < 3600.
    const setCookie = await openSession(options, jwtPrincipal({ exp: 1_800_000_001 + 250 }));
    await openSession({ ...options, maxLifetimeSec: 100 }, jwtPrincipal({ exp: 1_800_000_001 + 250 }));
    const { subject: _, ...noSubject } = jwtPrincipal({ exp: 1_800_000_001 + 9000 });
    await openSession(options, noSubject);
    expect(inputs).toEqual([
      { subject: 'user-1', clientId: 'web', scopes: ['read:projects'], lifetimeSec: 250 },
      { subject: 'user-1', clientId: 'web', scopes: ['read:projects'], lifetimeSec: 100 },
      { subject: 'web', clientId: 'web', scopes: ['read:projects'], lifetimeSec: 3600 },
    ]);
    expect(setCookie).toMatch(/^__Host-session=[^;]+; Max-Age=249; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
  });

  it.each([
    ['no principal', undefined],
    ['no claims (an API key)', { type: 'api_key', clientId: 'machine', scopes: ['read:*'] } as Principal],
    ['no exp', jwtPrincipal({ jti: 'j' })],
    ['a non-numeric exp', jwtPrincipal({ exp: '1900000000' })],
    ['exp this very second', jwtPrincipal({ exp: 1_800_000_001 })],
    ['exp past', jwtPrincipal({ exp: 1_800_000_000 - 10 })],
  ])('openSession with %s → HttpError unauthorized, nothing sealed', async (_name, principal) => {
    vi.spyOn(Date, 'now').mockReturnValue(NOW_MS);
    const { inputs, options } = recording();
    const error = await openSession(options, principal).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect([(error as HttpError).status, (error as HttpError).code]).toEqual([401, 'unauthorized']);
    expect(inputs).toEqual([]);
  });

  it('closeSession revokes the jti until the exp and returns the clearing value', async () => {
    const revoked: [string, number][] = [];
    const list = new MemoryRevocationStore();
    const options: SessionEndpointOptions = {
      ...endpoints,
      revocation: {
        isRevoked: (jti) => list.isRevoked(jti),
        revoke: (jti, exp) => {
          revoked.push([jti, exp]);
          return list.revoke(jti, exp);
        },
      },
    };
    const exp = nowSec() + 600;
    const principal = jwtPrincipal({ jti: 'session-1', exp }, { type: 'session' });
    expect(await closeSession(options, principal)).toBe(cookie.clear());
    expect([revoked, await list.isRevoked('session-1')]).toEqual([[['session-1', exp]], true]);
  });

  it.each([
    ['no principal', undefined],
    ['no claims', { type: 'api_key', clientId: 'machine', scopes: [] } as Principal],
    ['no jti', jwtPrincipal({ exp: 1_900_000_000 })],
    ['no exp', jwtPrincipal({ jti: 'j' })],
    ['a numeric jti', jwtPrincipal({ jti: 7, exp: 1_900_000_000 })],
  ])('closeSession with %s → HttpError unauthorized, nothing revoked', async (_name, principal) => {
    const revoke = vi.fn(async () => {});
    const options = { ...endpoints, revocation: { isRevoked: async () => false, revoke } };
    const error = await closeSession(options, principal).catch((e: unknown) => e);
    expect([(error as HttpError).status, (error as HttpError).code]).toEqual([401, 'unauthorized']);
    expect(revoke).not.toHaveBeenCalled();
  });
});
