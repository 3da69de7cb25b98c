import { createSecretKey } from 'node:crypto';
import { errorHandler } from '@plumbline/errors/express';
import { coreOutcome } from '@plumbline/test-utils';
import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { AUD, eddsa, es256, ISS, JWKS, RSA_PEM, rs256, sign } from '../test/fixtures.js';
import { authenticate, getPrincipal, requireScopes } from './express.js';
import { createAuthenticator, generateApiKey, MemoryApiKeyStore } from './index.js';

const store = new MemoryApiKeyStore();
const key = generateApiKey();
store.add(key, { clientId: 'reader', access: 'read' });

const summarize = async (run: () => Promise<unknown>) => {
  const o = await coreOutcome(run);
  return [
    o.status,
    (o.body as { error_code?: string } | undefined)?.error_code,
    o.headers['www-authenticate'],
  ];
};

describe('authenticator modes', () => {
  it('refuses a configuration with no mechanism', () => {
    expect(() => createAuthenticator({})).toThrow(TypeError);
  });

  it('API keys only: no credentials → 401 with a Bearer challenge; a bearer token → invalid_token', async () => {
    const auth = createAuthenticator({ apiKeys: { store } });
    expect(await summarize(() => auth.authenticate({ rawHeaders: [] }))).toEqual([
      401,
      'unauthorized',
      'Bearer realm="plumbline"',
    ]);
    expect(
      await summarize(async () =>
        auth.authenticate({ rawHeaders: ['Authorization', `Bearer ${await sign()}`] }),
      ),
    ).toEqual([
      401,
      'invalid_token',
      'Bearer realm="plumbline", error="invalid_token", error_description="Bearer tokens are not accepted here"',
    ]);
  });

  it('JWT only: an X-API-Key header is not a credential here', async () => {
    const auth = createAuthenticator({ jwt: { issuers: [{ issuer: ISS, audience: AUD, jwks: JWKS }] } });
    expect(await summarize(() => auth.authenticate({ rawHeaders: ['X-API-Key', key] }))).toEqual([
      401,
      'unauthorized',
      'Bearer realm="plumbline"',
    ]);
  });

  it('optional: anonymous passes, bad credentials still fail, query credentials still refused', async () => {
    const auth = createAuthenticator({ apiKeys: { store }, optional: true, realm: 'api' });
    expect(await auth.authenticate({ rawHeaders: ['Authorization', 'Basic eDp5'] })).toBeUndefined();
    expect(await summarize(() => auth.authenticate({ rawHeaders: ['X-API-Key', 'plk_wrong'] }))).toEqual([
      401,
      'unauthorized',
      'Bearer realm="api"',
    ]);
    expect((await summarize(() => auth.authenticate({ rawHeaders: [], query: 'access_token=x' })))[0]).toBe(
      400,
    );
  });

  it('custom query names and API key header', async () => {
    const auth = createAuthenticator({ apiKeys: { store }, queryParameters: ['key'], apiKeyHeader: 'X-Key' });
    expect(
      await auth.authenticate({ rawHeaders: ['x-key', key], query: 'access_token=ignored' }),
    ).toMatchObject({ clientId: 'reader' });
    expect((await summarize(() => auth.authenticate({ rawHeaders: [], query: 'KEY=1' })))[1]).toBe(
      'credentials_in_query',
    );
  });

  it('Express: optional leaves getPrincipal undefined; getPrincipal is undefined without authenticate', async () => {
    const app = express();
    app.get('/bare', (req, res) => {
      res.json({ principal: getPrincipal(req) ?? null });
    });
    app.use(authenticate({ apiKeys: { store }, optional: true }));
    app.get('/opt', (req, res) => {
      res.json({ principal: getPrincipal(req) ?? null });
    });
    expect((await request(app).get('/bare').set('X-API-Key', key)).body).toEqual({ principal: null });
    expect((await request(app).get('/opt')).body).toEqual({ principal: null });
    expect((await request(app).get('/opt').set('X-API-Key', key)).body).toEqual({
      principal: { type: 'api_key', clientId: 'reader', scopes: ['read:*'] },
    });
  });
});

describe('requireScopes modes (Express)', () => {
  const app = express();
  app.use(authenticate({ apiKeys: { store } }));
  app.get('/any', requireScopes('admin', 'read:items', { mode: 'any' }), (_req, res) => {
    res.json({ ok: true });
  });
  app.get('/all', requireScopes('admin', 'read:items'), (_req, res) => {
    res.json({ ok: true });
  });
  app.use(errorHandler({ onError: () => {} }));

  it.each([
    ['/any', 200, undefined],
    // An API key is not a bearer token: its 403 carries no insufficient_scope challenge (issue 22 item 9).
    ['/all', 403, undefined],
  ])('%s → %i', async (path, status, challenge) => {
    const res = await request(app).get(path).set('X-API-Key', key);
    expect([res.status, res.headers['www-authenticate']]).toEqual([status, challenge]);
  });
});

