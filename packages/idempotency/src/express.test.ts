import { request as httpRequest } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { EXPRESS_VERSIONS, redisAvailable, uniquePrefix } from '@plumbline/test-utils';
import compression from 'compression';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildApp,
  close,
  type ExpressFactory,
  listen,
  PIPE_CHUNKS,
  type TestApp,
  until,
} from './__fixtures__/app.js';
import { deletePrefix, testRedis } from './__fixtures__/redis.js';
import type { IdempotencyMiddlewareOptions } from './express.js';
import { createMemoryStore } from './memory-store.js';
import { createRedisStore } from './redis-store.js';
import type { IdempotencyStore } from './store.js';

const redisUp = await redisAvailable();
const redis = redisUp ? testRedis() : undefined;
const prefix = uniquePrefix('idem_express');
afterAll(async () => {
  if (redis) {
    await deletePrefix(redis, prefix);
    redis.disconnect();
  }
});

let storeCount = 0;
const STORES: [string, () => IdempotencyStore][] = [['memory', () => createMemoryStore()]];
if (redis)
  STORES.push(['redis', () => createRedisStore({ client: redis, prefix: `${prefix}:${++storeCount}:` })]);

let keyCount = 0;
const newKey = () => `key-${++keyCount}-${prefix}`;

function binary(res: request.Response, callback: (error: Error | null, body: Buffer) => void) {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => callback(null, Buffer.concat(chunks)));
}

function harness(
  express: ExpressFactory,
  makeStore: () => IdempotencyStore,
  extra: Partial<IdempotencyMiddlewareOptions> = {},
) {
  const state = {} as { t: TestApp; url: string; close: () => Promise<void> };
  beforeAll(async () => {
    state.t = buildApp(express, { store: makeStore(), ...extra });
    const { server, url } = await listen(state.t.app);
    state.url = url;
    state.close = () => close(server);
  });
  afterAll(() => state.close());
  return state;
}

