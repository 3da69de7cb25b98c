/**
 * One behaviour table for @plumbline/idempotency, run against Express 5, Express 4, Fastify 5 and
 * Hono (on @hono/node-server), each with the memory store and, when Redis is up, the Redis store.
 * Every scenario is a sequence of real requests; its summary (statuses, replay flags, exact body
 * bytes, handler runs) must be the same on every framework.
 */
import { request as httpRequest } from 'node:http';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { getRequestListener } from '@hono/node-server';
import { HttpError } from '@plumbline/errors';
import * as errorsExpress from '@plumbline/errors/express';
import { plumblineErrors } from '@plumbline/errors/fastify';
import { problemDetails, setResponseHeaders } from '@plumbline/errors/hono';
import {
  EXPRESS_VERSIONS,
  FRAMEWORKS,
  type Framework,
  listen,
  type RunningServer,
  redisAvailable,
  uniquePrefix,
} from '@plumbline/test-utils';
import type { RequestHandler } from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deletePrefix, testRedis } from './__fixtures__/redis.js';
import * as ex from './express.js';
import { idempotency as fastifyIdempotency } from './fastify.js';
import { idempotency as honoIdempotency } from './hono.js';
import { createMemoryStore } from './memory-store.js';
import { createRedisStore } from './redis-store.js';
import type { IdempotencyStore } from './store.js';

const redisUp = await redisAvailable();
const redis = redisUp ? testRedis() : undefined;
const prefix = uniquePrefix('idem_frameworks');
afterAll(async () => {
  if (redis) {
    await deletePrefix(redis, prefix);
    redis.disconnect();
  }
});
let storeCount = 0;
/**
 * A store whose writes after the handler (complete, release) answer `ms` later: every scenario
 * below retries the moment it has a response, so on this store a response sent before its record
 * was written shows up as a 409 where the table expects a replay.
 */
const slowWrites = (store: IdempotencyStore, ms: number): IdempotencyStore => ({
  claim: (key, request) => store.claim(key, request),
  complete: async (...args) => {
    await sleep(ms);
    return store.complete(...args);
  },
  release: async (...args) => {
    await sleep(ms);
    return store.release(...args);
  },
});
const STORES: [string, () => IdempotencyStore][] = [
  ['memory', () => createMemoryStore()],
  ['slow-writing memory', () => slowWrites(createMemoryStore(), 40)],
];
if (redis)
  STORES.push(['redis', () => createRedisStore({ client: redis, prefix: `${prefix}:${++storeCount}:` })]);

const STREAM_LINES = [
  ...Array.from({ length: 20 }, (_, i) => `line ${i} ${'x'.repeat(500)}\n`),
  'bytes: \u00e9\u20ac\n',
  'done',
];
const PIPE_CHUNKS = Array.from({ length: 40 }, (_, i) =>
  Buffer.from(Array.from({ length: 1000 + i * 37 }, (_v, j) => (i + j) % 256)),
);
const BIG_CHUNKS = [Buffer.alloc(50 * 1024, 1), Buffer.alloc(50 * 1024, 2)];

/** What every framework's app shares: handler run counts and the handlers parked on `/hang`. */
interface Harness {
  readonly runs: Map<string, number>;
  readonly parked: (() => void)[];
  count(name: string): number;
}

function harness(): Harness {
  const runs = new Map<string, number>();
  return {
    runs,
    parked: [],
    count: (name) => {
      const n = (runs.get(name) ?? 0) + 1;
      runs.set(name, n);
      return n;
    },
  };
}

const onError = () => {};
const silent = { onError };

/**
 * Headers earlier middleware sets before the handler (as versioning and negotiation do), from the
 * request's `X-Test-Version`: they are replayed as the original response carried them.
 */
const earlyHeaders = (version: unknown): Record<string, string> | undefined =>
  typeof version === 'string' ? { 'API-Version': version, 'Content-Language': `v${version}` } : undefined;
