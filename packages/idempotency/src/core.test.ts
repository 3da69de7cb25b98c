import { errorHandler } from '@plumbline/errors/express';
import { coreOutcome, describeAdapters, EXPRESS_VERSIONS, fromSupertest } from '@plumbline/test-utils';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import {
  createIdempotency,
  DEFAULT_REPLAY_HEADERS,
  type IdempotentRequest,
  isStorableStatus,
  lookupKey,
} from './core.js';
import { idempotency } from './express.js';
import { createMemoryStore } from './memory-store.js';
import type { IdempotencyStore } from './store.js';

interface Row {
  readonly name: string;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly required?: boolean;
  readonly status: number;
  readonly code?: string;
}

const rows: Row[] = [
  { name: 'POST with a key runs', method: 'POST', headers: { 'idempotency-key': 'a' }, status: 200 },
  { name: 'POST without a key, optional, runs', method: 'POST', headers: {}, status: 200 },
  {
    name: 'POST without a key, required → 400',
    method: 'POST',
    headers: {},
    required: true,
    status: 400,
    code: 'idempotency_key_missing',
  },
  {
    name: 'empty key → 400',
    method: 'POST',
    headers: { 'idempotency-key': '' },
    status: 400,
    code: 'idempotency_key_invalid',
  },
  {
    name: 'two different keys → 400',
    method: 'POST',
    headers: { 'idempotency-key': 'a', 'x-idempotency-key': 'b' },
    status: 400,
    code: 'idempotency_key_invalid',
  },
  { name: 'PATCH with a key runs', method: 'PATCH', headers: { 'idempotency-key': 'b' }, status: 200 },
  {
    name: 'GET with an invalid key passes',
    method: 'GET',
    headers: { 'idempotency-key': '' },
    required: true,
    status: 200,
  },
  { name: 'DELETE without a key, optional, runs', method: 'DELETE', headers: {}, status: 200 },
];

// Every row uses a fresh store, so "runs" means a first request in every adapter.
const coreRun = (row: Row) =>
  coreOutcome(async () => {
    const decision = await createIdempotency({ store: createMemoryStore() }).begin({
      method: row.method,
      path: '/x',
      headers: row.headers,
      required: row.required ?? false,
    });
    return decision.action;
  });

const adapters: Record<string, (row: Row) => Promise<ReturnType<typeof fromSupertest>>> = { core: coreRun };
for (const [name, express] of EXPRESS_VERSIONS) {
  adapters[name] = async (row) => {
    const app = express();
    app.use(express.json());
    app.all(
      '/x',
      idempotency({ store: createMemoryStore(), required: row.required ?? false }),
      (_req, res) => {
        res.json('ran');
      },
    );
    app.use(errorHandler({ onError: () => {} }));
    let req = request(app)[row.method.toLowerCase() as 'post'](`/x`);
    for (const [header, value] of Object.entries(row.headers)) req = req.set(header, value);
    return fromSupertest(await req);
  };
}

describeAdapters('when idempotency applies', rows, adapters, (outcome, row, adapter) => {
  expect(outcome.status).toBe(row.status);
  if (row.code !== undefined) {
    expect((outcome.body as { error_code: string }).error_code).toBe(row.code);
  } else if (adapter !== 'core') {
    expect(outcome.body).toBe('ran');
  }
});

const failing: IdempotencyStore = {
  claim: () => Promise.reject(new Error('ECONNREFUSED 10.0.0.1:6379')),
  complete: () => Promise.reject(new Error('down')),
  release: () => Promise.reject(new Error('down')),
};

const base: IdempotentRequest = {
  method: 'POST',
  path: '/orders',
  headers: { 'idempotency-key': 'k' },
  body: { a: 1 },
};

