/**
 * An orders API declared once with the contract, mounted on every framework in one of three
 * idempotency modes: the `idempotency` store (memory), or `idempotencyTransaction` over SQLite
 * (`node:sqlite`) or PostgreSQL. The handler writes its row through `input.transaction` when one
 * is open, else straight to the database (autocommit).
 */
import { renderProblem } from '@plumbline/errors';
import { errorHandler, notFoundHandler, requestId } from '@plumbline/errors/express';
import { plumblineErrors } from '@plumbline/errors/fastify';
import { problemDetails } from '@plumbline/errors/hono';
import { createMemoryStore, createSqlStore, type SqlQuery } from '@plumbline/idempotency';
import { negotiate } from '@plumbline/negotiation/express';
import { negotiation } from '@plumbline/negotiation/fastify';
import { negotiate as honoNegotiate } from '@plumbline/negotiation/hono';
import type { ExpressFactory } from '@plumbline/test-utils';
import type { TestDb } from '@plumbline/test-utils/sql';
import type { Express } from 'express';
import Fastify, { type FastifyReply } from 'fastify';
import { Hono } from 'hono';
import { z } from 'zod';
import { mount } from '../express.js';
import { mount as mountFastify } from '../fastify.js';
import { mount as mountHono } from '../hono.js';
import { type Route, route } from '../index.js';

export type Mode = 'store' | 'sqlite' | 'postgres';

export interface Orders {
  readonly mode: Mode;
  readonly db: TestDb;
  runs: number;
  /** The next handler run throws after its insert. */
  failNext: boolean;
  /** A handler run for an order of this name signals `entered`, then waits for `gate` (see {@link hold}). */
  held: { name: string; entered: () => void; gate: Promise<void> } | undefined;
  /** Rows in `orders`. */
  rows(): Promise<number>;
  /** Idempotency records in the SQL store (0 in the store mode). */
  records(): Promise<number>;
}

const Order = z.object({ id: z.number().int(), name: z.string() });

/** The orders API: POST /orders (its key required, the mount's mode) and POST /searches (the store always). */
function orderRoutes(orders: Orders): Route[] {
  const p = (n: number) => (orders.db.dialect === 'postgres' ? `$${n}` : '?');
  return [
    route({
      method: 'POST',
      path: '/orders',
      body: z.strictObject({ name: z.string().min(1).max(50) }),
      responses: { 201: Order },
      idempotent: { required: true },
      handler: async ({ body, transaction }) => {
        orders.runs += 1;
        if (orders.mode !== 'store' && typeof transaction !== 'function')
          throw new Error('no transaction reached the handler');
        const q = (transaction as SqlQuery | undefined) ?? orders.db.query;
        const [next] = await q('SELECT COALESCE(MAX(id), 0) + 1 AS id FROM orders', []);
        const id = Number(next!['id']);
        await q(`INSERT INTO orders (id, name) VALUES (${p(1)}, ${p(2)})`, [id, body.name]);
        const held = orders.held;
        if (held?.name === body.name) {
          orders.held = undefined;
          held.entered();
          await held.gate;
        }
        if (orders.failNext) {
          orders.failNext = false;
          throw new Error('crashed after the insert');
        }
        return { status: 201, body: { id, name: body.name }, location: `/orders/${id}` };
      },
    }),
    route({
      method: 'POST',
      path: '/searches',
      body: z.strictObject({ q: z.string() }),
      responses: { 200: z.object({ q: z.string(), transaction: z.boolean() }) },
      idempotent: { transaction: false },
      handler: ({ body, transaction }) => ({
        status: 200,
        body: { q: body.q, transaction: transaction !== undefined },
      }),
    }),
  ];
}

/**
 * Arms a handler run that waits: the next run for an order named `name` resolves `entered` after
 * its insert, then waits for `release()`.
 */
export function hold(orders: Orders, name: string): { entered: Promise<void>; release: () => void } {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let entered: () => void = () => {};
  const signal = new Promise<void>((resolve) => {
    entered = resolve;
  });
  orders.held = { name, entered, gate };
  return { entered: signal, release };
}

export async function createOrders(mode: Mode, db: TestDb): Promise<Orders> {
  await db.query('CREATE TABLE orders (id INTEGER PRIMARY KEY, name TEXT NOT NULL)', []);
  const sql = mode === 'store' ? undefined : createSqlStore({ dialect: db.dialect });
  if (sql) for (const statement of sql.schema()) await db.query(statement, []);
  const orders: Orders = {
    mode,
    db,
    runs: 0,
    failNext: false,
    held: undefined,
    rows: async () => Number((await db.query('SELECT COUNT(*) AS n FROM orders', []))[0]!['n']),
    records: async () =>
      sql ? Number((await db.query(`SELECT COUNT(*) AS n FROM ${sql.table}`, []))[0]!['n']) : 0,
  };
  mountOptionsOf.set(orders, {
    idempotency: { store: createMemoryStore() },
    ...(sql
      ? {
          idempotencyTransaction: {
            store: sql,
            transaction: <T>(work: (tx: SqlQuery) => Promise<T>) => db.transaction(work),
            query: (tx: SqlQuery) => tx,
          },
        }
      : {}),
  });
  return orders;
}

const mountOptionsOf = new WeakMap<Orders, object>();
const common = { responseValidation: true, onResponseMismatch: () => {} } as const;
const options = (orders: Orders) => ({ ...common, ...mountOptionsOf.get(orders) });

export function expressOrders(express: ExpressFactory, orders: Orders): Express {
  const app = express();
  app.set('etag', false);
  app.use(requestId(), negotiate({ languages: ['en', 'de'] }));
  mount(app, orderRoutes(orders), options(orders));
  app.use(notFoundHandler(), errorHandler({ onError: () => {} }));
  return app;
}

export async function fastifyOrders(orders: Orders) {
  const app = Fastify({
    frameworkErrors: (error, request, reply) => {
      const problem = renderProblem(error, { instance: request.url });
      (reply as FastifyReply).code(problem.status).headers(problem.headers).send(problem.body);
    },
  });
  await app.register(plumblineErrors, { onError: () => {} });
  await app.register(negotiation, { languages: ['en', 'de'] });
  await mountFastify(app, orderRoutes(orders), options(orders));
  return app;
}

export function honoOrders(orders: Orders) {
  const app = new Hono();
  const problems = problemDetails({ onError: () => {} });
  app.use(problems.middleware);
  app.onError(problems.onError);
  app.notFound(problems.notFound);
  app.use(honoNegotiate({ languages: ['en', 'de'] }));
  return mountHono(app, orderRoutes(orders), options(orders));
}
