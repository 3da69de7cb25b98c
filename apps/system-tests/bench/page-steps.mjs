#!/usr/bin/env node
/**
 * Instructions per call of each step of the in-memory collection page that the pair-1 `stack`
 * routes serve (`GET /v2/projects?status=active&sort=-priority&limit=20` over the 200 projects of
 * projects.mjs): `parseQuery`, `applyToArray`, `buildPage`, the three with `JSON.stringify` of the
 * body (`page`), and the hand-written filter + sort + slice + stringify of the bare routes (`hand`).
 * Each step runs in its own Node process under callgrind, once with 0 and once with COUNT calls
 * after 5,000 warm-up calls; the difference over COUNT is the step's figure, so Node's start-up and
 * the warm-up cancel out. Counts, unlike timings, do not move with other load on the machine.
 *
 *   node apps/system-tests/bench/page-steps.mjs [step ...]    (default: all; COUNT=20000)
 *
 * Needs valgrind and a built workspace (`pnpm turbo run build`).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const STEPS = ['parse', 'apply', 'build', 'page', 'hand'];
const COUNT = Number(process.env.COUNT ?? 20_000);
const WARMUP = 5_000;

async function child(step, count) {
  const { applyToArray, buildPage, defineCollection, parseQuery } = await import('@plumbline/query-parser');
  const { FIELDS, PROJECTS } = await import('./projects.mjs');
  const projects = defineCollection({ fields: FIELDS, defaultSort: '-created_at' });
  const text = 'status=active&sort=-priority&limit=20';
  const query = parseQuery(projects, text);
  const rows = applyToArray(query, PROJECTS);
  const byPriority = (a, b) => b.priority - a.priority;
  const run = {
    parse: () => parseQuery(projects, text).pagination.limit,
    apply: () => applyToArray(query, PROJECTS).length,
    build: () => buildPage(query, rows, { baseUrl: '/v2/projects' }).link.length,
    page: () => {
      const q = parseQuery(projects, text);
      const page = buildPage(q, applyToArray(q, PROJECTS), { baseUrl: '/v2/projects' });
      return JSON.stringify(page.body).length + page.link.length;
    },
    hand: () =>
      JSON.stringify({
        data: PROJECTS.filter((p) => p.status === 'active')
          .sort(byPriority)
          .slice(0, 20),
      }).length,
  }[step];
  let sink = 0;
  for (let i = 0; i < WARMUP + count; i++) sink += run();
  if (sink < 0) process.stdout.write(`${sink}\n`);
}

/** Total instructions of one child process (every thread), from callgrind's summary on stderr. */
function instructions(step, count) {
  const args = [
    '--predictable',
    '--max-semi-space-size=64',
    fileURLToPath(import.meta.url),
    '--child',
    step,
    String(count),
  ];
  const { status, stderr } = spawnSync(
    'valgrind',
    ['--tool=callgrind', '--callgrind-out-file=/dev/null', process.execPath, ...args],
    { encoding: 'utf8', maxBuffer: 1 << 26 },
  );
  const totals = [...stderr.matchAll(/Collected : (\d+)/g)].map((m) => Number(m[1]));
  if (status !== 0 || totals.length === 0) throw new Error(`${step}: valgrind failed\n${stderr.slice(-800)}`);
  return totals.reduce((a, b) => a + b, 0);
}

if (process.argv[2] === '--child') {
  await child(process.argv[3], Number(process.argv[4]));
} else {
  const steps = process.argv.length > 2 ? process.argv.slice(2) : STEPS;
  process.stdout.write(
    `| step | instructions / call (Node ${process.version}, ${COUNT} calls) |\n|---|---:|\n`,
  );
  for (const step of steps) {
    const per = (instructions(step, COUNT) - instructions(step, 0)) / COUNT;
    process.stdout.write(`| ${step} | ${Math.round(per).toLocaleString('en')} |\n`);
  }
}
