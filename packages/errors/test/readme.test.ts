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
    'errors-fastify',
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
    'errors-hono',
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

  it('serves a project with its request id', async () => {
    const outcome = await send(await port, { path: '/projects/1', headers: { 'X-Request-Id': 'readme-1' } });
    expect([outcome.status, outcome.body]).toEqual([200, { id: '1', requestId: 'readme-1' }]);
  });

  it('answers a missing one with a problem, in German when asked', async () => {
    const outcome = await send(await port, {
      path: '/projects/2',
      headers: { 'X-Request-Id': 'readme-2', 'Accept-Language': 'de' },
    });
    expect(outcome.status).toBe(404);
    expect(outcome.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(outcome.body).toEqual({
      type: '/errors/not_found',
      title: 'Not Found',
      status: 404,
      detail: 'Die angeforderte Ressource existiert nicht.',
      instance: '/projects/2',
      error_code: 'not_found',
      message: 'Die angeforderte Ressource existiert nicht.',
      request_id: 'readme-2',
    });
  });

  it('answers a wrong method with 405 and Allow', async () => {
    const outcome = await send(await port, { method: 'DELETE', path: '/projects/1' });
    expect([outcome.status, outcome.headers['allow']]).toEqual([405, 'GET, HEAD, OPTIONS']);
    expect(outcome.body).toMatchObject({ error_code: 'method_not_allowed' });
  });
});
