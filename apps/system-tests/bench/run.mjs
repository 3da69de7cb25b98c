#!/usr/bin/env node
/**
 * Load benchmarks (issues 9 and 16): each pair's variants run alternately (A, B, A, B, ...) with autocannon
 * against servers in child processes, loopback only, fixed duration. Prints a table and writes
 * bench/RESULTS.md with the command, the date and the machine.
 *
 *   node apps/system-tests/bench/run.mjs            (after `pnpm turbo run build`)
 *   BENCH_DURATION=5 BENCH_ROUNDS=3 BENCH_CONNECTIONS=10 BENCH_PAIRS=1,2,3,4,6,7,8 (defaults)
 *   BENCH_PAIRS=5: the reference service's creating POST with its idempotency keys in the database
 *   (in the row's transaction, the default) against keys in Redis (IDEMPOTENCY_STORE=shared)
 *   Pair 6 (issue 18): the Plumbline stack against the peer stack (bench/peer-stack.mjs), GET and
 *   idempotent POST; pair 7: the in-memory collection route against a hand-written one with the
 *   same semantics; pair 8: the reference service on PostgreSQL with keys in Redis, POST with and
 *   without an idempotency key. Pair 3 also runs the transport floor (two raw ioredis round trips).
 *   Pair 9 (issue 21): the reference service on each BENCH_FRAMEWORKS value (FRAMEWORK=...), GET a
 *   filtered page and idempotent POST, on SQLite and PostgreSQL.
 *
 * Needs Redis (REDIS_URL, default redis://127.0.0.1:6379) for pairs 3-4 and PostgreSQL
 * (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test) for pair 4; a pair whose service is
 * missing is reported as skipped. Every Redis key and PostgreSQL schema it creates is removed.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { exportJWK, generateKeyPair } from 'jose';
import pg from 'pg';
import { startBenchAuth } from './bench-auth.mjs';
import { children, runBenchmark, startProcess, stopProcess } from './processes.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const SERVICE_MAIN = resolve(here, '../../reference-service/dist/main.mjs');
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const PAIRS = new Set((process.env.BENCH_PAIRS ?? '1,2,3,4,6,7,8').split(',').map(Number));
// Pair 9's frameworks (the reference service's FRAMEWORK values).
const FRAMEWORKS = (process.env.BENCH_FRAMEWORKS ?? 'express').split(',');
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const RUN_ID = `bench_${process.pid}_${randomBytes(3).toString('hex')}`;

/** Peak and current resident set size of a process (Linux /proc), in bytes. */
function memory(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) * 1024;
    return { peak: kb('VmHWM'), current: kb('VmRSS') };
  } catch {
    return { peak: 0, current: 0 };
  }
}

function cannon(options) {
  return new Promise((resolveRun, reject) => {
    autocannon({ connections: CONNECTIONS, pipelining: 1, ...options }, (error, result) =>
      error ? reject(error) : resolveRun(result),
    );
  });
}

async function available(check) {
  try {
    await check();
    return true;
  } catch {
    return false;
  }
}

/**
 * A variant: a name, a start function returning { url, pid, stop }, and the autocannon request.
 * Each pair starts all its servers, warms each up, then runs ROUNDS rounds of A, B, ... in turn.
 */