for (const [storeName, makeStore] of STORES) {
  for (const [expressName, express] of EXPRESS_VERSIONS) {
    describe(`${expressName} + ${storeName} store`, () => {
      const s = harness(express, makeStore);
      const runs = (name: string) => s.t.runs.get(name) ?? 0;
      const post = (path: string, key?: string) => {
        const req = request(s.url).post(path);
        return key === undefined ? req : req.set('Idempotency-Key', key);
      };

      it('1: same key + same body replays status, exact body, Location and the replay header, without Set-Cookie', async () => {
        const key = newKey();
        const before = runs('orders');
        const first = await post('/orders', key).send({ sku: 'a', qty: 1 });
        expect(first.status).toBe(201);
        expect(first.headers['set-cookie']).toBeDefined();
        expect(first.headers['idempotent-replayed']).toBeUndefined();
        const second = await post('/orders', key).send({ sku: 'a', qty: 1 });
        expect({
          status: second.status,
          text: second.text,
          location: second.headers['location'],
          type: second.headers['content-type'],
          etag: second.headers['etag'],
          replayed: second.headers['idempotent-replayed'],
          cookie: second.headers['set-cookie'],
        }).toEqual({
          status: 201,
          text: first.text,
          location: first.headers['location'],
          type: first.headers['content-type'],
          etag: first.headers['etag'],
          replayed: 'true',
          cookie: undefined,
        });
        expect(runs('orders') - before).toBe(1);
      });

      it('1: the X-Idempotency-Key header and an sf-string key name the same key', async () => {
        const key = newKey();
        const first = await post('/orders', key).send({ a: 1 });
        const second = await request(s.url)
          .post('/orders')
          .set('X-Idempotency-Key', `"${key}"`)
          .send({ a: 1 });
        expect([second.status, second.headers['idempotent-replayed'], second.text]).toEqual([
          201,
          'true',
          first.text,
        ]);
      });

      it('2: same key + different body → 422; the original body still replays', async () => {
        const key = newKey();
        const first = await post('/orders', key).send({ qty: 1 });
        const other = await post('/orders', key).send({ qty: 2 });
        expect([other.status, other.body.error_code]).toEqual([422, 'idempotency_key_reused']);
        const retry = await post('/orders', key).send({ qty: 1 });
        expect([retry.status, retry.text, retry.headers['idempotent-replayed']]).toEqual([
          201,
          first.text,
          'true',
        ]);
      });

      it('3: the same key on another route or from another principal runs afresh', async () => {
        const key = newKey();
        const first = await post('/orders', key).set('X-Client', 'alice').send({ a: 1 });
        const otherRoute = await post('/other', key).set('X-Client', 'alice').send({ a: 1 });
        const otherPrincipal = await post('/orders', key).set('X-Client', 'bob').send({ a: 1 });
        const anonymous = await post('/orders', key).send({ a: 1 });
        for (const res of [otherRoute, otherPrincipal, anonymous]) {
          expect([res.status, res.headers['idempotent-replayed']]).toEqual([201, undefined]);
          expect(res.text).not.toBe(first.text);
        }
        const again = await post('/orders', key).set('X-Client', 'alice').send({ a: 1 });
        expect(again.text).toBe(first.text);
      });

      it('4: 50 parallel requests with one key → one execution, 49 × 409, then a replay', async () => {
        // The handler is held until the other 49 have their answer, so the outcome does not depend
        // on how fast the machine delivers 50 connections.
        const key = newKey();
        const before = runs('hang');
        const replies: request.Response[] = [];
        const all = Promise.all(
          Array.from({ length: 50 }, () =>
            post('/hang', key)
              .send({ n: 1 })
              .then((r) => {
                replies.push(r);
                return r;
              }),
          ),
        );
        await until(() => replies.length === 49);
        expect(runs('hang') - before).toBe(1);
        s.t.parked.shift()!();
        const results = await all;
        const statuses = results.map((r) => r.status);
        expect(runs('hang') - before).toBe(1);
        expect(statuses.filter((st) => st === 201)).toHaveLength(1);
        expect(statuses.filter((st) => st === 409)).toHaveLength(49);
        const conflict = results.find((r) => r.status === 409)!;
        expect([conflict.body.error_code, conflict.headers['retry-after']]).toEqual([
          'idempotency_key_in_use',
          '1',
        ]);
        const retry = await post('/hang', key).send({ n: 1 });
        expect([retry.status, retry.headers['idempotent-replayed']]).toEqual([201, 'true']);
        expect(runs('hang') - before).toBe(1);
      });

      it('4: a handler that sleeps 200 ms runs once for 50 parallel requests, with no 5xx', async () => {
        const key = newKey();
        const before = runs('slow');
        const results = await Promise.all(
          Array.from({ length: 50 }, () => post('/slow', key).send({ n: 1 })),
        );
        expect(runs('slow') - before).toBe(1);
        // Late arrivals (after the 200 ms) get the replay instead of 409; both are correct.
        for (const r of results) expect([201, 409]).toContain(r.status);
        expect(
          results.filter((r) => r.status === 201 && r.headers['idempotent-replayed'] === undefined),
        ).toHaveLength(1);
      });

      it.each([
        ['empty', ['Idempotency-Key', '']],
        ['too long', ['Idempotency-Key', 'k'.repeat(256)]],
        ['tab inside', ['Idempotency-Key', 'a\tb']],
        ['non-ASCII', ['Idempotency-Key', 'caf\u00e9']],
        ['comma list', ['Idempotency-Key', 'a, b']],
        ['two header lines', ['Idempotency-Key', ['a', 'b']]],
        ['different keys in the two headers', ['Idempotency-Key', 'a', 'X-Idempotency-Key', 'b']],
      ] as const)('5: %s → 400 idempotency_key_invalid, handler not run', async (_name, headers) => {
        const before = runs('orders');
        let req = request(s.url).post('/orders');
        for (let i = 0; i < headers.length; i += 2)
          req = req.set(headers[i] as string, headers[i + 1] as string);
        const res = await req.send({ a: 1 });
        expect([res.status, res.body.error_code]).toEqual([400, 'idempotency_key_invalid']);
        expect(runs('orders')).toBe(before);
      });

      it('5: a required route without a key → 400 idempotency_key_missing; an optional one runs', async () => {
        const missing = await request(s.url).post('/required').send({ a: 1 });
        expect([missing.status, missing.body.error_code, missing.body.detail]).toEqual([
          400,
          'idempotency_key_missing',
          'This endpoint requires an Idempotency-Key header.',
        ]);
        expect(runs('required')).toBe(0);
        const optional = await request(s.url).post('/orders').send({ a: 1 });
        expect([optional.status, optional.headers['idempotent-replayed']]).toEqual([201, undefined]);
        const keyed = await post('/required', newKey()).send({ a: 1 });
        expect(keyed.status).toBe(201);
      });

      it('5: GET with a key (even an invalid one) passes through every time', async () => {
        const before = runs('get');
        for (const key of ['k', 'k', '']) {
          const res = await request(s.url).get('/orders').set('Idempotency-Key', key);
          expect([res.status, res.headers['idempotent-replayed']]).toEqual([200, undefined]);
        }
        expect(runs('get') - before).toBe(3);
      });

      it.each([
        ['a thrown error', '/throw', 'throw', 500],
        ['a 500', '/status/500', 'status-500', 500],
        ['a 503', '/status/503', 'status-503', 503],
        ['a 429', '/status/429', 'status-429', 429],
        ['a 401', '/status/401', 'status-401', 401],
        ['a 403', '/status/403', 'status-403', 403],
        ['a 409', '/status/409', 'status-409', 409],
      ] as const)('6: after %s a retry runs again', async (_name, path, route, status) => {
        const key = newKey();
        const before = runs(route);
        expect((await post(path, key).send({})).status).toBe(status);
        // The key is released just after the response is sent (the store is settled once the
        // handler ends it), so a retry that overtakes the release on a busy machine is told the
        // key is still in flight (409) without running the handler, and retries, as a client does.
        const inFlight = (res: request.Response) => res.body?.code === 'idempotency_key_in_use';
        let retry = await post(path, key).send({});
        for (const deadline = Date.now() + 5_000; inFlight(retry) && Date.now() < deadline; ) {
          expect(runs(route) - before).toBe(1);
          await sleep(20);
          retry = await post(path, key).send({});
        }
        expect([retry.status, retry.headers['idempotent-replayed']]).toEqual([status, undefined]);
        expect(runs(route) - before).toBe(2);
      });

      it.each([
        ['a 400', 400],
        ['a 404', 404],
        ['a 422', 422],
        ['a 200', 200],
      ] as const)('6: %s is stored and replayed', async (_name, status) => {
        const key = newKey();
        const first = await post(`/status/${status}`, key).send({});
        const retry = await post(`/status/${status}`, key).send({});
        expect([retry.status, retry.text, retry.headers['idempotent-replayed']]).toEqual([
          status,
          first.text,
          'true',
        ]);
        expect(runs(`status-${status}`)).toBe(1);
      });

      it('8: write × N + end replays byte for byte with the same content type', async () => {
        const key = newKey();
        const first = await post('/stream', key).buffer(true).parse(binary).send({});
        const second = await post('/stream', key).buffer(true).parse(binary).send({});
        expect(Buffer.compare(first.body as Buffer, second.body as Buffer)).toBe(0);
        expect((first.body as Buffer).toString('utf8')).toContain('bytes: \u00e9\u20ac\ndone');
        expect([second.headers['content-type'], second.headers['idempotent-replayed']]).toEqual([
          'text/plain; charset=utf-8',
          'true',
        ]);
        expect(runs('stream')).toBe(1);
      });

      it('8: a piped stream replays byte for byte', async () => {
        const key = newKey();
        const first = await post('/pipe', key).buffer(true).parse(binary).send({});
        const second = await post('/pipe', key).buffer(true).parse(binary).send({});
        expect(Buffer.compare(first.body as Buffer, Buffer.concat(PIPE_CHUNKS))).toBe(0);
        expect(Buffer.compare(second.body as Buffer, Buffer.concat(PIPE_CHUNKS))).toBe(0);
        expect([second.headers['content-type'], second.headers['idempotent-replayed']]).toEqual([
          'application/octet-stream',
          'true',
        ]);
        expect(runs('pipe')).toBe(1);
      });

      it('8: write keeps returning its backpressure boolean', async () => {
        const key = newKey();
        const first = await post('/big', key).buffer(true).parse(binary).send({});
        expect(s.t.writeResults).toContain(false);
        const second = await post('/big', key).buffer(true).parse(binary).send({});
        expect((first.body as Buffer).byteLength).toBe(8 * 64 * 1024);
        expect(Buffer.compare(first.body as Buffer, second.body as Buffer)).toBe(0);
      });

      it('headers passed to writeHead are stored and replayed', async () => {
        const key = newKey();
        const first = await post('/write-head', key).send({});
        const second = await post('/write-head', key).send({});
        expect([first.status, first.headers['location'], first.text]).toEqual([
          201,
          '/write-head/1',
          'created 1',
        ]);
        expect([
          second.status,
          second.headers['location'],
          second.headers['content-type'],
          second.text,
        ]).toEqual([201, '/write-head/1', 'text/plain', 'created 1']);
      });

      it('a response cut mid-body releases the key, so a retry runs again', async () => {
        const key = newKey();
        const before = runs('cut');
        await expect(post('/cut', key).send({})).rejects.toThrow();
        await until(async () => {
          const retry = post('/cut', key)
            .send({})
            .then(
              (r) => r.status,
              () => 0,
            );
          return (await retry) !== 409;
        });
        expect(runs('cut') - before).toBe(2);
      });

      it('9: the client aborts, the handler finishes → a later retry replays; executed once', async () => {
        const key = newKey();
        const before = runs('hang');
        const { hostname, port } = new URL(s.url);
        const aborted = httpRequest({
          host: hostname,
          port,
          method: 'POST',
          path: '/hang',
          headers: { 'idempotency-key': key, 'content-type': 'application/json' },
        });
        aborted.on('error', () => {});
        aborted.end('{"a":1}');
        await until(() => runs('hang') - before === 1);
        aborted.destroy();
        await sleep(50);
        const during = await post('/hang', key).send({ a: 1 });
        expect(during.status).toBe(409);
        s.t.parked.shift()!();
        let retry = await post('/hang', key).send({ a: 1 });
        await until(async () => {
          retry = await post('/hang', key).send({ a: 1 });
          return retry.status !== 409;
        });
        expect([retry.status, retry.body, retry.headers['idempotent-replayed']]).toEqual([
          201,
          { id: before + 1 },
          'true',
        ]);
        expect(runs('hang') - before).toBe(1);
      });

      it('12: reordered JSON keys replay; a different query → 422', async () => {
        const key = newKey();
        const first = await post('/orders?tag=x', key).send({ a: 1, b: { c: 2, d: 3 } });
        const reordered = await post('/orders?tag=x', key).send({ b: { d: 3, c: 2 }, a: 1 });
        expect([reordered.status, reordered.text, reordered.headers['idempotent-replayed']]).toEqual([
          201,
          first.text,
          'true',
        ]);
        const otherQuery = await post('/orders?tag=y', key).send({ a: 1, b: { c: 2, d: 3 } });
        expect([otherQuery.status, otherQuery.body.error_code]).toEqual([422, 'idempotency_key_reused']);
      });

      it('12: an empty body works and replays', async () => {
        const key = newKey();
        const first = await post('/orders', key);
        const second = await post('/orders', key);
        expect([first.status, second.status, second.text, second.headers['idempotent-replayed']]).toEqual([
          201,
          201,
          first.text,
          'true',
        ]);
      });

      it('12: no body and an empty JSON body (Content-Length: 0) are the same request', async () => {
        const key = newKey();
        const first = await post('/orders', key);
        const empty = await post('/orders', key)
          .set('Content-Type', 'application/json')
          .set('Content-Length', '0');
        const braces = await post('/orders', key).set('Content-Type', 'application/json').send('{}');
        expect([first.status, empty.status, empty.headers['idempotent-replayed'], empty.text]).toEqual([
          201,
          201,
          'true',
          first.text,
        ]);
        // `{}` is a body: a different request under the same key.
        expect([braces.status, braces.body.error_code]).toEqual([422, 'idempotency_key_reused']);
      });

      it('12: 204 is kept and replayed without a body', async () => {
        const key = newKey();
        const first = await post('/no-content', key).send({});
        const second = await post('/no-content', key).send({});
        expect([first.status, second.status, second.text, second.headers['idempotent-replayed']]).toEqual([
          204,
          204,
          '',
          'true',
        ]);
        expect(second.headers['content-length']).toBeUndefined();
        expect(runs('no-content')).toBe(1);
      });
    });
  }
}

