/**
 * One behaviour table for `idempotencyTransaction` (the key and the response stored inside the
 * handler's own database transaction), run against Express 5, Express 4, Fastify 5 and Hono over
 * SQLite. Every case is a sequence of real requests; its summary must be the same everywhere.
 */
import { Readable } from 'node:stream';
import { getRequestListener } from '@hono/node-server';
import { HttpError } from '@plumbline/errors';
import * as errorsExpress from '@plumbline/errors/express';
import { plumblineErrors } from '@plumbline/errors/fastify';
import { problemDetails } from '@plumbline/errors/hono';
import {
  describeAdapters,
  EXPRESS_VERSIONS,
  FRAMEWORKS,
  type Framework,
  listen,
  type RunningServer,
} from '@plumbline/test-utils';
import { sqliteDb, type TestDb } from '@plumbline/test-utils/sql';
import type { Request, Response } from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import request from 'supertest';
import { afterAll, expect } from 'vitest';
import * as ex from './express.js';
import * as fa from './fastify.js';
import * as ho from './hono.js';
import { createSqlStore, type SqlQuery } from './sql-store.js';

/** One framework's app over its own SQLite database. */
interface Served {
  readonly url: string;
  readonly db: TestDb;
  /** Fails the next commit (after the handler answered), as a lost database would. */
  failCommit: boolean;
  close(): Promise<unknown>;
}

const silent = { onError: () => {} };
const PIECES = ['héllo ', Buffer.from('wörld'), Buffer.from('21', 'hex')];

/** What the order handler does with a name, the same on every framework. */
type Outcome =
  | { readonly kind: 'created'; readonly id: unknown; readonly name: string }
  | { readonly kind: 'busy' };

async function createOrder(q: SqlQuery, body: unknown): Promise<Outcome> {
  const name = String((body as { name?: unknown } | undefined)?.name ?? 'unnamed');
  await q('INSERT INTO orders (name) VALUES (?)', [name]);
  if (name === 'explode') throw new Error('after the insert');
  if (name === 'invalid') throw new HttpError('validation_failed');
  if (name === 'teapot') return { kind: 'busy' };
  const [row] = await q('SELECT max(id) AS id FROM orders', []);
  return { kind: 'created', id: row?.['id'], name };
}

async function serve(framework: Framework): Promise<Served> {
  const db = sqliteDb();
  const store = createSqlStore({ dialect: 'sqlite' });
  for (const statement of store.schema()) await db.query(statement, []);
  await db.query('CREATE TABLE orders (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL)', []);
  const served = { db, failCommit: false } as Served;
  const options = {
    store,
    transaction: async <T>(work: (q: SqlQuery) => Promise<T>) =>
      db.transaction(async (q) => {
        const value = await work(q);
        if (served.failCommit) {
          served.failCommit = false;
          throw new HttpError('service_unavailable', { headers: { 'Retry-After': '1' } });
        }
        return value;
      }),
    query: (q: SqlQuery) => q,
    required: true,
  };
  let server: RunningServer;
  if (framework === 'fastify') {
    const app = Fastify();
    await app.register(plumblineErrors, silent);
    await app.register(async (scope) => {
      await scope.register(
        fa.idempotencyTransaction({
          ...options,
          principal: (r) => r.headers['x-client'] as string | undefined,
        }),
      );
      scope.post('/orders', async (r, reply) => {
        const outcome = await createOrder(fa.getTransaction<SqlQuery>(r) ?? db.query, r.body);
        if (outcome.kind === 'busy') return reply.code(409).send({ busy: true });
        reply
          .code(201)
          .header('Location', `/orders/${String(outcome.id)}`)
          .header('X-Trace', 'not replayed');
        return { id: outcome.id, name: outcome.name };
      });
      scope.post('/written', async (_r, reply) =>
        reply.code(201).type('text/plain; charset=utf-8').send(Readable.from(PIECES)),
      );
      scope.post('/invalid', async (_r, reply) =>
        reply.code(400).type('application/xml; charset=utf-8').send('<problem/>'),
      );
    });
    await app.ready();
    const listening = await listen((req, res) => app.routing(req, res));
    server = { ...listening, close: () => Promise.all([listening.close(), app.close()]).then(() => {}) };
  } else if (framework === 'hono') {
    const app = new Hono();
    const problems = problemDetails(silent);
    app.use(problems.middleware);
    app.onError(problems.onError);
    app.notFound(problems.notFound);
    const idem = ho.idempotencyTransaction({ ...options, principal: (c) => c.req.header('x-client') });
    app.post('/orders', idem, async (c) => {
      const text = await c.req.text();
      const outcome = await createOrder(
        ho.getTransaction<SqlQuery>(c) ?? db.query,
        text ? JSON.parse(text) : {},
      );
      if (outcome.kind === 'busy') return c.json({ busy: true }, 409);
      const headers = { Location: `/orders/${String(outcome.id)}`, 'X-Trace': 'not replayed' };
      return c.json({ id: outcome.id, name: outcome.name }, 201, headers);
    });
    app.post('/written', idem, (c) =>
      c.body(
        Readable.toWeb(Readable.from(PIECES.map((piece) => Buffer.from(piece)))) as ReadableStream,
        201,
        {
          'Content-Type': 'text/plain; charset=utf-8',
        },
      ),
    );
    app.post('/invalid', idem, (c) =>
      c.body('<problem/>', 400, { 'Content-Type': 'application/xml; charset=utf-8' }),
    );
    server = await listen(getRequestListener(app.fetch));
  } else {
    const express = EXPRESS_VERSIONS.find(([name]) => name === framework)![1];
    const app = express();
    app.use(errorsExpress.requestId());
    app.use(express.json());
    const idem = ex.idempotencyTransaction({ ...options, principal: (req) => req.get('x-client') });
    const create = async (req: Request, res: Response) => {
      const outcome = await createOrder(ex.getTransaction<SqlQuery>(req) ?? db.query, req.body);
      if (outcome.kind === 'busy') {
        res.status(409).json({ busy: true });
        return;
      }
      res
        .status(201)
        .location(`/orders/${String(outcome.id)}`)
        .setHeader('X-Trace', 'not replayed');
      res.json({ id: outcome.id, name: outcome.name });
    };
    // Express 4 does not catch a rejected handler: pass errors to next() by hand.
    app.post('/orders', idem, (req, res, next) => {
      create(req, res).catch(next);
    });
    app.post('/written', idem, (_req, res) => {
      res.status(201).type('text/plain');
      res.write('héllo ', () => {});
      res.write(Buffer.from('wörld'));
      res.end('21', 'hex');
    });
    app.post('/invalid', idem, (_req, res) => {
      res.status(400).type('application/xml').send('<problem/>');
    });
    app.use(errorsExpress.errorHandler(silent));
    server = await listen(app);
  }
  return Object.assign(served, { url: `http://127.0.0.1:${server.port}`, close: server.close });
}

