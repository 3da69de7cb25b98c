import { createHash } from 'node:crypto';
import { HttpError } from '@plumbline/errors';
import { errorHandler } from '@plumbline/errors/express';
import { describeAdapters, EXPRESS_VERSIONS, fromSupertest, type Outcome } from '@plumbline/test-utils';
import express5 from 'express';
import { decodeProtectedHeader } from 'jose';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { revocationEndpoint, tokenEndpoint } from './express.js';
import { createJwtVerifier, MemoryRevocationStore } from './index.js';
import {
  createIssuer,
  createRevocationEndpoint,
  createTokenEndpoint,
  generateRefreshToken,
  hashRefreshToken,
  MemoryRefreshTokenStore,
  type OAuthClient,
} from './issuer.js';

const ISSUER = 'https://api.test';
const issuer = await createIssuer({ issuer: ISSUER, audience: ISSUER });
const verifier = createJwtVerifier({
  issuers: [{ issuer: ISSUER, audience: ISSUER, jwks: issuer.jwks(), requireAccessTokenType: true }],
});
const clients: OAuthClient[] = [
  { clientId: 'cli', secret: 's3cret', scopes: ['read:items', 'write:items', 'offline_access'] },
  { clientId: 'weird id:é', secret: 'p@ss:wörd+', scopes: ['read:items'] },
  {
    clientId: 'cc-only',
    secret: 'x',
    scopes: ['read:items', 'offline_access'],
    grantTypes: ['client_credentials'],
  },
];
const FORM = 'application/x-www-form-urlencoded';
const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

describe('access tokens', () => {
  it('are RFC 9068 JWTs with every claim, verified by the resource-server core', async () => {
    const { accessToken, expiresIn, jti } = await issuer.signAccessToken({
      clientId: 'cli',
      scopes: ['read:items'],
    });
    expect(decodeProtectedHeader(accessToken)).toEqual({ alg: 'ES256', typ: 'at+jwt', kid: issuer.kid });
    const principal = await verifier.verify(accessToken);
    expect(principal).toMatchObject({ type: 'jwt', clientId: 'cli', subject: 'cli', scopes: ['read:items'] });
    const claims = principal.claims!;
    expect(Object.keys(claims).sort()).toEqual([
      'aud',
      'client_id',
      'exp',
      'iat',
      'iss',
      'jti',
      'scope',
      'sub',
    ]);
    expect([claims.iss, claims.aud, claims.jti, claims.exp! - claims.iat!]).toEqual([
      ISSUER,
      ISSUER,
      jti,
      900,
    ]);
    expect(expiresIn).toBe(900);
  });

  it('publishes only public key members', () => {
    const [key] = issuer.jwks().keys;
    expect(Object.keys(key!).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
  });

  it.each(['EdDSA', 'RS256'] as const)('signs with %s when configured', async (algorithm) => {
    const other = await createIssuer({ issuer: ISSUER, audience: 'aud', algorithm });
    const v = createJwtVerifier({ issuers: [{ issuer: ISSUER, audience: 'aud', jwks: other.jwks() }] });
    const { accessToken } = await other.signAccessToken({ clientId: 'x', scopes: [] });
    expect((await v.verify(accessToken)).clientId).toBe('x');
    expect(other.jwks().keys[0]).not.toHaveProperty('d');
  });
});

describe('refresh-token rotation (memory store)', () => {
  const grant = { clientId: 'cli', scopes: ['read:items', 'offline_access'] };

  it('every use returns a new token and invalidates the old', async () => {
    const t1 = await issuer.issueRefreshToken(grant);
    const { refreshToken: t2, grant: g } = await issuer.rotateRefreshToken(t1, 'cli');
    expect(g).toEqual(grant);
    expect(t2).not.toBe(t1);
    const { refreshToken: t3 } = await issuer.rotateRefreshToken(t2, 'cli');
    expect(t3).toMatch(/^plr_[A-Za-z0-9_-]{43}$/);
  });

  it('reuse of a rotated token revokes the family, newest token included', async () => {
    const t1 = await issuer.issueRefreshToken(grant);
    const { refreshToken: t2 } = await issuer.rotateRefreshToken(t1, 'cli');
    await expect(issuer.rotateRefreshToken(t1, 'cli')).rejects.toMatchObject({
      status: 400,
      code: 'invalid_grant',
    });
    await expect(issuer.rotateRefreshToken(t2, 'cli')).rejects.toMatchObject({ code: 'invalid_grant' });
  });

  it.each([
    ['another client', async (t: string) => issuer.rotateRefreshToken(t, 'someone-else')],
    ['an unknown token', async () => issuer.rotateRefreshToken(generateRefreshToken(), 'cli')],
    ['a malformed token', async () => issuer.rotateRefreshToken('plr_short', 'cli')],
  ])('%s → invalid_grant, and the family survives', async (_name, attempt) => {
    const t1 = await issuer.issueRefreshToken(grant);
    await expect(attempt(t1)).rejects.toMatchObject({ code: 'invalid_grant' });
    await expect(issuer.rotateRefreshToken(t1, 'cli')).resolves.toHaveProperty('refreshToken');
  });

  it('an expired token is refused', async () => {
    let clock = Date.now();
    const timed = await createIssuer({
      issuer: ISSUER,
      audience: ISSUER,
      refreshTokenTtlSec: 60,
      now: () => clock,
    });
    const t1 = await timed.issueRefreshToken(grant);
    clock += 61_000;
    await expect(timed.rotateRefreshToken(t1, 'cli')).rejects.toMatchObject({ code: 'invalid_grant' });
  });

  it('20 concurrent rotations of one token: exactly one wins', async () => {
    const t1 = await issuer.issueRefreshToken(grant);
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => issuer.rotateRefreshToken(t1, 'cli')),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  });

  it('stores hashes only', async () => {
    const store = new MemoryRefreshTokenStore();
    const own = await createIssuer({ issuer: ISSUER, audience: ISSUER, refreshStore: store });
    const token = await own.issueRefreshToken(grant);
    expect(await store.find(token)).toBeUndefined();
    expect(await store.find(hashRefreshToken(token))).toEqual(grant);
  });
});

