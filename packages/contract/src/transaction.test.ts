/**
 * The mount's `idempotencyTransaction` (the key and the response written in the handler's own
 * database transaction) held to one behaviour table on Express 5, Express 4, Fastify 5 and Hono,
 * over SQLite (`node:sqlite`) and PostgreSQL, beside the `idempotency` store on the same table:
 * replays, 422, 409 and the key's refusals must be the same bytes in either mode; a handler that
 * fails after writing commits nothing and leaves no record, so its retry runs again.
 */
import { request as httpRequest } from 'node:http';
import {
  DATABASE_URL,
  EXPRESS_VERSIONS,
  FRAMEWORKS,
  type Framework,
  listen,
  type Outcome,
  postgresAvailable,
  type RunningServer,
  uniquePrefix,
} from '@plumbline/test-utils';
import { postgresDb, sqliteDb, type TestDb } from '@plumbline/test-utils/sql';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createOrders,
  expressOrders,
  fastifyOrders,
  hold,
  honoOrders,
  type Mode,
  type Orders,
} from './__fixtures__/transaction.js';
import { mount } from './express.js';
import { type IdempotencySpec, RouteDefinitionError, route } from './index.js';

// Fails (rather than skips) when CI=true and PostgreSQL is not there.
const pgUp = await postgresAvailable();

interface Req {
  readonly path?: string;
  /** Idempotency-Key lines (a list is that many lines); none when absent. */
  readonly key?: string | readonly string[];
  readonly body?: unknown;
}

interface Case {
  readonly name: string;
  /** The modes the case runs in (default: all). */
  readonly modes?: readonly Mode[];
  /** The case's answer is the same in every mode (compared with the store mode's, byte for byte). */
  readonly sameInEveryMode?: boolean;
  readonly before?: (orders: Orders) => void;
  readonly request: Req;
  /** Sent while `request` is held in its handler; its answer is the case's outcome. */
  readonly during?: Req;
  readonly status: number;
  /** Exactly these header values (`null`: absent). */
  readonly expectHeaders?: Record<string, string | null>;
  /** The body text exactly, with `request_id` replaced by `…`. */
  readonly expectBody?: string;
  /** What the case added: handler runs, rows in `orders`, records in the SQL store. */
  readonly ran: number;
  readonly inserted: number;
  readonly recorded?: number;
}

const problem = (fields: Record<string, unknown>) => JSON.stringify({ ...fields, request_id: '…' });
const json = { 'content-type': 'application/json; charset=utf-8' };
const problemType = { 'content-type': 'application/problem+json; charset=utf-8' };

