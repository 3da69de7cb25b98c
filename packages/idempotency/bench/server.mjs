// The service under load for throughput.mjs and instructions.mjs: one POST route, bare or behind
// idempotency(). Modes:
//   bare          no middleware
//   memory        idempotency() on the memory store
//   redis         idempotency() on the Redis store
//   no-store      idempotency() on a store that answers at once: the middleware's own cost
//   redis-floor   no middleware, but the two Redis round trips a new key costs (an EVALSHA before
//                 the handler, one after it ends) issued straight through ioredis: what the
//                 transport alone costs, a floor no Redis-backed middleware can go below
// Runs the BUILT package (`pnpm build` first) in its own process so the load generator does not
// share its event loop.
import express from 'express';
import { Redis } from 'ioredis';
import { idempotency } from '../dist/express.mjs';
import { createMemoryStore, createRedisStore } from '../dist/index.mjs';

const [mode = 'bare', prefix = 'idem_bench'] = process.argv.slice(2);
const redis = mode.startsWith('redis')
  ? new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', {
      enableAutoPipelining: process.env.BENCH_AUTOPIPELINING !== '0',
    })
  : undefined;
const store =
  mode === 'memory'
    ? createMemoryStore({ maxEntries: 100_000 })
    : mode === 'redis'
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
let closing = false;
// A claim settled after shutdown began fails on the closed connection: expected, not reported.
const onError = (error) => {
  if (!closing) console.error(error);
};
const handlers = store ? [idempotency({ store, required: true, onError })] : [];
if (mode === 'no-store') {
  const instant = {
    claim: async (_key, request) => ({ state: 'new', token: request.token }),
    complete: async () => true,
    release: async () => true,
  };
  handlers.push(idempotency({ store: instant, required: true, onError }));
}
if (mode === 'redis-floor') {
  const script = 'return 1';
  const sha = await redis.script('LOAD', script);
  // One `end` for every response, the request's key on the response: a closure stored on `res` per
  // request makes V8 keep responses alive through young collections (see src/node-response.ts), a
  // garbage-collector cost that is not the transport's.
  const KEY = Symbol('key');
  const end = function (...args) {
    const result = Object.getPrototypeOf(this).end.apply(this, args);
    // Settled after the response, like the middleware's complete; failures only at shutdown.
    redis.evalshaBuffer(sha, 1, this[KEY], 'token', 201, '[]', Buffer.from('{}'), 86_400_000).catch(() => {});
    return result;
  };
  handlers.push((req, res, next) => {
    const key = `${prefix}:${req.headers['idempotency-key']}`;
    redis.evalshaBuffer(sha, 1, key, 'fingerprint', 'token', 60_000).then(() => {
      res[KEY] = key;
      res.end = end;
      next();
    }, next);
  });
}
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
  closing = true;
  server.closeAllConnections();
  server.close();
  // QUIT is queued behind the completes still in flight, so none of them is cut off.
  redis?.quit();
});