interface Row {
  readonly name: string;
  readonly body: string;
  readonly authorization?: string | readonly string[];
  readonly contentType?: string;
  readonly status: number;
  readonly error?: string;
  readonly scope?: string;
  readonly refresh?: boolean;
  readonly wwwAuthenticate?: string;
}

const rows: Row[] = [
  {
    name: 'client_credentials with Basic',
    authorization: basic('cli', 's3cret'),
    body: 'grant_type=client_credentials',
    status: 200,
    scope: 'read:items write:items',
    refresh: false,
  },
  {
    name: 'client_credentials with body credentials',
    body: 'grant_type=client_credentials&client_id=cli&client_secret=s3cret',
    status: 200,
    scope: 'read:items write:items',
    refresh: false,
  },
  {
    name: 'form-encoded Basic credentials (RFC 6749 2.3.1)',
    authorization: basic('weird id:é', 'p@ss:wörd+'),
    body: 'grant_type=client_credentials',
    status: 200,
    scope: 'read:items',
    refresh: false,
  },
  {
    name: 'narrower scope',
    authorization: basic('cli', 's3cret'),
    body: 'grant_type=client_credentials&scope=read:items',
    status: 200,
    scope: 'read:items',
    refresh: false,
  },
  {
    name: 'offline_access → refresh token',
    authorization: basic('cli', 's3cret'),
    body: 'grant_type=client_credentials&scope=read:items+offline_access',
    status: 200,
    scope: 'read:items offline_access',
    refresh: true,
  },
  {
    name: 'content type with charset',
    contentType: `${FORM}; charset=utf-8`,
    authorization: basic('cli', 's3cret'),
    body: 'grant_type=client_credentials',
    status: 200,
    scope: 'read:items write:items',
    refresh: false,
  },
  {
    name: 'scope beyond the client',
    authorization: basic('cli', 's3cret'),
    body: 'grant_type=client_credentials&scope=admin',
    status: 400,
    error: 'invalid_scope',
  },
  {
    name: 'scope with a case trick',
    authorization: basic('cli', 's3cret'),
    body: 'grant_type=client_credentials&scope=READ:items',
    status: 400,
    error: 'invalid_scope',
  },
  {
    name: 'malformed scope',
    authorization: basic('cli', 's3cret'),
    body: 'grant_type=client_credentials&scope=a%22b',
    status: 400,
    error: 'invalid_scope',
  },
  // Issue 22 item 7: malformed percent-encoding is malformed, not "exceeds what the client may request".
  {
    name: 'scope with a broken percent escape (%zz)',
    authorization: basic('cli', 's3cret'),
    body: 'grant_type=client_credentials&scope=%zz',
    status: 400,
    error: 'invalid_request',
  },
  {
    name: 'scope ending in a lone %',
    authorization: basic('cli', 's3cret'),
    body: 'grant_type=client_credentials&scope=read:items%',
    status: 400,
    error: 'invalid_request',
  },
  {
    name: 'client_secret with a broken escape',
    body: 'grant_type=client_credentials&client_id=cli&client_secret=s3cr%e',
    status: 400,
    error: 'invalid_request',
  },
  {
    name: 'a well-formed escape still decodes (read%3Aitems)',
    authorization: basic('cli', 's3cret'),
    body: 'grant_type=client_credentials&scope=read%3Aitems',
    status: 200,
    scope: 'read:items',
    refresh: false,
  },
  // Issue 22 item 7: two Authorization lines are refused whichever comes first.
  {
    name: 'two Authorization lines, good then bad',
    authorization: [basic('cli', 's3cret'), basic('cli', 'nope')],
    body: 'grant_type=client_credentials',
    status: 400,
    error: 'invalid_request',
  },
  {
    name: 'two Authorization lines, bad then good',
    authorization: [basic('cli', 'nope'), basic('cli', 's3cret')],
    body: 'grant_type=client_credentials',
    status: 400,
    error: 'invalid_request',
  },
  {
    name: 'two Authorization lines joined with a comma (fetch Headers, proxies)',
    authorization: `${basic('cli', 's3cret')}, ${basic('cli', 'nope')}`,
    body: 'grant_type=client_credentials',
    status: 400,
    error: 'invalid_request',
  },
  {
    name: 'two identical Authorization lines',
    authorization: [basic('cli', 's3cret'), basic('cli', 's3cret')],
    body: 'grant_type=client_credentials',
    status: 400,
    error: 'invalid_request',
  },
  {
    name: 'wrong secret (Basic)',
    authorization: basic('cli', 'nope'),
    body: 'grant_type=client_credentials',
    status: 401,
    error: 'invalid_client',
    wwwAuthenticate: 'Basic realm="plumbline"',
  },
  {
    name: 'wrong secret (body)',
    body: 'grant_type=client_credentials&client_id=cli&client_secret=nope',
    status: 401,
    error: 'invalid_client',
    wwwAuthenticate: 'Basic realm="plumbline"',
  },
  {
    name: 'unknown client',
    authorization: basic('ghost', 's3cret'),
    body: 'grant_type=client_credentials',
    status: 401,
    error: 'invalid_client',
    wwwAuthenticate: 'Basic realm="plumbline"',
  },
  {
    name: 'no client authentication',
    body: 'grant_type=client_credentials',
    status: 401,
    error: 'invalid_client',
    wwwAuthenticate: 'Basic realm="plumbline"',
  },
  {
    name: 'client_id without secret',
    body: 'grant_type=client_credentials&client_id=cli',
    status: 401,
    error: 'invalid_client',
    wwwAuthenticate: 'Basic realm="plumbline"',
  },
  {
    name: 'Basic without a colon',
    authorization: `Basic ${Buffer.from('cli').toString('base64')}`,
    body: 'grant_type=client_credentials',
    status: 401,
    error: 'invalid_client',
    wwwAuthenticate: 'Basic realm="plumbline"',
  },
  {
    name: 'Basic and a body secret',
    authorization: basic('cli', 's3cret'),
    body: 'grant_type=client_credentials&client_id=cli&client_secret=s3cret',
    status: 400,
    error: 'invalid_request',
  },
  {
    name: 'Bearer instead of client credentials',
    authorization: 'Bearer abc',
    body: 'grant_type=client_credentials',
    status: 400,
    error: 'invalid_request',
  },
  {
    name: 'missing grant_type',
    authorization: basic('cli', 's3cret'),
    body: 'scope=read:items',
    status: 400,
    error: 'invalid_request',
  },
  {
    name: 'repeated grant_type',
    authorization: basic('cli', 's3cret'),
    body: 'grant_type=client_credentials&grant_type=client_credentials',
    status: 400,
    error: 'invalid_request',
  },
  {
    name: 'password grant',
    authorization: basic('cli', 's3cret'),
    body: 'grant_type=password&username=a&password=b',
    status: 400,
    error: 'unsupported_grant_type',
  },
  {
    name: 'JSON body',
    contentType: 'application/json',
    authorization: basic('cli', 's3cret'),
    body: '{"grant_type":"client_credentials"}',
    status: 400,
    error: 'invalid_request',
  },
  {
    name: 'refresh grant for a client without it',
    authorization: basic('cc-only', 'x'),
    body: `grant_type=refresh_token&refresh_token=${generateRefreshToken()}`,
    status: 400,
    error: 'unauthorized_client',
  },
  {
    name: 'refresh without refresh_token',
    authorization: basic('cli', 's3cret'),
    body: 'grant_type=refresh_token',
    status: 400,
    error: 'invalid_request',
  },
  {
    name: 'unknown refresh token',
    authorization: basic('cli', 's3cret'),
    body: `grant_type=refresh_token&refresh_token=${generateRefreshToken()}`,
    status: 400,
    error: 'invalid_grant',
  },
];