describe('createIdempotency', () => {
  it('a store failure is 503 service_unavailable with Retry-After (fail closed)', async () => {
    const outcome = await coreOutcome(() => createIdempotency({ store: failing }).begin(base));
    expect([
      outcome.status,
      (outcome.body as { error_code: string }).error_code,
      outcome.headers['retry-after'],
    ]).toEqual([503, 'service_unavailable', '1']);
  });

  it('a claim that failed (late or lost) is released under its own token, so a late-applied claim leaves no in-flight key', async () => {
    const memory = createMemoryStore();
    const released: string[] = [];
    // The claim reaches the store but its answer never comes back (a frozen Redis that thaws later).
    const late: IdempotencyStore = {
      claim: async (key, request) => {
        await memory.claim(key, request);
        throw new Error('Redis did not answer within 500 ms');
      },
      complete: (...args) => memory.complete(...args),
      release: async (key, token) => {
        released.push(token);
        return memory.release(key, token);
      },
    };
    const outcome = await coreOutcome(() => createIdempotency({ store: late }).begin(base));
    expect(outcome.status).toBe(503);
    await Promise.resolve();
    expect(released).toHaveLength(1);
    const retry = await createIdempotency({ store: memory }).begin(base);
    expect(retry.action).toBe('execute');
  });

  it('in flight → 409 with the configured Retry-After; different fingerprint → 422', async () => {
    const idem = createIdempotency({ store: createMemoryStore(), retryAfterSeconds: 3 });
    await idem.begin(base);
    const busy = await coreOutcome(() => idem.begin(base));
    expect([busy.status, busy.headers['retry-after']]).toEqual([409, '3']);
    const reused = await coreOutcome(() => idem.begin({ ...base, body: { a: 2 } }));
    expect([reused.status, (reused.body as { error_code: string }).error_code]).toEqual([
      422,
      'idempotency_key_reused',
    ]);
  });

  it('completes with only the replayable headers and replays them with Idempotent-Replayed', async () => {
    const idem = createIdempotency({ store: createMemoryStore() });
    const decision = await idem.begin(base);
    if (decision.action !== 'execute') throw new Error('expected execute');
    const outcome = await decision.claim.complete({
      status: 201,
      headers: {
        Location: '/orders/1',
        'Content-Type': 'application/json',
        'Set-Cookie': ['a=1'],
        'Content-Length': 7,
        Connection: 'keep-alive',
        Link: ['</a>; rel="a"', '</b>; rel="b"'],
        'X-Internal': 'secret',
      },
      body: Buffer.from('{"a":1}'),
    });
    expect(outcome).toBe('stored');
    const replay = await idem.begin(base);
    if (replay.action !== 'replay') throw new Error('expected replay');
    expect(idem.replayHeaders(replay.response)).toEqual([
      ['location', '/orders/1'],
      ['content-type', 'application/json'],
      ['link', '</a>; rel="a"'],
      ['link', '</b>; rel="b"'],
      ['Idempotent-Replayed', 'true'],
    ]);
    expect(Buffer.from(replay.response.body).toString()).toBe('{"a":1}');
  });

  it.each([
    ['a 500', 500, 3, false],
    ['a 429', 429, 3, false],
    ['a body over maxBodyBytes', 200, 11, false],
    ['a truncated body', 200, 3, true],
  ] as const)('releases instead of storing %s', async (_name, status, length, truncated) => {
    const idem = createIdempotency({ store: createMemoryStore(), maxBodyBytes: 10 });
    const decision = await idem.begin(base);
    if (decision.action !== 'execute') throw new Error('expected execute');
    expect(
      await decision.claim.complete({ status, headers: {}, body: new Uint8Array(length), truncated }),
    ).toBe('released');
    expect((await idem.begin(base)).action).toBe('execute');
  });

  it('a lost lease reports fenced; a claim settles only once', async () => {
    let time = 0;
    const store = createMemoryStore({ now: () => time });
    const idem = createIdempotency({ store, leaseMs: 1_000 });
    const first = await idem.begin(base);
    time = 2_000;
    const second = await idem.begin(base);
    if (first.action !== 'execute' || second.action !== 'execute') throw new Error('expected execute');
    expect(await first.claim.complete({ status: 201, headers: {}, body: new Uint8Array() })).toBe('fenced');
    await expect(first.claim.release()).rejects.toThrow('already settled');
    expect(await second.claim.release()).toBe(true);
  });

  it('scopes keys by principal, method and route', () => {
    const parts = { principal: 'anonymous', method: 'POST', route: '/orders', key: 'k' };
    const keys = new Set([
      lookupKey(parts),
      lookupKey({ ...parts, principal: 'alice' }),
      lookupKey({ ...parts, method: 'PATCH' }),
      lookupKey({ ...parts, route: '/other' }),
      lookupKey({ ...parts, key: 'k2' }),
    ]);
    expect(keys.size).toBe(5);
    expect(lookupKey({ ...parts, method: 'post' })).toBe(lookupKey(parts));
  });

  it.each([
    [200, true],
    [201, true],
    [204, true],
    [303, true],
    [400, true],
    [404, true],
    [422, true],
    [401, false],
    [403, false],
    [409, false],
    [429, false],
    [500, false],
    [503, false],
  ])('isStorableStatus(%i) is %s', (status, expected) => {
    expect(isStorableStatus(status)).toBe(expected);
  });

  it.each([
    ['leaseMs', { leaseMs: 0 }, 'leaseMs must be a positive number'],
    ['retentionMs', { retentionMs: -5 }, 'retentionMs must be a positive number'],
    ['maxBodyBytes', { maxBodyBytes: Number.NaN }, 'maxBodyBytes must be a positive number'],
    ['headerNames', { headerNames: [] }, 'headerNames must name at least one header'],
    [
      'replayHeaders with Set-Cookie',
      { replayHeaders: ['Set-Cookie'] },
      '"set-cookie" must never be replayed',
    ],
    ['excludeFields', { excludeFields: ['a..b'] }, 'not a dotted field path'],
  ] as const)('rejects a bad %s at configuration time', (_name, options, message) => {
    expect(() => createIdempotency({ store: createMemoryStore(), ...options })).toThrow(message);
  });

  it('the default replay headers never include Set-Cookie', () => {
    expect(DEFAULT_REPLAY_HEADERS).not.toContain('set-cookie');
  });
});
