import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorHandler } from '@plumbline/errors/express';
import { coreOutcome, EXPRESS_VERSIONS, fromSupertest } from '@plumbline/test-utils';
import { exportJWK } from 'jose';
import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AUD, ISS, nowSec, sign, type TestKey } from '../test/fixtures.js';
import { authenticate } from './express.js';
import {
  createJwtVerifier,
  isKeySetUnavailable,
  type JwtVerifier,
  type KeySetErrorEvent,
  MemoryRevocationStore,
  type RemoteJwksOptions,
} from './index.js';

async function ecKey(kid: string): Promise<TestKey> {
  const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const publicJwk = { ...(await exportJWK(pair.publicKey)), kid, alg: 'ES256', use: 'sig' };
  return { ...pair, publicJwk, alg: 'ES256', kid };
}

const first = await ecKey('k1');
const second = await ecKey('k2');

// A loopback JWKS server whose key set and behaviour the tests change, counting every fetch.
let served: unknown = { keys: [first.publicJwk] };
let mode: 'ok' | 'error' | 'hang' = 'ok';
let fetches = 0;
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url !== '/.well-known/jwks.json') {
      res.writeHead(404).end();
      return;
    }
    fetches += 1;
    if (mode === 'hang') return;
    if (mode === 'error') {
      res.writeHead(500).end('{}');
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/jwk-set+json' }).end(JSON.stringify(served));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  served = { keys: [first.publicJwk] };
  mode = 'ok';
  fetches = 0;
});

const remoteVerifier = (
  remote: { cooldownMs?: number; timeoutMs?: number; cacheMaxAgeMs?: number } = {},
  cacheSize?: number,
) =>
  createJwtVerifier({
    issuers: [{ issuer: ISS, audience: AUD, jwksUri: url, remote }],
    ...(cacheSize !== undefined ? { cacheSize } : {}),
  });

const outcome = async (verify: () => Promise<unknown>) => {
  const o = await coreOutcome(verify);
  return [
    o.status,
    (o.body as { error_code?: string }).error_code ?? 'ok',
    o.headers['www-authenticate'] ?? null,
  ];
};
const NO_KEY =
  'Bearer realm="plumbline", error="invalid_token", error_description="No trusted key matches the access token"';