async function runPair(title, variants) {
  const started = [];
  try {
    for (const variant of variants) started.push({ variant, server: await variant.start() });
    const pages = new Map();
    for (const { variant, server } of started) {
      const check = await fetch(server.url + variant.path, variant.fetchInit());
      const text = await check.text();
      if (check.status !== variant.expect) {
        throw new Error(`${variant.name}: sanity request answered ${check.status}: ${text}`);
      }
      // Variants compared for the same work must return the same rows.
      if (variant.sameData) {
        const data = JSON.stringify(JSON.parse(text).data);
        const other = pages.get(variant.sameData);
        if (other !== undefined && other !== data)
          throw new Error(`${variant.name}: returns other rows than its pair (${variant.sameData})`);
        pages.set(variant.sameData, data);
      }
      await cannon({ url: server.url + variant.path, duration: 1, ...variant.cannon() });
    }
    const results = new Map(variants.map((v) => [v.name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const { variant, server } of started) {
        const result = await cannon({
          url: server.url + variant.path,
          duration: DURATION,
          ...variant.cannon(),
        });
        const bad = result.non2xx + result.errors + result.timeouts;
        if (bad) process.stdout.write(`  status codes: ${JSON.stringify(result.statusCodeStats)}\n`);
        results.get(variant.name).push({
          rps: result.requests.average,
          p50: result.latency.p50,
          p99: result.latency.p99,
          bad,
          total: result.requests.total,
        });
        process.stdout.write(
          `  ${title} | ${variant.name} | round ${round + 1}: ${Math.round(result.requests.average)} req/s, p99 ${result.latency.p99} ms${bad ? `, ${bad} non-2xx/errors` : ''}\n`,
        );
      }
    }
    return started.map(({ variant, server }) => {
      const runs = results.get(variant.name);
      const median = (key) => runs.map((r) => r[key]).sort((a, b) => a - b)[Math.floor(runs.length / 2)];
      return {
        pair: title,
        name: variant.name,
        rps: runs.reduce((sum, r) => sum + r.rps, 0) / runs.length,
        p50: median('p50'),
        p99: median('p99'),
        bad: runs.reduce((sum, r) => sum + r.bad, 0),
        total: runs.reduce((sum, r) => sum + r.total, 0),
        peakRss: server.pid ? memory(server.pid).peak : 0,
      };
    });
  } finally {
    for (const { server } of started) await server.stop();
  }
}

function benchServer(variant, env) {
  return async () => {
    const { child, match } = await startProcess([join(here, 'server.mjs'), variant], env, /ready (\d+)/);
    return { url: `http://127.0.0.1:${match[1]}`, pid: child.pid, stop: () => stopProcess(child) };
  };
}

async function deleteKeys(prefix) {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    for (const pattern of [`${prefix}*`, `{${prefix}*`]) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
        cursor = next;
        if (keys.length) await redis.unlink(...keys);
      } while (cursor !== '0');
    }
  } finally {
    redis.disconnect();
  }
}

