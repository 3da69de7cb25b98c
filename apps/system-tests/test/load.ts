/**
 * Load and checks shared by the fault tests: loops of requests collected while a dependency fails,
 * "only 503s, never a 500 or a dropped connection", and "each key ends with exactly one row".
 */
import { expect } from 'vitest';
import { type Credentials, createProject, type Database, type Reply, sleep } from './harness.js';

export function createFaultProject(url: string, credentials: Credentials, key: string): Promise<Reply> {
  return createProject(url, credentials, key, { name: `fault ${key}` });
}

export async function rowsPerKey(db: Database, keys: readonly string[]): Promise<Map<string, number>> {
  const rows = await db.query<{ name: string; n: string }>(
    "SELECT name, count(*) AS n FROM projects WHERE name LIKE 'fault %' GROUP BY name",
  );
  const counts = new Map(keys.map((key) => [key, 0]));
  for (const row of rows) counts.set(row.name.slice('fault '.length), Number(row.n));
  return counts;
}

/** Retries a create until it is no longer 409/503 (bounded): what a well-behaved client does. */
export async function settle(url: string, credentials: Credentials, key: string, tries = 40): Promise<Reply> {
  let reply = await createFaultProject(url, credentials, key);
  for (let i = 0; i < tries && (reply.status === 409 || reply.status === 503); i++) {
    await sleep(Number(reply.headers.get('retry-after') ?? 1) * 250);
    reply = await createFaultProject(url, credentials, key);
  }
  return reply;
}

export interface Sample {
  readonly kind: string;
  readonly reply: Reply;
}

/** Runs `workers` loops of `step` until `stop()` is called; collects every reply. */
export function load(workers: number, step: (worker: number, n: number) => Promise<Sample>) {
  const samples: Sample[] = [];
  let running = true;
  const loops = Array.from({ length: workers }, async (_, worker) => {
    for (let n = 0; running; n++) samples.push(await step(worker, n));
  });
  return {
    samples,
    async stop() {
      running = false;
      await Promise.all(loops);
      return samples;
    },
  };
}

export function expectOnly503s(samples: readonly Sample[]): void {
  for (const { kind, reply } of samples) {
    if (reply.status >= 500) {
      expect([kind, reply.status, reply.json()['error_code']]).toEqual([kind, 503, 'service_unavailable']);
      expect(reply.headers.get('retry-after')).toMatch(/^\d+$/);
    }
    expect(reply.status, `${kind}: ${reply.text.slice(0, 200)}`).not.toBe(0);
  }
}
