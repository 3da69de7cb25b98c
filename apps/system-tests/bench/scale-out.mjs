#!/usr/bin/env node
/**
 * Scale-out measurements for docs/deployment.md: throughput of one reference-service instance and of
 * three sharing one PostgreSQL and one Redis (or Redis Cluster), and the Redis memory and lifetime of
 * each piece of shared state. Loopback only; everything it creates is removed.
 *
 *   node apps/system-tests/bench/scale-out.mjs          (after `pnpm turbo run build`)
 *   BENCH_DURATION=5 BENCH_CONNECTIONS=12 (defaults)
 *   BENCH_REDIS_CLUSTER_NODES=127.0.0.1:7000,...   use that Redis Cluster instead of a private
 *                                                   redis-server on a port of 17667-17699
 *
 * Needs PostgreSQL (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test) and redis-server.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Cluster, Redis } from 'ioredis';
import { exportJWK, generateKeyPair } from 'jose';
import pg from 'pg';

const here = dirname(fileURLToPath(import.meta.url));
const SERVICE_MAIN = resolve(here, '../../reference-service/dist/main.mjs');
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 12);
const CLUSTER_NODES = process.env.BENCH_REDIS_CLUSTER_NODES;
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const RUN_ID = `bench_so_${process.pid}_${randomBytes(3).toString('hex')}`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const children = new Set();

function start(args, env, ready) {
  return new Promise((resolveStart, reject) => {
    const child = spawn(args[0], args.slice(1), {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: 'pipe',
    });
    children.add(child);
    let out = '';
    const timer = setTimeout(() => reject(new Error(`did not start:\n${out}`)), 30_000);
    const onData = (chunk) => {
      out += chunk.toString();
      if (ready.test(out)) {
        clearTimeout(timer);
        resolveStart({ child, output: () => out });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      children.delete(child);
      clearTimeout(timer);
      reject(new Error(`exited with ${code}:\n${out}`));
    });
  });
}

async function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

function cannon(options) {
  return new Promise((ok, fail) =>
    autocannon({ pipelining: 1, ...options }, (e, r) => (e ? fail(e) : ok(r))),
  );
}

async function main() {
  // Shared state: a private redis-server, unless a cluster is given.
  let redisDir;
  let redisChild;
  let redisEnv;
  let client;
  if (CLUSTER_NODES) {
    redisEnv = { REDIS_CLUSTER_NODES: CLUSTER_NODES };
    client = new Cluster(
      CLUSTER_NODES.split(',').map((n) => ({ host: n.split(':')[0], port: Number(n.split(':')[1]) })),
    );
  } else {
    const port = 17667 + Math.floor(Math.random() * 33);
    redisDir = mkdtempSync(join(tmpdir(), 'bench-redis-'));
    ({ child: redisChild } = await start(
      [
        'redis-server',
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        redisDir,
      ],
      {},
      /Ready to accept connections/,
    ));
    redisEnv = { REDIS_URL: `redis://127.0.0.1:${port}` };
    client = new Redis(port, '127.0.0.1');
  }
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${RUN_ID}`);
  const dbUrl = new URL(DATABASE_URL);
  dbUrl.searchParams.set('options', `-c search_path=${RUN_ID}`);
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const prefix = `${RUN_ID}:`;
  const env = {
    ...redisEnv,
    DATABASE_URL: dbUrl.toString(),
    REDIS_KEY_PREFIX: prefix,
    SIGNING_KEY_JWK: JSON.stringify(await exportJWK(privateKey)),
    CURSOR_SECRET: randomBytes(32).toString('hex'),
    RATE_LIMIT_PER_MINUTE: '1000000',
    IDEMPOTENCY_STORE: 'shared',
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
  };
  const startService = async (port) =>
    start(
      [process.execPath, SERVICE_MAIN],
      { ...env, PORT: String(port) },
      /listening on[\s\S]*(OAuth client, read-write|\n)/,
    );

  const results = [];
  try {
    const first = await startService(0);
    await sleep(300);
    const text = first.output();
    const url0 = /listening on (\S+)/.exec(text)[1];
    const apiKey = /API key, read-write:\s+(\S+)/.exec(text)?.[1];
    const client0 = /OAuth client, read-write:\s+(\S+) \/ (\S+)/.exec(text);
    const tokenReply = await fetch(`${url0}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: client0[1],
        client_secret: client0[2],
        scope: 'read:projects',
      }),
    });
    const bearer = (await tokenReply.json()).access_token;
    const urls = [url0];
    let counter = 0;
    const workloads = [
      {
        name: 'GET /v2/projects?limit=10, bearer token',
        path: '/v2/projects?limit=10',
        opts: () => ({ headers: { authorization: `Bearer ${bearer}` } }),
      },
      {
        name: 'POST /v2/projects, Idempotency-Key in Redis',
        path: '/v2/projects',
        opts: () => ({
          method: 'POST',
          headers: {
            'x-api-key': apiKey,
            'content-type': 'application/json',
          },
          body: JSON.stringify({ name: 'bench' }),
          requests: [
            {
              setupRequest: (req) => {
                counter += 1;
                return {
                  ...req,
                  headers: { ...req.headers, 'idempotency-key': `bench-${RUN_ID}-${counter}` },
                  body: JSON.stringify({ name: `bench ${counter}` }),
                };
              },
            },
          ],
        }),
      },
    ];
    for (const instances of [1, 3]) {
      while (urls.length < instances) {
        const more = await startService(0);
        urls.push(/listening on (\S+)/.exec(more.output())[1]);
      }
      for (const workload of workloads) {
        const per = Math.max(1, Math.round(CONNECTIONS / instances));
        // Warm-up, then the measured run: one autocannon per instance, all at once.
        await Promise.all(
          urls.map((u) =>
            cannon({ url: u + workload.path, connections: per, duration: 1, ...workload.opts() }),
          ),
        );
        const runs = await Promise.all(
          urls.map((u) =>
            cannon({ url: u + workload.path, connections: per, duration: DURATION, ...workload.opts() }),
          ),
        );
        const row = {
          instances,
          workload: workload.name,
          rps: Math.round(runs.reduce((sum, r) => sum + r.requests.average, 0)),
          p99: Math.max(...runs.map((r) => r.latency.p99)),
          non2xx: runs.reduce((sum, r) => sum + r.non2xx + r.errors + r.timeouts, 0),
        };
        for (const r of runs)
          if (r.non2xx) process.stdout.write(`  status codes: ${JSON.stringify(r.statusCodeStats)}\n`);
        results.push(row);
        process.stdout.write(`${JSON.stringify(row)}\n`);
      }
    }

    // State for the memory census: refresh-token families (one rotated), revoked access tokens.
    for (let i = 0; i < 50; i++) {
      const form = (values) => ({
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(values),
      });
      const issued = await (
        await fetch(
          `${urls[i % 3]}/oauth/token`,
          form({
            grant_type: 'client_credentials',
            client_id: client0[1],
            client_secret: client0[2],
            scope: 'read:projects offline_access',
          }),
        )
      ).json();
      if (i % 2 === 0) {
        await fetch(
          `${urls[(i + 1) % 3]}/oauth/token`,
          form({
            grant_type: 'refresh_token',
            refresh_token: issued.refresh_token,
            client_id: client0[1],
            client_secret: client0[2],
          }),
        );
      }
      await fetch(
        `${urls[(i + 2) % 3]}/oauth/revoke`,
        form({ token: issued.access_token, client_id: client0[1], client_secret: client0[2] }),
      );
    }
    const masters = client instanceof Cluster ? client.nodes('master') : [client];
    const census = [];
    for (const [kind, pattern] of [
      ['idempotency record (completed POST, 201 + body)', `${prefix}idem:*`],
      ['revoked jti', `${prefix}revoked:*`],
      ['refresh token -> family', `{${prefix}refresh}:tok:*`],
      ['refresh-token family', `{${prefix}refresh}:fam:*`],
      ["family's live access tokens (sorted set)", `{${prefix}refresh}:at:*`],
      ['rate-limit counter', `${prefix}rl:*`],
    ]) {
      const keys = [];
      for (const node of masters) {
        let cursor = '0';
        do {
          const [next, batch] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
          cursor = next;
          keys.push(...batch);
        } while (cursor !== '0');
      }
      const sample = keys.slice(0, 200);
      const sizes = await Promise.all(sample.map((k) => client.call('MEMORY', 'USAGE', k, 'SAMPLES', '0')));
      const ttls = await Promise.all(sample.slice(0, 5).map((k) => client.pttl(k)));
      const row = {
        kind,
        keys: keys.length,
        bytesPerKey: Math.round(sizes.reduce((s, n) => s + Number(n), 0) / Math.max(1, sizes.length)),
        ttlSec: Math.round(Math.max(...ttls) / 1000),
      };
      census.push(row);
      process.stdout.write(`${JSON.stringify(row)}\n`);
      for (let i = 0; i < keys.length; i += 500)
        await Promise.all(keys.slice(i, i + 500).map((k) => client.unlink(k)));
    }
    process.stdout.write(
      `\nmachine: ${cpus().length} x ${cpus()[0]?.model}, load ${loadavg()
        .map((n) => n.toFixed(1))
        .join(
          ' ',
        )}; duration ${DURATION} s, ${CONNECTIONS} connections in all; redis: ${CLUSTER_NODES ? 'cluster' : 'one node'}\n`,
    );
  } finally {
    for (const child of [...children]) if (child !== redisChild) await stop(child);
    if (redisChild) await stop(redisChild);
    if (redisDir) rmSync(redisDir, { recursive: true, force: true });
    client.disconnect();
    await admin.query(`DROP SCHEMA IF EXISTS ${RUN_ID} CASCADE`);
    await admin.end();
  }
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  for (const child of children) child.kill('SIGKILL');
  process.exit(1);
});