async function main() {
  const started = Date.now();
  loadAtStart = loadavg()[0];
  const auth = await startBenchAuth();
  const token = auth.token;
  const serverEnv = {
    ...auth.env,
    REDIS_URL,
    BENCH_REDIS_PREFIX: `${RUN_ID}:idem:`,
  };
  const bearer = { authorization: `Bearer ${token}` };
  const get = (name, variant, path, sameData) => ({
    name,
    path,
    sameData,
    expect: 200,
    start: benchServer(variant, serverEnv),
    fetchInit: () => ({ headers: bearer }),
    cannon: () => ({ headers: bearer }),
  });
  let counter = 0;
  const uniqueKey = (request) => {
    // Under the run's prefix: express-idempotency stores the raw key, and the cleanup matches it.
    request.headers = { ...request.headers, 'idempotency-key': `${RUN_ID}:key-${++counter}` };
    return request;
  };
  const postOrder = (name, variant) => ({
    name,
    path: '/orders',
    expect: 201,
    start: benchServer(variant, serverEnv),
    fetchInit: () => ({
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': `${RUN_ID}:sanity-${variant}` },
      body: '{"sku":"A-1","qty":2}',
    }),
    cannon: () => ({
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"sku":"A-1","qty":2}',
      requests: [{ setupRequest: uniqueKey }],
    }),
  });

  const redisUp = await available(async () => {
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1, lazyConnect: true, connectTimeout: 2000 });
    try {
      await redis.connect();
      await redis.ping();
    } finally {
      redis.disconnect();
    }
  });
  const postgresUp = await available(async () => {
    const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 2000 });
    await client.connect();
    await client.end();
  });

  const rows = [];
  const skipped = [];
  const ratios = [];
  const pairQuery = '/v2/projects?status=active&sort=-priority&limit=20';
  try {
    if (PAIRS.has(1)) {
      // Express, Fastify and Hono side by side in one run, each as bare route, whole stack, and
      // Plumbline middleware with the hand-written handler (the adapters' own cost).
      const [bare, stack, middleware, bareF, stackF, middlewareF, bareH, stackH, middlewareH] = await runPair(
        '1 stack vs bare',
        [
          get('bare Express route', 'bare', pairQuery),
          get('whole Plumbline stack', 'stack', pairQuery),
          get('Plumbline middleware, hand-written handler (diagnostic)', 'stack-own-handler', pairQuery),
          get('bare Fastify route', 'bare-fastify', pairQuery),
          get('whole Plumbline stack on Fastify', 'stack-fastify', pairQuery),
          get(
            'Plumbline middleware on Fastify, hand-written handler',
            'stack-own-handler-fastify',
            pairQuery,
          ),
          get('bare Hono route', 'bare-hono', pairQuery),
          get('whole Plumbline stack on Hono', 'stack-hono', pairQuery),
          get('Plumbline middleware on Hono, hand-written handler', 'stack-own-handler-hono', pairQuery),
        ],
      );
      rows.push(bare, stack, middleware, bareF, stackF, middlewareF, bareH, stackH, middlewareH);
      ratios.push({
        what: '#18 1. Plumbline middleware + hand-written handler / bare Express',
        value: middleware.rps / bare.rps,
        target: 0.85,
      });
      ratios.push({
        what: '#9 1. whole Plumbline stack / bare Express',
        value: stack.rps / bare.rps,
        target: 0.85,
      });
      ratios.push({
        what: '#16 1. Plumbline middleware on Fastify / bare Fastify',
        value: middlewareF.rps / bareF.rps,
        target: 0.8,
      });
      ratios.push({
        what: '#16 1. Plumbline middleware on Hono / bare Hono',
        value: middlewareH.rps / bareH.rps,
        target: 0.8,
      });
      ratios.push({
        what: '#16 1. whole stack on Fastify / whole stack on Express',
        value: stackF.rps / stack.rps,
        target: 2,
      });
      ratios.push({
        what: '#16 1. whole stack on Hono / whole stack on Express',
        value: stackH.rps / stack.rps,
        target: 2,
      });
    }
    if (PAIRS.has(2)) {
      const results = await runPair('2 JWT auth', [
        get('@plumbline/auth', 'auth-plumbline', '/projects'),
        get('express-oauth2-jwt-bearer', 'auth-oauth2', '/projects'),
        get('express-jwt', 'auth-express-jwt', '/projects'),
      ]);
      rows.push(...results);
      const [ours, ...others] = results;
      const fastest = Math.max(...others.map((r) => r.rps));
      ratios.push({
        what: '#9 2. @plumbline/auth / faster alternative',
        value: ours.rps / fastest,
        target: 1.4,
      });
    }
    if (PAIRS.has(3)) {
      if (redisUp) {
        try {
          const [plain, idem, floor] = await runPair('3 idempotent POST', [
            postOrder('POST without idempotency', 'post-plain'),
            postOrder('POST with idempotency (Redis)', 'post-idempotent'),
            postOrder('POST with two raw ioredis round trips (transport floor)', 'post-redis-floor'),
          ]);
          rows.push(plain, idem, floor);
          ratios.push({
            what: '#9 3. idempotent POST (Redis) / plain POST',
            value: idem.rps / plain.rps,
            target: 0.8,
          });
          // Time per request is 1 / req/s: the middleware's own time above the floor, in bare routes.
          ratios.push({
            what: "#18 3. idempotency's own cost above the transport floor, share of the bare route (by req/s)",
            value: plain.rps / idem.rps - plain.rps / floor.rps,
            target: 0.1,
            atMost: true,
          });
        } finally {
          await deleteKeys(`${RUN_ID}:`);
        }
      } else skipped.push(`3 (Redis not reachable at ${REDIS_URL})`);
    }
    if (PAIRS.has(4)) {
      if (redisUp) rows.push(...(await referenceService(postgresUp, skipped)));
      else skipped.push(`4 (Redis not reachable at ${REDIS_URL})`);
    }
    if (PAIRS.has(6)) {
      if (redisUp) {
        try {
          const [ours, peer, oursPost, peerPost] = await runPair('6 Plumbline vs peer stack', [
            get('Plumbline stack, GET', 'stack', pairQuery, 'peer-get'),
            get(
              'peer stack (oauth2-jwt-bearer, negotiator, qs, http-errors), GET',
              'peer-get',
              pairQuery,
              'peer-get',
            ),
            postOrder('Plumbline idempotency (Redis), POST', 'post-idempotent'),
            postOrder('express-idempotency + its Redis adapter, POST', 'peer-post'),
          ]);
          rows.push(ours, peer, oursPost, peerPost);
          ratios.push({
            what: '#18 6. Plumbline stack / peer stack, GET',
            value: ours.rps / peer.rps,
            target: 1.5,
          });
          ratios.push({
            what: '#18 6. Plumbline / peer stack, idempotent POST (Redis)',
            value: oursPost.rps / peerPost.rps,
            target: 1.5,
          });
        } finally {
          await deleteKeys(`${RUN_ID}:`);
        }
      } else skipped.push(`6 (Redis not reachable at ${REDIS_URL})`);
    }
    if (PAIRS.has(7)) {
      const [ours, hand] = await runPair('7 in-memory collection', [
        get('collectionQuery + applyToArray + buildPage', 'collection-plumbline', pairQuery, 'collection'),
        get('qs + hand validation + hand filter/sort/page', 'collection-hand', pairQuery, 'collection'),
      ]);
      rows.push(ours, hand);
      ratios.push({
        what: '#18 7. in-memory collection route / hand-written, same semantics',
        value: ours.rps / hand.rps,
        target: 0.8,
      });
    }
    if (PAIRS.has(8)) {
      if (redisUp && postgresUp) {
        const [keyless, keyed] = await referenceService(postgresUp, skipped, {
          title: '8 reference service POST, keys in Redis',
          stores: ['shared'],
          get: false,
          sqlite: false,
          keyless: true,
        });
        rows.push(keyless, keyed);
        ratios.push({
          what: '#18 8. reference service (PostgreSQL, keys in Redis): creating POST with a key / without',
          value: keyed.rps / keyless.rps,
          target: 0.9,
        });
      } else skipped.push(`8 (Redis or PostgreSQL not reachable)`);
    }
    if (PAIRS.has(9)) {
      // #21: the reference service on each framework, GET and idempotent POST, SQLite and PostgreSQL.
      const results = await referenceService(postgresUp, skipped, {
        title: '9 reference service per framework',
        stores: [undefined],
        get: true,
        frameworks: FRAMEWORKS,
      });
      rows.push(...results);
      const getOn = (framework) =>
        results.find((r) => r.name.startsWith(`reference service, ${framework}, SQLite: GET`));
      const express = getOn('express');
      for (const framework of FRAMEWORKS.filter((f) => f !== 'express')) {
        const other = getOn(framework);
        if (express && other)
          ratios.push({
            what: `#21 9. reference service GET on SQLite, ${framework} / express`,
            value: other.rps / express.rps,
            target: 1.5,
          });
      }
    }
    if (PAIRS.has(5)) {
      if (redisUp) {
        const results = await referenceService(postgresUp, skipped, {
          title: '5 idempotency store',
          stores: ['database', 'shared'],
          get: false,
        });
        rows.push(...results);
        for (const label of ['SQLite', 'PostgreSQL']) {
          const [sql, redis] = ['database', 'shared'].map((store) =>
            results.find((r) => r.name.includes(`${label}, IDEMPOTENCY_STORE=${store}`)),
          );
          if (sql && redis)
            ratios.push({
              what: `5. ${label}: keys in the row's transaction / keys in Redis (diagnostic)`,
              value: sql.rps / redis.rps,
              target: 0.8,
            });
        }
      } else skipped.push(`5 (Redis not reachable at ${REDIS_URL})`);
    }
  } finally {
    auth.close();
    for (const child of children) child.kill('SIGKILL');
  }
  report(rows, ratios, skipped, Date.now() - started);
}

