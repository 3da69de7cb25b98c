#!/usr/bin/env node
/**
 * Instructions per request of the pair-1 benchmark servers, counted by valgrind (callgrind) in the
 * server process: unlike req/s, the count barely moves with other load on a shared machine, so it
 * is the figure to compare before and after a change. Each variant of server.mjs is started under
 * callgrind with counting off, warmed up with WARM requests, then counted over COUNT requests
 * (autocannon, 4 connections). With PROFILE_CPU=1 the same fixed load is also run once without
 * valgrind under `node --cpu-prof` and the top JavaScript functions by self time are printed
 * (callgrind cannot name JIT-compiled code).
 *
 *   node apps/system-tests/bench/profile-callgrind.mjs [variant ...]
 *   PROFILE_WARM=3000 PROFILE_COUNT=2000 PROFILE_CPU=1 node apps/system-tests/bench/profile-callgrind.mjs bare stack
 *
 * Needs valgrind and a built workspace (`pnpm turbo run build`).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { startBenchAuth } from './bench-auth.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const WARM = Number(process.env.PROFILE_WARM ?? 3000);
const COUNT = Number(process.env.PROFILE_COUNT ?? 2000);
const CPU = process.env.PROFILE_CPU === '1';
const PATH = '/v2/projects?status=active&sort=-priority&limit=20';
const variants = process.argv.slice(2).length
  ? process.argv.slice(2)
  : [
      'bare',
      'stack',
      'stack-own-handler',
      'bare-fastify',
      'stack-fastify',
      'stack-own-handler-fastify',
      'bare-hono',
      'stack-hono',
      'stack-own-handler-hono',
    ];

function start(command, args, env) {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let errors = '';
  child.stderr.on('data', (chunk) => {
    errors += chunk;
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${errors.slice(-2000)}`)));
    child.stdout.on('data', (chunk) => {
      const match = /ready (\d+)/.exec(chunk.toString());
      if (match) resolve({ child, port: Number(match[1]) });
    });
  });
}

async function load(port, token, amount) {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}${PATH}`,
    connections: 4,
    amount,
    timeout: 600,
    headers: { authorization: `Bearer ${token}` },
  });
  const bad = result.non2xx + result.errors;
  if (bad > 0 || result.requests.total !== amount) {
    throw new Error(`${bad} failed requests, ${result.requests.total} of ${amount} answered`);
  }
}

async function stop(child) {
  child.removeAllListeners('exit');
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

async function instructions(variant, auth) {
  const dir = mkdtempSync(join(tmpdir(), 'profile-callgrind-'));
  const out = join(dir, 'callgrind.out');
  const { child, port } = await start(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      `--callgrind-out-file=${out}`,
      process.execPath,
      join(here, 'server.mjs'),
      variant,
    ],
    { PATH: process.env.PATH ?? '', ...auth.env },
  );
  try {
    await load(port, auth.token, WARM);
    execFileSync('callgrind_control', ['--instr=on', String(child.pid)], { stdio: 'ignore' });
    await load(port, auth.token, COUNT);
    execFileSync('callgrind_control', ['--dump', String(child.pid)], { stdio: 'ignore' });
  } finally {
    // Also on a failed load (timeouts on a loaded machine): no server is left running.
    await stop(child);
  }
  const dump = readdirSync(dir).find((name) => name.endsWith('.1'));
  const text = readFileSync(join(dir, dump), 'utf8');
  const total = Number(/^totals:\s+(\d+)/m.exec(text)?.[1]);
  const annotate = execFileSync('callgrind_annotate', ['--threshold=90', join(dir, dump)], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  rmSync(dir, { recursive: true, force: true });
  const top = annotate
    .split('\n')
    .filter((line) => /^\s*[\d,]+ \(/.test(line))
    .slice(1, 13)
    .map((line) =>
      line.replace(/^\s*([\d,]+)/, (_, n) => String(Math.round(Number(n.replaceAll(',', '')) / COUNT))),
    );
  return { total: total / COUNT, top };
}

async function cpuProfile(variant, auth) {
  const dir = mkdtempSync(join(tmpdir(), 'profile-cpu-'));
  const { child, port } = await start(
    process.execPath,
    ['--cpu-prof', `--cpu-prof-dir=${dir}`, join(here, 'server.mjs'), variant],
    { PATH: process.env.PATH ?? '', ...auth.env },
  );
  await load(port, auth.token, WARM);
  await load(port, auth.token, COUNT * 5);
  child.removeAllListeners('exit');
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  rmSync(dir, { recursive: true, force: true });
  const hits = new Map();
  for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  const byFunction = new Map();
  let busy = 0;
  for (const node of profile.nodes) {
    const count = hits.get(node.id) ?? 0;
    const { functionName, url, lineNumber } = node.callFrame;
    if (!count || functionName === '(idle)' || functionName === '(program)') continue;
    busy += count;
    const file = url.replace(/^.*\/(node_modules\/(\.pnpm\/[^/]+\/node_modules\/)?|packages\/)/, '');
    const name = `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + count);
  }
  return [...byFunction]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 20)
    .map(([name, count]) => `${((100 * count) / busy).toFixed(1).padStart(5)} %  ${name}`);
}

const auth = await startBenchAuth();
const rows = [];
try {
  for (const variant of variants) {
    const { total, top } = await instructions(variant, auth);
    rows.push([variant, total]);
    process.stdout.write(`\n## ${variant}: ${Math.round(total / 1000)} k instructions / request\n`);
    process.stdout.write(`${top.join('\n')}\n`);
    if (CPU)
      process.stdout.write(
        `-- self time (cpu-prof, busy samples)\n${(await cpuProfile(variant, auth)).join('\n')}\n`,
      );
  }
} finally {
  auth.close();
}
process.stdout.write(
  `\n${WARM} warm-up + ${COUNT} counted requests of GET ${PATH}, Node ${process.version}\n`,
);
process.stdout.write('| variant | instructions / request |\n|---|---:|\n');
for (const [variant, total] of rows) process.stdout.write(`| ${variant} | ${Math.round(total / 1000)} k |\n`);
