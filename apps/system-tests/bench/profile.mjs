#!/usr/bin/env node
/**
 * CPU profile of benchmark servers under load, to explain a missed target: runs each variant named
 * on the command line (default: stack post-idempotent) with `node --cpu-prof`, loads it with
 * autocannon for BENCH_DURATION seconds, and writes the self time per module and per function to
 * bench/PROFILE.md.
 *
 *   node apps/system-tests/bench/profile.mjs [variant ...]
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { startBenchAuth } from './bench-auth.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const variants = process.argv.slice(2).length ? process.argv.slice(2) : ['stack', 'post-idempotent'];
const RUN_ID = `benchprof_${process.pid}_${randomBytes(3).toString('hex')}`;

/** Where a call frame's code lives: a package, Node.js internals, or the benchmark itself. */
function moduleOf(url) {
  if (!url) return '(native / GC / idle)';
  if (url.startsWith('node:')) return 'node: internals';
  const workspace = /\/packages\/([^/]+)\/dist\//.exec(url);
  if (workspace) return `@plumbline/${workspace[1]}`;
  const pkg = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  return url.replace(/^file:\/\/.*\//, '');
}

function summarise(profile) {
  const total = profile.samples.length || 1;
  const hits = new Map(profile.nodes.map((node) => [node.id, 0]));
  for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  const byModule = new Map();
  const byFunction = new Map();
  for (const node of profile.nodes) {
    const count = hits.get(node.id) ?? 0;
    if (!count) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)' || functionName === '(program)') continue;
    const mod = moduleOf(url);
    byModule.set(mod, (byModule.get(mod) ?? 0) + count);
    const file = url ? url.slice(url.lastIndexOf('/') + 1) : '';
    const fn = `${functionName || '(anonymous)'} (${url ? `${mod} ${file}:${lineNumber + 1}` : mod})`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + count);
  }
  const top = (map, n) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, count]) => `| ${name} | ${((100 * count) / total).toFixed(1)} % |`);
  return { modules: top(byModule, 12), functions: top(byFunction, 15) };
}

async function main() {
  const auth = await startBenchAuth();
  const token = auth.token;
  const sections = [
    '# CPU profiles of benchmark servers under load',
    '',
    `Command: \`node apps/system-tests/bench/profile.mjs ${variants.join(' ')}\` (${new Date().toISOString()}); ${DURATION} s of autocannon, 10 connections. Self time, as a share of all samples (idle excluded from the tables, included in the total).`,
    '',
  ];
  for (const variant of variants) {
    const dir = mkdtempSync(join(tmpdir(), 'bench-prof-'));
    const child = spawn(
      process.execPath,
      ['--cpu-prof', `--cpu-prof-dir=${dir}`, join(here, 'server.mjs'), variant],
      {
        env: {
          PATH: process.env.PATH ?? '',
          ...auth.env,
          REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
          BENCH_REDIS_PREFIX: `${RUN_ID}:idem:`,
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const port = await new Promise((resolve) => {
      child.stdout.on('data', (chunk) => {
        const match = /ready (\d+)/.exec(chunk.toString());
        if (match) resolve(Number(match[1]));
      });
    });
    const post = variant.startsWith('post');
    let n = 0;
    await new Promise((resolve, reject) =>
      autocannon(
        {
          url: `http://127.0.0.1:${port}${post ? '/orders' : '/v2/projects?status=active&sort=-priority&limit=20'}`,
          connections: 10,
          duration: DURATION,
          method: post ? 'POST' : 'GET',
          headers: post ? { 'content-type': 'application/json' } : { authorization: `Bearer ${token}` },
          ...(post
            ? {
                body: '{"sku":"A-1","qty":2}',
                requests: [
                  {
                    setupRequest: (request) => {
                      n += 1;
                      request.headers = { ...request.headers, 'idempotency-key': `${RUN_ID}-${n}` };
                      return request;
                    },
                  },
                ],
              }
            : {}),
        },
        (error, result) => (error ? reject(error) : resolve(result)),
      ),
    );
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
    const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
    if (!file) throw new Error(`no profile written for ${variant}`);
    const { modules, functions } = summarise(JSON.parse(readFileSync(join(dir, file), 'utf8')));
    rmSync(dir, { recursive: true, force: true });
    sections.push(
      `## ${variant}`,
      '',
      '| module | self time |',
      '|---|---:|',
      ...modules,
      '',
      '| function | self time |',
      '|---|---:|',
      ...functions,
      '',
    );
  }
  auth.close();
  if (variants.some((v) => v.startsWith('post'))) {
    const { Redis } = await import('ioredis');
    const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${RUN_ID}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await redis.unlink(...keys);
    } while (cursor !== '0');
    redis.disconnect();
  }
  writeFileSync(join(here, 'PROFILE.md'), sections.join('\n'));
  process.stdout.write(`${sections.join('\n')}\nWritten to apps/system-tests/bench/PROFILE.md\n`);
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
