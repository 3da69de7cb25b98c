/**
 * SIGTERM under load, shared by test/faults.test.ts (clients that open a connection per request)
 * and pending/sigterm-keep-alive.test.ts (keep-alive clients, which the service does not drain yet).
 */
import { Agent, request as httpRequest } from 'node:http';
import { Socket } from 'node:net';
import { expect } from 'vitest';
import {
  type Credentials,
  type Database,
  deleteRedisKeys,
  portOpen,
  REDIS_URL,
  sleep,
  startCluster,
} from './harness.js';

const keepAliveAgent = new Agent({ keepAlive: true, maxSockets: 6 });

interface Outcome {
  readonly status: number;
  readonly location: string | undefined;
}

/** POST /v2/projects on a new connection (`agent: false`, `Connection: close`) or a keep-alive one. */
function createProject(
  port: number,
  credentials: Credentials,
  key: string,
  keepAlive: boolean,
): Promise<Outcome> {
  const body = JSON.stringify({ name: `fault ${key}` });
  return new Promise((resolve) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/v2/projects',
        ...(keepAlive ? { agent: keepAliveAgent } : { agent: false }),
        headers: {
          'x-api-key': credentials.apiKey,
          'content-type': 'application/json',
          'idempotency-key': key,
          'content-length': Buffer.byteLength(body),
          ...(keepAlive ? {} : { connection: 'close' }),
        },
        timeout: 20_000,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location }));
        res.on('error', () => resolve({ status: 0, location: undefined }));
      },
    );
    req.on('error', () => resolve({ status: 0, location: undefined }));
    req.on('timeout', () => req.destroy());
    req.end(body);
  });
}

export async function sigtermUnderLoad(
  db: Database,
  credentials: Credentials,
  options: { keepAlive: boolean; label: string },
): Promise<void> {
  const grace = 5000;
  const cluster = await startCluster({
    count: 1,
    database: db,
    credentials,
    env: { SHUTDOWN_GRACE_MS: String(grace) },
  });
  const [instance] = cluster.instances;
  if (!instance) throw new Error('no instance');
  try {
    // An in-flight request: headers and half the body sent before SIGTERM, the rest after.
    const inflightName = `fault sigterm-inflight-${options.label}`;
    const body = JSON.stringify({ name: inflightName });
    const socket = new Socket();
    let raw = '';
    socket.on('data', (chunk: Buffer) => {
      raw += chunk.toString();
    });
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.on('error', () => {});
    await new Promise<void>((r) => socket.connect(instance.port, '127.0.0.1', r));
    socket.write(
      [
        'POST /v2/projects HTTP/1.1',
        `Host: 127.0.0.1:${instance.port}`,
        `X-API-Key: ${credentials.apiKey}`,
        'Content-Type: application/json',
        `Idempotency-Key: sigterm-inflight-${options.label}`,
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Connection: close',
        '',
        body.slice(0, 10),
      ].join('\r\n'),
    );

    const outcomes: { key: string; outcome: Outcome }[] = [];
    let running = true;
    const workers = Array.from({ length: 6 }, async (_, worker) => {
      for (let n = 0; running; n++) {
        const key = `sigterm-${options.label}-${worker}-${n}`;
        const outcome = await createProject(instance.port, credentials, key, options.keepAlive);
        outcomes.push({ key, outcome });
        // Refused: the listener is gone, as it should be after SIGTERM.
        if (outcome.status === 0) await sleep(20);
      }
    });
    await sleep(500);
    const signalledAt = Date.now();
    instance.child.kill('SIGTERM');
    await sleep(200);
    const acceptsNew = await portOpen(instance.port);
    socket.write(body.slice(10));
    await closed;
    const code = await Promise.race([instance.exited, sleep(grace + 3000).then(() => 'timeout' as const)]);
    const exitedAfter = Date.now() - signalledAt;
    running = false;
    await Promise.all(workers);

    expect(acceptsNew).toBe(false);
    expect(raw).toMatch(/^HTTP\/1\.1 201 /);
    expect(code, instance.output()).toBe(0);
    expect(exitedAfter, instance.output()).toBeLessThan(grace);
    // Every reply was a 201 or a refused/reset connection after the stop: never a 5xx.
    const odd = outcomes.filter(({ outcome }) => outcome.status !== 201 && outcome.status !== 0);
    expect(odd).toEqual([]);
    const created = outcomes.filter(({ outcome }) => outcome.status === 201);
    expect(created.length).toBeGreaterThan(0);
    // No request that got a 2xx was lost.
    const ids = created.map(({ outcome }) => outcome.location?.split('/').pop());
    const found = await db.query<{ id: string }>('SELECT id FROM projects WHERE id = ANY($1::text[])', [ids]);
    expect(found.length).toBe(ids.length);
    const inflight = await db.query<{ n: string }>('SELECT count(*) AS n FROM projects WHERE name = $1', [
      inflightName,
    ]);
    expect(Number(inflight[0]?.n)).toBe(1);
  } finally {
    await cluster.stop();
    await deleteRedisKeys(REDIS_URL, cluster.redisKeyPrefix);
  }
}