describe('remote JWKS on loopback', () => {
  it('verifies a token with a key from the remote set, fetching the set once', async () => {
    const verifier = remoteVerifier();
    const principal = await verifier.verify(await sign({}, first));
    expect(principal).toMatchObject({ type: 'jwt', clientId: 'web', subject: 'user-1' });
    await verifier.verify(await sign({ sub: 'user-2' }, first));
    expect(fetches).toBe(1);
  });

  it('unknown-kid flood: at most one JWKS fetch per cooldown', async () => {
    const verifier = remoteVerifier({ cooldownMs: 30_000 });
    await verifier.verify(await sign({}, first));
    const flood = await Promise.all(
      Array.from({ length: 50 }, async (_, i) =>
        outcome(async () => verifier.verify(await sign({}, first, { kid: `flood-${i}` }))),
      ),
    );
    for (let i = 0; i < 20; i += 1) {
      flood.push(await outcome(async () => verifier.verify(await sign({}, first, { kid: `serial-${i}` }))));
    }
    expect(new Set(flood.map((o) => JSON.stringify(o)))).toEqual(
      new Set([JSON.stringify([401, 'invalid_token', NO_KEY])]),
    );
    expect(fetches).toBe(1);
  });

  it('a flood that starts cold still triggers a single fetch', async () => {
    const verifier = remoteVerifier({ cooldownMs: 30_000 });
    const flood = await Promise.all(
      Array.from({ length: 30 }, async (_, i) =>
        outcome(async () => verifier.verify(await sign({}, first, { kid: `cold-${i}` }))),
      ),
    );
    expect(flood.every(([status]) => status === 401)).toBe(true);
    expect(fetches).toBe(1);
  });

  it('key rotation: a token with a new kid triggers a refetch and verifies', async () => {
    const verifier = remoteVerifier({ cooldownMs: 0 });
    await verifier.verify(await sign({}, first));
    served = { keys: [second.publicJwk] };
    const principal = await verifier.verify(await sign({ sub: 'after-rotation' }, second));
    expect(principal.subject).toBe('after-rotation');
    expect(fetches).toBe(2);
    // The retired key is gone from the set: a fresh token signed with it no longer verifies.
    expect(await outcome(async () => verifier.verify(await sign({ sub: 'old' }, first)))).toEqual([
      401,
      'invalid_token',
      NO_KEY,
    ]);
  });

  it('key rotation within the cooldown: the new kid waits for the cooldown', async () => {
    const verifier = remoteVerifier({ cooldownMs: 30_000 });
    await verifier.verify(await sign({}, first));
    served = { keys: [first.publicJwk, second.publicJwk] };
    expect(await outcome(async () => verifier.verify(await sign({}, second)))).toEqual([
      401,
      'invalid_token',
      NO_KEY,
    ]);
    expect(fetches).toBe(1);
  });

  it.each([
    ['the JWKS server answers 500', 'error' as const],
    ['the JWKS server does not answer within the timeout', 'hang' as const],
  ])('%s → 503 service_unavailable (fail closed)', async (_name, behaviour) => {
    mode = behaviour;
    const verifier = remoteVerifier({ timeoutMs: 200 });
    expect(await outcome(async () => verifier.verify(await sign({}, first)))).toEqual([
      503,
      'service_unavailable',
      null,
    ]);
  });

  it.each([
    ['not a key set', { nope: 1 }],
    ['keys not an array', { keys: 'x' }],
    ['a JSON string', 'keys'],
  ])('a 200 with %s counts as a failed fetch → 503, reported', async (_name, body) => {
    served = body;
    const events: KeySetErrorEvent[] = [];
    const verifier = createJwtVerifier({
      issuers: [{ issuer: ISS, audience: AUD, jwksUri: url }],
      onKeySetError: (event) => events.push(event),
    });
    expect(await outcome(async () => verifier.verify(await sign({}, first)))).toEqual([
      503,
      'service_unavailable',
      null,
    ]);
    expect(events.map((e) => [e.consecutiveFailures, e.servingLastGoodSet])).toEqual([[1, false]]);
  });

  it('the JWKS server is unreachable → 503 service_unavailable', async () => {
    const verifier = createJwtVerifier({
      issuers: [
        { issuer: ISS, audience: AUD, jwksUri: 'http://127.0.0.1:1/jwks.json', remote: { timeoutMs: 500 } },
      ],
    });
    expect(await outcome(async () => verifier.verify(await sign({}, first)))).toEqual([
      503,
      'service_unavailable',
      null,
    ]);
  });
});