for (const [storeName, makeStore] of STORES) {
  describe(`${storeName} store: lease, retention and limits (express5)`, () => {
    const express = EXPRESS_VERSIONS[0][1];

    describe('7: lease 1 s', () => {
      const s = harness(express, makeStore, { leaseMs: 1_000 });
      it('409 before expiry, takeover after; the original finishing late does not overwrite', async () => {
        const key = newKey();
        const post = () => request(s.url).post('/hang').set('Idempotency-Key', key).send({ a: 1 });
        const original = post();
        const originalDone = original.then((r) => r);
        await until(() => s.t.runs.get('hang') === 1);
        expect((await post()).status).toBe(409);
        await sleep(1_100);
        const takeover = post().then((r) => r);
        await until(() => s.t.runs.get('hang') === 2);
        s.t.parked.shift()!();
        expect((await originalDone).body).toEqual({ id: 1 });
        expect((await post()).status).toBe(409);
        s.t.parked.shift()!();
        expect((await takeover).body).toEqual({ id: 2 });
        const replay = await post();
        expect([replay.status, replay.body, replay.headers['idempotent-replayed']]).toEqual([
          201,
          { id: 2 },
          'true',
        ]);
      });
    });

    describe('10: retention 1 s', () => {
      const s = harness(express, makeStore, { retentionMs: 1_000 });
      it('after retention the key runs again', async () => {
        const key = newKey();
        const post = () => request(s.url).post('/orders').set('Idempotency-Key', key).send({ a: 1 });
        await post();
        expect((await post()).headers['idempotent-replayed']).toBe('true');
        await sleep(1_100);
        const later = await post();
        expect([later.status, later.headers['idempotent-replayed']]).toEqual([201, undefined]);
        expect(s.t.runs.get('orders')).toBe(2);
      });
    });

    describe('a body over maxBodyBytes', () => {
      const s = harness(express, makeStore, { maxBodyBytes: 1_000 });
      it('is sent in full but not stored; the key is released', async () => {
        const key = newKey();
        const first = await request(s.url).post('/stream').set('Idempotency-Key', key).send({});
        expect(first.text.endsWith('done')).toBe(true);
        const second = await request(s.url).post('/stream').set('Idempotency-Key', key).send({});
        expect([second.status, second.headers['idempotent-replayed']]).toEqual([200, undefined]);
        expect(s.t.runs.get('stream')).toBe(2);
      });
    });
  });
}

