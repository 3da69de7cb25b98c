// The README's Fastify and Hono `idempotencyTransaction` examples run as written, on PostgreSQL in a
// schema of their own (only the port is made ephemeral and the pool pointed at that schema).
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  cleanReadmeExamples,
  DATABASE_URL,
  postgresAvailable,
  readmeBlock,
  runReadmeExample,
  send,
  uniquePrefix,
} from '@plumbline/test-utils';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { order, REFUSED, refusals } from './__fixtures__/readme.js';

const pgUp = await postgresAvailable();
const here = new URL('.', import.meta.url);
const readme = new URL('../README.md', import.meta.url);
const POOL = 'connectionString: process.env.DATABASE_URL';

interface Example {
  readonly pool: pg.Pool;
  readonly port: number;
  close(): Promise<unknown>;
}

/** Starts one README example in a fresh schema; resolves with its port. */
async function start(framework: 'Fastify' | 'Hono', schema: string): Promise<Example> {
  const heading = `### ${framework}, exactly-once: the store in your own transaction`;
  const pool = `connectionString: ${JSON.stringify(DATABASE_URL)}, options: '-c search_path=${schema}'`;
  if (framework === 'Fastify') {
    const { app, pool: examplePool } = await runReadmeExample<{
      app: { close(): Promise<unknown>; server: Server };
      pool: pg.Pool;
    }>(
      here,
      'transaction-fastify',
      readmeBlock(readme, heading),
      ['app', 'pool'],
      [
        ['port: 3000', "port: 0, host: '127.0.0.1'"],
        [POOL, pool],
      ],
    );
    const port = (app.server.address() as AddressInfo).port;
    return { pool: examplePool, port, close: () => app.close() };
  }
  const { server, pool: examplePool } = await runReadmeExample<{ server: Server; pool: pg.Pool }>(
    here,
    'transaction-hono',
    readmeBlock(readme, heading),
    ['server', 'pool'],
    [
      ['port: 3000', "port: 0, hostname: '127.0.0.1'"],
      [POOL, pool],
    ],
  );
  if (!server.listening) await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return { pool: examplePool, port, close: () => new Promise((resolve) => server.close(resolve)) };
}

describe.skipIf(!pgUp).each(['Fastify', 'Hono'] as const)('README %s transaction example', (framework) => {
  const schema = uniquePrefix(`idem_readme_${framework}`).toLowerCase();
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  let example: Example;
  beforeAll(async () => {
    cleanReadmeExamples(here);
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    example = await start(framework, schema);
  });
  afterAll(async () => {
    await example?.close();
    await example?.pool.end();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  });

  it('creates once in the transaction and replays the same bytes', async () => {
    const first = await send(example.port, order('readme-tx-1'));
    const again = await send(example.port, order('readme-tx-1'));
    const rows = await admin.query(`SELECT id, sku FROM ${schema}.orders`);
    expect([first.status, first.headers['location'], first.body]).toEqual([
      201,
      '/orders/1',
      { id: 1, sku: 'A-1' },
    ]);
    expect([again.status, again.body, again.headers['idempotent-replayed']]).toEqual([
      201,
      { id: 1, sku: 'A-1' },
      'true',
    ]);
    expect(rows.rows).toEqual([{ id: 1, sku: 'A-1' }]);
  });

  it('refuses a missing key and a reused one', async () => {
    expect(await refusals(example.port, 'readme-tx-1')).toEqual(REFUSED);
  });
});