describe('verifier configuration errors surface at start-up', () => {
  it.each([
    ['no issuers', { issuers: [] }],
    [
      'two key sources',
      { issuers: [{ issuer: ISS, audience: AUD, jwks: JWKS, jwksUri: 'http://127.0.0.1:1/' }] },
    ],
    [
      'plain-HTTP remote key set',
      { issuers: [{ issuer: ISS, audience: AUD, jwksUri: 'http://keys.example.com/jwks.json' }] },
    ],
    [
      'non-HTTP remote key set',
      { issuers: [{ issuer: ISS, audience: AUD, jwksUri: 'file:///etc/jwks.json' }] },
    ],
    ['no key source', { issuers: [{ issuer: ISS, audience: AUD }] }],
    ['empty allow-list', { issuers: [{ issuer: ISS, audience: AUD, jwks: JWKS, algorithms: [] }] }],
    ['alg none', { issuers: [{ issuer: ISS, audience: AUD, jwks: JWKS, algorithms: ['none'] }] }],
    [
      'HS256 with a key set',
      { issuers: [{ issuer: ISS, audience: AUD, jwks: JWKS, algorithms: ['HS256'] }] },
    ],
    [
      'RS256 with secret bytes',
      { issuers: [{ issuer: ISS, audience: AUD, key: new Uint8Array(32), algorithms: ['RS256'] }] },
    ],
    [
      'static RSA key with the default allow-list',
      { issuers: [{ issuer: ISS, audience: AUD, key: RSA_PEM }] },
    ],
    [
      'static RSA key with ES256',
      { issuers: [{ issuer: ISS, audience: AUD, key: RSA_PEM, algorithms: ['ES256'] }] },
    ],
    [
      'static P-256 key with ES384',
      { issuers: [{ issuer: ISS, audience: AUD, key: es256.publicJwk, algorithms: ['ES384'] }] },
    ],
    [
      'static Ed25519 key with ES256',
      { issuers: [{ issuer: ISS, audience: AUD, key: eddsa.publicKey, algorithms: ['ES256'] }] },
    ],
    [
      'same issuer twice',
      {
        issuers: [
          { issuer: ISS, audience: AUD, jwks: JWKS },
          { issuer: ISS, audience: AUD, jwks: JWKS },
        ],
      },
    ],
  ])('%s', (_name, options) => {
    expect(() => createAuthenticator({ jwt: options as never })).toThrow(TypeError);
  });

  it.each([
    ['public JWK', () => ({ key: es256.publicJwk, algorithms: ['ES256'] }), es256],
    [
      'private JWK (private members dropped)',
      () => ({ key: es256.privateKey.export({ format: 'jwk' }), algorithms: ['ES256'] }),
      es256,
    ],
    ['KeyObject', () => ({ key: eddsa.publicKey, algorithms: ['EdDSA'] }), eddsa],
    ['PEM with PS256 and RS256', () => ({ key: RSA_PEM, algorithms: ['RS256', 'PS256'] }), rs256],
  ] as const)('static key as %s verifies', async (_name, source, signer) => {
    const auth = createAuthenticator({
      jwt: { issuers: [{ issuer: ISS, audience: AUD, ...source() } as never] },
    });
    expect(
      await auth.authenticate({ rawHeaders: ['Authorization', `Bearer ${await sign({}, signer)}`] }),
    ).toMatchObject({
      clientId: 'web',
    });
  });

  // RFC 7518 3.2: an HMAC key at least as long as the hash output, refused at configuration (issue 22 item 6).
  const hmac = (key: unknown, algorithms: string[]) => ({
    issuers: [{ issuer: ISS, audience: AUD, key, algorithms }],
  });
  const weakSecrets = [
    [
      'HS256 with an empty secret',
      hmac(new Uint8Array(0), ['HS256']),
      /HS256 secret is 0 bytes; RFC 7518 3\.2 requires at least 32/,
    ],
    [
      'HS256 with a 1-byte secret',
      hmac(new Uint8Array(1), ['HS256']),
      /HS256 secret is 1 bytes; .* at least 32 \(the hash output size\)/,
    ],
    ['HS256 with a 31-byte secret', hmac(new Uint8Array(31), ['HS256']), /HS256 secret is 31 bytes/],
    [
      'HS256 with a 16-byte KeyObject',
      hmac(createSecretKey(new Uint8Array(16)), ['HS256']),
      /HS256 secret is 16 bytes/,
    ],
    [
      'HS384 with a 32-byte secret',
      hmac(new Uint8Array(32), ['HS384']),
      /HS384 secret is 32 bytes; .* at least 48/,
    ],
    [
      'HS512 among HS256 with a 48-byte secret',
      hmac(new Uint8Array(48), ['HS256', 'HS512']),
      /HS512 secret is 48 bytes; .* at least 64/,
    ],
  ] as const;
  it.each(weakSecrets)(
    '%s: core and Express adapter throw a TypeError naming the rule',
    (_name, options, message) => {
      expect(() => createAuthenticator({ jwt: options as never })).toThrow(TypeError);
      expect(() => createAuthenticator({ jwt: options as never })).toThrow(message);
      expect(() => authenticate({ jwt: options as never })).toThrow(message);
    },
  );
  it.each([
    ['HS256 with 32 bytes', hmac(new Uint8Array(32), ['HS256'])],
    ['HS512 with 64 bytes', hmac(new Uint8Array(64), ['HS384', 'HS512'])],
    ['HS256 with a 32-byte KeyObject', hmac(createSecretKey(new Uint8Array(32)), ['HS256'])],
  ])('%s is long enough', (_name, options) => {
    expect(() => createAuthenticator({ jwt: options as never })).not.toThrow();
  });

  it('HS256 with secret bytes works (and only HS algorithms)', async () => {
    const secret = new TextEncoder().encode('a'.repeat(32));
    const { SignJWT } = await import('jose');
    const token = await new SignJWT({ client_id: 'c' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(ISS)
      .setAudience(AUD)
      .setExpirationTime('5m')
      .sign(secret);
    const auth = createAuthenticator({
      jwt: { issuers: [{ issuer: ISS, audience: AUD, key: secret, algorithms: ['HS256'] }] },
    });
    expect(await auth.authenticate({ rawHeaders: ['Authorization', `Bearer ${token}`] })).toMatchObject({
      clientId: 'c',
    });
  });
});