/**
 * Pair 4: the reference service on SQLite and on PostgreSQL, GET a filtered sorted page and POST
 * create. Pair 5 (`stores`): only the POST, once per idempotency store.
 */
async function referenceService(
  postgresUp,
  skipped,
  pair = { title: '4 reference service', stores: [undefined], get: true, sqlite: true, keyless: false },
) {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const baseEnv = {
    HOST: '127.0.0.1',
    PORT: '0',
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    REDIS_URL,
    SIGNING_KEY_JWK: JSON.stringify(await exportJWK(privateKey)),
    CURSOR_SECRET: randomBytes(32).toString('hex'),
    RATE_LIMIT_PER_MINUTE: '1000000',
  };
  const schema = `${RUN_ID}_ref`.toLowerCase();
  let admin;
  if (postgresUp) {
    admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    for (const n of pair.stores.keys())
      for (const framework of pair.frameworks ?? [''])
        await admin.query(`CREATE SCHEMA ${schema}${n}${framework}`);
  } else skipped.push(`${pair.title} on PostgreSQL (not reachable at ${DATABASE_URL})`);
  const services = [];
  // Pair 9 runs every service once per framework; the label then starts with the framework.
  const frameworks = pair.frameworks ?? [undefined];
  for (const [n, store] of pair.stores.entries()) {
    const suffix = store ? `, IDEMPOTENCY_STORE=${store}` : '';
    const storeEnv = store ? { IDEMPOTENCY_STORE: store } : {};
    for (const framework of frameworks) {
      const on = framework ? `${framework}, ` : '';
      const env = framework ? { ...storeEnv, FRAMEWORK: framework } : storeEnv;
      const keys = `${RUN_ID}:${framework ?? ''}`;
      if (pair.sqlite !== false)
        services.push({
          label: `${on}SQLite${suffix}`,
          env: { DATABASE_FILE: ':memory:', REDIS_KEY_PREFIX: `${keys}sqlite${n}:`, ...env },
        });
      if (postgresUp) {
        const url = new URL(DATABASE_URL);
        // Each framework's service has its own schema: the POSTs create uniquely named projects.
        url.searchParams.set('options', `-c search_path=${schema}${n}${framework ?? ''}`);
        services.push({
          label: `${on}PostgreSQL${suffix}`,
          env: { DATABASE_URL: url.toString(), REDIS_KEY_PREFIX: `${keys}pg${n}:`, ...env },
        });
      }
    }
  }
  const running = [];
  try {
    for (const service of services) {
      const { child, output } = await startProcess(
        [SERVICE_MAIN],
        { ...baseEnv, ...service.env },
        /API key, read-write:\s+(\S+)/,
      );
      const url = /listening on (http:\/\/\S+)/.exec(output())?.[1];
      const apiKey = /API key, read-write:\s+(\S+)/.exec(output())?.[1];
      running.push({ ...service, child, url, apiKey });
    }
    const variants = [];
    for (const service of running) {
      const server = async () => ({ url: service.url, pid: service.child.pid, stop: async () => {} });
      const headers = { 'x-api-key': service.apiKey };
      if (pair.get)
        variants.push({
          name: `reference service, ${service.label}: GET /v2/tasks?status=todo&sort=-priority`,
          path: '/v2/tasks?status=todo&sort=-priority',
          expect: 200,
          start: server,
          fetchInit: () => ({ headers }),
          cannon: () => ({ headers }),
        });
      let n = 0;
      if (pair.keyless) {
        // POST /v2/projects requires a key; a task's creating POST takes one or none.
        const made = await fetch(`${service.url}/v2/projects`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': `${RUN_ID}-parent` },
          body: JSON.stringify({ name: `bench parent ${RUN_ID}` }),
        });
        if (made.status !== 201) throw new Error(`parent project: ${made.status} ${await made.text()}`);
        const tasks = `/v2/projects/${(await made.json()).id}/tasks`;
        let t = 0;
        const task = (withKey) => (request) => {
          t += 1;
          if (withKey) request.headers = { ...request.headers, 'idempotency-key': `${RUN_ID}-task-${t}` };
          request.body = JSON.stringify({ title: `bench task ${t}` });
          return request;
        };
        for (const withKey of [false, true])
          variants.push({
            name: `reference service, ${service.label}: POST ${tasks.replace(/projects\/[^/]+/, 'projects/{id}')} ${withKey ? 'with a new' : 'without an'} idempotency key`,
            path: tasks,
            expect: 201,
            start: server,
            fetchInit: () => ({
              method: 'POST',
              headers: {
                ...headers,
                'content-type': 'application/json',
                ...(withKey ? { 'idempotency-key': `${RUN_ID}-task-sanity` } : {}),
              },
              body: '{"title":"bench sanity"}',
            }),
            cannon: () => ({
              method: 'POST',
              headers: { ...headers, 'content-type': 'application/json' },
              body: '{"title":"bench task"}',
              requests: [{ setupRequest: task(withKey) }],
            }),
          });
        continue;
      }
      variants.push({
        name: `reference service, ${service.label}: POST /v2/projects`,
        path: '/v2/projects',
        expect: 201,
        start: server,
        fetchInit: () => ({
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': `${RUN_ID}-sanity` },
          body: '{"name":"bench sanity"}',
        }),
        cannon: () => ({
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: '{"name":"bench project"}',
          requests: [
            {
              setupRequest: (request) => {
                // Project names are unique: every request creates a different one.
                n += 1;
                request.headers = {
                  ...request.headers,
                  'idempotency-key': `${service.label.replace(/[^A-Za-z0-9]+/g, '_')}-${RUN_ID}-${n}`,
                };
                request.body = JSON.stringify({ name: `bench ${service.label} ${n}` });
                return request;
              },
            },
          ],
        }),
      });
    }
    return await runPair(pair.title, variants);
  } finally {
    for (const service of running) await stopProcess(service.child);
    await deleteKeys(`${RUN_ID}:`);
    if (admin) {
      for (const n of pair.stores.keys())
        for (const framework of pair.frameworks ?? [''])
          await admin.query(`DROP SCHEMA IF EXISTS ${schema}${n}${framework} CASCADE`);
      await admin.end();
    }
  }
}

