/**
 * Fastify's `routeOptions`: one route table mounted once per API version on the same paths, each
 * mount's routes (and their 405 answers) constrained to its version, each handing its version to
 * the handlers through `context`. Express and Hono mount a table per router or sub-app instead.
 */
import { plumblineErrors } from '@plumbline/errors/fastify';
import { negotiation } from '@plumbline/negotiation/fastify';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { mount } from './fastify.js';
import { route } from './index.js';

const table = [
  route({
    method: 'GET',
    path: '/things/{id}',
    params: z.object({ id: z.string() }),
    responses: { 200: z.object({ id: z.string(), version: z.string() }) },
    handler: ({ params, context }) => ({ status: 200, body: { id: params.id, version: String(context) } }),
  }),
];

async function versionedApp() {
  const app = Fastify({
    routerOptions: {
      constraints: {
        apiVersion: {
          name: 'apiVersion',
          storage: () => {
            const handlers = new Map<string, unknown>();
            return {
              get: (version: string) => (handlers.get(version) ?? null) as never,
              set: (version: string, store: unknown) => {
                handlers.set(version, store);
              },
            };
          },
          deriveConstraint: (req: { headers: Record<string, string | string[] | undefined> }) =>
            (req.headers['x-api-version'] as string | undefined) ?? '2',
          mustMatchWhenDerived: true,
          validate: () => true,
        },
      },
    },
  });
  await app.register(plumblineErrors, { onError: () => {} });
  await app.register(negotiation, { languages: ['en'] });
  for (const version of ['1', '2']) {
    await mount(app, table, {
      context: () => version,
      routeOptions: (options) => ({ ...options, constraints: { apiVersion: version } }),
    });
  }
  await app.ready();
  return app;
}

describe('@plumbline/contract/fastify: routeOptions', async () => {
  const app = await versionedApp();
  afterAll(() => app.close());

  it.each([
    ['GET', { 'x-api-version': '1' }, 200, { id: 'a', version: '1' }, undefined],
    ['GET', { 'x-api-version': '2' }, 200, { id: 'a', version: '2' }, undefined],
    ['GET', {}, 200, { id: 'a', version: '2' }, undefined],
    ['PUT', { 'x-api-version': '1' }, 405, { error_code: 'method_not_allowed' }, 'GET, HEAD, OPTIONS'],
    ['PUT', { 'x-api-version': '2' }, 405, { error_code: 'method_not_allowed' }, 'GET, HEAD, OPTIONS'],
    ['GET', { 'x-api-version': '3' }, 404, { error_code: 'not_found' }, undefined],
  ] as const)('%s /things/a %j → %i', async (method, headers, status, body, allow) => {
    const res = await app.inject({ method, url: '/things/a', headers });
    expect(res.statusCode).toBe(status);
    expect(res.json()).toMatchObject(body);
    expect(res.headers['allow']).toBe(allow);
  });

  it('without the constraint the second mount of the same paths is refused at start-up', async () => {
    const app = Fastify();
    await app.register(plumblineErrors, { onError: () => {} });
    await app.register(negotiation, { languages: ['en'] });
    const twice = async () => {
      await mount(app, table, { context: () => '1' });
      await mount(app, table, { context: () => '2' });
      await app.ready();
    };
    await expect(twice()).rejects.toThrow("Method 'GET' already declared for route '/things/:id'");
    await app.close().catch(() => {});
  });
});
