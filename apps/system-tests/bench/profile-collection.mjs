#!/usr/bin/env node
/**
 * The in-memory collection route without HTTP: `applyToArray` + `buildPage` against the harness's
 * hand-written filter/sort (server.mjs `handWrittenPage`), on the pair-1 query over the same 200
 * rows. Prints instructions per call, counted by callgrind as the difference between two runs
 * (N and 2N calls after the same warm-up), so start-up and JIT warm-up cancel out.
 *
 *   node apps/system-tests/bench/profile-collection.mjs [calls]
 *   node apps/system-tests/bench/profile-collection.mjs --time [rounds]   (CPU time, no valgrind)
 *
 * Needs valgrind and a built @plumbline/query-parser. Under `--run <variant> <calls>` it is the
 * measured program itself.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyToArray, buildPage, defineCollection, parseQuery } from '@plumbline/query-parser';
import { FIELDS, PROJECTS } from './projects.mjs';

const projects = defineCollection({ fields: FIELDS, defaultSort: '-created_at' });
const QUERY = 'status=active&sort=-priority&limit=20';

function handWrittenPage({ status, sort, limit }) {
  const descending = typeof sort === 'string' && sort.startsWith('-');
  const field = typeof sort === 'string' ? sort.replace(/^-/, '') : 'created_at';
  const page = PROJECTS.filter((p) => status === undefined || p.status === status)
    .sort((a, b) => (a[field] < b[field] ? -1 : a[field] > b[field] ? 1 : 0) * (descending ? -1 : 1))
    .slice(0, Number(limit ?? 20));
  return { data: page };
}

const query = parseQuery(projects, QUERY);
const params = Object.fromEntries(new URLSearchParams(QUERY));
const variants = {
  // Each ends in JSON.stringify, as the route does.
  'hand-written': () => JSON.stringify(handWrittenPage(params)),
  plumbline: () =>
    JSON.stringify(buildPage(query, applyToArray(query, PROJECTS), { baseUrl: '/v2/projects' }).body),
  applyToArray: () => applyToArray(query, PROJECTS).length,
};

if (process.argv[2] === '--time') {
  // CPU time per call, the variants interleaved in rounds of 2 000 calls (noisy under load).
  const rounds = Number(process.argv[3] ?? 20);
  const spent = Object.fromEntries(Object.keys(variants).map((name) => [name, 0]));
  for (let round = 0; round < rounds + 2; round++) {
    for (const [name, run] of Object.entries(variants)) {
      const start = process.cpuUsage();
      for (let i = 0; i < 2000; i++) run();
      const used = process.cpuUsage(start);
      if (round >= 2) spent[name] += (used.user + used.system) / 2000 / rounds;
    }
  }
  for (const [name, us] of Object.entries(spent)) process.stdout.write(`| ${name} | ${us.toFixed(1)} µs |\n`);
  process.stdout.write(`hand-written / plumbline: ${(spent['hand-written'] / spent.plumbline).toFixed(2)}\n`);
} else if (process.argv[2] === '--run') {
  const run = variants[process.argv[3]];
  const calls = Number(process.argv[4]);
  let sink = 0;
  for (let i = 0; i < 20_000; i++) sink += Number(run() !== undefined);
  for (let i = 0; i < calls; i++) sink += Number(run() !== undefined);
  if (sink === 0) process.exit(1);
} else {
  const calls = Number(process.argv[2] ?? 2000);
  const self = fileURLToPath(import.meta.url);
  const count = (variant, n) => {
    const dir = mkdtempSync(join(tmpdir(), 'profile-collection-'));
    const out = join(dir, 'out');
    execFileSync(
      'valgrind',
      [
        '--tool=callgrind',
        `--callgrind-out-file=${out}`,
        process.execPath,
        self,
        '--run',
        variant,
        String(n),
      ],
      { stdio: 'ignore' },
    );
    const total = Number(/^totals:\s+(\d+)/m.exec(readFileSync(out, 'utf8'))?.[1]);
    rmSync(dir, { recursive: true, force: true });
    return total;
  };
  const rows = {};
  for (const variant of Object.keys(variants)) {
    rows[variant] = (count(variant, 2 * calls) - count(variant, calls)) / calls;
    process.stdout.write(`| ${variant} | ${Math.round(rows[variant] / 100) / 10} k |\n`);
  }
  process.stdout.write(`hand-written / plumbline: ${(rows['hand-written'] / rows.plumbline).toFixed(2)}\n`);
}
