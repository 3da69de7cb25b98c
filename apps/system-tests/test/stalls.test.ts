/**
 * Dependencies that stop answering without going away: a frozen Redis (SIGSTOP), a PostgreSQL
 * session holding the lock a write needs, and a network path to Redis or to PostgreSQL that
 * swallows every byte (a proxy that accepts and never forwards). For each: every request is answered within its deadline
 * plus a margin (a hang shows up as status 0), with the right status, no 5xx but 503 (with
 * Retry-After), and service comes back without a restart once the stall ends. The worst response
 * time of each kind of request is reported as a test annotation.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { holdTableLock, startFreezableRedis, startStallingProxy, type Timed, timed } from './dependencies.js';
import {
  type Credentials,
  createProject,
  DATABASE_URL,
  type Database,
  deleteRedisKeys,
  environmentReady,
  REDIS_URL,
  type Reply,
  request,
  seedDatabase,
  sleep,
  startCluster,
  token,
} from './harness.js';

const ready = await environmentReady();

// Short deadlines keep the test quick; the margins absorb a loaded CI machine.
const REDIS_COMMAND_MS = 500;
const STATEMENT_MS = 1000;
const CONNECT_MS = 1000;
const MARGIN_MS = 2500;
const DEADLINES = {
  REDIS_COMMAND_TIMEOUT_MS: String(REDIS_COMMAND_MS),
  DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_MS),
  DATABASE_CONNECT_TIMEOUT_MS: String(CONNECT_MS),
};

interface Probe {
  readonly name: string;
  readonly expected: number;
  /** For 503 /ready: the dependency states it must report. */
  readonly checks?: Record<string, string>;
  send(signal: AbortSignal): Promise<Reply>;
}

/**
 * Sends every probe at once, `rounds` times, each bounded by `limitMs` (a request still open then
 * is aborted and shows up as status 0). Returns the replies and the worst time per probe.
 */
async function probe(probes: readonly Probe[], limitMs: number, rounds: number) {
  const worst = new Map<string, number>();
  const results: { probe: Probe; result: Timed<Reply> }[] = [];
  for (let round = 0; round < rounds; round++) {
    const batch = await Promise.all(
      probes.map(async (p) => ({
        probe: p,
        result: await timed(() => p.send(AbortSignal.timeout(limitMs))),
      })),
    );
    for (const entry of batch)
      worst.set(entry.probe.name, Math.max(worst.get(entry.probe.name) ?? 0, entry.result.ms));
    results.push(...batch);
  }
  return { results, worst };
}

function expectAnswered(results: { probe: Probe; result: Timed<Reply> }[]): void {
  for (const { probe: p, result } of results) {
    const { reply } = result;
    expect([p.name, reply.status], reply.text.slice(0, 300)).toEqual([p.name, p.expected]);
    if (reply.status >= 500) {
      expect([p.name, reply.json()['error_code'], reply.headers.get('retry-after')]).toEqual([
        p.name,
        'service_unavailable',
        '1',
      ]);
    }
    if (p.checks) expect([p.name, reply.json()['checks']]).toEqual([p.name, p.checks]);
  }
}

async function report(context: TestContext, label: string, worst: Map<string, number>): Promise<void> {
  const lines = [...worst].map(([name, ms]) => `${name} ${ms} ms`).join('; ');
  await context.annotate(`${label}: worst response times: ${lines}`);
}

/** Polls until `check` holds (bounded): recovery must come by itself. */
async function eventually(check: () => Promise<boolean>, tries = 60): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return true;
    await sleep(250);
  }
  return false;
}