describe('verified-token cache', () => {
  it('a repeated token costs a cache lookup, not a verification (no key-set fetch)', async () => {
    // cacheMaxAge 0 makes every real verification refetch the key set, so fetches count verifications.
    const verifier = remoteVerifier({ cacheMaxAgeMs: 0 });
    const token = await sign({}, first);
    for (let i = 0; i < 5; i += 1) await verifier.verify(token);
    expect(fetches).toBe(1);
    await verifier.verify(await sign({ sub: 'other' }, first));
    expect(fetches).toBe(2);
    expect(verifier.cacheSize).toBe(2);
  });

  it('with the cache disabled every request verifies', async () => {
    const verifier = remoteVerifier({ cacheMaxAgeMs: 0 }, 0);
    const token = await sign({}, first);
    for (let i = 0; i < 3; i += 1) await verifier.verify(token);
    expect(fetches).toBe(3);
    expect(verifier.cacheSize).toBe(0);
  });

  it('is bounded: the least recently used entry is evicted', async () => {
    const verifier = createJwtVerifier({
      issuers: [{ issuer: ISS, audience: AUD, jwks: { keys: [first.publicJwk] } }],
      cacheSize: 3,
    });
    for (let i = 0; i < 10; i += 1) await verifier.verify(await sign({ sub: `u${i}` }, first));
    expect(verifier.cacheSize).toBe(3);
  });

  it('an entry never outlives its token', async () => {
    let clock = Date.now();
    const verifier = createJwtVerifier({
      issuers: [{ issuer: ISS, audience: AUD, jwks: { keys: [first.publicJwk] } }],
      now: () => clock,
    });
    const exp = nowSec() + 60;
    const token = await sign({ exp }, first);
    await verifier.verify(token);
    expect(verifier.cacheSize).toBe(1);
    clock = exp * 1000 + 31_000;
    const o = await outcome(() => verifier.verify(token));
    expect(o).toEqual([
      401,
      'invalid_token',
      'Bearer realm="plumbline", error="invalid_token", error_description="The access token expired"',
    ]);
    expect(verifier.cacheSize).toBe(0);
  });

  it('a token revoked after it was cached is rejected on its next use', async () => {
    const revocation = new MemoryRevocationStore();
    const verifier = createJwtVerifier({
      issuers: [{ issuer: ISS, audience: AUD, jwks: { keys: [first.publicJwk] } }],
      revocation,
    });
    const token = await sign({ jti: 'to-revoke' }, first);
    await verifier.verify(token);
    await revocation.revoke('to-revoke', nowSec() + 300);
    expect((await outcome(() => verifier.verify(token)))[2]).toBe(
      'Bearer realm="plumbline", error="invalid_token", error_description="The access token was revoked"',
    );
  });
});

// Issue 22 item 3: after a failed fetch, no fetch until a backoff has passed (unknown kid or stale
// set alike), the last good set keeps verifying, and the outage is reported once per failed fetch.
// Each scenario runs against the core and through the Express adapter on Express 5 and 4.
type Verify = (token: string) => Promise<unknown[]>;
const through: Record<string, (verifier: JwtVerifier) => Verify> = {
  core: (verifier) => (token) => outcome(() => verifier.verify(token)),
};
for (const [name, express] of EXPRESS_VERSIONS) {
  through[name] = (verifier) => {
    const app = express();
    app.use(authenticate({ jwt: verifier }));
    app.get('/items', (_req, res) => {
      res.json({ ok: true });
    });
    app.use(errorHandler({ onError: () => {} }));
    return async (token) => {
      const o = fromSupertest(await request(app).get('/items').set('Authorization', `Bearer ${token}`));
      return [
        o.status,
        (o.body as { error_code?: string }).error_code ?? 'ok',
        o.headers['www-authenticate'] ?? null,
      ];
    };
  };
}
const OK = [200, 'ok', null];
const UNAVAILABLE = [503, 'service_unavailable', null];