const CASES: readonly Case[] = [
  {
    name: 'first request: 201, the row and the key written together',
    request: { key: 'k-1', body: { name: 'apollo' } },
    status: 201,
    sameInEveryMode: true,
    expectHeaders: { ...json, location: '/orders/1', 'idempotent-replayed': null },
    expectBody: '{"id":1,"name":"apollo"}',
    ran: 1,
    inserted: 1,
    recorded: 1,
  },
  {
    name: 'retry: the stored answer, byte for byte, the handler not run',
    request: { key: 'k-1', body: { name: 'apollo' } },
    status: 201,
    sameInEveryMode: true,
    expectHeaders: { ...json, location: '/orders/1', 'idempotent-replayed': 'true' },
    expectBody: '{"id":1,"name":"apollo"}',
    ran: 0,
    inserted: 0,
    recorded: 0,
  },
  {
    name: 'same key, another body: 422 idempotency_key_reused',
    request: { key: 'k-1', body: { name: 'gemini' } },
    status: 422,
    sameInEveryMode: true,
    expectHeaders: { ...problemType, 'idempotent-replayed': null },
    expectBody: problem({
      type: '/errors/idempotency_key_reused',
      title: 'Unprocessable Entity',
      status: 422,
      detail: 'This idempotency key was already used with a different request.',
      instance: '/orders',
      error_code: 'idempotency_key_reused',
      message: 'This idempotency key was already used with a different request.',
    }),
    ran: 0,
    inserted: 0,
    recorded: 0,
  },
  {
    name: 'no key on a route that requires one: 400 idempotency_key_missing',
    request: { body: { name: 'gemini' } },
    status: 400,
    sameInEveryMode: true,
    expectHeaders: problemType,
    expectBody: problem({
      type: '/errors/idempotency_key_missing',
      title: 'Bad Request',
      status: 400,
      detail: 'This endpoint requires an Idempotency-Key header.',
      instance: '/orders',
      error_code: 'idempotency_key_missing',
      message: 'This endpoint requires an Idempotency-Key header.',
    }),
    ran: 0,
    inserted: 0,
    recorded: 0,
  },
  {
    name: 'attacker: two Idempotency-Key lines are 400 idempotency_key_invalid, nothing written',
    request: { key: ['k-2', 'k-3'], body: { name: 'gemini' } },
    status: 400,
    sameInEveryMode: true,
    expectHeaders: problemType,
    ran: 0,
    inserted: 0,
    recorded: 0,
  },
  {
    name: 'attacker: a key of 300 characters is 400 idempotency_key_invalid',
    request: { key: 'k'.repeat(300), body: { name: 'gemini' } },
    status: 400,
    sameInEveryMode: true,
    expectHeaders: problemType,
    ran: 0,
    inserted: 0,
    recorded: 0,
  },
  {
    name: 'attacker: an invalid body is 400 before the key is taken',
    request: { key: 'k-2', body: { name: 'gemini', admin: true } },
    status: 400,
    sameInEveryMode: true,
    expectHeaders: problemType,
    ran: 0,
    inserted: 0,
    recorded: 0,
  },
  {
    name: 'the handler fails after its insert: 500, nothing committed, no record',
    modes: ['sqlite', 'postgres'],
    before: (orders) => {
      orders.failNext = true;
    },
    request: { key: 'k-2', body: { name: 'gemini' } },
    status: 500,
    expectHeaders: problemType,
    expectBody: problem({
      type: '/errors/internal_error',
      title: 'Internal Server Error',
      status: 500,
      detail: 'An unexpected error occurred.',
      instance: '/orders',
      error_code: 'internal_error',
      message: 'An unexpected error occurred.',
    }),
    ran: 1,
    inserted: 0,
    recorded: 0,
  },
  {
    name: 'its retry runs the handler again, and commits once',
    modes: ['sqlite', 'postgres'],
    request: { key: 'k-2', body: { name: 'gemini' } },
    status: 201,
    expectHeaders: { ...json, location: '/orders/2', 'idempotent-replayed': null },
    expectBody: '{"id":2,"name":"gemini"}',
    ran: 1,
    inserted: 1,
    recorded: 1,
  },
  {
    name: 'with the store, the failed run left its row (why the transaction exists)',
    modes: ['store'],
    before: (orders) => {
      orders.failNext = true;
    },
    request: { key: 'k-2', body: { name: 'gemini' } },
    status: 500,
    expectHeaders: problemType,
    ran: 1,
    inserted: 1,
  },
  {
    name: 'the same key while the first request runs: 409 idempotency_key_in_use, Retry-After',
    // SQLite has one writer: the second transaction waits for the first (then replays it).
    modes: ['store', 'postgres'],
    sameInEveryMode: true,
    request: { key: 'k-4', body: { name: 'held' } },
    during: { key: 'k-4', body: { name: 'held' } },
    status: 409,
    expectHeaders: { ...problemType, 'retry-after': '1' },
    expectBody: problem({
      type: '/errors/idempotency_key_in_use',
      title: 'Conflict',
      status: 409,
      detail: 'A request with this idempotency key is still being processed; retry later.',
      instance: '/orders',
      error_code: 'idempotency_key_in_use',
      message: 'A request with this idempotency key is still being processed; retry later.',
    }),
    ran: 1,
    inserted: 1,
    recorded: 1,
  },
  {
    name: 'a route declaring `transaction: false` keeps the store, without a transaction',
    request: { path: '/searches', key: 's-1', body: { q: 'apollo' } },
    status: 200,
    sameInEveryMode: true,
    expectHeaders: { ...json, 'idempotent-replayed': null },
    expectBody: '{"q":"apollo","transaction":false}',
    ran: 0,
    inserted: 0,
    recorded: 0,
  },
];

interface Exchange extends Outcome {
  readonly text: string;
}

function exchange(port: number, req: Req): Promise<Exchange> {
  const body = req.body === undefined ? undefined : JSON.stringify(req.body);
  const headers: Record<string, string | string[]> = { 'content-type': 'application/json' };
  if (req.key !== undefined)
    headers['idempotency-key'] = typeof req.key === 'string' ? req.key : [...req.key];
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  return new Promise((resolve, reject) => {
    const sent = httpRequest(
      { host: '127.0.0.1', port, method: 'POST', path: req.path ?? '/orders', headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const out: Record<string, string> = {};
          for (const [name, value] of Object.entries(res.headers))
            if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: out, body: text, text });
        });
        res.on('error', reject);
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}

/** The body with its request id (different per request) replaced. */
const normal = (text: string) => text.replace(/"request_id":"[^"]*"/, '"request_id":"…"');
const COMPARED = ['content-type', 'content-length', 'location', 'idempotent-replayed', 'retry-after'];
const comparable = (e: Exchange) => ({
  status: e.status,
  headers: Object.fromEntries(COMPARED.map((name) => [name, e.headers[name] ?? null])),
  body: normal(e.text),
});

const schemas: string[] = [];
async function database(mode: Mode): Promise<TestDb> {
  if (mode !== 'postgres') return sqliteDb();
  const schema = uniquePrefix('contract_tx');
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  schemas.push(schema);
  return postgresDb(DATABASE_URL, schema);
}

interface Served {
  readonly orders: Orders;
  readonly server: RunningServer;
  close(): Promise<void>;
}