const options = { issuer, clients };
const endpoint = createTokenEndpoint(options);
const adapters: Record<string, (row: Row) => Promise<Outcome>> = {
  core: async (row) => {
    const r = await endpoint({
      authorization: row.authorization,
      contentType: row.contentType ?? FORM,
      body: row.body,
    });
    const headers = Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k.toLowerCase(), v]));
    return { status: r.status, headers, body: r.body };
  },
};
for (const [name, express] of EXPRESS_VERSIONS) {
  const app = express();
  app.post('/oauth/token', tokenEndpoint(options));
  app.use(errorHandler({ onError: () => {} }));
  adapters[name] = async (row) => {
    let req = request(app)
      .post('/oauth/token')
      .set('Content-Type', row.contentType ?? FORM);
    if (row.authorization) req = req.set('Authorization', row.authorization as string);
    return fromSupertest(await req.send(row.body));
  };
}

describeAdapters('token endpoint', rows, adapters, async (outcome, row) => {
  expect(outcome.status).toBe(row.status);
  expect(outcome.headers['cache-control']).toBe('no-store');
  expect(outcome.headers['www-authenticate']).toBe(row.wwwAuthenticate);
  // RFC 6749's 400 invalid_request for a body that is not a form, naming the type that is (d-auth).
  expect(outcome.headers['accept-post']).toBe(
    row.contentType !== undefined && !row.contentType.startsWith(FORM) ? FORM : undefined,
  );
  const body = outcome.body as Record<string, unknown>;
  if (row.error !== undefined) {
    expect(Object.keys(body).sort()).toEqual(['error', 'error_description']);
    expect(body['error']).toBe(row.error);
    return;
  }
  expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 900, scope: row.scope });
  expect('refresh_token' in body).toBe(row.refresh);
  const principal = await verifier.verify(body['access_token'] as string);
  expect(principal.scopes).toEqual(row.scope!.split(' ').filter((s) => s !== 'offline_access'));
});

