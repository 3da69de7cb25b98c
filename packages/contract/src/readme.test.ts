/**
 * The README's three framework examples run as written (only the port is made ephemeral), and the
 * request the README shows gets the answer it shows, on each. The route-table block runs too, and
 * the transactional block on PostgreSQL (in a schema of its own; required when CI=true).
 */
import {
  DATABASE_URL,
  listen,
  postgresAvailable,
  readmeBlock,
  readmeFrameworkExamples,
  runReadmeExample,
  send,
  uniquePrefix,
} from '@plumbline/test-utils';
import type { Express } from 'express';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';

const here = new URL('.', import.meta.url);
const readme = new URL('../README.md', import.meta.url);
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

const express = async (): Promise<number> => {
  const { app } = await runReadmeExample<{ app: Express }>(
    here,
    'contract-express',
    readmeBlock(readme, '### Express'),
    [],
  );
  const server = await listen(app);
  closers.push(server.close);
  return server.port;
};
const examples: [string, () => Promise<number>][] = [
  ['Express', express],
  ...readmeFrameworkExamples(here, readme, 'contract'),
];

describe.each(examples)('README %s example', (_name, start) => {
  const port = start();
  const post = async (body: unknown) =>
    send(await port, {
      method: 'POST',
      path: '/projects',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('an empty name: the 400 the README shows', async () => {
    const outcome = await post({ name: '' });
    expect(outcome.status).toBe(400);
    expect(outcome.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    const { request_id, ...problem } = outcome.body as Record<string, unknown>;
    expect(request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(problem).toEqual({
      type: '/errors/validation_failed',
      title: 'Bad Request',
      status: 400,
      detail: 'The request has 1 invalid value.',
      instance: '/projects',
      error_code: 'validation_failed',
      message: 'The request has 1 invalid value.',
      errors: [
        {
          pointer: '#/name',
          error_code: 'invalid_value',
          detail: 'Too small: expected string to have >=1 characters',
        },
      ],
    });
  });

  it('a valid project: 201 with Location', async () => {
    const outcome = await post({ name: 'Gemini' });
    expect([outcome.status, outcome.headers['location'], outcome.body]).toEqual([
      201,
      '/projects/2',
      { id: 2, name: 'Gemini' },
    ]);
  });
});

it('the route-table block: the routes compile and the document describes them', async () => {
  const { document } = await runReadmeExample<{
    document: { paths: Record<string, Record<string, unknown>> };
  }>(here, 'contract-routes', readmeBlock(readme, '### What a route declares'), []);
  expect(Object.keys(document.paths)).toEqual(['/v2/tasks', '/v2/tasks/{taskId}']);
  expect(Object.keys(document.paths['/v2/tasks']!)).toEqual(['get', 'post']);
});

it('one document per version: the older version from the declared changes', async () => {
  type Doc = {
    info: { version: string };
    paths: Record<string, Record<string, { deprecated?: boolean }>>;
    components: { schemas: Record<string, { properties: Record<string, unknown> }> };
  };
  const { documents } = await runReadmeExample<{ documents: Record<string, Doc> }>(
    here,
    'contract-versions',
    readmeBlock(readme, '### One document per version'),
    [],
  );
  const v1 = documents['1']!;
  const v2 = documents['2']!;
  expect([v1.info.version, Object.keys(v1.paths)]).toEqual(['1', ['/v1/projects/{id}']]);
  expect([v2.info.version, Object.keys(v2.paths)]).toEqual([
    '2',
    ['/v2/projects/{id}', '/v2/projects/{id}/archive'],
  ]);
  expect(v1.components.schemas['Project']!.properties['budget']).toEqual({ type: 'number' });
  expect(v2.components.schemas['Project']!.properties['budget']).toEqual({
    type: 'object',
    properties: { amount: { type: 'number' }, currency: { type: 'string', minLength: 3, maxLength: 3 } },
    required: ['amount', 'currency'],
    additionalProperties: false,
  });
  expect([
    v1.paths['/v1/projects/{id}']!['get']!.deprecated,
    v2.paths['/v2/projects/{id}']!['get']!.deprecated,
  ]).toEqual([true, undefined]);
});

describe('README: a nested collection scoped by its parent', () => {
  const port = (async () => {
    const { app } = await runReadmeExample<{ app: Express }>(
      here,
      'contract-scope',
      readmeBlock(readme, '### Nested collections: the parent as a server-side `scope`'),
      [],
    );
    const server = await listen(app);
    closers.push(server.close);
    return server.port;
  })();

  it("lists the parent's rows, and refuses its cursor under another parent", async () => {
    const first = await send(await port, { path: '/projects/1/tasks?limit=1' });
    const body = first.body as { data: unknown[]; page: { next_cursor: string }; links: unknown };
    expect([first.status, body.data]).toEqual([200, [{ id: 1, project_id: 1, title: 'Launch' }]]);
    expect(JSON.stringify(body.links) + first.headers['link']).not.toMatch(/project_id/);
    const cursor = encodeURIComponent(body.page.next_cursor);
    const next = await send(await port, { path: `/projects/1/tasks?limit=1&cursor=${cursor}` });
    expect([next.status, (next.body as { data: unknown[] }).data]).toEqual([
      200,
      [{ id: 2, project_id: 1, title: 'Land' }],
    ]);
    const other = await send(await port, { path: `/projects/2/tasks?limit=1&cursor=${cursor}` });
    expect([other.status, (other.body as { error_code: string }).error_code]).toEqual([
      400,
      'invalid_cursor',
    ]);
  });

  it.each([
    ['/projects/3/tasks', 404, 'not_found'],
    ['/projects/3/tasks?colour=red', 404, 'not_found'],
    ['/projects/2/tasks?colour=red', 400, 'unknown_parameter'],
  ])('the before step: GET %s → %i %s (a missing parent before the query)', async (path, status, code) => {
    const res = await send(await port, { path });
    expect([res.status, (res.body as { error_code: string }).error_code]).toEqual([status, code]);
  });
});

const pgUp = await postgresAvailable();

describe.skipIf(!pgUp)("README: exactly once, the idempotency record in the handler's transaction", () => {
  const schema = uniquePrefix('contract_readme');
  const started = (async () => {
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.end();
    const { app, pool } = await runReadmeExample<{ app: Express; pool: pg.Pool }>(
      here,
      'contract-transaction',
      readmeBlock(readme, "### Exactly once: the idempotency record in the handler's transaction"),
      [],
      [
        [
          'connectionString: process.env.DATABASE_URL',
          `connectionString: ${JSON.stringify(DATABASE_URL)}, options: '-c search_path=${schema}'`,
        ],
      ],
    );
    const server = await listen(app);
    closers.push(async () => {
      await server.close();
      await pool.end();
      const drop = new pg.Client({ connectionString: DATABASE_URL });
      await drop.connect();
      await drop.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await drop.end();
    });
    return { port: server.port, pool };
  })();
  const post = async (path: string, key: string, body: unknown) =>
    send((await started).port, {
      method: 'POST',
      path,
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(body),
    });

  it('creates once, replays the first answer, refuses another body under the key', async () => {
    const first = await post('/orders', 'o-1', { sku: 'A-1' });
    expect([first.status, first.headers['location'], first.body]).toEqual([
      201,
      '/orders/1',
      { id: 1, sku: 'A-1' },
    ]);
    const again = await post('/orders', 'o-1', { sku: 'A-1' });
    expect([again.status, again.headers['idempotent-replayed'], again.body]).toEqual([
      201,
      'true',
      { id: 1, sku: 'A-1' },
    ]);
    const other = await post('/orders', 'o-1', { sku: 'B-2' });
    expect([other.status, (other.body as { error_code: string }).error_code]).toEqual([
      422,
      'idempotency_key_reused',
    ]);
    const { pool } = await started;
    expect((await pool.query('SELECT count(*)::int AS n FROM orders')).rows[0].n).toBe(1);
    expect((await pool.query('SELECT count(*)::int AS n FROM idempotency_keys')).rows[0].n).toBe(1);
  });

  it('the search route keeps the store: no record in the database', async () => {
    const outcome = await post('/orders/searches', 's-1', { sku: 'A-1' });
    expect([outcome.status, outcome.body]).toEqual([200, { count: 1 }]);
    const { pool } = await started;
    expect((await pool.query('SELECT count(*)::int AS n FROM idempotency_keys')).rows[0].n).toBe(1);
  });
});