async function serve(mode: Mode, framework: Framework): Promise<Served> {
  const db = await database(mode);
  const orders = await createOrders(mode, db);
  let server: RunningServer;
  let closeApp: () => Promise<unknown> = async () => {};
  if (framework === 'fastify') {
    const app = await fastifyOrders(orders);
    await app.ready();
    server = await listen((req, res) => app.routing(req, res));
    closeApp = () => app.close();
  } else if (framework === 'hono') {
    const { getRequestListener } = await import('@hono/node-server');
    server = await listen(getRequestListener(honoOrders(orders).fetch));
  } else {
    const factory = EXPRESS_VERSIONS.find(([name]) => name === framework)![1];
    server = await listen(expressOrders(factory, orders));
  }
  return {
    orders,
    server,
    close: async () => {
      await server.close();
      await closeApp();
      await db.close();
    },
  };
}

const MODES: readonly Mode[] = pgUp ? ['store', 'sqlite', 'postgres'] : ['store', 'sqlite'];
const served = new Map<string, Promise<Served>>();
const inStore = new Map<string, ReturnType<typeof comparable>>();

afterAll(async () => {
  await Promise.all([...served.values()].map(async (s) => (await s).close()));
  if (schemas.length === 0) return;
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
});

describe('mount({ idempotencyTransaction }): the same answers as the store, in one transaction', () => {
  for (const mode of MODES) {
    for (const framework of FRAMEWORKS) {
      describe(`${mode} on ${framework}`, () => {
        const cases = CASES.filter((c) => c.modes === undefined || c.modes.includes(mode));
        const counts = { runs: 0, rows: 0, records: 0 };
        it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
          const key = `${mode}/${framework}`;
          if (!served.has(key)) served.set(key, serve(mode, framework));
          const { orders, server } = await served.get(key)!;
          c.before?.(orders);
          counts.runs += c.ran;
          counts.rows += c.inserted;
          counts.records += mode === 'store' ? 0 : (c.recorded ?? 0);
          let outcome: Exchange;
          if (c.during !== undefined) {
            const { entered, release } = hold(orders, (c.request.body as { name: string }).name);
            const first = exchange(server.port, c.request);
            await entered;
            outcome = await exchange(server.port, c.during);
            release();
            const firstOutcome = await first;
            expect(firstOutcome.status, firstOutcome.text).toBe(201);
          } else outcome = await exchange(server.port, c.request);

          expect(outcome.status, outcome.text).toBe(c.status);
          for (const [name, value] of Object.entries(c.expectHeaders ?? {}))
            expect(outcome.headers[name] ?? null, name).toBe(value);
          if (c.expectBody !== undefined) expect(normal(outcome.text)).toBe(c.expectBody);
          if (c.status >= 400) expect(JSON.parse(outcome.text).request_id).toEqual(expect.any(String));

          expect(orders.runs, 'handler runs').toBe(counts.runs);
          expect(await orders.rows(), 'rows').toBe(counts.rows);
          expect(await orders.records(), 'idempotency records').toBe(counts.records);

          if (c.sameInEveryMode) {
            const where = `${framework}/${c.name}`;
            if (mode === 'store') inStore.set(where, comparable(outcome));
            else expect(comparable(outcome)).toEqual(inStore.get(where));
          }
        });
      });
    }
  }
});

describe('mount: which idempotency mode a route takes is checked at start-up', () => {
  const create = (idempotent: IdempotencySpec) =>
    route({
      method: 'POST',
      path: '/orders',
      responses: { 204: null },
      idempotent,
      handler: () => ({ status: 204 }),
    });
  const transactional = {
    store: {} as never,
    transaction: <T>(work: (tx: unknown) => Promise<T>) => work(undefined),
    query: () => async () => [],
  };
  const attempt = (idempotent: IdempotencySpec, options: object) => {
    try {
      mount({ post() {}, all() {} } as never, [create(idempotent)], options);
      return 'mounted';
    } catch (error) {
      expect(error).toBeInstanceOf(RouteDefinitionError);
      return (error as RouteDefinitionError).problems.join('\n');
    }
  };

  it('`transaction: true` without `idempotencyTransaction` is refused', () => {
    expect(attempt({ transaction: true }, { idempotency: { store: {} } })).toBe(
      'POST /orders: declares `idempotent.transaction`, but the mount has no `idempotencyTransaction`',
    );
  });
  it('`transaction: false` without a store is refused, even with `idempotencyTransaction`', () => {
    expect(attempt({ transaction: false }, { idempotencyTransaction: transactional })).toBe(
      'POST /orders: declares `idempotent.transaction: false`, but the mount has no `idempotency` store',
    );
  });
  it('an idempotent route on a mount with neither is refused', () => {
    expect(attempt(true, {})).toBe(
      'POST /orders: is idempotent, but the mount has no `idempotency` store (or `idempotencyTransaction`)',
    );
  });
  it('a non-boolean `transaction` is refused', () => {
    expect(attempt({ transaction: 'yes' as never }, { idempotencyTransaction: transactional })).toContain(
      '`idempotent.required` and `idempotent.transaction` are booleans',
    );
  });
});
