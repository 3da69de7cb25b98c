// The service under load for throughput.mjs: one POST route, bare or behind idempotency().
// Runs the BUILT package (`pnpm build` first) in its own process so the load generator does not
// share its event loop.
import express from 'express';
import { Redis } from 'ioredis';
import { idempotency } from '../dist/express.mjs';
import { createMemoryStore, createRedisStore } from '../dist/index.mjs';

const [mode = 'bare', prefix = 'idem_bench'] = process.argv.slice(2);
const redis = mode.startsWith('redis')
  ? new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { enableAutoPipelining: true })
  : undefined;
const store =
  mode === 'memory'
    ? createMemoryStore({ maxEntries: 100_000 })
    : redis
      ? createRedisStore({ client: redis, prefix: `${prefix}:` })
      : undefined;

// CPU time per request is reported besides req/s: on a shared machine it is the steadier figure.
let served = 0;
let baseline = { cpu: process.cpuUsage(), served: 0 };
const app = express();
app.use((_req, res, next) => {
  res.once('finish', () => {
    served += 1;
  });
  next();
});
app.use(express.json());
const handlers = store ? [idempotency({ store, required: true })] : [];
let id = 0;
app.post('/orders', ...handlers, (req, res) => {
  id += 1;
  res
    .status(201)
    .location(`/orders/${id}`)
    .json({ id, ...req.body });
});
app.use((err, _req, res, _next) => res.status(err.status ?? 500).json({ error_code: err.code }));
const server = app.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.stdin.setEncoding('utf8');
process.stdin.on('data', (command) => {
  if (command.includes('mark')) baseline = { cpu: process.cpuUsage(), served };
  if (command.includes('report')) {
    const cpu = process.cpuUsage(baseline.cpu);
    const requests = served - baseline.served;
    process.stdout.write(`${JSON.stringify({ requests, cpuMicros: cpu.user + cpu.system })}\n`);
  }
});
process.stdin.on('end', () => {
  server.closeAllConnections();
  server.close();
  redis?.disconnect();
});