/** What a case's requests reach. */
interface Context {
  readonly served: Served;
  post(key: string | undefined, body?: unknown, path?: string): request.Test;
  rows(): Promise<unknown[]>;
}

interface Case {
  readonly name: string;
  readonly run: (t: Context) => Promise<unknown>;
  readonly expected: unknown;
  /** Where a framework answers otherwise by its own rule (documented in the README). */
  readonly on?: Partial<Record<Framework, unknown>>;
}

const cases: Case[] = [
  {
    name: 'runs once, commits the row with the record, and replays the stored bytes',
    run: async (t) => {
      const first = await t.post('a', { name: 'a' });
      const second = await t.post('a', { name: 'a' });
      return [
        [first.status, first.headers['location'], first.headers['x-trace']],
        [second.status, second.text === first.text, second.headers['location']],
        [second.headers['idempotent-replayed'], second.headers['x-trace'], await t.rows()],
      ];
    },
    expected: [
      [201, '/orders/1', 'not replayed'],
      [201, true, '/orders/1'],
      ['true', undefined, ['a']],
    ],
  },
  ...(
    [
      ['a different body', { name: 'other' }, 422, 'idempotency_key_reused'],
      ['no key where one is required', undefined, 400, 'idempotency_key_missing'],
    ] as const
  ).map(([label, body, status, code]) => ({
    name: `${label} → ${status} ${code}, nothing written`,
    run: async (t: Context) => {
      const res = await t.post(body === undefined ? undefined : 'a', body ?? { name: 'x' });
      return [res.status, res.body.error_code, await t.rows()];
    },
    expected: [status, code, ['a']],
  })),
  {
    name: 'a thrown error rolls the side effect back: 500, no row, and the retry runs again',
    run: async (t) => {
      const first = await t.post('boom', { name: 'explode' });
      const rows = await t.rows();
      const again = await t.post('boom', { name: 'explode' });
      return [first.status, first.body.error_code, rows, again.status, again.headers['idempotent-replayed']];
    },
    expected: [500, 'internal_error', ['a'], 500, undefined],
  },
  {
    name: 'a 409 from the handler is sent as it is and rolled back (not stored)',
    run: async (t) => {
      const first = await t.post('tea', { name: 'teapot' });
      return [first.status, first.body, await t.rows()];
    },
    expected: [409, { busy: true }, ['a']],
  },
  {
    name: 'a 4xx other than 401/403/409/429 is stored and replayed',
    run: async (t) => {
      const first = await t.post('bad', {}, '/invalid');
      const second = await t.post('bad', {}, '/invalid');
      const type = first.headers['content-type'];
      return [first.status, type, second.status, second.text, second.headers['idempotent-replayed']];
    },
    expected: [400, 'application/xml; charset=utf-8', 400, '<problem/>', 'true'],
  },
  {
    name: 'a failed commit never sends the handler answer: 503 without its headers, no row, the retry runs once',
    run: async (t) => {
      t.served.failCommit = true;
      const lost = await t.post('lost', { name: 'lost' });
      const rows = await t.rows();
      const retry = await t.post('lost', { name: 'lost' });
      return [
        [lost.status, lost.body.error_code, lost.headers['retry-after'], lost.headers['location']],
        rows,
        [retry.status, retry.headers['idempotent-replayed'], await t.rows()],
      ];
    },
    expected: [[503, 'service_unavailable', '1', undefined], ['a'], [201, undefined, ['a', 'lost']]],
  },
  {
    name: 'a response written in pieces is held, sent and replayed whole',
    run: async (t) => {
      const first = await t.post('pieces', {}, '/written');
      const second = await t.post('pieces', {}, '/written');
      return [first.status, first.text, second.text, second.headers['idempotent-replayed']];
    },
    expected: [201, 'héllo wörld!', 'héllo wörld!', 'true'],
  },
  {
    name: 'no body and an empty JSON body are the same request',
    run: async (t) => {
      const first = await request(t.served.url).post('/invalid').set('Idempotency-Key', 'empty');
      const second = await request(t.served.url)
        .post('/invalid')
        .set('Idempotency-Key', 'empty')
        .set('Content-Type', 'application/json')
        .set('Content-Length', '0');
      return [first.status, second.status, second.headers['idempotent-replayed']];
    },
    expected: [400, 400, 'true'],
    // Fastify refuses an empty JSON body itself (400 malformed_json) before any hook runs.
    on: { fastify: [400, 400, undefined] },
  },
  {
    name: 'a replayed 201 carries the original request id; the retry id is in Replayed-By-Request-Id',
    run: async (t) => {
      const first = await t.post('ids-201', { name: 'ids' }).set('X-Request-Id', 'original-201');
      const retry = await t.post('ids-201', { name: 'ids' }).set('X-Request-Id', 'retry-201');
      return [
        [first.status, first.headers['x-request-id'], first.headers['replayed-by-request-id']],
        [retry.status, retry.headers['x-request-id'], retry.headers['replayed-by-request-id']],
      ];
    },
    expected: [
      [201, 'original-201', undefined],
      [201, 'original-201', 'retry-201'],
    ],
  },
  {
    name: 'a replayed 400 problem: body request_id and X-Request-Id both name the original request',
    run: async (t) => {
      const first = await t.post('ids-400', { name: 'invalid' }).set('X-Request-Id', 'original-400');
      const retry = await t.post('ids-400', { name: 'invalid' }).set('X-Request-Id', 'retry-400');
      return [
        [first.status, first.body.request_id, first.headers['x-request-id']],
        [retry.status, retry.body.error_code, retry.body.request_id, retry.headers['x-request-id']],
        [retry.headers['replayed-by-request-id'], retry.headers['idempotent-replayed']],
      ];
    },
    expected: [
      [400, 'original-400', 'original-400'],
      [400, 'validation_failed', 'original-400', 'original-400'],
      ['retry-400', 'true'],
    ],
  },
];

const started: Promise<Served>[] = [];
afterAll(async () => {
  for (const served of await Promise.all(started)) {
    await served.close();
    await served.db.close();
  }
});

const runners = Object.fromEntries(
  FRAMEWORKS.map((framework) => {
    let served: Promise<Served> | undefined;
    const run = async (c: Case) => {
      if (served === undefined) {
        served = serve(framework);
        started.push(served);
      }
      const s = await served;
      const t: Context = {
        served: s,
        post: (key, body, path = '/orders') => {
          const req = request(s.url).post(path);
          if (key !== undefined) req.set('Idempotency-Key', key);
          return req.send(body as object);
        },
        rows: async () => (await s.db.query('SELECT name FROM orders ORDER BY id', [])).map((r) => r['name']),
      };
      return { status: 200, headers: {}, body: await c.run(t) };
    };
    return [framework, run];
  }),
);

describeAdapters('idempotencyTransaction() over SQLite', cases, runners, (outcome, c, adapter) => {
  expect(outcome.body).toEqual(c.on?.[adapter as Framework] ?? c.expected);
});
