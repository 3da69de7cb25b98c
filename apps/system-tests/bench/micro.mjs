#!/usr/bin/env node
/**
 * Issue 9, item 5: every package's core micro-benchmarks (their `bench/*.bench.ts`) in one table.
 * Runs `vitest bench --run --outputJson` once from the repository root and writes bench/MICRO.md.
 *
 *   node apps/system-tests/bench/micro.mjs
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, release, tmpdir, totalmem } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../../..');
const dir = mkdtempSync(join(tmpdir(), 'bench-micro-'));
const out = join(dir, 'bench.json');
const started = Date.now();
const run = spawnSync(
  process.execPath,
  [join(root, 'node_modules/vitest/vitest.mjs'), 'bench', '--run', '--outputJson', out],
  { cwd: root, stdio: ['ignore', 'ignore', 'inherit'], timeout: 300_000 },
);
if (run.status !== 0) {
  process.stderr.write(`vitest bench failed (${run.status ?? run.signal})\n`);
  process.exit(1);
}
const report = JSON.parse(readFileSync(out, 'utf8'));
rmSync(dir, { recursive: true, force: true });

const rows = ['| package | group | benchmark | ops/s | mean | p99 |', '|---|---|---|---:|---:|---:|'];
const time = (ms) => (ms >= 1 ? `${ms.toFixed(2)} ms` : `${(ms * 1000).toFixed(1)} µs`);
for (const file of report.files ?? []) {
  const pkg = relative(root, file.filepath).split('/').slice(0, 2).join('/');
  for (const group of file.groups ?? []) {
    for (const bench of group.benchmarks ?? []) {
      rows.push(
        `| ${pkg} | ${group.fullName.replace(/^.*? > /, '')} | ${bench.name} | ${Math.round(bench.hz).toLocaleString('en')} | ${time(bench.mean)} | ${time(bench.p99)} |`,
      );
    }
  }
}
const cpu = cpus();
const text = [
  '# Core micro-benchmarks of every package',
  '',
  `Command: \`node apps/system-tests/bench/micro.mjs\` (runs \`vitest bench --run --outputJson\` from the repository root). Date: ${new Date().toISOString()}. Machine: ${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB RAM, Linux ${release()}, Node.js ${process.version}. Took ${Math.round((Date.now() - started) / 1000)} s.`,
  '',
  ...rows,
  '',
].join('\n');
writeFileSync(join(here, 'MICRO.md'), text);
process.stdout.write(`${text}\nWritten to apps/system-tests/bench/MICRO.md\n`);
