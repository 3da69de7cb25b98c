// Loopback throughput of one POST route: bare, with idempotency on the memory store, and with
// idempotency on Redis (every request a new key, so each pays claim + complete; plus a replay run).
// Usage (from packages/idempotency, after `pnpm build`): node bench/throughput.mjs [seconds] [rounds]
// BENCH_MODES=bare,redis picks configurations (modes of bench/server.mjs); BENCH_AUTOPIPELINING=0
// turns ioredis auto-pipelining off; BENCH_CONNECTIONS (default 32) sets autocannon's connections
// (1 measures the latency one request pays, e.g. for the store write the response waits for).
import autocannon from 'autocannon';
import { deleteBenchKeys, orderRequests, PREFIX, SERVER, startServer } from './common.mjs';

const seconds = Number(process.argv[2] ?? 5);
// The machine is shared: configurations are interleaved over several rounds and the median kept,
// so a burst of outside load does not land on one configuration only.
const rounds = Number(process.argv[3] ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);

async function run(mode, { replay = false } = {}) {
  const { child, port } = await startServer(process.execPath, [SERVER, mode, PREFIX]);
  const options = orderRequests(port, { replay, connections });
  await autocannon({ ...options, duration: 1 }); // warm-up, not reported
  child.stdin.write('mark\n');
  const result = await autocannon({ ...options, duration: seconds });
  const report = new Promise((resolve) =>
    child.stdout.once('data', (data) => resolve(JSON.parse(data.toString()))),
  );
  child.stdin.write('report\n');
  const { requests, cpuMicros } = await report;
  child.stdin.end();
  await new Promise((resolve) => child.once('exit', resolve));
  const non2xx = result.non2xx + result.errors;
  return {
    mode: replay ? `${mode} (replay)` : mode,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuPerRequest: cpuMicros / requests,
    non2xx,
  };
}

// Modes of bench/server.mjs; `:replay` sends one key throughout (every request a replay).
const configurations = (process.env.BENCH_MODES ?? 'bare,no-store,memory,redis-floor,redis,redis:replay')
  .split(',')
  .map((name) => [name.split(':')[0], { replay: name.endsWith(':replay') }]);
const samples = configurations.map(() => []);
for (let round = 0; round < rounds; round += 1) {
  for (const [i, [mode, opts]] of configurations.entries()) samples[i].push(await run(mode, opts));
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const rows = samples.map((runs) => ({
  mode: runs[0].mode,
  rps: median(runs.map((r) => r.rps)),
  all: runs.map((r) => Math.round(r.rps)).join(' / '),
  p50: median(runs.map((r) => r.p50)),
  p99: median(runs.map((r) => r.p99)),
  cpu: median(runs.map((r) => r.cpuPerRequest)),
  non2xx: runs.reduce((sum, r) => sum + r.non2xx, 0),
}));
const [bare] = rows;
const pct = (a, b) => `${((a / b) * 100).toFixed(1)}%`;
console.info(
  `POST /orders, ${seconds} s x ${rounds} rounds per configuration (median), ${connections} connection(s), Node ${process.version}`,
);
console.info(
  '| configuration | req/s (median) | runs | vs bare | p50 ms | p99 ms | server CPU µs/req | capacity vs bare (CPU) | non-2xx |',
);
console.info('|---|---|---|---|---|---|---|---|---|');
for (const row of rows) {
  console.info(
    `| ${row.mode} | ${Math.round(row.rps)} | ${row.all} | ${pct(row.rps, bare.rps)} | ${row.p50} | ${row.p99} | ${Math.round(row.cpu)} | ${pct(bare.cpu, row.cpu)} | ${row.non2xx} |`,
  );
}

// The Redis runs stored one record per request under our prefix; the Redis is shared, so remove them.
await deleteBenchKeys();