describe.each(EXPRESS_VERSIONS)('%s with compression in front', (_name, express) => {
  const state = {} as { t: TestApp; url: string; close: () => Promise<void> };
  beforeAll(async () => {
    state.t = buildApp(express, { store: createMemoryStore() }, [compression({ threshold: 0 })]);
    const { server, url } = await listen(state.t.app);
    state.url = url;
    state.close = () => close(server);
  });
  afterAll(() => state.close());

  it('stores the uncompressed bytes and replays them compressed or not, as the retry asks', async () => {
    const key = newKey();
    const post = (encoding: string) =>
      request(state.url)
        .post('/stream')
        .set('Idempotency-Key', key)
        .set('Accept-Encoding', encoding)
        .send({});
    const first = await post('gzip');
    const gzipReplay = await post('gzip');
    const plainReplay = await post('identity');
    expect([first.headers['content-encoding'], gzipReplay.headers['content-encoding']]).toEqual([
      'gzip',
      'gzip',
    ]);
    expect(plainReplay.headers['content-encoding']).toBeUndefined();
    expect([gzipReplay.text, plainReplay.text]).toEqual([first.text, first.text]);
    expect(plainReplay.headers['idempotent-replayed']).toBe('true');
    expect(state.t.runs.get('stream')).toBe(1);
  });
  it('stores headers given to writeHead without the Content-Encoding compression adds', async () => {
    const key = newKey();
    const post = (encoding: string) =>
      request(state.url)
        .post('/write-head')
        .set('Idempotency-Key', key)
        .set('Accept-Encoding', encoding)
        .send({});
    const first = await post('gzip');
    const plainReplay = await post('identity');
    const row = (r: request.Response) => [
      r.status,
      r.headers['location'],
      r.headers['content-type'],
      r.headers['content-encoding'],
      r.text,
    ];
    expect(row(first)).toEqual([201, '/write-head/1', 'text/plain', 'gzip', 'created 1']);
    expect(row(plainReplay)).toEqual([201, '/write-head/1', 'text/plain', undefined, 'created 1']);
    expect(state.t.runs.get('write-head')).toBe(1);
  });
});

