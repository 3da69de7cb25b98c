import { errorHandler } from '@plumbline/errors/express';
import { coreOutcome, fromSupertest, REDIS_URL, redisAvailable, uniquePrefix } from '@plumbline/test-utils';
import express from 'express';
import { Redis } from 'ioredis';
import request from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { AUD, ISS, JWKS, nowSec, sign } from '../test/fixtures.js';
import { authenticate, getPrincipal, tokenEndpoint } from './express.js';
import { createJwtVerifier, RedisRevocationStore } from './index.js';
import { createIssuer, RedisRefreshTokenStore } from './issuer.js';

const redisUp = await redisAvailable();

// A client that can never connect: port 1 on loopback, no retries, no offline queue.
function deadClient(): Redis {
  const client = new Redis('redis://127.0.0.1:1', {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  return client;
}

describe('Redis down: fail closed with 503', () => {
  const dead = deadClient();
  afterAll(() => dead.disconnect());
  const verifier = createJwtVerifier({
    issuers: [{ issuer: ISS, audience: AUD, jwks: JWKS }],
    revocation: new RedisRevocationStore({ client: dead, timeoutMs: 500 }),
  });

  it('core: a token with a jti → 503 service_unavailable', async () => {
    const outcome = await coreOutcome(async () => verifier.verify(await sign()));
    expect([outcome.status, (outcome.body as { error_code: string }).error_code]).toEqual([
      503,
      'service_unavailable',
    ]);
  });

  it('Express: 503 with Retry-After, no principal', async () => {
    const app = express();
    app.use(authenticate({ jwt: verifier }));
    app.get('/items', (req, res) => {
      res.json(getPrincipal(req));
    });
    app.use(errorHandler({ onError: () => {} }));
    const outcome = fromSupertest(
      await request(app)
        .get('/items')
        .set('Authorization', `Bearer ${await sign()}`),
    );
    expect([
      outcome.status,
      (outcome.body as { error_code: string }).error_code,
      outcome.headers['retry-after'],
      outcome.headers['www-authenticate'],
    ]).toEqual([503, 'service_unavailable', '1', undefined]);
  });

  it('a timeout counts as down', async () => {
    // A client that queues commands forever (offline queue on, never connects) exercises the timeout.
    const stuck = new Redis('redis://127.0.0.1:1', { lazyConnect: true, retryStrategy: () => 60_000 });
    stuck.on('error', () => {});
    const store = new RedisRevocationStore({ client: stuck, timeoutMs: 100 });
    await expect(store.isRevoked('x')).rejects.toMatchObject({ status: 503, code: 'service_unavailable' });
    stuck.disconnect();
  });

  it('token endpoint: refresh store down → 503 temporarily_unavailable, no-store', async () => {
    const issuer = await createIssuer({
      issuer: ISS,
      audience: AUD,
      refreshStore: new RedisRefreshTokenStore({ client: dead, timeoutMs: 500 }),
    });
    const app = express();
    app.post(
      '/token',
      tokenEndpoint({ issuer, clients: [{ clientId: 'c', secret: 's', scopes: ['offline_access'] }] }),
    );
    const res = await request(app)
      .post('/token')
      .type('form')
      .send('grant_type=client_credentials&client_id=c&client_secret=s&scope=offline_access');
    expect([res.status, res.body.error, res.headers['cache-control'], res.headers['retry-after']]).toEqual([
      503,
      'temporarily_unavailable',
      'no-store',
      '1',
    ]);
  });
});

describe.skipIf(!redisUp)('with a real Redis', () => {
  const client = new Redis(REDIS_URL);
  const prefix = `${uniquePrefix('auth')}:`;
  afterAll(async () => {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      if (keys.length > 0) await client.del(...keys);
      cursor = next;
    } while (cursor !== '0');
    await client.quit();
  });

  it('revocation list: revoked jti rejected, entry expires with the token', async () => {
    const revocation = new RedisRevocationStore({ client, prefix: `${prefix}revoked:` });
    const exp = nowSec() + 120;
    await revocation.revoke('r-1', exp);
    await revocation.revoke('already-expired', nowSec() - 5);
    expect(await revocation.isRevoked('r-1')).toBe(true);
    expect(await revocation.isRevoked('r-2')).toBe(false);
    expect(await revocation.isRevoked('already-expired')).toBe(false);
    expect(await client.expiretime(`${prefix}revoked:r-1`)).toBe(exp);
    const verifier = createJwtVerifier({ issuers: [{ issuer: ISS, audience: AUD, jwks: JWKS }], revocation });
    const outcome = await coreOutcome(async () => verifier.verify(await sign({ jti: 'r-1' })));
    expect([outcome.status, outcome.headers['www-authenticate']]).toEqual([
      401,
      'Bearer realm="plumbline", error="invalid_token", error_description="The access token was revoked"',
    ]);
  });

  it('refresh families: rotation, reuse revokes the family (newest too), hashes only', async () => {
    const store = new RedisRefreshTokenStore({ client, prefix: `${prefix}rt1:` });
    const issuer = await createIssuer({ issuer: ISS, audience: AUD, refreshStore: store });
    const grant = { clientId: 'cli', subject: 'cli', scopes: ['read:items', 'offline_access'] };
    const t1 = await issuer.issueRefreshToken(grant);
    expect(await issuer.peekRefreshToken(t1)).toEqual(grant);
    const { refreshToken: t2, grant: g } = await issuer.rotateRefreshToken(t1, 'cli');
    expect(g).toEqual(grant);
    expect(await issuer.peekRefreshToken(t1)).toBeUndefined();
    expect(await issuer.peekRefreshToken(t2)).toEqual(grant);
    await expect(issuer.rotateRefreshToken(t2, 'other')).rejects.toMatchObject({ code: 'invalid_grant' });
    await expect(issuer.rotateRefreshToken(t1, 'cli')).rejects.toMatchObject({ code: 'invalid_grant' });
    await expect(issuer.rotateRefreshToken(t2, 'cli')).rejects.toMatchObject({ code: 'invalid_grant' });
    const keys = await client.keys(`${prefix}rt1:*`);
    expect(keys.some((k) => k.includes(t1) || k.includes(t2))).toBe(false);
    const values = await Promise.all(keys.filter((k) => k.includes(':fam:')).map((k) => client.hgetall(k)));
    expect(JSON.stringify(values)).not.toContain(t2);
    expect(values[0]?.['revoked']).toBe('1');
  });

  it('20 concurrent refreshes of one token through the endpoint: exactly one 200', async () => {
    const issuer = await createIssuer({
      issuer: ISS,
      audience: AUD,
      refreshStore: new RedisRefreshTokenStore({ client, prefix: `${prefix}rt2:` }),
    });
    const app = express();
    app.post(
      '/token',
      tokenEndpoint({
        issuer,
        clients: [{ clientId: 'c', secret: 's', scopes: ['read:items', 'offline_access'] }],
      }),
    );
    const post = (body: string) => request(app).post('/token').auth('c', 's').type('form').send(body);
    const first = await post('grant_type=client_credentials&scope=read:items+offline_access');
    const token = first.body.refresh_token as string;
    const results = await Promise.all(
      Array.from({ length: 20 }, () => post(`grant_type=refresh_token&refresh_token=${token}`)),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, ...Array(19).fill(400)]);
    expect(new Set(results.filter((r) => r.status === 400).map((r) => r.body.error))).toEqual(
      new Set(['invalid_grant']),
    );
    // The losers presented an already rotated token: that is reuse, so the winner's token is dead too.
    const winner = results.find((r) => r.status === 200)!.body.refresh_token as string;
    const after = await post(`grant_type=refresh_token&refresh_token=${winner}`);
    expect([after.status, after.body.error]).toEqual([400, 'invalid_grant']);
  });

  it('20 concurrent rotations across two clients (two "instances"): exactly one wins', async () => {
    const other = new Redis(REDIS_URL);
    try {
      const a = new RedisRefreshTokenStore({ client, prefix: `${prefix}rt3:` });
      const b = new RedisRefreshTokenStore({ client: other, prefix: `${prefix}rt3:` });
      const issuerA = await createIssuer({ issuer: ISS, audience: AUD, refreshStore: a });
      const issuerB = await createIssuer({ issuer: ISS, audience: AUD, refreshStore: b });
      const token = await issuerA.issueRefreshToken({ clientId: 'c', scopes: [] });
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) => (i % 2 ? issuerA : issuerB).rotateRefreshToken(token, 'c')),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    } finally {
      await other.quit();
    }
  });
});
