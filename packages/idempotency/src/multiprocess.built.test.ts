// The workers load the built adapter (dist/): a `*.built.test.ts` file runs in `pnpm test:all`, after
// the build; the contributor loop (`pnpm test`) leaves it out.
import { type ChildProcess, spawn } from 'node:child_process';
import { Agent, request as httpRequest } from 'node:http';
import { fileURLToPath } from 'node:url';
import { REDIS_URL, redisAvailable, uniquePrefix } from '@plumbline/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from './__fixtures__/app.js';
import { deletePrefix, testRedis } from './__fixtures__/redis.js';

const redisUp = await redisAvailable();
const worker = fileURLToPath(new URL('./__fixtures__/worker.mjs', import.meta.url));

interface Reply {
  readonly status: number;
  readonly body: string;
  readonly replayed: string | undefined;
}

function post(agent: Agent, port: number, key: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        agent,
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/slow',
        headers: { 'idempotency-key': key, 'content-type': 'application/json' },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body,
            replayed: res.headers['idempotent-replayed'] as string | undefined,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end('{"item":"x"}');
  });
}

describe.skipIf(!redisUp)('4: four processes sharing one Redis', () => {
  const prefix = uniquePrefix('idem_mp');
  const redis = testRedis();
  const children: ChildProcess[] = [];
  const ports: number[] = [];
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });

  beforeAll(async () => {
    for (let i = 0; i < 4; i += 1) {
      const child = spawn(process.execPath, [worker], {
        env: { ...process.env, REDIS_URL, IDEM_PREFIX: prefix },
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      children.push(child);
      ports.push(
        await new Promise<number>((resolve, reject) => {
          child.once('exit', (code) => reject(new Error(`worker exited with ${code}`)));
          child.stdout!.once('data', (data: Buffer) =>
            resolve((JSON.parse(data.toString()) as { port: number }).port),
          );
        }),
      );
    }
  });

  afterAll(async () => {
    agent.destroy();
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null) return resolve();
            const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
            child.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            child.stdin!.end();
          }),
      ),
    );
    await deletePrefix(redis, prefix);
    redis.disconnect();
  });

  it('50 parallel requests spread over 4 instances (handler held until 49 answered) → one execution, 49 × 409, then a replay from any instance', async () => {
    const key = 'shared-key';
    let answered = 0;
    const all = Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        post(agent, ports[i % 4]!, key).then((reply) => {
          answered += 1;
          return reply;
        }),
      ),
    );
    await until(() => answered === 49);
    expect(Number(await redis.get(`${prefix}:runs`))).toBe(1);
    await redis.set(`${prefix}:go`, '1');
    const replies = await all;
    const statuses = replies.map((r) => r.status);
    expect(Number(await redis.get(`${prefix}:runs`))).toBe(1);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(49);
    const winner = replies.find((r) => r.status === 201)!;
    for (const port of ports) {
      const retry = await post(agent, port, key);
      expect([retry.status, retry.body, retry.replayed]).toEqual([201, winner.body, 'true']);
    }
    expect(Number(await redis.get(`${prefix}:runs`))).toBe(1);
  });
});
