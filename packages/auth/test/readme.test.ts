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
    'auth-fastify',
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
    'auth-hono',
    readmeBlock(readme, '### Hono'),
    ['server'],
    [['port: 3000', "port: 0, hostname: '127.0.0.1'"]],
  );
  if (!server.listening) await once(server, 'listening');
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  return (server.address() as AddressInfo).port;
}

const basic = `Basic ${Buffer.from('reporting:reporting-secret-0123456789').toString('base64')}`;

describe.each([
  ['Fastify', fastifyPort],
  ['Hono', honoPort],
])('README %s example', (_name, start) => {
  const port = start();

  it('issues a token that the protected route accepts', async () => {
    const token = await send(await port, {
      method: 'POST',
      path: '/oauth/token',
      headers: { Authorization: basic, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&scope=read%3Aprojects',
    });
    expect([token.status, token.headers['cache-control']]).toEqual([200, 'no-store']);
    const accessToken = (token.body as { access_token: string }).access_token;
    const projects = await send(await port, {
      path: '/projects',
      headers: { Authorization: `Bearer ${accessToken}` },
    });
    expect([projects.status, projects.body]).toEqual([200, { client: 'reporting' }]);
  });

  it('answers no credentials with 401 and the Bearer challenge', async () => {
    const outcome = await send(await port, { path: '/projects' });
    expect([
      outcome.status,
      outcome.headers['www-authenticate'],
      (outcome.body as { error_code: string }).error_code,
    ]).toEqual([401, 'Bearer realm="plumbline"', 'unauthorized']);
  });
});