let loadAtStart = 0;

function machine() {
  const cpu = cpus();
  return `${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB RAM, Linux ${release()}, Node.js ${process.version}; 1-minute load average ${loadAtStart.toFixed(1)} at the start and ${loadavg()[0].toFixed(1)} at the end (other work on the machine lowers absolute figures and adds noise to ratios)`;
}

function report(rows, ratios, skipped, elapsedMs) {
  const frameworks = PAIRS.has(9) ? `BENCH_FRAMEWORKS=${FRAMEWORKS.join(',')} ` : '';
  const command = `${frameworks}BENCH_PAIRS=${[...PAIRS].join(',')} BENCH_DURATION=${DURATION} BENCH_ROUNDS=${ROUNDS} BENCH_CONNECTIONS=${CONNECTIONS} node apps/system-tests/bench/run.mjs`;
  const date = new Date().toISOString();
  const mib = (bytes) => (bytes ? `${Math.round(bytes / 2 ** 20)} MiB` : '-');
  const groups = new Map();
  for (const row of rows) groups.set(row.pair, [...(groups.get(row.pair) ?? []), row]);
  const table = [
    '| pair | variant | req/s | p50 ms | p99 ms | ratio to first | non-2xx/errors | peak RSS |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const [pair, list] of groups) {
    const first = list[0];
    for (const row of list) {
      table.push(
        `| ${pair} | ${row.name} | ${Math.round(row.rps).toLocaleString('en')} | ${row.p50} | ${row.p99} | ${(row.rps / first.rps).toFixed(2)} | ${row.bad}/${row.total} | ${mib(row.peakRss)} |`,
      );
    }
  }
  const targets = [
    '| target | measured | required | met |',
    '|---|---:|---:|---|',
    ...ratios.map(
      (r) =>
        `| ${r.what} | ${r.value.toFixed(2)} | ${r.atMost ? '≤' : '≥'} ${r.target} | ${(r.atMost ? r.value <= r.target : r.value >= r.target) ? 'yes' : '**no**'} |`,
    ),
  ];
  const text = [
    '# Load benchmarks (apps/system-tests)',
    '',
    `Command (from the repository root, after \`pnpm turbo run build\`): \`${command}\``,
    '',
    `Date: ${date}. Machine: ${machine()}. Run took ${Math.round(elapsedMs / 1000)} s.`,
    '',
    `autocannon ${CONNECTIONS} connections, no pipelining, ${DURATION} s per run, ${ROUNDS} rounds per variant run alternately (A, B, A, B, ...) after a 1 s warm-up; req/s is the mean of the rounds, p50/p99 the median of the rounds' values. Servers run in their own processes on 127.0.0.1; the load generator shares the machine's cores with them, so absolute figures are low and ratios are what matters.`,
    '',
    ...table,
    '',
    ...targets,
    '',
    ...(skipped.length ? [`Skipped: ${skipped.join('; ')}.`, ''] : []),
  ].join('\n');
  writeFileSync(join(here, 'RESULTS.md'), text);
  process.stdout.write(`\n${text}\nWritten to apps/system-tests/bench/RESULTS.md\n`);
}

runBenchmark(main);
