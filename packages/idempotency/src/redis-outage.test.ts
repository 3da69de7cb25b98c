import { redisAvailable } from '@plumbline/test-utils';
import express from 'express';
import { Redis } from 'ioredis';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, close, listen, type TestApp, until } from './__fixtures__/app.js';
import { freePort, OwnRedis } from './__fixtures__/redis-server.js';
import { createRedisStore } from './redis-store.js';

// The shared Redis only tells us redis-server is installed; this test runs its own on a free port.
const redisUp = await redisAvailable();

describe.skipIf(!redisUp)('11: Redis stopped and back', () => {
  let own: OwnRedis;
  let client: Redis;
  let t: TestApp;
  let url: string;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    own = new OwnRedis(await freePort());
    await own.start();
    client = new Redis({
      host: '127.0.0.1',
      port: own.port,
      maxRetriesPerRequest: 0,
      retryStrategy: () => 50,
    });
    client.on('error', () => {});
    t = buildApp(express, { store: createRedisStore({ client, timeoutMs: 500 }) });
    const listening = await listen(t.app);
    url = listening.url;
    stop = () => close(listening.server);
  });
  afterAll(async () => {
    await stop();
    client.disconnect();
    await own.stop();
  });

  const post = (key: string) => request(url).post('/orders').set('Idempotency-Key', key).send({ a: 1 });

  it('503 with Retry-After while Redis is down, handler not run; works again once it is back', async () => {
    expect((await post('before')).status).toBe(201);
    await own.stop();
    await until(() => client.status !== 'ready');
    const down = await post('during');
    expect([down.status, down.body.error_code, down.headers['retry-after']]).toEqual([
      503,
      'service_unavailable',
      '1',
    ]);
    expect(JSON.stringify(down.body)).not.toMatch(/ECONNREFUSED|Redis|Connection/i);
    expect(t.runs.get('orders')).toBe(1);

    await own.start();
    await until(() => client.status === 'ready');
    const back = await post('during');
    expect([back.status, back.headers['idempotent-replayed']]).toEqual([201, undefined]);
    // The record is completed when the response closes, so a retry sent the instant the client has
    // its answer may still find the key in flight (409, documented); it replays once settled.
    let retry = await post('during');
    for (let i = 0; i < 20 && retry.status === 409; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      retry = await post('during');
    }
    expect([retry.status, retry.headers['idempotent-replayed']]).toEqual([201, 'true']);
    expect(t.runs.get('orders')).toBe(2);
  });
});

describe('a client pointed at a closed port', () => {
  let client: Redis;
  beforeAll(() => {
    client = new Redis({ host: '127.0.0.1', port: 1, maxRetriesPerRequest: 0, retryStrategy: () => 100 });
    client.on('error', () => {});
  });
  afterAll(() => client.disconnect());

  it('gets 503 for a keyed request and never runs the handler; unkeyed and GET requests still pass', async () => {
    const t = buildApp(express, { store: createRedisStore({ client, timeoutMs: 300 }) });
    const { server, url } = await listen(t.app);
    const keyed = await request(url).post('/orders').set('Idempotency-Key', 'k').send({ a: 1 });
    const unkeyed = await request(url).post('/orders').send({ a: 1 });
    const get = await request(url).get('/orders').set('Idempotency-Key', 'k');
    await close(server);
    expect([keyed.status, keyed.body.error_code]).toEqual([503, 'service_unavailable']);
    expect([unkeyed.status, get.status]).toEqual([201, 200]);
    expect(t.runs.get('orders')).toBe(1);
  });
});