describe('token endpoint with a client lookup function and stored secret hashes', () => {
  const lookup = createTokenEndpoint({
    issuer,
    clients: async (clientId) =>
      clientId === 'db-client'
        ? {
            clientId,
            secretHash: createHash('sha256').update('from-db').digest('hex'),
            scopes: ['read:items'],
          }
        : undefined,
  });
  it.each([
    ['right secret', 'db-client', 'from-db', 200],
    ['wrong secret', 'db-client', 'nope', 401],
    ['unknown client', 'nobody', 'from-db', 401],
  ])('%s → %i', async (_name, id, secret, status) => {
    const r = await lookup({
      contentType: FORM,
      authorization: basic(id, secret),
      body: 'grant_type=client_credentials',
    });
    expect(r.status).toBe(status);
  });
});

describe('token endpoint refresh flow (Express)', () => {
  const app = express5();
  // With a body parser in front: the endpoint reads the parsed object.
  app.use(express5.urlencoded({ extended: false }));
  app.post('/oauth/token', tokenEndpoint(options));
  const post = (body: string) =>
    request(app).post('/oauth/token').set('Authorization', basic('cli', 's3cret')).type('form').send(body);

  it('rotates, then treats reuse as theft: family revoked, newest token rejected', async () => {
    const first = await post('grant_type=client_credentials&scope=read:items%20offline_access');
    const r1 = first.body.refresh_token as string;
    const second = await post(`grant_type=refresh_token&refresh_token=${r1}`);
    expect(second.status).toBe(200);
    expect(second.body.scope).toBe('read:items offline_access');
    const r2 = second.body.refresh_token as string;
    expect(r2).not.toBe(r1);
    const reuse = await post(`grant_type=refresh_token&refresh_token=${r1}`);
    expect([reuse.status, reuse.body.error, reuse.headers['cache-control']]).toEqual([
      400,
      'invalid_grant',
      'no-store',
    ]);
    const newest = await post(`grant_type=refresh_token&refresh_token=${r2}`);
    expect([newest.status, newest.body.error]).toEqual([400, 'invalid_grant']);
  });

  it('a narrower scope on refresh; a wider one is refused without burning the token', async () => {
    const first = await post('grant_type=client_credentials&scope=read:items%20offline_access');
    const r1 = first.body.refresh_token as string;
    const wider = await post(`grant_type=refresh_token&refresh_token=${r1}&scope=write:items`);
    expect([wider.status, wider.body.error]).toEqual([400, 'invalid_scope']);
    const narrower = await post(`grant_type=refresh_token&refresh_token=${r1}&scope=read:items`);
    expect([narrower.status, narrower.body.scope]).toEqual([200, 'read:items']);
  });

  it('reads the body itself without a parser, and refuses one over 16 KiB with 413', async () => {
    const bare = express5();
    bare.post('/oauth/token', tokenEndpoint(options));
    bare.use(errorHandler({ onError: () => {} }));
    const big = await request(bare)
      .post('/oauth/token')
      .type('form')
      .send(`grant_type=client_credentials&client_id=cli&client_secret=s3cret&pad=${'a'.repeat(17_000)}`);
    expect([big.status, big.body.error_code, big.headers['cache-control']]).toEqual([
      413,
      'payload_too_large',
      'no-store',
    ]);
  });

  it('a repeated field parsed by express.urlencoded is refused', async () => {
    const res = await post('grant_type=client_credentials&scope=a&scope=b');
    expect([res.status, res.body.error]).toEqual([400, 'invalid_request']);
  });
});