describe.each(Object.keys(through))('JWKS outage (%s)', (adapter) => {
  let clock = 0;
  let events: KeySetErrorEvent[] = [];
  const setup = (remote: RemoteJwksOptions) => {
    clock = Date.now();
    events = [];
    const verifier = createJwtVerifier({
      issuers: [{ issuer: ISS, audience: AUD, jwksUri: url, remote }],
      now: () => clock,
      onKeySetError: (event) => events.push(event),
    });
    return through[adapter]!(verifier);
  };
  const unknownKid = (i: number | string) => sign({}, first, { kid: `unknown-${i}` });
  const report = (e: KeySetErrorEvent) => [e.consecutiveFailures, e.retryInMs, e.servingLastGoodSet];

  it('key server answers 500: one fetch per backoff, known keys keep verifying, one report per failed fetch', async () => {
    const verify = setup({ cooldownMs: 1000, maxBackoffMs: 4000 });
    expect(await verify(await sign({}, first))).toEqual(OK);
    mode = 'error';
    clock += 1000;
    const flood = await Promise.all(Array.from({ length: 30 }, async (_, i) => verify(await unknownKid(i))));
    for (let i = 0; i < 10; i += 1) flood.push(await verify(await unknownKid(`serial-${i}`)));
    expect(new Set(flood.map((o) => JSON.stringify(o)))).toEqual(
      new Set([JSON.stringify([401, 'invalid_token', NO_KEY])]),
    );
    expect([fetches, events.map(report)]).toEqual([2, [[1, 1000, true]]]);
    expect(await verify(await sign({ sub: 'known-key' }, first))).toEqual(OK);
    // The backoff doubles per failure (1 s, 2 s, 4 s) and is capped at maxBackoffMs (4 s).
    const steps: [number, number][] = [
      [999, 2],
      [1, 3],
      [1999, 3],
      [1, 4],
      [3999, 4],
      [1, 5],
      [4000, 6],
    ];
    for (const [advance, expected] of steps) {
      clock += advance;
      expect(await verify(await unknownKid(clock))).toEqual([401, 'invalid_token', NO_KEY]);
      expect(fetches).toBe(expected);
    }
    expect(events.map(report)).toEqual([
      [1, 1000, true],
      [2, 2000, true],
      [3, 4000, true],
      [4, 4000, true],
      [5, 4000, true],
    ]);
    expect(events[0]!.error.message).toBe('the key set answered HTTP 500');
    // Recovery: a rotated key verifies after the backoff, and the failure count starts again.
    mode = 'ok';
    served = { keys: [first.publicJwk, second.publicJwk] };
    clock += 4000;
    expect(await verify(await sign({}, second))).toEqual(OK);
    expect(fetches).toBe(7);
    mode = 'error';
    clock += 1000;
    await verify(await unknownKid('after-recovery'));
    expect(events.map(report).at(-1)).toEqual([1, 1000, true]);
  });

  it('cold outage: every request is 503, one fetch per backoff, reported once', async () => {
    mode = 'error';
    const verify = setup({ cooldownMs: 30_000 });
    const flood = await Promise.all(Array.from({ length: 20 }, async () => verify(await sign({}, first))));
    for (let i = 0; i < 10; i += 1) flood.push(await verify(await sign({}, first)));
    expect(new Set(flood.map((o) => JSON.stringify(o)))).toEqual(new Set([JSON.stringify(UNAVAILABLE)]));
    expect([fetches, events.map(report)]).toEqual([1, [[1, 30_000, false]]]);
    clock += 30_000;
    mode = 'ok';
    expect(await verify(await sign({}, first))).toEqual(OK);
    expect(fetches).toBe(2);
  });

  it('a stale key set is kept while the key server fails', async () => {
    const verify = setup({ cacheMaxAgeMs: 1000, cooldownMs: 1000, timeoutMs: 200 });
    expect(await verify(await sign({}, first))).toEqual(OK);
    mode = 'hang';
    clock += 1000;
    expect(await verify(await sign({ sub: 'stale-1' }, first))).toEqual(OK);
    clock += 500;
    expect(await verify(await sign({ sub: 'stale-2' }, first))).toEqual(OK);
    expect([fetches, events.map(report)]).toEqual([2, [[1, 1000, true]]]);
  });
});

describe('isKeySetUnavailable', () => {
  it('recognises the 503 of a key set outage, and nothing else', async () => {
    mode = 'error';
    const verifier = remoteVerifier();
    const error = await verifier.verify(await sign({}, first)).catch((e: unknown) => e);
    expect([(error as { status?: number }).status, isKeySetUnavailable(error)]).toEqual([503, true]);
    expect(isKeySetUnavailable(new Error('x'))).toBe(false);
    expect(isKeySetUnavailable(undefined)).toBe(false);
  });
});