const webStream = (chunks: readonly (string | Uint8Array)[], fail = false) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks)
        controller.enqueue(typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk);
      // Late enough that the first bytes and the head are out before it fails, also on a loaded
      // machine (the server and the middleware read what is there without waiting, a macrotask each).
      if (fail) setTimeout(() => controller.error(new Error('cut')), 100);
      else controller.close();
    },
  });
const failingReadable = () => {
  let sent = false;
  return new Readable({
    read() {
      if (sent) return;
      sent = true;
      this.push('partial');
      setTimeout(() => this.destroy(new Error('cut')), 20);
    },
  });
};

/** The same API on each framework, behind one idempotency configuration. */
async function serve(framework: Framework, store: IdempotencyStore, h: Harness): Promise<RunningServer> {
  const options = { store, onError, maxBodyBytes: 80 * 1024 };
  if (framework === 'fastify') {
    const app = Fastify();
    await app.register(plumblineErrors, silent);
    app.addHook('onRequest', async (r, reply) => {
      const early = earlyHeaders(r.headers['x-test-version']);
      if (early) reply.headers(early);
    });
    const principal = (r: import('fastify').FastifyRequest) => r.headers['x-client'] as string | undefined;
    await app.register(async (scope) => {
      await scope.register(fastifyIdempotency, { ...options, principal });
      const create =
        (name: string) =>
        async (r: import('fastify').FastifyRequest, reply: import('fastify').FastifyReply) => {
          const n = h.count(name);
          reply.code(201).header('Location', `/${name}/${n}`).header('Set-Cookie', `session=s${n}`);
          return { id: n, received: r.body ?? null };
        };
      scope.post('/orders', create('orders'));
      scope.post('/other', create('other'));
      scope.get('/orders', async () => {
        h.count('get');
        return [];
      });
      scope.post('/invalid', async () => {
        h.count('invalid');
        throw new HttpError('validation_failed');
      });
      scope.post('/throw', async () => {
        h.count('throw');
        throw new Error('boom');
      });
      scope.post<{ Params: { code: string } }>('/status/:code', async (r, reply) => {
        h.count(`status-${r.params.code}`);
        return reply.code(Number(r.params.code)).send({ code: r.params.code });
      });
      scope.post('/no-content', async (_r, reply) => {
        h.count('no-content');
        return reply.code(204).send();
      });
      scope.post('/stream', async (_r, reply) => {
        h.count('stream');
        return reply.type('text/plain; charset=utf-8').send(Readable.from(STREAM_LINES));
      });
      scope.post('/web-stream', async (_r, reply) => {
        h.count('web-stream');
        return reply.type('text/plain; charset=utf-8').send(webStream(STREAM_LINES));
      });
      scope.post('/pipe', async (_r, reply) => {
        h.count('pipe');
        return reply.type('application/octet-stream').send(Readable.from(PIPE_CHUNKS));
      });
      scope.post('/big', async (_r, reply) => {
        h.count('big');
        return reply.type('application/octet-stream').send(Readable.from(BIG_CHUNKS));
      });
      scope.post('/write-head', async (_r, reply) => {
        const n = h.count('write-head');
        return reply
          .code(201)
          .headers({ Location: `/write-head/${n}`, 'Content-Type': 'text/plain' })
          .send(`created ${n}`);
      });
      scope.post('/cut', async (_r, reply) => {
        h.count('cut');
        return reply.type('text/plain').send(failingReadable());
      });
      scope.post('/hang', async (_r, reply) => {
        const n = h.count('hang');
        await new Promise<void>((resolve) => h.parked.push(resolve));
        return reply.code(201).send({ id: n });
      });
    });
    await app.register(async (scope) => {
      await scope.register(fastifyIdempotency, { ...options, principal, required: true });
      scope.post('/required', async (_r, reply) => reply.code(201).send({ id: h.count('required') }));
    });
    await app.ready();
    const server = await listen((req, res) => app.routing(req, res));
    return { ...server, close: async () => Promise.all([server.close(), app.close()]).then(() => {}) };
  }
  if (framework === 'hono') {
    const app = new Hono();
    const problems = problemDetails(silent);
    app.use(problems.middleware);
    app.onError(problems.onError);
    app.notFound(problems.notFound);
    app.use(async (c, next) => {
      const early = earlyHeaders(c.req.header('x-test-version'));
      if (early) setResponseHeaders(c, early);
      await next();
    });
    const idem = honoIdempotency({ ...options, principal: (c) => c.req.header('x-client') });
    const create = (name: string) => async (c: import('hono').Context) => {
      const n = h.count(name);
      const text = await c.req.text();
      c.header('Location', `/${name}/${n}`);
      c.header('Set-Cookie', `session=s${n}`);
      return c.json({ id: n, received: text === '' ? null : JSON.parse(text) }, 201);
    };
    app.post('/orders', idem, create('orders'));
    app.post('/other', idem, create('other'));
    app.get('/orders', idem, (c) => {
      h.count('get');
      return c.json([]);
    });
    app.post('/required', honoIdempotency({ ...options, required: true }), (c) =>
      c.json({ id: h.count('required') }, 201),
    );
    app.post('/invalid', idem, () => {
      h.count('invalid');
      throw new HttpError('validation_failed');
    });
    app.post('/throw', idem, () => {
      h.count('throw');
      throw new Error('boom');
    });
    app.post('/status/:code', idem, (c) => {
      h.count(`status-${c.req.param('code')}`);
      return c.json({ code: c.req.param('code') }, Number(c.req.param('code')) as 200);
    });
    app.post('/no-content', idem, (c) => {
      h.count('no-content');
      return c.body(null, 204);
    });
    const streamed =
      (name: string, chunks: readonly (string | Uint8Array)[], type: string) =>
      (c: import('hono').Context) => {
        h.count(name);
        return c.body(webStream(chunks), 200, { 'Content-Type': type });
      };
    app.post('/stream', idem, streamed('stream', STREAM_LINES, 'text/plain; charset=utf-8'));
    app.post('/web-stream', idem, streamed('web-stream', STREAM_LINES, 'text/plain; charset=utf-8'));
    app.post('/pipe', idem, streamed('pipe', PIPE_CHUNKS, 'application/octet-stream'));
    app.post('/big', idem, streamed('big', BIG_CHUNKS, 'application/octet-stream'));
    app.post('/write-head', idem, (c) => {
      const n = h.count('write-head');
      return c.body(`created ${n}`, 201, { Location: `/write-head/${n}`, 'Content-Type': 'text/plain' });
    });
    app.post('/cut', idem, (c) => {
      h.count('cut');
      return c.body(webStream(['partial'], true), 200, { 'Content-Type': 'text/plain' });
    });
    app.post('/hang', idem, async (c) => {
      const n = h.count('hang');
      await new Promise<void>((resolve) => h.parked.push(resolve));
      return c.json({ id: n }, 201);
    });
    return listen(getRequestListener(app.fetch));
  }
  const express = EXPRESS_VERSIONS.find(([name]) => name === framework)![1];
  const app = express();
  app.use(errorsExpress.requestId());
  app.use((req, res, next) => {
    const early = earlyHeaders(req.headers['x-test-version']);
    if (early) res.set(early);
    next();
  });
  app.use(express.json());
  const idem = ex.idempotency({ ...options, principal: (req) => req.get('x-client') });
  const create =
    (name: string): RequestHandler =>
    (req, res) => {
      const n = h.count(name);
      res
        .status(201)
        .location(`/${name}/${n}`)
        .cookie('session', `s${n}`)
        .json({ id: n, received: req.body ?? null });
    };
  app.post('/orders', idem, create('orders'));
  app.post('/other', idem, create('other'));
  app.get('/orders', idem, (_req, res) => {
    h.count('get');
    res.json([]);
  });
  app.post('/required', ex.idempotency({ ...options, required: true }), (_req, res) => {
    res.status(201).json({ id: h.count('required') });
  });
  app.post('/invalid', idem, () => {
    h.count('invalid');
    throw new HttpError('validation_failed');
  });
  app.post('/throw', idem, () => {
    h.count('throw');
    throw new Error('boom');
  });
  app.post('/status/:code', idem, (req, res) => {
    h.count(`status-${req.params['code']}`);
    res.status(Number(req.params['code'])).json({ code: req.params['code'] });
  });
  app.post('/no-content', idem, (_req, res) => {
    h.count('no-content');
    res.status(204).end();
  });
  const streamed =
    (name: string, chunks: readonly (string | Uint8Array)[], type: string): RequestHandler =>
    (_req, res) => {
      h.count(name);
      res.type(type);
      Readable.from(chunks).pipe(res);
    };
  app.post('/stream', idem, (_req, res) => {
    h.count('stream');
    res.type('text/plain; charset=utf-8');
    for (const line of STREAM_LINES.slice(0, -1)) res.write(line);
    res.end(STREAM_LINES.at(-1));
  });
  app.post('/web-stream', idem, streamed('web-stream', STREAM_LINES, 'text/plain; charset=utf-8'));
  app.post('/pipe', idem, streamed('pipe', PIPE_CHUNKS, 'application/octet-stream'));
  app.post('/big', idem, streamed('big', BIG_CHUNKS, 'application/octet-stream'));
  app.post('/write-head', idem, (_req, res) => {
    const n = h.count('write-head');
    res.writeHead(201, { Location: `/write-head/${n}`, 'Content-Type': 'text/plain' });
    res.end(`created ${n}`);
  });
  app.post('/cut', idem, (_req, res) => {
    h.count('cut');
    res.type('text/plain');
    res.write('partial');
    setTimeout(() => res.destroy(), 20);
  });
  app.post('/hang', idem, async (_req, res) => {
    const n = h.count('hang');
    await new Promise<void>((resolve) => h.parked.push(resolve));
    res.status(201).json({ id: n });
  });
  app.use(errorsExpress.errorHandler(silent));
  return listen(app);
}