describe('revocation endpoint (RFC 7009)', () => {
  const revocation = new MemoryRevocationStore();
  const guarded = createJwtVerifier({
    issuers: [{ issuer: ISSUER, audience: ISSUER, jwks: issuer.jwks(), requireAccessTokenType: true }],
    revocation,
  });
  const revoke = createRevocationEndpoint({ clients, issuer, verifier: guarded, revocation });
  const post = (body: string, authorization?: string) =>
    revoke({ contentType: FORM, body, ...(authorization ? { authorization } : {}) });
  const tokenOf = async (clientId: string) =>
    (await issuer.signAccessToken({ clientId, scopes: ['read:items'] })).accessToken;

  it('revokes the owner’s token; the verifier refuses it from then on', async () => {
    const token = await tokenOf('cli');
    await expect(guarded.verify(token)).resolves.toMatchObject({ clientId: 'cli' });
    expect(await post(`token=${token}`, basic('cli', 's3cret'))).toEqual({
      status: 200,
      headers: { 'Cache-Control': 'no-store', Pragma: 'no-cache' },
      body: {},
    });
    await expect(guarded.verify(token)).rejects.toMatchObject({ status: 401, code: 'invalid_token' });
  });

  it('answers 200 without revoking another client’s token or a token that is not ours', async () => {
    const token = await tokenOf('cc-only');
    expect((await post(`token=${token}&client_id=cli&client_secret=s3cret`)).status).toBe(200);
    await expect(guarded.verify(token)).resolves.toMatchObject({ clientId: 'cc-only' });
    expect((await post('token=not-a-token', basic('cli', 's3cret'))).status).toBe(200);
  });

  it.each([
    [
      'a wrong secret over Basic',
      'token=x',
      basic('cli', 'nope'),
      401,
      'invalid_client',
      'Basic realm="plumbline"',
    ],
    [
      'a wrong secret in the body',
      'token=x&client_id=cli&client_secret=nope',
      undefined,
      401,
      'invalid_client',
      'Basic realm="plumbline"',
    ],
    ['no client authentication', 'token=x', undefined, 401, 'invalid_client', 'Basic realm="plumbline"'],
    ['no token', '', basic('cli', 's3cret'), 400, 'invalid_request', undefined],
    [
      'two authentication methods',
      'token=x&client_secret=s3cret',
      basic('cli', 's3cret'),
      400,
      'invalid_request',
      undefined,
    ],
  ])('%s → %i %s', async (_name, body, authorization, status, error, challenge) => {
    const response = await post(body, authorization);
    expect([response.status, response.body['error'], response.headers['WWW-Authenticate']]).toEqual([
      status,
      error,
      challenge,
    ]);
  });

  it('refuses a body that is not form-encoded', async () => {
    const response = await revoke({
      contentType: 'application/json',
      body: '{"token":"x"}',
      authorization: basic('cli', 's3cret'),
    });
    expect(response).toEqual({
      status: 400,
      headers: { 'Cache-Control': 'no-store', Pragma: 'no-cache', 'Accept-Post': FORM },
      body: { error: 'invalid_request', error_description: `the body must be ${FORM}` },
    });
  });

  it('fails closed with 503 when the revocation list is unreachable', async () => {
    const down = {
      isRevoked: async () => false,
      revoke: async () => Promise.reject(new HttpError('service_unavailable')),
    };
    const failing = createRevocationEndpoint({ clients, issuer, verifier, revocation: down });
    const response = await failing({
      contentType: FORM,
      body: `token=${await tokenOf('cli')}`,
      authorization: basic('cli', 's3cret'),
    });
    expect([response.status, response.body['error'], response.headers['Retry-After']]).toEqual([
      503,
      'temporarily_unavailable',
      '1',
    ]);
  });

  it.each(EXPRESS_VERSIONS)('works through the Express adapter on %s', async (_name, express) => {
    const app = express();
    app.post('/oauth/revoke', revocationEndpoint({ clients, issuer, verifier: guarded, revocation }));
    const token = await tokenOf('cli');
    const res = await request(app)
      .post('/oauth/revoke')
      .set('Authorization', basic('cli', 's3cret'))
      .type('form')
      .send(`token=${token}`);
    expect([res.status, res.headers['cache-control'], res.body]).toEqual([200, 'no-store', {}]);
    await expect(guarded.verify(token)).rejects.toMatchObject({ code: 'invalid_token' });
  });
});