describe.each(EXPRESS_VERSIONS)('%s without X-Powered-By', (_name, express) => {
  it('stores headers passed only to writeHead (Node keeps them in the header block alone)', async () => {
    const t = buildApp(express, { store: createMemoryStore() });
    t.app.disable('x-powered-by');
    const { server, url } = await listen(t.app);
    const key = newKey();
    const first = await request(url).post('/write-head').set('Idempotency-Key', key).send({});
    const second = await request(url).post('/write-head').set('Idempotency-Key', key).send({});
    await close(server);
    const row = (r: request.Response) => [
      r.status,
      r.headers['location'],
      r.headers['content-type'],
      r.headers['x-powered-by'],
      r.text,
    ];
    expect(row(first)).toEqual([201, '/write-head/1', 'text/plain', undefined, 'created 1']);
    expect(row(second)).toEqual([201, '/write-head/1', 'text/plain', undefined, 'created 1']);
    expect([second.headers['idempotent-replayed'], t.runs.get('write-head')]).toEqual(['true', 1]);
  });
});

describe.each(EXPRESS_VERSIONS)('%s mounted before the body parser', (_name, express) => {
  it('fails the request instead of fingerprinting without the body', async () => {
    const { idempotency } = await import('./express.js');
    const { errorHandler } = await import('@plumbline/errors/express');
    const app = express();
    let ran = 0;
    app.post('/x', idempotency({ store: createMemoryStore() }), (_req, res) => {
      ran += 1;
      res.end();
    });
    app.use(errorHandler({ onError: () => {} }));
    const { server, url } = await listen(app);
    const res = await request(url).post('/x').set('Idempotency-Key', 'k').send({ a: 1 });
    await close(server);
    expect([res.status, res.body.error_code, ran]).toEqual([500, 'internal_error', 0]);
  });
});

