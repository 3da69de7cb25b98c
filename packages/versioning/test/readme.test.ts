// The README's Fastify and Hono examples run as written (only the port is made ephemeral).
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cleanReadmeExamples, listen, readmeBlock, runReadmeExample, send } from '@plumbline/test-utils';
import type { Express } from 'express';
import type { FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';

const here = new URL('.', import.meta.url);
const readme = new URL('../README.md', import.meta.url);
cleanReadmeExamples(here);
const closers: (() => Promise<unknown>)[] = [];
afterAll(() => Promise.all(closers.map((close) => close())));

describe('README Fastify example (path strategy)', async () => {
  const code = readmeBlock(readme, '### Fastify');
  const { app } = await runReadmeExample<{ app: FastifyInstance }>(
    here,
    'versioning-fastify',
    code,
    ['app'],
    [['port: 3000', "port: 0, host: '127.0.0.1'"]],
  );
  closers.push(() => app.close());
  const port = (app.server.address() as AddressInfo).port;

  it.each([
    ['/v1/projects', 200, { version: '1', legacy: true }, 'true', '</v2/projects>; rel="successor-version"'],
    ['/v2/projects', 200, { version: '2' }, undefined, undefined],
    ['/health', 200, { ok: true }, undefined, undefined],
  ])('GET %s', async (path, status, body, deprecation, link) => {
    const outcome = await send(port, { path });
    expect([outcome.status, outcome.body]).toEqual([status, body]);
    expect(outcome.headers['api-supported-versions']).toBe('1, 2');
    expect(outcome.headers['api-deprecated-versions']).toBe('1');
    expect(outcome.headers['deprecation']).toBe(deprecation);
    expect(outcome.headers['link']).toBe(link);
  });

  it('an unknown version is 404 unsupported_api_version with the version lists', async () => {
    const outcome = await send(port, { path: '/v3/projects' });
    expect([outcome.status, (outcome.body as { error_code: string }).error_code]).toEqual([
      404,
      'unsupported_api_version',
    ]);
    expect(outcome.headers['api-supported-versions']).toBe('1, 2');
  });
});

describe('README Fastify route constraint example (header strategy, v1 and v2 on one path)', async () => {
  const code = readmeBlock(readme, '#### Several versions on one path');
  const { app } = await runReadmeExample<{ app: FastifyInstance }>(
    here,
    'versioning-fastify-constraint',
    code,
    ['app'],
    [['port: 3000', "port: 0, host: '127.0.0.1'"]],
  );
  closers.push(() => app.close());
  const port = (app.server.address() as AddressInfo).port;
  const SUCCESSOR = (path: string) => `<${path}>; rel="successor-version"`;

  it.each([
    [
      '/projects',
      { 'X-API-Version': '1' },
      200,
      { version: '1', legacy: true },
      'true',
      SUCCESSOR('/projects'),
    ],
    ['/projects', {}, 200, { version: '2' }, undefined, undefined],
    ['/projects', { 'X-API-Version': '2' }, 200, { version: '2' }, undefined, undefined],
    ['/reports', { 'X-API-Version': '2' }, 200, { reports: [] }, undefined, undefined],
    ['/reports', { 'X-API-Version': '1' }, 404, 'not_found', 'true', SUCCESSOR('/reports')],
    ['/projects', { 'X-API-Version': '9' }, 400, 'unsupported_api_version', undefined, undefined],
    ['/projects', { 'X-API-Version': 'v2' }, 400, 'invalid_api_version', undefined, undefined],
    ['/health', { 'X-API-Version': '9' }, 200, { ok: true }, undefined, undefined],
  ])('GET %s with %j', async (path, headers, status, body, deprecation, link) => {
    const outcome = await send(port, { path, headers });
    expect(outcome.status).toBe(status);
    if (typeof body === 'string') expect((outcome.body as { error_code: string }).error_code).toBe(body);
    else expect(outcome.body).toEqual(body);
    expect(outcome.headers['api-supported-versions']).toBe('1, 2');
    expect(outcome.headers['deprecation']).toBe(deprecation);
    expect(outcome.headers['link']).toBe(link);
  });
});

describe('README Hono example (header strategy)', async () => {
  const code = readmeBlock(readme, '### Hono');
  const { server } = await runReadmeExample<{ server: Server }>(
    here,
    'versioning-hono',
    code,
    ['server'],
    [['port: 3000', "port: 0, hostname: '127.0.0.1'"]],
  );
  if (!server.listening) await once(server, 'listening');
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  const port = (server.address() as AddressInfo).port;

  it.each([
    [{ 'X-API-Version': '1' }, 200, { legacy: true }, 'true', 'X-API-Version'],
    [{}, 200, { version: '2' }, undefined, 'X-API-Version'],
    [
      { 'X-API-Version': '9' },
      400,
      'unsupported_api_version',
      undefined,
      'X-API-Version, Accept, Accept-Language',
    ],
    [
      { 'X-API-Version': ['1', '2'] },
      400,
      'ambiguous_api_version',
      undefined,
      'X-API-Version, Accept, Accept-Language',
    ],
  ])('GET /projects with %j', async (headers, status, body, deprecation, vary) => {
    const outcome = await send(port, { path: '/projects', headers });
    expect(outcome.status).toBe(status);
    if (typeof body === 'string') expect((outcome.body as { error_code: string }).error_code).toBe(body);
    else expect(outcome.body).toEqual(body);
    expect(outcome.headers['deprecation']).toBe(deprecation);
    expect(outcome.headers['vary']).toBe(vary);
    expect(outcome.headers['api-supported-versions']).toBe('1, 2');
  });

  it('the neutral /health is answered whatever the version says', async () => {
    const outcome = await send(port, { path: '/health', headers: { 'X-API-Version': 'garbage' } });
    expect([outcome.status, outcome.body, outcome.headers['vary']]).toEqual([200, { ok: true }, undefined]);
  });
});

// The "headers early, refusal later" examples: /health, then a 401 without the credential, then
// refuseVersion(), then /projects.
type RefuseLaterRow = readonly [
  path: string,
  version: string | undefined,
  credential: boolean,
  status: number,
  /** The answer, or the problem's error_code. */
  body: Record<string, unknown> | string,
  deprecation: string | undefined,
  vary: string,
];
const REFUSE_LATER: readonly RefuseLaterRow[] = [
  ['/health', '9', false, 200, { ok: true }, undefined, 'X-API-Version'],
  ['/health', undefined, false, 200, { ok: true }, undefined, 'X-API-Version'],
  ['/projects', '9', false, 401, 'unauthorized', undefined, 'X-API-Version, Accept, Accept-Language'],
  ['/projects', '1', false, 401, 'unauthorized', 'true', 'X-API-Version, Accept, Accept-Language'],
  [
    '/projects',
    '9',
    true,
    400,
    'unsupported_api_version',
    undefined,
    'X-API-Version, Accept, Accept-Language',
  ],
  ['/projects', 'v2', true, 400, 'invalid_api_version', undefined, 'X-API-Version, Accept, Accept-Language'],
  [
    '/nothing',
    '9',
    true,
    400,
    'unsupported_api_version',
    undefined,
    'X-API-Version, Accept, Accept-Language',
  ],
  ['/projects', '1', true, 200, { version: '1' }, 'true', 'X-API-Version'],
  ['/projects', undefined, true, 200, { version: '2' }, undefined, 'X-API-Version'],
];

async function expectRefuseLater(port: number, row: RefuseLaterRow): Promise<void> {
  const [path, version, credential, status, body, deprecation, vary] = row;
  const headers: Record<string, string> = credential ? { Authorization: 'Bearer demo' } : {};
  if (version !== undefined) headers['X-API-Version'] = version;
  const outcome = await send(port, { path, headers });
  expect(outcome.status).toBe(status);
  if (typeof body === 'string') expect((outcome.body as { error_code: string }).error_code).toBe(body);
  else expect(outcome.body).toEqual(body);
  expect(outcome.headers['api-supported-versions']).toBe('1, 2');
  expect(outcome.headers['api-deprecated-versions']).toBe('1');
  expect(outcome.headers['deprecation']).toBe(deprecation);
  expect(outcome.headers['link']).toBe(
    deprecation === undefined ? undefined : `<${path}>; rel="successor-version"`,
  );
  expect(outcome.headers['vary']).toBe(vary);
}

describe('README Express example: headers early, refusal later', async () => {
  const code = readmeBlock(readme, '#### Headers early, refusal later (Express)');
  const { app } = await runReadmeExample<{ app: Express }>(here, 'versioning-express-refuse-later', code, [
    'app',
  ]);
  const server = await listen(app);
  closers.push(() => server.close());

  it.each(REFUSE_LATER)('GET %s as v%s (credential: %s)', (...row) => expectRefuseLater(server.port, row));
});

describe('README Hono example: headers early, refusal later', async () => {
  const code = readmeBlock(readme, '#### Headers early, refusal later (Hono)');
  const { server } = await runReadmeExample<{ server: Server }>(
    here,
    'versioning-hono-refuse-later',
    code,
    ['server'],
    [['port: 3000', "port: 0, hostname: '127.0.0.1'"]],
  );
  if (!server.listening) await once(server, 'listening');
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  const port = (server.address() as AddressInfo).port;

  it.each(REFUSE_LATER)('GET %s as v%s (credential: %s)', (...row) => expectRefuseLater(port, row));
});

describe('README version changes example (core)', async () => {
  const code = readmeBlock(readme, '## Version changes');
  const example = await runReadmeExample<Record<string, unknown>>(here, 'versioning-changes', code, [
    'input',
    'page',
    'problem',
    'notes',
    'markdown',
  ]);

  it('migrates the request up, the page and the problem down, as the comments say', () => {
    expect(example['input']).toEqual({ title: 'Roof', budget: { amount: 1200, currency: 'EUR' } });
    expect(example['page']).toEqual({
      data: [{ id: 1, name: 'Roof', status: 'active', budget: 1200 }],
      next_cursor: null,
    });
    expect(example['problem']).toEqual({ status: 422, errors: [{ pointer: '/budget' }] });
  });

  it('writes the changelog from the same declarations', () => {
    expect(example['notes']).toEqual([
      {
        version: '3',
        changes: [
          {
            kind: 'field-renamed',
            description: 'Project: the field `name` was renamed to `title`.',
            affects: ['Project'],
          },
          {
            kind: 'enum-value-added',
            description: 'Project: the field `status` can be "paused" (older versions see "active").',
            affects: ['Project'],
          },
        ],
      },
      {
        version: '2',
        changes: [
          {
            kind: 'custom',
            description: 'Project.budget devient { amount, currency }.',
            affects: ['Project'],
          },
        ],
      },
    ]);
    expect(example['markdown']).toBe(
      '## 3\n\n- Project: the field `name` was renamed to `title`. (Project)\n' +
        '- Project: the field `status` can be "paused" (older versions see "active"). (Project)\n\n' +
        '## 2\n\n- Project.budget is now { amount, currency }. (Project)\n',
    );
  });
});

describe('README date versions example (Hono, date strategy, pinned keys)', async () => {
  const code = readmeBlock(readme, '### Date versions and pinned clients');
  const { server } = await runReadmeExample<{ server: Server }>(
    here,
    'versioning-dates',
    code,
    ['server'],
    [['port: 3000', "port: 0, hostname: '127.0.0.1'"]],
  );
  if (!server.listening) await once(server, 'listening');
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  const port = (server.address() as AddressInfo).port;
  const OLD = { id: 7, name: 'Roof', budget: 1200 };
  const NEW = { id: 7, name: 'Roof', budget: { amount: 1200, currency: 'EUR' } };

  it.each([
    [{ 'Acme-Version': '2025-06-30' }, 200, OLD],
    [{ 'Acme-Version': '2026-11-01' }, 200, NEW],
    [{ 'Acme-Version': '2030-01-01' }, 200, NEW],
    [{ 'X-API-Key': 'key-from-2025' }, 200, OLD],
    [{ 'X-API-Key': 'key-from-2025', 'Acme-Version': '2026-11-01' }, 200, NEW],
    [{}, 200, NEW],
    [{ 'Acme-Version': '2024-12-31' }, 400, 'unsupported_api_version'],
    [{ 'Acme-Version': 'yesterday' }, 400, 'invalid_api_version'],
  ])('GET /projects/7 with %j', async (headers, status, body) => {
    const outcome = await send(port, { path: '/projects/7', headers });
    expect(outcome.status).toBe(status);
    if (typeof body === 'string') expect((outcome.body as { error_code: string }).error_code).toBe(body);
    else expect(outcome.body).toEqual(body);
    expect(outcome.headers['api-supported-versions']).toBe('2025-01-15, 2026-11-01');
    expect(outcome.headers['vary']?.split(', ')).toContain('Acme-Version');
  });
});