function keyed(
  url: string,
  path: string,
  credentials: Credentials,
  key: string,
  body: unknown,
  signal?: AbortSignal,
) {
  return request(`${url}${path}`, {
    method: 'POST',
    headers: { 'x-api-key': credentials.apiKey, 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

/**
 * What a service with a stalled Redis must answer, in time: what needs only the database works, what
 * needs Redis (the bearer token's revocation check, a search's idempotency key) is 503.
 */
function redisStallProbes(
  url: string,
  credentials: Credentials,
  jwt: string,
  run: string,
  label: string,
): Probe[] {
  return [
    { name: 'GET /health', expected: 200, send: (signal) => request(`${url}/health`, { signal }) },
    {
      name: 'GET /ready',
      expected: 503,
      checks: { database: 'ok', redis: 'down' },
      send: (signal) => request(`${url}/ready`, { signal }),
    },
    {
      name: 'GET /v2/projects (API key: database only)',
      expected: 200,
      send: (signal) =>
        request(`${url}/v2/projects?limit=1`, { headers: { 'x-api-key': credentials.apiKey }, signal }),
    },
    {
      name: 'GET /v2/projects (bearer: revocation list in Redis)',
      expected: 503,
      send: (signal) =>
        request(`${url}/v2/projects?limit=1`, { headers: { authorization: `Bearer ${jwt}` }, signal }),
    },
    {
      name: 'POST /v2/projects (idempotency in the database)',
      expected: 201,
      send: (signal) =>
        keyed(url, '/v2/projects', credentials, randomUUID(), { name: `${label} ${randomUUID()}` }, signal),
    },
    {
      name: 'POST /v2/projects/search (idempotency in Redis)',
      expected: 503,
      send: (signal) => keyed(url, '/v2/projects/search', credentials, `search-${run}`, { limit: 1 }, signal),
    },
  ];
}

describe.skipIf(!ready)('stalled dependencies', () => {
  let db: Database;
  let seeded: Credentials;

  beforeAll(async () => {
    ({ db, credentials: seeded } = await seedDatabase('stalls'));
  });
  afterAll(async () => {
    await db?.drop();
  });

  async function projectRows(name: string): Promise<number> {
    const [row] = await db.query<{ n: string }>('SELECT count(*) AS n FROM projects WHERE name = $1', [name]);
    return Number(row?.n ?? 0);
  }

  it('Redis frozen (SIGSTOP): only what needs Redis gets 503, in time; it recovers on SIGCONT', async (context) => {
    const redis = await startFreezableRedis();
    const cluster = await startCluster({
      count: 1,
      database: db,
      credentials: seeded,
      redisUrl: redis.url,
      env: DEADLINES,
    });
    try {
      const { url } = cluster.at(0);
      const credentials = cluster.credentials;
      const jwt = (await token(url, credentials, 'read:projects')).access_token;
      const run = randomUUID();
      const probes = redisStallProbes(url, credentials, jwt, run, 'frozen');
      redis.freeze();
      const during = await probe(probes, REDIS_COMMAND_MS * 3 + MARGIN_MS, 3);
      redis.thaw();
      await report(context, 'Redis frozen', during.worst);
      expectAnswered(during.results);

      // Back without a restart: readiness, the revocation check and the Redis-backed key.
      expect(await eventually(async () => (await request(`${url}/ready`)).status === 200)).toBe(true);
      const bearer = await request(`${url}/v2/projects?limit=1`, {
        headers: { authorization: `Bearer ${jwt}` },
      });
      const search = await keyed(url, '/v2/projects/search', credentials, `search-${run}`, { limit: 1 });
      expect([bearer.status, search.status, search.headers.get('idempotent-replayed')]).toEqual([
        200,
        200,
        null,
      ]);
    } finally {
      await cluster.stop();
      await redis.destroy();
    }
  });

  it('the network path to Redis swallows every byte: the same answers as a frozen Redis, and recovery', async (context) => {
    const redis = await startFreezableRedis();
    const proxy = await startStallingProxy(redis.port);
    const cluster = await startCluster({
      count: 1,
      database: db,
      credentials: seeded,
      redisUrl: `redis://127.0.0.1:${proxy.port}`,
      env: DEADLINES,
    });
    try {
      const { url } = cluster.at(0);
      const credentials = cluster.credentials;
      const jwt = (await token(url, credentials, 'read:projects')).access_token;
      const run = randomUUID();
      const probes = redisStallProbes(url, credentials, jwt, run, 'cut off');
      proxy.stall();
      const during = await probe(probes, REDIS_COMMAND_MS * 3 + MARGIN_MS, 3);
      proxy.resume();
      await report(context, 'Redis path swallowing bytes', during.worst);
      expectAnswered(during.results);

      expect(await eventually(async () => (await request(`${url}/ready`)).status === 200)).toBe(true);
      const bearer = await request(`${url}/v2/projects?limit=1`, {
        headers: { authorization: `Bearer ${jwt}` },
      });
      const search = await keyed(url, '/v2/projects/search', credentials, `search-${run}`, { limit: 1 });
      expect([bearer.status, search.status, search.headers.get('idempotent-replayed')]).toEqual([
        200,
        200,
        null,
      ]);
    } finally {
      await cluster.stop();
      await proxy.close();
      await redis.destroy();
    }
  });

  it('a PostgreSQL session holds the lock a create needs: that create gets 503 at the statement deadline, reads go on', async (context) => {
    const cluster = await startCluster({
      count: 1,
      database: db,
      credentials: seeded,
      redisKeyPrefix: `${db.schema}lock:`,
      env: DEADLINES,
    });
    const lock = await holdTableLock(db.url, 'projects');
    let released = false;
    try {
      const { url } = cluster.at(0);
      const credentials = cluster.credentials;
      const key = randomUUID();
      const name = `locked ${key}`;
      const probes: Probe[] = [
        { name: 'GET /health', expected: 200, send: (signal) => request(`${url}/health`, { signal }) },
        {
          name: 'GET /ready',
          expected: 200,
          send: (signal) => request(`${url}/ready`, { signal }),
        },
        {
          name: 'GET /v2/projects',
          expected: 200,
          send: (signal) =>
            request(`${url}/v2/projects?limit=1`, { headers: { 'x-api-key': credentials.apiKey }, signal }),
        },
        {
          name: 'POST /v2/projects (INSERT waits on the lock)',
          expected: 503,
          send: (signal) => keyed(url, '/v2/projects', credentials, key, { name }, signal),
        },
      ];
      const during = await probe(probes, STATEMENT_MS + CONNECT_MS + MARGIN_MS, 2);
      await lock.release();
      released = true;
      await report(context, 'PostgreSQL lock held', during.worst);
      expectAnswered(during.results);

      // The lock is gone: the same key now runs once (nothing of the cancelled attempts was kept).
      const after = await createProject(url, credentials, key, { name });
      expect([after.status, after.headers.get('idempotent-replayed')]).toEqual([201, null]);
      expect(await projectRows(name)).toBe(1);
    } finally {
      if (!released) await lock.release();
      await cluster.stop();
      await deleteRedisKeys(REDIS_URL, `${db.schema}lock:`);
    }
  });

  it('the network path to PostgreSQL swallows every byte: 503 within the deadlines, /health unaffected, recovery by itself', async (context) => {
    const target = new URL(DATABASE_URL);
    const proxy = await startStallingProxy(Number(target.port || 5432));
    const viaProxy = new URL(db.url);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const cluster = await startCluster({
      count: 1,
      database: { ...db, url: viaProxy.toString() },
      credentials: seeded,
      redisKeyPrefix: `${db.schema}proxy:`,
      env: DEADLINES,
    });
    try {
      const { url } = cluster.at(0);
      const credentials = cluster.credentials;
      const key = randomUUID();
      const name = `partition ${key}`;
      // Warm the pool so both paths are exercised: pooled connections that go silent, new ones that never answer.
      expect(
        (await request(`${url}/v2/projects?limit=1`, { headers: { 'x-api-key': credentials.apiKey } }))
          .status,
      ).toBe(200);
      const probes: Probe[] = [
        { name: 'GET /health', expected: 200, send: (signal) => request(`${url}/health`, { signal }) },
        {
          name: 'GET /.well-known/jwks.json',
          expected: 200,
          send: (signal) => request(`${url}/.well-known/jwks.json`, { signal }),
        },
        {
          name: 'GET /ready',
          expected: 503,
          checks: { database: 'down', redis: 'ok' },
          send: (signal) => request(`${url}/ready`, { signal }),
        },
        {
          name: 'GET /v2/projects (API key lookup needs the database)',
          expected: 503,
          send: (signal) =>
            request(`${url}/v2/projects?limit=1`, { headers: { 'x-api-key': credentials.apiKey }, signal }),
        },
        {
          name: 'POST /v2/projects',
          expected: 503,
          send: (signal) => keyed(url, '/v2/projects', credentials, key, { name }, signal),
        },
      ];
      proxy.stall();
      const during = await probe(probes, STATEMENT_MS + CONNECT_MS + MARGIN_MS, 3);
      proxy.resume();
      await report(context, 'PostgreSQL path swallowing bytes', during.worst);
      expectAnswered(during.results);

      expect(await eventually(async () => (await request(`${url}/ready`)).status === 200)).toBe(true);
      const after = await createProject(url, credentials, key, { name });
      expect([after.status, after.headers.get('idempotent-replayed')]).toEqual([201, null]);
      expect(await projectRows(name)).toBe(1);
    } finally {
      await cluster.stop();
      await proxy.close();
      await deleteRedisKeys(REDIS_URL, `${db.schema}proxy:`);
    }
  });
});
