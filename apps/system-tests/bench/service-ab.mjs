#!/usr/bin/env node
/**
 * Two builds of the reference service side by side: the filtered GET on SQLite (the request of pair 9)
 * against each build on each framework, in interleaved rounds, so a change to the service is measured
 * against the code before it on the same machine in the same minutes. Make the "before" build in a
 * worktree:
 *
 *   git worktree add /tmp/before <commit> && (cd /tmp/before && pnpm install --offline && pnpm turbo run build)
 *   AB_BEFORE=/tmp/before/apps/reference-service/dist/main.mjs pnpm exec node apps/system-tests/bench/service-ab.mjs
 *
 * Env: AB_AFTER (default: this checkout's build), BENCH_FRAMEWORKS (express,fastify,hono),
 * BENCH_DURATION (5 s), BENCH_ROUNDS (3), BENCH_CONNECTIONS (10), LOG_LEVEL (warn, as pair 9).
 * Prints the median req/s of each, after / before per framework, and each framework over Express.
 */
import { randomBytes } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { exportJWK, generateKeyPair } from 'jose';
import { runBenchmark, startProcess, stopProcess } from './processes.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const before = process.env.AB_BEFORE;
if (!before) {
  process.stderr.write('Set AB_BEFORE to the main.mjs of the build to compare with (see the header).\n');
  process.exit(2);
}
const BUILDS = {
  before,
  after: process.env.AB_AFTER ?? resolve(here, '../../reference-service/dist/main.mjs'),
};
const FRAMEWORKS = (process.env.BENCH_FRAMEWORKS ?? 'express,fastify,hono').split(',');
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const PATH = '/v2/tasks?status=todo&sort=-priority';

async function start(env, framework, build, main) {
  const { child, output } = await startProcess(
    [main],
    { ...env, FRAMEWORK: framework, REDIS_KEY_PREFIX: `ab_${process.pid}_${framework}_${build}:` },
    /API key, read-write:\s+(\S+)/,
  );
  const url = /listening on (http:\/\/\S+)/.exec(output())?.[1];
  if (url === undefined) throw new Error(`${framework} (${build}) printed no address:\n${output()}`);
  const headers = { 'x-api-key': /API key, read-write:\s+(\S+)/.exec(output())[1] };
  return { framework, build, child, url, headers, rates: [] };
}

const load = (service, duration) =>
  autocannon({ url: service.url + PATH, headers: service.headers, connections: CONNECTIONS, duration });

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main() {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const env = {
    HOST: '127.0.0.1',
    PORT: '0',
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    SIGNING_KEY_JWK: JSON.stringify(await exportJWK(privateKey)),
    CURSOR_SECRET: randomBytes(32).toString('hex'),
    RATE_LIMIT_PER_MINUTE: '1000000',
    DATABASE_FILE: ':memory:',
  };
  const services = [];
  try {
    for (const framework of FRAMEWORKS)
      for (const [build, file] of Object.entries(BUILDS))
        services.push(await start(env, framework, build, file));
    for (const service of services) {
      const res = await fetch(service.url + PATH, { headers: service.headers });
      if (res.status !== 200) throw new Error(`${service.framework} (${service.build}): ${res.status}`);
      await load(service, 2); // warm-up
    }
    for (let round = 0; round < ROUNDS; round++)
      for (const service of services) {
        const result = await load(service, DURATION);
        if (result.non2xx || result.errors)
          throw new Error(
            `${service.framework} (${service.build}): ${result.non2xx} non-2xx, ${result.errors} errors`,
          );
        service.rates.push(result.requests.average);
      }
  } finally {
    await Promise.all(services.map((service) => stopProcess(service.child)));
  }

  const of = (framework, build) => services.find((s) => s.framework === framework && s.build === build);
  const lines = [`GET ${PATH} on SQLite, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${DURATION} s`];
  for (const s of services)
    lines.push(
      `${s.framework.padEnd(8)} ${s.build.padEnd(6)} ${s.rates.map((r) => Math.round(r)).join(' / ')}  median ${Math.round(median(s.rates))} req/s`,
    );
  for (const framework of FRAMEWORKS)
    lines.push(
      `${framework}: after / before ${(median(of(framework, 'after').rates) / median(of(framework, 'before').rates)).toFixed(2)}`,
    );
  if (FRAMEWORKS.includes('express'))
    for (const framework of FRAMEWORKS.filter((f) => f !== 'express'))
      for (const build of Object.keys(BUILDS))
        lines.push(
          `${framework} / express, ${build}: ${(median(of(framework, build).rates) / median(of('express', build).rates)).toFixed(2)}`,
        );
  process.stdout.write(`${lines.join('\n')}\n`);
}

runBenchmark(main);