type Reply = request.Response;
function binary(res: Reply, callback: (error: Error | null, body: Buffer) => void) {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => callback(null, Buffer.concat(chunks)));
}
/** One request, reduced to what the table compares. */
const row = (r: Reply) => ({
  status: r.status,
  replayed: r.headers['idempotent-replayed'],
  location: r.headers['location'],
  type: r.headers['content-type'],
  cookie: r.headers['set-cookie'] === undefined ? undefined : 'set',
  body: Buffer.isBuffer(r.body) ? r.body.toString('base64') : r.text,
  code: (r.body as { error_code?: unknown } | undefined)?.error_code,
});

interface Scenario {
  readonly name: string;
  /** Runs the requests; returns what must be equal on every framework. */
  readonly run: (t: Context) => Promise<unknown>;
  readonly expected: unknown;
}
interface Context {
  readonly url: string;
  readonly h: Harness;
  post(path: string, key?: string): request.Test;
  key(): string;
  runs(name: string): number;
}

const INVALID_KEYS: [string, string[]][] = [
  ['empty', ['Idempotency-Key', '']],
  ['too long', ['Idempotency-Key', 'k'.repeat(256)]],
  ['tab inside', ['Idempotency-Key', 'a\tb']],
  ['comma list', ['Idempotency-Key', 'a, b']],
  ['different keys in the two headers', ['Idempotency-Key', 'a', 'X-Idempotency-Key', 'b']],
];

