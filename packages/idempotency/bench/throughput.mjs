// Loopback throughput of one POST route: bare, with idempotency on the memory store, and with
// idempotency on Redis (every request a new key, so each pays claim + complete; plus a replay run).
// Usage (from packages/idempotency, after `pnpm build`): node bench/throughput.mjs [seconds] [rounds]
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';

const seconds = Number(process.argv[2] ?? 5);
// The machine is shared: configurations are interleaved over several rounds and the median kept,
// so a burst of outside load does not land on one configuration only.
const rounds = Number(process.argv[3] ?? 3);
const prefix = `idem_bench_${process.pid}`;
const server = fileURLToPath(new URL('./server.mjs', import.meta.url));
const body = JSON.stringify({ sku: 'abc-123', qty: 2, note: 'bench' });

// Shared by every run, so no key is ever sent twice (a warm-up request cut off in flight would
// otherwise answer a later run's first requests with 409).
let n = 0;

async function start(mode) {
  const child = spawn(process.execPath, [server, mode, prefix], { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    child.stdout.once('data', (data) => resolve(Number(data.toString().trim())));
  });
  return { child, port };
}

async function run(mode, { replay = false } = {}) {
  const { child, port } = await start(mode);
  const options = {
    url: `http://127.0.0.1:${port}/orders`,
    method: 'POST',
    connections: 32,
    pipelining: 1,
    headers: { 'content-type': 'application/json', 'idempotency-key': 'replayed' },
    body,
    // Every configuration builds each request the same way (the bare server ignores the key), so
    // the load generator costs the same CPU in every row.
    requests: [
      {
        setupRequest: (request) => {
          n += 1;
          const key = replay ? 'replayed' : `k-${process.pid}-${n}`;
          return { ...request, headers: { ...request.headers, 'idempotency-key': key } };
        },
      },
    ],
  };
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
    p99: result.latency.p99,
    cpuPerRequest: cpuMicros / requests,
    non2xx,
  };
}

const configurations = [['bare'], ['memory'], ['redis'], ['redis', { replay: true }]];
const samples = configurations.map(() => []);
for (let round = 0; round < rounds; round += 1) {
  for (const [i, [mode, opts]] of configurations.entries()) samples[i].push(await run(mode, opts));
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const rows = samples.map((runs) => ({
  mode: runs[0].mode,
  rps: median(runs.map((r) => r.rps)),
  all: runs.map((r) => Math.round(r.rps)).join(' / '),
  p99: median(runs.map((r) => r.p99)),
  cpu: median(runs.map((r) => r.cpuPerRequest)),
  non2xx: runs.reduce((sum, r) => sum + r.non2xx, 0),
}));
const [bare] = rows;
const pct = (a, b) => `${((a / b) * 100).toFixed(1)}%`;
console.info(
  `POST /orders, ${seconds} s x ${rounds} rounds per configuration (median), 32 connections, Node ${process.version}`,
);
console.info(
  '| configuration | req/s (median) | runs | vs bare | p99 ms | server CPU µs/req | capacity vs bare (CPU) | non-2xx |',
);
console.info('|---|---|---|---|---|---|---|---|');
for (const row of rows) {
  console.info(
    `| ${row.mode} | ${Math.round(row.rps)} | ${row.all} | ${pct(row.rps, bare.rps)} | ${row.p99} | ${Math.round(row.cpu)} | ${pct(bare.cpu, row.cpu)} | ${row.non2xx} |`,
  );
}

// The Redis runs stored one record per request under our prefix; the Redis is shared, so remove them.
const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
let cursor = '0';
do {
  const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
  cursor = next;
  if (keys.length > 0) await redis.del(...keys);
} while (cursor !== '0');
redis.disconnect();
