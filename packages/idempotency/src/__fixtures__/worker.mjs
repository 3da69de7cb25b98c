// One service instance for the multi-process test. Plain JavaScript on the BUILT package, because
// a child process cannot load the TypeScript sources.
import { setTimeout as sleep } from 'node:timers/promises';
import express from 'express';
import { Redis } from 'ioredis';
import { idempotency } from '../../dist/express.mjs';
import { createRedisStore } from '../../dist/index.mjs';

const { REDIS_URL, IDEM_PREFIX } = process.env;
const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
const app = express();
app.use(express.json());
app.post(
  '/slow',
  idempotency({ store: createRedisStore({ client: redis, prefix: `${IDEM_PREFIX}:` }), required: true }),
  async (_req, res) => {
    const run = await redis.incr(`${IDEM_PREFIX}:runs`);
    // Held until the test has the other 49 answers (bounded), so timing cannot change the outcome.
    for (let i = 0; i < 1000 && (await redis.get(`${IDEM_PREFIX}:go`)) === null; i += 1) await sleep(10);
    res.status(201).json({ run, pid: process.pid });
  },
);
app.use((err, _req, res, _next) => {
  res.status(err.status ?? 500).json({ error_code: err.code ?? 'internal_error' });
});
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
// The parent closes stdin to stop us; never linger as an orphan.
process.stdin.resume();
process.stdin.on('end', () => {
  server.closeAllConnections();
  server.close();
  redis.disconnect();
});
