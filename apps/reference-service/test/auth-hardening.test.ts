/**
 * Issue 22 (auth hardening) through the running service, over real HTTP on loopback: every table runs
 * with in-memory state and with Redis state; the family-revocation case also across two instances
 * sharing one Redis.
 */
import { sign as cryptoSign, generateKeyPairSync, type KeyObject, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { redisAvailable, uniquePrefix } from '@plumbline/test-utils';
import pino from 'pino';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/service/config.js';
import { type Backend, type RunningService, startService } from './harness.js';

const redisUp = await redisAvailable();
const backends: Backend[] = [
  { name: 'memory', postgres: false, redis: false },
  ...(redisUp ? [{ name: 'redis', postgres: false, redis: true }] : []),
];

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
function jwt(header: Record<string, unknown>, payload: Record<string, unknown>, key: KeyObject): string {
  const input = `${b64({ alg: 'ES256', ...header })}.${b64(payload)}`;
  return `${input}.${cryptoSign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
}
const nowSec = () => Math.floor(Date.now() / 1000);

// Our own signing key, shared by every instance (SIGNING_KEY_JWK), so tests can forge "our" tokens.
const own = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const SIGNING_KEY_JWK = JSON.stringify(own.privateKey.export({ format: 'jwk' }));

// An external identity provider on loopback whose JWKS can be made to fail; every fetch is counted.
const idp = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const IDP_ISS = 'https://idp.test';
const IDP_AUD = 'plumbline-api';
let idpMode: 'ok' | 'error' = 'ok';
let idpFetches = 0;
let idpServer: Server;
let idpJwksUrl: string;
beforeAll(async () => {
  idpServer = createServer((_req, res) => {
    idpFetches += 1;
    if (idpMode === 'error') {
      res.writeHead(500).end('{}');
      return;
    }
    const jwk = { ...idp.publicKey.export({ format: 'jwk' }), kid: 'idp-1', alg: 'ES256', use: 'sig' };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => idpServer.listen(0, '127.0.0.1', resolve));
  idpJwksUrl = `http://127.0.0.1:${(idpServer.address() as AddressInfo).port}/jwks.json`;
});
afterAll(async () => {
  idpServer.closeAllConnections();
  await new Promise((resolve) => idpServer.close(resolve));
});

function idpToken(claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}): string {
  const iat = nowSec();
  const payload: Record<string, unknown> = {
    iss: IDP_ISS,
    aud: IDP_AUD,
    sub: 'user-1',
    client_id: 'partner',
    scope: 'read:projects',
    iat,
    exp: iat + 300,
    jti: randomUUID(),
  };
  for (const [name, value] of Object.entries(claims)) {
    if (value === undefined) delete payload[name];
    else payload[name] = value;
  }
  return jwt({ kid: 'idp-1', typ: 'at+jwt', ...header }, payload, idp.privateKey);
}

