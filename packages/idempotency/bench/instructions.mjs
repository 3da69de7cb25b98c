// Instructions per request, counted by valgrind (callgrind) in the server process: unlike req/s
// or CPU time, the count barely moves with other load on a shared machine, so small changes to
// the middleware show up. It counts user-space instructions only (no kernel time for syscalls)
// and includes the JIT compiler and GC threads.
// Usage (from packages/idempotency, after `pnpm build`; needs valgrind):
//   node bench/instructions.mjs [modes] [warm-up requests] [measured requests]
//   node bench/instructions.mjs bare,no-store,memory,redis-floor,redis 3000 2000
// Modes are those of bench/server.mjs. Each mode takes about a minute.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { deleteBenchKeys, orderRequests, PREFIX, SERVER, startServer } from './common.mjs';

const modes = (process.argv[2] ?? 'bare,no-store,memory,redis-floor,redis').split(',');
const warmUp = Number(process.argv[3] ?? 3000);
const measured = Number(process.argv[4] ?? 2000);

async function count(mode) {
  const out = join(tmpdir(), `plumbline-callgrind-${process.pid}-${mode}`);
  const { child, port } = await startServer(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      `--callgrind-out-file=${out}`,
      process.execPath,
      SERVER,
      mode,
      PREFIX,
    ],
    'pipe',
  );
  const load = (amount) => autocannon({ ...orderRequests(port, { connections: 8 }), amount, timeout: 120 });
  const warm = await load(warmUp);
  execFileSync('callgrind_control', ['--instr=on', String(child.pid)], { stdio: 'ignore' });
  const run = await load(measured);
  execFileSync('callgrind_control', ['--dump', String(child.pid)], { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  const dump = readFileSync(`${out}.1`, 'utf8');
  rmSync(`${out}.1`, { force: true });
  rmSync(out, { force: true });
  const total = Number(/^totals:\s+(\d+)/m.exec(dump)?.[1]);
  const failed = warm.non2xx + warm.errors + run.non2xx + run.errors;
  if (!Number.isFinite(total) || failed > 0 || run.requests.total !== measured) {
    throw new Error(`${mode}: ${failed} failed requests, ${run.requests.total} measured, totals ${total}`);
  }
  return total / measured;
}

const rows = [];
for (const mode of modes) rows.push({ mode, perRequest: await count(mode) });
const bare = rows.find((row) => row.mode === 'bare')?.perRequest;
console.info(
  `POST /orders: ${warmUp} warm-up + ${measured} counted requests per mode, 8 connections, Node ${process.version}`,
);
console.info('| mode | instructions / request | over bare | bare / mode |');
console.info('|---|---|---|---|');
for (const { mode, perRequest } of rows) {
  const over = bare === undefined ? '' : `${Math.round((perRequest - bare) / 1000)} k`;
  const ratio = bare === undefined ? '' : `${((bare / perRequest) * 100).toFixed(1)}%`;
  console.info(`| ${mode} | ${Math.round(perRequest / 1000)} k | ${over} | ${ratio} |`);
}

// The redis mode stored one record per request under our prefix; the Redis is shared, so remove them.
if (modes.includes('redis')) await deleteBenchKeys();
