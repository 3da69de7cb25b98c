import type { AddressInfo } from 'node:net';
import { HttpError } from '@plumbline/errors';
import { errorHandler } from '@plumbline/errors/express';
import { EXPRESS_VERSIONS } from '@plumbline/test-utils';
import type { Request, Response } from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteDb, type TestDb } from './__fixtures__/sql.js';
import { getTransaction, idempotencyTransaction } from './express.js';
import { createSqlStore, type SqlQuery } from './sql-store.js';

describe.each(EXPRESS_VERSIONS)('idempotencyTransaction() on %s over SQLite', (_name, express) => {
  let db: TestDb;
  let url: string;
  let close: () => Promise<void>;
  /** Fails the next commit (after the handler answered), as a lost database would. */
  let failCommit = false;
  const rows = async () =>
    (await db.query('SELECT id, name FROM orders ORDER BY id', [])).map((r) => r['name']);

  beforeAll(async () => {
    db = sqliteDb();
    const store = createSqlStore({ dialect: 'sqlite' });
    for (const statement of store.schema()) await db.query(statement, []);
    await db.query('CREATE TABLE orders (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL)', []);
    const app = express();
    app.use(express.json());
    const idem = idempotencyTransaction<SqlQuery>({
      store,
      transaction: async (work) => {
        const result = await db.transaction(async (q) => {
          const value = await work(q);
          if (failCommit) {
            failCommit = false;
            throw new HttpError('service_unavailable', { headers: { 'Retry-After': '1' } });
          }
          return value;
        });
        return result;
      },
      query: (q) => q,
      required: true,
      principal: (req) => req.get('x-client'),
    });
    // Express 4 does not catch a rejected handler: pass errors to next() by hand.
    app.post('/orders', idem, async (req, res, next) => {
      try {
        await create(req, res);
      } catch (error) {
        next(error);
      }
    });
    const create = async (req: Request, res: Response) => {
      const q = getTransaction<SqlQuery>(req) ?? db.query;
      const name = String((req.body as { name?: unknown } | undefined)?.name ?? 'unnamed');
      await q('INSERT INTO orders (name) VALUES (?)', [name]);
      if (name === 'explode') throw new Error('after the insert');
      if (name === 'teapot') {
        res.status(409).json({ busy: true });
        return;
      }
      const [row] = await q('SELECT max(id) AS id FROM orders', []);
      res
        .status(201)
        .location(`/orders/${String(row?.['id'])}`)
        .setHeader('X-Trace', 'not replayed');
      res.json({ id: row?.['id'], name });
    };
    app.post('/written', idem, (_req, res) => {
      res.status(201).type('text/plain');
      res.write('héllo ', () => {});
      res.write(Buffer.from('wörld'));
      res.end('21', 'hex');
    });
    app.post('/invalid', idem, (_req, res) => {
      res.status(400).type('application/xml').send('<problem/>');
    });
    app.use(errorHandler());
    const server = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  });
  afterAll(async () => {
    await close?.();
    await db?.close();
  });

  const post = (key: string | undefined, body: unknown, path = '/orders') => {
    const req = request(url).post(path);
    if (key !== undefined) req.set('Idempotency-Key', key);
    return req.send(body as object);
  };

  it('runs once, commits the row with the record, and replays the stored bytes', async () => {
    const first = await post('a', { name: 'a' });
    const second = await post('a', { name: 'a' });
    expect([first.status, first.headers['location'], first.headers['x-trace']]).toEqual([
      201,
      '/orders/1',
      'not replayed',
    ]);
    expect([
      second.status,
      second.text,
      second.headers['location'],
      second.headers['idempotent-replayed'],
    ]).toEqual([201, first.text, '/orders/1', 'true']);
    expect(second.headers['x-trace']).toBeUndefined();
    expect(await rows()).toEqual(['a']);
  });

  it.each([
    ['a different body', { name: 'other' }, 422, 'idempotency_key_reused'],
    ['no key where one is required', undefined, 400, 'idempotency_key_missing'],
  ])('%s → %i %s, nothing written', async (_name, body, status, code) => {
    const res = await post(body === undefined ? undefined : 'a', body ?? { name: 'x' });
    expect([res.status, res.body.error_code]).toEqual([status, code]);
    expect(await rows()).toEqual(['a']);
  });

  it('a thrown error rolls the side effect back: 500, no row, and the retry runs again', async () => {
    const first = await post('boom', { name: 'explode' });
    expect([first.status, first.body.error_code]).toEqual([500, 'internal_error']);
    expect(await rows()).toEqual(['a']);
    const again = await post('boom', { name: 'explode' });
    expect([again.status, again.headers['idempotent-replayed']]).toEqual([500, undefined]);
  });

  it('a 409 from the handler is sent as it is and rolled back (not stored)', async () => {
    const first = await post('tea', { name: 'teapot' });
    expect([first.status, first.body]).toEqual([409, { busy: true }]);
    expect(await rows()).toEqual(['a']);
  });

  it('a 4xx other than 401/403/409/429 is stored and replayed', async () => {
    const first = await post('bad', {}, '/invalid');
    const second = await post('bad', {}, '/invalid');
    expect([first.status, first.headers['content-type'], second.status, second.text]).toEqual([
      400,
      'application/xml; charset=utf-8',
      400,
      '<problem/>',
    ]);
    expect(second.headers['idempotent-replayed']).toBe('true');
  });

  it('a failed commit never sends the handler answer: 503 without its headers, no row, the retry runs once', async () => {
    failCommit = true;
    const lost = await post('lost', { name: 'lost' });
    expect([
      lost.status,
      lost.body.error_code,
      lost.headers['retry-after'],
      lost.headers['location'],
    ]).toEqual([503, 'service_unavailable', '1', undefined]);
    expect(await rows()).toEqual(['a']);
    const retry = await post('lost', { name: 'lost' });
    expect([retry.status, retry.headers['idempotent-replayed']]).toEqual([201, undefined]);
    expect(await rows()).toEqual(['a', 'lost']);
  });

  it('a response written in pieces (string with a callback, bytes, another encoding) is held, sent and replayed whole', async () => {
    const first = await post('pieces', {}, '/written');
    const second = await post('pieces', {}, '/written');
    expect([first.status, first.text, second.text, second.headers['idempotent-replayed']]).toEqual([
      201,
      'héllo wörld!',
      'héllo wörld!',
      'true',
    ]);
  });

  it('no body and an empty JSON body are the same request', async () => {
    const first = await request(url).post('/invalid').set('Idempotency-Key', 'empty');
    const second = await request(url)
      .post('/invalid')
      .set('Idempotency-Key', 'empty')
      .set('Content-Type', 'application/json')
      .set('Content-Length', '0');
    expect([first.status, second.status, second.headers['idempotent-replayed']]).toEqual([400, 400, 'true']);
  });
});
