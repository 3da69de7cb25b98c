// Shared by throughput.mjs and instructions.mjs: the server script, the request, keys, cleanup.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';

/** The server under load (modes are listed at its top). */
export const SERVER = fileURLToPath(new URL('./server.mjs', import.meta.url));

/** Prefix of every Redis key this process's runs write. */
export const PREFIX = `idem_bench_${process.pid}`;

/**
 * Starts `command args…` (the server, possibly under valgrind) and resolves once it prints its port.
 * @returns {Promise<{ child: import('node:child_process').ChildProcess, port: number }>}
 */
export async function startServer(command, args, stderr = 'inherit') {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', stderr] });
  let errors = '';
  child.stderr?.on('data', (data) => {
    errors += data;
  });
  const port = await new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`server exited with ${code} ${errors.slice(-2000)}`)));
    child.stdout.once('data', (data) => resolve(Number(data.toString().trim())));
  });
  child.removeAllListeners('exit');
  return { child, port };
}

// Shared by every run, so no key is ever sent twice (a warm-up request cut off in flight would
// otherwise answer a later run's first requests with 409).
let sent = 0;

/**
 * autocannon options for POST /orders with a new Idempotency-Key per request (or one key
 * throughout with `replay`). Every configuration builds each request the same way (the bare
 * server ignores the key), so the load generator costs the same CPU in every row.
 */
export function orderRequests(port, { replay = false, connections = 32 } = {}) {
  return {
    url: `http://127.0.0.1:${port}/orders`,
    method: 'POST',
    connections,
    pipelining: 1,
    headers: { 'content-type': 'application/json', 'idempotency-key': 'replayed' },
    body: JSON.stringify({ sku: 'abc-123', qty: 2, note: 'bench' }),
    requests: [
      {
        setupRequest: (request) => {
          sent += 1;
          const key = replay ? 'replayed' : `k-${process.pid}-${sent}`;
          return { ...request, headers: { ...request.headers, 'idempotency-key': key } };
        },
      },
    ],
  };
}

/** Removes the records the Redis runs stored under {@link PREFIX} (the Redis is shared). */
export async function deleteBenchKeys() {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${PREFIX}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
  redis.disconnect();
}