const form = 'application/x-www-form-urlencoded';
const basicOf = (svc: RunningService, client: 'readWrite' | 'readOnly' = 'readWrite') => {
  const { clientId, clientSecret } = svc.credentials.clients[client];
  return `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
};
const IT = (d: string) => `Bearer realm="plumbline", error="invalid_token", error_description="${d}"`;

describe.each(backends)('auth hardening on $name state', (backend) => {
  let svc: RunningService;
  const logLines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => logLines.push(JSON.parse(line)) });

  beforeAll(async () => {
    svc = await startService(
      backend,
      {
        SIGNING_KEY_JWK,
        AUTH_ISSUER: IDP_ISS,
        AUTH_AUDIENCE: IDP_AUD,
        AUTH_JWKS_URL: idpJwksUrl,
        AUTH_STRICT_RFC9068: 'true',
      },
      { logger },
    );
  });
  afterAll(async () => {
    await svc?.stop();
  });

  const get = (authorization: string) =>
    request(svc.url).get('/v2/projects?limit=1').set('Authorization', authorization);
  const token = (body: Record<string, string>, authorization = basicOf(svc)) =>
    request(svc.url).post('/oauth/token').set('Authorization', authorization).type('form').send(body);
  const revoke = (value: string, authorization = basicOf(svc)) =>
    request(svc.url)
      .post('/oauth/revoke')
      .set('Authorization', authorization)
      .type('form')
      .send({ token: value });
  const start = async () => {
    const res = await token({ grant_type: 'client_credentials', scope: 'read:projects offline_access' });
    expect(res.status).toBe(200);
    return { refresh: res.body.refresh_token as string, access: res.body.access_token as string };
  };
  const refresh = (value: string) => token({ grant_type: 'refresh_token', refresh_token: value });

  it('item 1: /oauth/revoke with a refresh token ends its family and the family’s access tokens', async () => {
    const { refresh: r1, access: a1 } = await start();
    const rotated = await refresh(r1);
    const { refresh_token: r2, access_token: a2 } = rotated.body as Record<string, string>;
    expect((await get(`Bearer ${a2}`)).status).toBe(200);
    const revoked = await revoke(r2!);
    expect([revoked.status, revoked.body, revoked.headers['cache-control']]).toEqual([200, {}, 'no-store']);
    const after = await refresh(r2!);
    expect([after.status, after.body.error]).toEqual([400, 'invalid_grant']);
    for (const access of [a1, a2!]) {
      const res = await get(`Bearer ${access}`);
      expect([res.status, res.headers['www-authenticate']]).toEqual([
        401,
        IT('The access token was revoked'),
      ]);
    }
    // Another client's attempt is answered 200 and changes nothing.
    const { refresh: mine } = await start();
    expect((await revoke(mine, basicOf(svc, 'readOnly'))).status).toBe(200);
    expect((await refresh(mine)).status).toBe(200);
  });

  it('item 2: refresh-token reuse revokes the family’s access tokens', async () => {
    const { refresh: r1, access: a1 } = await start();
    const { access_token: a2 } = (await refresh(r1)).body as Record<string, string>;
    const other = await start();
    const reuse = await refresh(r1);
    expect([reuse.status, reuse.body.error]).toEqual([400, 'invalid_grant']);
    for (const access of [a1, a2!]) expect((await get(`Bearer ${access}`)).status).toBe(401);
    expect((await get(`Bearer ${other.access}`)).status).toBe(200);
  });

  const exp = (claims: Record<string, unknown>) => ({ iat: nowSec(), exp: nowSec() + 300, ...claims });
  const ownToken = (claims: Record<string, unknown>) =>
    jwt(
      { kid: svc.ctx.issuer.kid, typ: 'at+jwt' },
      {
        iss: 'plumbline-reference',
        aud: 'plumbline-api',
        sub: 'demo-read-write',
        client_id: 'demo-read-write',
        scope: 'read:projects',
        jti: randomUUID(),
        ...exp(claims),
      },
      own.privateKey,
    );

  it.each([
    // item 4: our own tokens: 900 s age and lifetime; external: 86 400 s (AUTH_MAX_TOKEN_*).
    [
      'own token, iat a year ago',
      () => ownToken({ iat: nowSec() - 31_536_000 }),
      401,
      'The access token is too old',
    ],
    [
      'own token, exp ten years away',
      () => ownToken({ exp: nowSec() + 315_360_000 }),
      401,
      'The access token lifetime is too long',
    ],
    [
      'own token, lifetime 901 s',
      () => ownToken({ exp: nowSec() + 901 }),
      401,
      'The access token lifetime is too long',
    ],
    ['own token, lifetime 900 s', () => ownToken({ exp: nowSec() + 900 }), 200, null],
    [
      'external token, iat two days ago',
      () => idpToken({ iat: nowSec() - 172_800 }),
      401,
      'The access token is too old',
    ],
    [
      'external token, lifetime two days',
      () => idpToken({ exp: nowSec() + 172_800 }),
      401,
      'The access token lifetime is too long',
    ],
    ['external token, lifetime one hour', () => idpToken({ exp: nowSec() + 3600 }), 200, null],
    // item 5: AUTH_STRICT_RFC9068=true for the external issuer.
    [
      'external token without jti',
      () => idpToken({ jti: undefined }),
      401,
      'The access token has no identifier',
    ],
    [
      'external token without iat',
      () => idpToken({ iat: undefined }),
      401,
      'The access token has no issue time',
    ],
    [
      'external token without sub',
      () => idpToken({ sub: undefined }),
      401,
      'The access token has no subject',
    ],
    [
      'external token without client_id',
      () => idpToken({ client_id: undefined, azp: 'partner' }),
      401,
      'The access token has no client_id',
    ],
    [
      'external token with typ JWT',
      () => idpToken({}, { typ: 'JWT' }),
      401,
      'The access token type is not accepted',
    ],
    ['external token with every RFC 9068 claim', () => idpToken(), 200, null],
  ])('items 4 and 5: %s', async (_name, make, status, description) => {
    const res = await get(`Bearer ${make()}`);
    expect([res.status, res.headers['www-authenticate'] ?? null]).toEqual([
      status,
      description === null ? null : IT(description),
    ]);
  });

  it.each([
    [
      'invalid_client with client_secret_post',
      { client_id: 'demo-read-write', client_secret: 'wrong', grant_type: 'client_credentials' },
      [] as string[],
      401,
      'invalid_client',
      'Basic realm="plumbline"',
    ],
    [
      'two Authorization lines, good then bad',
      { grant_type: 'client_credentials' },
      ['@good', 'Basic ZGVtby1yZWFkLXdyaXRlOndyb25n'],
      400,
      'invalid_request',
      undefined,
    ],
    [
      'two Authorization lines, bad then good',
      { grant_type: 'client_credentials' },
      ['Basic ZGVtby1yZWFkLXdyaXRlOndyb25n', '@good'],
      400,
      'invalid_request',
      undefined,
    ],
    ['scope=%zz', 'grant_type=client_credentials&scope=%zz', ['@good'], 400, 'invalid_request', undefined],
  ] as const)('item 7: %s → %i %s', async (_name, body, lines, status, error, challenge) => {
    let req = request(svc.url).post('/oauth/token').type('form');
    const auth = lines.map((l) => (l === '@good' ? basicOf(svc) : l));
    if (auth.length > 0) req = req.set('Authorization', (auth.length === 1 ? auth[0] : auth) as string);
    const res = await req.send(body as never);
    expect([
      res.status,
      res.body.error,
      res.headers['www-authenticate'],
      res.headers['cache-control'],
    ]).toEqual([status, error, challenge, 'no-store']);
  });

  it.each([
    ['405 on GET /oauth/token', () => request(svc.url).get('/oauth/token'), 405],
    ['405 on PUT /oauth/revoke', () => request(svc.url).put('/oauth/revoke'), 405],
    [
      '413 on a 17 KiB token request',
      () =>
        request(svc.url)
          .post('/oauth/token')
          .type(form)
          .send(`grant_type=client_credentials&pad=${'a'.repeat(17_000)}`),
      413,
    ],
  ])('item 7: %s carries Cache-Control: no-store', async (_name, send, status) => {
    const res = await send();
    expect([res.status, res.headers['cache-control']]).toEqual([status, 'no-store']);
  });

  it('item 8: a credential refused from the query string never reaches the access log', async () => {
    const secret = `SECRET-${randomUUID()}`;
    const before = logLines.length;
    const res = await request(svc.url)
      .get(`/v2/projects?page=1&access_token=${secret}&API_KEY=${secret}`)
      .set('Authorization', `Bearer ${secret}`)
      .set('X-Api-Key', secret);
    expect([res.status, res.body.error_code]).toEqual([400, 'credentials_in_query']);
    await new Promise((resolve) => setImmediate(resolve));
    const lines = logLines.slice(before);
    const access = lines.find((l) =>
      (l['req'] as { url?: string } | undefined)?.url?.startsWith('/v2/projects'),
    );
    const logged = access?.['req'] as { url: string; query: unknown } | undefined;
    expect(logged?.url).toBe('/v2/projects?page=1&access_token=[REDACTED]&API_KEY=[REDACTED]');
    expect(logged?.query).toEqual({
      page: '1',
      access_token: '[REDACTED]',
      API_KEY: '[REDACTED]',
    });
    expect(JSON.stringify(lines)).not.toContain(secret);
  });

  it('item 9: a 403 for an API-key caller carries no Bearer challenge; a JWT caller’s does', async () => {
    const apiKey = await request(svc.url)
      .post('/v2/projects')
      .set('X-API-Key', svc.credentials.apiKeys.readOnly)
      .set('Idempotency-Key', randomUUID())
      .send({ name: `p-${randomUUID()}` });
    expect([apiKey.status, apiKey.body.error_code, apiKey.headers['www-authenticate']]).toEqual([
      403,
      'insufficient_scope',
      undefined,
    ]);
    const bearer = await request(svc.url)
      .post('/v2/projects')
      .set('Authorization', `Bearer ${await svc.token('read:projects')}`)
      .set('Idempotency-Key', randomUUID())
      .send({ name: `p-${randomUUID()}` });
    expect([bearer.status, bearer.headers['www-authenticate']]).toEqual([
      403,
      'Bearer realm="plumbline", error="insufficient_scope", scope="write:projects"',
    ]);
  });
});

describe.each(backends)('key-set outage on $name state', (backend) => {
  it('item 3: JWKS outage: one fetch and one log line per backoff, 503 without per-request error logs', async () => {
    // A service whose key set for the IdP was never fetched: every external token waits for the IdP.
    idpMode = 'error';
    idpFetches = 0;
    const logLines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => logLines.push(JSON.parse(line)) });
    const svc = await startService(
      backend,
      { AUTH_ISSUER: IDP_ISS, AUTH_AUDIENCE: IDP_AUD, AUTH_JWKS_URL: idpJwksUrl },
      { logger },
    );
    const get = (authorization: string) =>
      request(svc.url).get('/v2/projects?limit=1').set('Authorization', authorization);
    const before = logLines.length;
    try {
      const replies = await Promise.all(Array.from({ length: 15 }, () => get(`Bearer ${idpToken()}`)));
      for (let i = 0; i < 5; i += 1)
        replies.push(await get(`Bearer ${idpToken({}, { kid: `unknown-${i}` })}`));
      expect(new Set(replies.map((r) => `${r.status} ${r.body.error_code}`))).toEqual(
        new Set(['503 service_unavailable']),
      );
      expect(idpFetches).toBe(1);
      const lines = logLines.slice(before);
      expect(lines.filter((l) => l['msg'] === 'JWKS unavailable')).toHaveLength(1);
      expect(lines.filter((l) => (l['level'] as number) >= 50)).toEqual([]);
      // Our own tokens do not depend on the IdP.
      expect((await get(`Bearer ${await svc.token('read:projects')}`)).status).toBe(200);
    } finally {
      idpMode = 'ok';
      await svc.stop();
    }
  });
});

describe.each(backends)('refresh reuse grace (REFRESH_REUSE_GRACE_SEC) on $name state', (backend) => {
  it('the first retry of a just-rotated refresh token gets the same successor; the second is reuse', async () => {
    const svc = await startService(backend, { REFRESH_REUSE_GRACE_SEC: '30' });
    try {
      const token = (body: Record<string, string>) =>
        request(svc.url).post('/oauth/token').set('Authorization', basicOf(svc)).type('form').send(body);
      const first = await token({ grant_type: 'client_credentials', scope: 'read:projects offline_access' });
      const r1 = first.body.refresh_token as string;
      const rotated = await token({ grant_type: 'refresh_token', refresh_token: r1 });
      const retry = await token({ grant_type: 'refresh_token', refresh_token: r1 });
      expect([rotated.status, retry.status, retry.body.refresh_token === rotated.body.refresh_token]).toEqual(
        [200, 200, true],
      );
      const third = await token({ grant_type: 'refresh_token', refresh_token: r1 });
      expect([third.status, third.body.error]).toEqual([400, 'invalid_grant']);
      const use = await request(svc.url)
        .get('/v2/projects?limit=1')
        .set('Authorization', `Bearer ${retry.body.access_token}`);
      expect(use.status).toBe(401);
    } finally {
      await svc.stop();
    }
  });
});

describe('auth configuration', () => {
  const external = {
    AUTH_ISSUER: IDP_ISS,
    AUTH_AUDIENCE: IDP_AUD,
    AUTH_JWKS_URL: 'https://idp.test/jwks.json',
  };
  const codeFlowEnv = {
    AUTH_AUTHORIZATION_URL: 'https://idp.test/authorize',
    AUTH_TOKEN_URL: 'http://127.0.0.1:4000/token',
    AUTH_DOCS_CLIENT_ID: 'plumbline-docs',
  };
  it.each([
    ['defaults without an external issuer', {}, { externalIssuer: undefined, refreshReuseGraceSec: 0 }],
    [
      'external issuer defaults: one day of age and lifetime, strict mode off',
      external,
      {
        externalIssuer: {
          ...{ issuer: IDP_ISS, audience: IDP_AUD, jwksUrl: 'https://idp.test/jwks.json' },
          maxTokenAgeSec: 86_400,
          maxLifetimeSec: 86_400,
          strictRfc9068: false,
          codeFlow: undefined,
        },
        refreshReuseGraceSec: 0,
      },
    ],
    [
      'external issuer overrides and a grace interval',
      {
        ...external,
        AUTH_MAX_TOKEN_AGE_SEC: '3600',
        AUTH_MAX_TOKEN_LIFETIME_SEC: '7200',
        AUTH_STRICT_RFC9068: 'true',
        REFRESH_REUSE_GRACE_SEC: '10',
      },
      {
        externalIssuer: {
          ...{ issuer: IDP_ISS, audience: IDP_AUD, jwksUrl: 'https://idp.test/jwks.json' },
          maxTokenAgeSec: 3600,
          maxLifetimeSec: 7200,
          strictRfc9068: true,
          codeFlow: undefined,
        },
        refreshReuseGraceSec: 10,
      },
    ],
    [
      'the code flow of /docs, on https and on loopback http',
      { ...external, ...codeFlowEnv },
      {
        externalIssuer: {
          ...{ issuer: IDP_ISS, audience: IDP_AUD, jwksUrl: 'https://idp.test/jwks.json' },
          maxTokenAgeSec: 86_400,
          maxLifetimeSec: 86_400,
          strictRfc9068: false,
          codeFlow: {
            authorizationUrl: 'https://idp.test/authorize',
            tokenUrl: 'http://127.0.0.1:4000/token',
            clientId: 'plumbline-docs',
          },
        },
        refreshReuseGraceSec: 0,
      },
    ],
  ])('%s', (_name, env, expected) => {
    const config = loadConfig(env);
    expect({
      externalIssuer: config.externalIssuer,
      refreshReuseGraceSec: config.refreshReuseGraceSec,
    }).toEqual(expected);
  });

  it.each([
    [{ ...external, AUTH_STRICT_RFC9068: 'yes' }, 'AUTH_STRICT_RFC9068 must be true or false, got "yes"'],
    [
      { ...external, AUTH_MAX_TOKEN_AGE_SEC: '0' },
      'AUTH_MAX_TOKEN_AGE_SEC must be an integer from 1 to 31536000, got "0"',
    ],
    [
      { ...external, AUTH_MAX_TOKEN_LIFETIME_SEC: '-5' },
      'AUTH_MAX_TOKEN_LIFETIME_SEC must be an integer from 1 to 31536000, got "-5"',
    ],
    [
      { ...external, AUTH_AUTHORIZATION_URL: 'https://idp.test/authorize', AUTH_DOCS_CLIENT_ID: 'docs' },
      'AUTH_AUTHORIZATION_URL, AUTH_TOKEN_URL and AUTH_DOCS_CLIENT_ID must be set together',
    ],
    [codeFlowEnv, 'AUTH_AUTHORIZATION_URL, AUTH_TOKEN_URL and AUTH_DOCS_CLIENT_ID need AUTH_ISSUER'],
    [
      { ...external, ...codeFlowEnv, AUTH_TOKEN_URL: 'http://idp.test/token' },
      'AUTH_TOKEN_URL must use https (http only on loopback), got "http://idp.test"',
    ],
    [
      { ...external, ...codeFlowEnv, AUTH_AUTHORIZATION_URL: 'ftp://idp.test/authorize' },
      'AUTH_AUTHORIZATION_URL must use https: or http:, got "ftp:"',
    ],
    [
      { ...external, ...codeFlowEnv, AUTH_DOCS_CLIENT_ID: 'two words' },
      'AUTH_DOCS_CLIENT_ID must be 1-255 visible ASCII characters',
    ],
    [
      { REFRESH_REUSE_GRACE_SEC: '301' },
      'REFRESH_REUSE_GRACE_SEC must be an integer from 0 to 300, got "301"',
    ],
  ])('%j → ConfigError', (env, message) => {
    expect(() => loadConfig(env)).toThrow(new ConfigError(message));
  });
});

describe.each(backends)('rate-limited token endpoint on $name state', (backend) => {
  it('item 7: 429 from the token endpoint carries Cache-Control: no-store', async () => {
    const svc = await startService(backend, { RATE_LIMIT_PER_MINUTE: '1' });
    try {
      const send = () =>
        request(svc.url)
          .post('/oauth/token')
          .type(form)
          .send('grant_type=client_credentials&client_id=x&client_secret=y');
      let last = await send();
      for (let i = 0; i < 3 && last.status !== 429; i += 1) last = await send();
      expect([last.status, last.body.error_code, last.headers['cache-control']]).toEqual([
        429,
        'rate_limited',
        'no-store',
      ]);
    } finally {
      await svc.stop();
    }
  });
});

describe.skipIf(!redisUp)('two instances sharing one Redis', () => {
  let a: RunningService;
  let b: RunningService;
  beforeAll(async () => {
    const redisPrefix = `${uniquePrefix('auth22-pair')}:`;
    const backend = { name: 'redis', postgres: false, redis: true };
    a = await startService(backend, { SIGNING_KEY_JWK }, { redisPrefix });
    b = await startService(backend, { SIGNING_KEY_JWK }, { redisPrefix });
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('items 1 and 2: reuse at one instance, or revocation at the other, is seen by both at once', async () => {
    // The demo client exists in each instance's own database with its own secret: each instance
    // is addressed with its own credentials, as two regions with one client registry would.
    const tokenAt = (svc: RunningService, body: Record<string, string>) =>
      request(svc.url).post('/oauth/token').set('Authorization', basicOf(svc)).type('form').send(body);
    const getAt = (svc: RunningService, access: string) =>
      request(svc.url).get('/v2/projects?limit=1').set('Authorization', `Bearer ${access}`);
    expect(basicOf(a)).not.toBe(basicOf(b));
    // Same client id on both, so a family started at A may be refreshed at B.
    const first = await tokenAt(a, {
      grant_type: 'client_credentials',
      scope: 'read:projects offline_access',
    });
    const r1 = first.body.refresh_token as string;
    const a1 = first.body.access_token as string;
    const second = await tokenAt(b, { grant_type: 'refresh_token', refresh_token: r1 });
    expect(second.status).toBe(200);
    const a2 = second.body.access_token as string;
    for (const svc of [a, b]) for (const t of [a1, a2]) expect((await getAt(svc, t)).status).toBe(200);
    // Reuse of r1 at A: both instances refuse both access tokens from now on (their caches included).
    const reuse = await tokenAt(a, { grant_type: 'refresh_token', refresh_token: r1 });
    expect([reuse.status, reuse.body.error]).toEqual([400, 'invalid_grant']);
    for (const svc of [a, b]) for (const t of [a1, a2]) expect((await getAt(svc, t)).status).toBe(401);

    // Revocation at B of a family started at A.
    const next = await tokenAt(a, {
      grant_type: 'client_credentials',
      scope: 'read:projects offline_access',
    });
    expect((await getAt(b, next.body.access_token)).status).toBe(200);
    const revoked = await request(b.url)
      .post('/oauth/revoke')
      .set('Authorization', basicOf(b))
      .type('form')
      .send({ token: next.body.refresh_token });
    expect(revoked.status).toBe(200);
    for (const svc of [a, b]) expect((await getAt(svc, next.body.access_token)).status).toBe(401);
    expect(
      (await tokenAt(a, { grant_type: 'refresh_token', refresh_token: next.body.refresh_token })).status,
    ).toBe(400);
  });
});
