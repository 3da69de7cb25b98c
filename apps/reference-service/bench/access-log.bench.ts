/**
 * The access log's cost per request (issue #36): the service's logger on Node's request and response,
 * at `warn` (a 2xx writes nothing, as in the load benchmarks) and at `info` (one line per request,
 * into a stream that drops it). Run: `npx vitest bench --run --project reference-service bench/access-log.bench.ts`.
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { Writable } from 'node:stream';
import { bench, describe } from 'vitest';
import { createAccessLogger, createLogger } from '../src/service/logging.js';

const nowhere = new Writable({ write: (_chunk, _encoding, done) => done() });

function request(status: number): [IncomingMessage, ServerResponse] {
  const req = new IncomingMessage(new Socket());
  req.method = 'GET';
  req.url = '/v2/tasks?status=todo&sort=-priority';
  req.headers = { host: '127.0.0.1', 'x-api-key': 'plk_secret', accept: '*/*', 'user-agent': 'bench' };
  const res = new ServerResponse(req);
  res.statusCode = status;
  return [req, res];
}

describe('access log, per request', () => {
  for (const [level, status] of [
    ['warn', 200],
    ['warn', 503],
    ['info', 200],
  ] as const) {
    const log = createAccessLogger(createLogger({ level, destination: nowhere }), () => 'req-1');
    bench(`LOG_LEVEL=${level}, a ${status} answer`, () => {
      const [req, res] = request(status);
      log(req, res);
      res.emit('finish');
    });
  }
  bench('the request and response objects alone (the baseline)', () => {
    const [, res] = request(200);
    res.emit('finish');
  });
});
