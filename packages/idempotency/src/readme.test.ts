// The README's Fastify and Hono examples run as written (only the port is made ephemeral).
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cleanReadmeExamples, readmeBlock, runReadmeExample, send } from '@plumbline/test-utils';
import type { FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';

const here = new URL('.', import.meta.url);
const readme = new URL('../README.md', import.meta.url);
cleanReadmeExamples(here);
const closers: (() => Promise<unknown>)[] = [];
afterAll(() => Promise.all(closers.map((close) => close())));

async function fastifyPort(): Promise<number> {
  const { app } = await runReadmeExample<{ app: FastifyInstance }>(
    here,
    'idempotency-fastify',
    readmeBlock(readme, '### Fastify'),
    ['app'],
    [['port: 3000', "port: 0, host: '127.0.0.1'"]],
  );
  closers.push(() => app.close());
  return (app.server.address() as AddressInfo).port;
}

async function honoPort(): Promise<number> {
  const { server } = await runReadmeExample<{ server: Server }>(
    here,
    'idempotency-hono',
    readmeBlock(readme, '### Hono'),
    ['server'],
    [['port: 3000', "port: 0, hostname: '127.0.0.1'"]],
  );
  if (!server.listening) await once(server, 'listening');
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  return (server.address() as AddressInfo).port;
}

describe.each([
  ['Fastify', fastifyPort],
  ['Hono', honoPort],
])('README %s example', (_name, start) => {
  const port = start();
  const order = (key?: string, body = '{"sku":"A-1"}') => ({
    method: 'POST',
    path: '/orders',
    headers: { 'Content-Type': 'application/json', ...(key ? { 'Idempotency-Key': key } : {}) },
    body,
  });

  it('creates once and replays the same bytes', async () => {
    const first = await send(await port, order('readme-1'));
    const again = await send(await port, order('readme-1'));
    expect([first.status, first.headers['location'], first.body]).toEqual([
      201,
      '/orders/1',
      { id: 1, sku: 'A-1' },
    ]);
    expect([
      again.status,
      again.headers['location'],
      again.body,
      again.headers['idempotent-replayed'],
    ]).toEqual([201, '/orders/1', { id: 1, sku: 'A-1' }, 'true']);
  });

  it('refuses a missing key and a reused one', async () => {
    const missing = await send(await port, order());
    const reused = await send(await port, order('readme-1', '{"sku":"B-2"}'));
    expect([missing.status, (missing.body as { error_code: string }).error_code]).toEqual([
      400,
      'idempotency_key_missing',
    ]);
    expect([reused.status, (reused.body as { error_code: string }).error_code]).toEqual([
      422,
      'idempotency_key_reused',
    ]);
  });
});