const scenarios: Scenario[] = [
  {
    name: 'same key + same body: the replay has the status, exact body, Location and the replay header, no Set-Cookie',
    run: async (t) => {
      const key = t.key();
      const first = row(await t.post('/orders', key).send({ sku: 'a', qty: 1 }));
      const second = row(await t.post('/orders', key).send({ sku: 'a', qty: 1 }));
      return {
        first,
        same: second.body === first.body,
        second: { ...second, body: undefined },
        runs: t.runs('orders'),
      };
    },
    expected: {
      first: expect.objectContaining({ status: 201, replayed: undefined, cookie: 'set' }),
      same: true,
      second: expect.objectContaining({
        status: 201,
        replayed: 'true',
        cookie: undefined,
        type: expect.stringMatching(/^application\/json/),
      }),
      runs: 1,
    },
  },
  {
    name: 'X-Idempotency-Key and a quoted sf-string name the same key',
    run: async (t) => {
      const key = t.key();
      const first = await t.post('/orders', key).send({ a: 1 });
      const second = await request(t.url).post('/orders').set('X-Idempotency-Key', `"${key}"`).send({ a: 1 });
      return [second.status, second.headers['idempotent-replayed'], second.text === first.text];
    },
    expected: [201, 'true', true],
  },
  {
    name: 'same key + different body → 422; the original still replays',
    run: async (t) => {
      const key = t.key();
      const first = await t.post('/orders', key).send({ qty: 1 });
      const other = row(await t.post('/orders', key).send({ qty: 2 }));
      const retry = await t.post('/orders', key).send({ qty: 1 });
      return [
        other.status,
        other.code,
        retry.status,
        retry.text === first.text,
        retry.headers['idempotent-replayed'],
      ];
    },
    expected: [422, 'idempotency_key_reused', 201, true, 'true'],
  },
  {
    name: 'the same key on another route, from another principal or anonymous runs afresh',
    run: async (t) => {
      const key = t.key();
      await t.post('/orders', key).set('X-Client', 'alice').send({ a: 1 });
      const others = [
        await t.post('/other', key).set('X-Client', 'alice').send({ a: 1 }),
        await t.post('/orders', key).set('X-Client', 'bob').send({ a: 1 }),
        await t.post('/orders', key).send({ a: 1 }),
      ];
      const again = await t.post('/orders', key).set('X-Client', 'alice').send({ a: 1 });
      return [
        ...others.map((r) => [r.status, r.headers['idempotent-replayed']]),
        again.headers['idempotent-replayed'],
      ];
    },
    expected: [[201, undefined], [201, undefined], [201, undefined], 'true'],
  },
  ...INVALID_KEYS.map(([label, headers]) => ({
    name: `an invalid key (${label}) → 400 idempotency_key_invalid, handler not run`,
    run: async (t: Context) => {
      const before = t.runs('orders');
      let req = request(t.url).post('/orders');
      for (let i = 0; i < headers.length; i += 2) req = req.set(headers[i]!, headers[i + 1]!);
      const res = row(await req.send({ a: 1 }));
      return [res.status, res.code, res.type, t.runs('orders') - before];
    },
    expected: [400, 'idempotency_key_invalid', 'application/problem+json; charset=utf-8', 0],
  })),
  {
    name: 'two Idempotency-Key lines → 400',
    run: async (t) => {
      const { hostname, port } = new URL(t.url);
      return new Promise((resolve, reject) => {
        const req = httpRequest(
          {
            host: hostname,
            port,
            method: 'POST',
            path: '/orders',
            headers: [
              ['Idempotency-Key', 'a'],
              ['Idempotency-Key', 'b'],
              ['Content-Type', 'application/json'],
              ['Content-Length', '2'],
            ].flat() as unknown as Record<string, string>,
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode));
          },
        );
        req.on('error', reject);
        req.end('{}');
      });
    },
    expected: 400,
  },
  {
    name: 'a required route: no key → 400 idempotency_key_missing; with a key → 201',
    run: async (t) => {
      const missing = await request(t.url).post('/required').send({ a: 1 });
      const keyed = await t.post('/required', t.key()).send({ a: 1 });
      return [missing.status, missing.body.error_code, missing.body.detail, keyed.status];
    },
    expected: [400, 'idempotency_key_missing', 'This endpoint requires an Idempotency-Key header.', 201],
  },
  {
    name: 'GET with a key (even an invalid one) passes through every time',
    run: async (t) => {
      const before = t.runs('get');
      const statuses = [];
      for (const key of ['k', 'k', '']) {
        const res = await request(t.url).get('/orders').set('Idempotency-Key', key);
        statuses.push([res.status, res.headers['idempotent-replayed']]);
      }
      return [statuses, t.runs('get') - before];
    },
    expected: [
      [
        [200, undefined],
        [200, undefined],
        [200, undefined],
      ],
      3,
    ],
  },
  ...(
    [
      ['a thrown error', '/throw', 'throw', 500],
      ['a 500', '/status/500', 'status-500', 500],
      ['a 503', '/status/503', 'status-503', 503],
      ['a 429', '/status/429', 'status-429', 429],
      ['a 401', '/status/401', 'status-401', 401],
      ['a 403', '/status/403', 'status-403', 403],
      ['a 409', '/status/409', 'status-409', 409],
    ] as const
  ).map(([label, path, route, status]) => ({
    name: `after ${label} a retry runs again`,
    run: async (t: Context) => {
      const key = t.key();
      const before = t.runs(route);
      const first = await t.post(path, key).send({});
      const retry = await t.post(path, key).send({});
      return [first.status, retry.status, retry.headers['idempotent-replayed'], t.runs(route) - before];
    },
    expected: [status, status, undefined, 2],
  })),
  ...([400, 404, 422, 200] as const).map((status) => ({
    name: `a ${status} is stored and replayed`,
    run: async (t: Context) => {
      const key = t.key();
      const first = await t.post(`/status/${status}`, key).send({});
      const retry = await t.post(`/status/${status}`, key).send({});
      return [
        retry.status,
        retry.text === first.text,
        retry.headers['idempotent-replayed'],
        t.runs(`status-${status}`),
      ];
    },
    expected: [status, true, 'true', 1],
  })),
  ...(['/stream', '/web-stream'] as const).map((path) => ({
    name: `a streamed body (${path}) replays byte for byte with its content type`,
    run: async (t: Context) => {
      const key = t.key();
      const first = await t.post(path, key).buffer(true).parse(binary).send({});
      const second = await t.post(path, key).buffer(true).parse(binary).send({});
      return [
        (first.body as Buffer).toString('utf8') === STREAM_LINES.join(''),
        Buffer.compare(first.body as Buffer, second.body as Buffer),
        second.headers['content-type'],
        second.headers['idempotent-replayed'],
        t.runs(path.slice(1)),
      ];
    },
    expected: [true, 0, 'text/plain; charset=utf-8', 'true', 1],
  })),
  {
    name: 'a piped binary stream replays byte for byte',
    run: async (t) => {
      const key = t.key();
      const first = await t.post('/pipe', key).buffer(true).parse(binary).send({});
      const second = await t.post('/pipe', key).buffer(true).parse(binary).send({});
      const all = Buffer.concat(PIPE_CHUNKS);
      return [
        Buffer.compare(first.body as Buffer, all),
        Buffer.compare(second.body as Buffer, all),
        second.headers['content-type'],
        second.headers['idempotent-replayed'],
      ];
    },
    expected: [0, 0, 'application/octet-stream', 'true'],
  },
  {
    name: 'status and headers set with the body (writeHead, reply.headers, c.body) are stored and replayed',
    run: async (t) => {
      const key = t.key();
      const first = await t.post('/write-head', key).send({});
      const second = await t.post('/write-head', key).send({});
      return [
        first.status,
        first.text,
        second.status,
        second.headers['location'] === first.headers['location'],
        second.headers['content-type'],
        second.text === first.text,
      ];
    },
    expected: [201, expect.stringMatching(/^created \d+$/), 201, true, 'text/plain', true],
  },
  {
    name: 'a response cut mid-body releases the key, so a retry runs again',
    run: async (t) => {
      const key = t.key();
      const before = t.runs('cut');
      const first = await t
        .post('/cut', key)
        .send({})
        .then(
          () => 'answered',
          () => 'cut',
        );
      let retried = 0;
      const deadline = Date.now() + 5_000;
      while (t.runs('cut') - before < 2 && Date.now() < deadline) {
        retried = await t
          .post('/cut', key)
          .send({})
          .then(
            (r) => r.status,
            () => 0,
          );
        if (retried === 409) await sleep(20);
      }
      return [first, t.runs('cut') - before];
    },
    expected: ['cut', 2],
  },
  {
    name: 'reordered JSON keys replay; another query string → 422',
    run: async (t) => {
      const key = t.key();
      const first = await t.post('/orders?tag=x', key).send({ a: 1, b: { c: 2, d: 3 } });
      const reordered = await t.post('/orders?tag=x', key).send({ b: { d: 3, c: 2 }, a: 1 });
      const other = await t.post('/orders?tag=y', key).send({ a: 1, b: { c: 2, d: 3 } });
      return [
        reordered.status,
        reordered.text === first.text,
        reordered.headers['idempotent-replayed'],
        other.status,
        other.body.error_code,
      ];
    },
    expected: [201, true, 'true', 422, 'idempotency_key_reused'],
  },
  {
    name: 'a request without a body works and replays',
    run: async (t) => {
      const key = t.key();
      const first = await t.post('/orders', key);
      const second = await t.post('/orders', key);
      return [first.status, second.status, second.text === first.text, second.headers['idempotent-replayed']];
    },
    expected: [201, 201, true, 'true'],
  },
  {
    name: '204 is kept and replayed without a body or Content-Length',
    run: async (t) => {
      const key = t.key();
      const first = await t.post('/no-content', key).send({});
      const second = await t.post('/no-content', key).send({});
      return [
        first.status,
        second.status,
        second.text,
        second.headers['idempotent-replayed'],
        second.headers['content-length'],
        t.runs('no-content'),
      ];
    },
    expected: [204, 204, '', 'true', undefined, 1],
  },
  {
    name: 'broken JSON → 400 malformed_json, nothing claimed',
    run: async (t) => {
      const key = t.key();
      const broken = await t.post('/orders', key).set('Content-Type', 'application/json').send('{"a":');
      const fixed = await t.post('/orders', key).send({ a: 1 });
      return [broken.status, broken.body.error_code, fixed.status, fixed.headers['idempotent-replayed']];
    },
    expected: [400, 'malformed_json', 201, undefined],
  },
  {
    name: 'a body over maxBodyBytes is sent in full but not stored',
    run: async (t) => {
      const key = t.key();
      const before = t.runs('big');
      const first = await t.post('/big', key).buffer(true).parse(binary).send({});
      const second = await t.post('/big', key).buffer(true).parse(binary).send({});
      return [
        (first.body as Buffer).byteLength,
        second.status,
        second.headers['idempotent-replayed'],
        t.runs('big') - before,
      ];
    },
    // The apps' cap is 80 KiB; the body is 100 KiB.
    expected: [100 * 1024, 200, undefined, 2],
  },
  {
    name: '50 parallel requests with one key → one run, 49 × 409 with Retry-After, then a replay',
    run: async (t) => {
      const key = t.key();
      const before = t.runs('hang');
      const replies: Reply[] = [];
      const all = Promise.all(
        Array.from({ length: 50 }, () =>
          t
            .post('/hang', key)
            .send({ n: 1 })
            .then((r) => {
              replies.push(r);
              return r;
            }),
        ),
      );
      const deadline = Date.now() + 10_000;
      while (replies.length < 49 && Date.now() < deadline) await sleep(10);
      const runsWhileHeld = t.runs('hang') - before;
      t.h.parked.shift()!();
      const results = await all;
      const conflict = results.find((r) => r.status === 409)!;
      const retry = await t.post('/hang', key).send({ n: 1 });
      return [
        runsWhileHeld,
        results.filter((r) => r.status === 201).length,
        results.filter((r) => r.status === 409).length,
        conflict.body.error_code,
        conflict.headers['retry-after'],
        retry.status,
        retry.headers['idempotent-replayed'],
        t.runs('hang') - before,
      ];
    },
    expected: [1, 1, 49, 'idempotency_key_in_use', '1', 201, 'true', 1],
  },
  {
    name: 'the client leaves, the handler finishes: a later retry replays; it ran once',
    run: async (t) => {
      const key = t.key();
      const before = t.runs('hang');
      const { hostname, port } = new URL(t.url);
      const aborted = httpRequest({
        host: hostname,
        port,
        method: 'POST',
        path: '/hang',
        headers: { 'idempotency-key': key, 'content-type': 'application/json' },
      });
      aborted.on('error', () => {});
      aborted.end('{"a":1}');
      const deadline = Date.now() + 5_000;
      while (t.runs('hang') - before < 1 && Date.now() < deadline) await sleep(10);
      aborted.destroy();
      await sleep(50);
      const during = await t.post('/hang', key).send({ a: 1 });
      t.h.parked.shift()!();
      let retry = await t.post('/hang', key).send({ a: 1 });
      while (retry.status === 409 && Date.now() < deadline) {
        await sleep(20);
        retry = await t.post('/hang', key).send({ a: 1 });
      }
      return [
        during.status,
        retry.status,
        retry.body,
        retry.headers['idempotent-replayed'],
        t.runs('hang') - before,
      ];
    },
    expected: [409, 201, { id: expect.any(Number) }, 'true', 1],
  },
  {
    name: 'a replayed 201 carries the original request id in X-Request-Id; the retry id is in Replayed-By-Request-Id',
    run: async (t) => {
      const key = t.key();
      const first = await t.post('/orders', key).set('X-Request-Id', `${key}-first`).send({ a: 1 });
      const retry = await t.post('/orders', key).set('X-Request-Id', `${key}-retry`).send({ a: 1 });
      return [
        [
          first.status,
          first.headers['x-request-id'] === `${key}-first`,
          first.headers['replayed-by-request-id'],
        ],
        [retry.status, retry.headers['x-request-id'] === `${key}-first`],
        retry.headers['replayed-by-request-id'] === `${key}-retry`,
      ];
    },
    expected: [[201, true, undefined], [201, true], true],
  },
  {
    name: 'headers earlier middleware set before the handler are stored and replayed as the original had them',
    run: async (t) => {
      const key = t.key();
      const first = await t.post('/orders', key).set('X-Test-Version', '1').send({ a: 1 });
      const retry = await t.post('/orders', key).set('X-Test-Version', '2').send({ a: 1 });
      const pick = (r: Reply) => [
        r.status,
        r.headers['api-version'],
        r.headers['content-language'],
        r.headers['idempotent-replayed'],
      ];
      return [pick(first), pick(retry), retry.text === first.text];
    },
    expected: [[201, '1', 'v1', undefined], [201, '1', 'v1', 'true'], true],
  },
  {
    name: 'a replayed 400 problem: body request_id and X-Request-Id agree (the original request); the retry id is in Replayed-By-Request-Id',
    run: async (t) => {
      const key = t.key();
      const first = await t.post('/invalid', key).set('X-Request-Id', `${key}-first`).send({ a: 1 });
      const retry = await t.post('/invalid', key).set('X-Request-Id', `${key}-retry`).send({ a: 1 });
      return [
        [
          first.status,
          first.body.request_id === `${key}-first`,
          first.headers['x-request-id'] === `${key}-first`,
        ],
        [retry.status, retry.body.error_code, retry.headers['idempotent-replayed']],
        [retry.body.request_id === `${key}-first`, retry.headers['x-request-id'] === `${key}-first`],
        retry.headers['replayed-by-request-id'] === `${key}-retry`,
      ];
    },
    expected: [[400, true, true], [400, 'validation_failed', 'true'], [true, true], true],
  },
];

let keyCount = 0;
for (const [storeName, makeStore] of STORES) {
  describe.each(FRAMEWORKS)(`idempotency on %s with the ${storeName} store`, (framework) => {
    const state = {} as { server: RunningServer; h: Harness; url: string };
    beforeAll(async () => {
      state.h = harness();
      state.server = await serve(framework, makeStore(), state.h);
      state.url = `http://127.0.0.1:${state.server.port}`;
    });
    afterAll(() => state.server.close());
    const context = (): Context => ({
      url: state.url,
      h: state.h,
      post: (path, key) => {
        const req = request(state.url).post(path);
        return key === undefined ? req : req.set('Idempotency-Key', key);
      },
      key: () => `key-${++keyCount}-${prefix}`,
      runs: (name) => state.h.runs.get(name) ?? 0,
    });
    it.each(scenarios.map((s) => [s.name, s] as const))('%s', async (_name, scenario) => {
      expect(await scenario.run(context())).toEqual(scenario.expected);
    });
  });
}