describe.each(EXPRESS_VERSIONS)('%s with idempotency() mounted twice on one request', (_name, express) => {
  // Between the two mounts: nothing, or a middleware of its own that wraps `end` (as loggers and
  // compression do), which the shared capture functions cannot see through.
  it.each([
    ['nothing between the two', false],
    ['a wrapper of end between the two', true],
  ])('%s: both claims store the whole response; a retry replays it', async (_label, between) => {
    const { idempotency } = await import('./express.js');
    const { errorHandler } = await import('@plumbline/errors/express');
    const outer = createMemoryStore();
    const inner = createMemoryStore();
    const app = express();
    app.use(express.json());
    app.use(idempotency({ store: outer }));
    let wrapped = 0;
    if (between)
      app.use((_req, res, next) => {
        const end = res.end;
        res.end = function (this: typeof res, ...args: unknown[]) {
          wrapped += 1;
          return (end as (...a: unknown[]) => typeof res).apply(this, args);
        } as typeof res.end;
        next();
      });
    let ran = 0;
    app.post('/x', idempotency({ store: inner }), (_req, res) => {
      ran += 1;
      res.status(201).json({ ran });
    });
    app.use(errorHandler({ onError: () => {} }));
    const { server, url } = await listen(app);
    const first = await request(url).post('/x').set('Idempotency-Key', 'k').send({ a: 1 });
    const second = await request(url).post('/x').set('Idempotency-Key', 'k').send({ a: 1 });
    await close(server);
    expect([
      first.status,
      first.body,
      second.status,
      second.body,
      second.headers['idempotent-replayed'],
    ]).toEqual([201, { ran: 1 }, 201, { ran: 1 }, 'true']);
    expect([outer.size, inner.size, ran, wrapped]).toEqual([1, 1, 1, between ? 1 : 0]);
  });
});

/** What a raw HTTP/1.1 client receives: status, header lines (no Date) and the body bytes. */
function rawPost(url: string, path: string, key: string): Promise<[number, string[], string]> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${url}${path}`,
      { method: 'POST', headers: { 'idempotency-key': key } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const lines: string[] = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2)
            if (res.rawHeaders[i]!.toLowerCase() !== 'date')
              lines.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
          resolve([res.statusCode ?? 0, lines, Buffer.concat(chunks).toString('latin1')]);
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe.each(EXPRESS_VERSIONS)('%s: the end held until the store answered', (_name, express) => {
  // Raw `ServerResponse` calls whose framing Node decides at `end` (Content-Length counted,
  // chunked after a `write`, none on 204): the same status, header fields and body bytes as without
  // the middleware. Compared as a set of lines: the counted Content-Length is now set before the
  // head is written, so Node sends it among the others rather than after Connection (the order of
  // different field names carries no meaning, RFC 9110 5.3).
  const HANDLERS: [string, (res: import('express').Response) => void][] = [
    [
      'end(string)',
      (res) => {
        res.statusCode = 201;
        res.setHeader('Content-Type', 'text/plain; charset=utf-8');
        res.end('h\u00e9llo');
      },
    ],
    [
      'end(latin1 string, encoding)',
      (res) => {
        res.statusCode = 201;
        res.end('h\u00e9llo', 'latin1');
      },
    ],
    [
      'end(buffer)',
      (res) => {
        res.statusCode = 201;
        res.end(Buffer.from([0, 1, 2, 255]));
      },
    ],
    [
      'end()',
      (res) => {
        res.statusCode = 201;
        res.end();
      },
    ],
    [
      'end(callback)',
      (res) => {
        res.statusCode = 202;
        res.end(() => {});
      },
    ],
    [
      'write, then end(string)',
      (res) => {
        res.statusCode = 201;
        res.write('a');
        res.end('b');
      },
    ],
    [
      '204 end()',
      (res) => {
        res.statusCode = 204;
        res.end();
      },
    ],
    [
      'writeHead, then end(string)',
      (res) => {
        res.writeHead(201, { 'Content-Type': 'text/plain', Location: '/x/1' });
        res.end('created');
      },
    ],
    [
      'Transfer-Encoding set by the handler',
      (res) => {
        res.statusCode = 201;
        res.setHeader('Transfer-Encoding', 'chunked');
        res.end('abc');
      },
    ],
    ['res.json', (res) => void res.status(201).json({ id: 1 })],
  ];

  it.each(HANDLERS)(
    '%s: the same status, header lines and body as without idempotency',
    async (_case, handle) => {
      const { idempotency } = await import('./express.js');
      const wire = async (withIdempotency: boolean) => {
        const app = express();
        app.disable('etag');
        if (withIdempotency) app.use(idempotency({ store: createMemoryStore() }));
        app.post('/x', (_req, res) => handle(res));
        const { server, url } = await listen(app);
        try {
          return await rawPost(url, '/x', newKey());
        } finally {
          await close(server);
        }
      };
      const [status, lines, body] = await wire(true);
      const [plainStatus, plainLines, plainBody] = await wire(false);
      expect([status, lines.sort(), body]).toEqual([plainStatus, plainLines.sort(), plainBody]);
    },
  );

  it('after end() the head is final: headersSent is true and a late setHeader throws as Node would', async () => {
    const { idempotency } = await import('./express.js');
    const app = express();
    const seen: unknown[] = [];
    app.use(idempotency({ store: createMemoryStore() }));
    app.post('/x', (_req, res) => {
      res.status(201).json({ id: 1 });
      seen.push(res.headersSent);
      try {
        res.setHeader('X-Late', '1');
      } catch (error) {
        seen.push((error as { code?: string }).code);
      }
    });
    const { server, url } = await listen(app);
    const [status, lines] = await rawPost(url, '/x', newKey());
    await close(server);
    expect([status, lines.some((l) => l.startsWith('X-Late')), seen]).toEqual([
      201,
      false,
      [true, 'ERR_HTTP_HEADERS_SENT'],
    ]);
  });

  it('a write and a second end() made while the end is held run after it, as without the middleware', async () => {
    const { idempotency } = await import('./express.js');
    const outcome = async (withIdempotency: boolean) => {
      const app = express();
      const seen: unknown[] = [];
      if (withIdempotency) app.use(idempotency({ store: createMemoryStore() }));
      app.post('/x', (_req, res) => {
        res.on('error', (error: { code?: string }) => seen.push(`error ${error.code}`));
        res.statusCode = 201;
        res.end('first');
        res.write('late', (error) =>
          seen.push(`write callback ${(error as { code?: string } | null)?.code}`),
        );
        res.end('again', () => seen.push('second end callback'));
      });
      const { server, url } = await listen(app);
      const [status, , body] = await rawPost(url, '/x', newKey());
      await sleep(50);
      await close(server);
      return [status, body, seen.sort()];
    };
    expect(await outcome(true)).toEqual(await outcome(false));
  });

  it('a slow store holds the last bytes until the record is written: a retry on the heels of the response replays', async () => {
    const { idempotency } = await import('./express.js');
    const memory = createMemoryStore();
    const store: IdempotencyStore = {
      claim: (key, r) => memory.claim(key, r),
      complete: async (...args) => {
        await sleep(150);
        return memory.complete(...args);
      },
      release: (key, token) => memory.release(key, token),
    };
    const app = express();
    let runs = 0;
    app.use(idempotency({ store }));
    app.post('/x', (_req, res) => void res.status(201).json({ run: ++runs }));
    const { server, url } = await listen(app);
    const key = newKey();
    const started = Date.now();
    const first = await rawPost(url, '/x', key);
    const took = Date.now() - started;
    const retry = await rawPost(url, '/x', key);
    await close(server);
    expect([first[0], first[2], retry[0], retry[2], runs]).toEqual([201, '{"run":1}', 201, '{"run":1}', 1]);
    expect(retry[1]).toContain('Idempotent-Replayed: true');
    expect(took).toBeGreaterThanOrEqual(140);
  });
});

describe.each(EXPRESS_VERSIONS)('%s: an end() Node refuses', (_name, express) => {
  it.each([
    [
      'an invalid status (the head cannot be written)',
      (res: import('express').Response) => {
        res.statusCode = 1000;
        res.end('x');
      },
    ],
    ['a chunk of the wrong type', (res: import('express').Response) => res.end(42 as unknown as string)],
  ])(
    '%s: the error reaches the error handler and the key is freed, so the retry runs again',
    async (_case, handle) => {
      const { idempotency } = await import('./express.js');
      const { errorHandler } = await import('@plumbline/errors/express');
      const app = express();
      let runs = 0;
      app.use(idempotency({ store: createMemoryStore(), onError: () => {} }));
      app.post('/x', (_req, res) => {
        runs += 1;
        handle(res);
      });
      app.use(errorHandler({ onError: () => {} }));
      const { server, url } = await listen(app);
      const key = newKey();
      const first = await rawPost(url, '/x', key);
      const retry = await rawPost(url, '/x', key);
      await close(server);
      expect([first[0], retry[0], runs]).toEqual([500, 500, 2]);
    },
  );
});
