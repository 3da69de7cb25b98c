import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { errorHandler } from '@plumbline/errors/express';
import type { EXPRESS_VERSIONS } from '@plumbline/test-utils';
import type { Express, RequestHandler } from 'express';
import { type IdempotencyMiddlewareOptions, idempotency } from '../express.js';

export type ExpressFactory = (typeof EXPRESS_VERSIONS)[number][1];

/** Bytes 0–255 repeated, in uneven chunks: what the `/pipe` route streams. */
export const PIPE_CHUNKS = Array.from({ length: 40 }, (_, i) =>
  Buffer.from(Array.from({ length: 1000 + i * 37 }, (_v, j) => (i + j) % 256)),
);

export interface TestApp {
  readonly app: Express;
  /** Handler executions per route name. */
  readonly runs: Map<string, number>;
  /** Resolvers of handlers parked on `/hang`, in arrival order. */
  readonly parked: (() => void)[];
  /** Values `res.write` returned on `/big`. */
  readonly writeResults: boolean[];
}

/** A small API covering every way a handler answers, behind one idempotency configuration. */
export function buildApp(
  express: ExpressFactory,
  options: IdempotencyMiddlewareOptions,
  front: readonly RequestHandler[] = [],
): TestApp {
  const runs = new Map<string, number>();
  const parked: (() => void)[] = [];
  const writeResults: boolean[] = [];
  const count = (name: string) => {
    const n = (runs.get(name) ?? 0) + 1;
    runs.set(name, n);
    return n;
  };
  const app = express();
  for (const handler of front) app.use(handler);
  app.use(express.json());
  const idem = idempotency({ principal: (req) => req.get('x-client'), onError: () => {}, ...options });
  const create =
    (name: string): RequestHandler =>
    (req, res) => {
      const n = count(name);
      res
        .status(201)
        .location(`/${name}/${n}`)
        .cookie('session', `s${n}`)
        .json({ id: n, received: req.body ?? null });
    };
  app.post('/orders', idem, create('orders'));
  app.post('/other', idem, create('other'));
  app.get('/orders', idem, (_req, res) => {
    count('get');
    res.json([]);
  });
  app.post('/required', idempotency({ ...options, required: true, onError: () => {} }), create('required'));
  app.post('/slow', idem, async (_req, res) => {
    const n = count('slow');
    await sleep(200);
    res.status(201).json({ id: n });
  });
  app.post('/throw', idem, () => {
    count('throw');
    throw new Error('boom');
  });
  app.post('/status/:code', idem, (req, res) => {
    count(`status-${req.params['code']}`);
    res.status(Number(req.params['code'])).json({ code: req.params['code'] });
  });
  app.post('/no-content', idem, (_req, res) => {
    count('no-content');
    res.status(204).end();
  });
  app.post('/stream', idem, (_req, res) => {
    const n = count('stream');
    res.type('text/plain; charset=utf-8');
    for (let i = 0; i < 20; i += 1) res.write(`line ${i} of run ${n} ${'x'.repeat(500)}\n`);
    res.write('bytes: \u00e9\u20ac\n', 'utf8');
    res.end('done');
  });
  app.post('/big', idem, async (_req, res) => {
    count('big');
    res.type('application/octet-stream');
    for (let i = 0; i < 8; i += 1) {
      const ok = res.write(Buffer.alloc(64 * 1024, i));
      writeResults.push(ok);
      if (!ok) await new Promise((resolve) => res.once('drain', resolve));
    }
    res.end();
  });
  app.post('/write-head', idem, (_req, res) => {
    const n = count('write-head');
    res.writeHead(201, 'Created', { Location: `/write-head/${n}`, 'Content-Type': 'text/plain' });
    res.end(`created ${n}`);
  });
  app.post('/cut', idem, (_req, res) => {
    count('cut');
    res.type('text/plain');
    res.write('partial');
    // A failure mid-body: the connection is dropped before the response ends.
    setImmediate(() => res.destroy());
  });
  app.post('/pipe', idem, (_req, res) => {
    count('pipe');
    res.type('application/octet-stream');
    Readable.from(PIPE_CHUNKS).pipe(res);
  });
  app.post('/hang', idem, async (_req, res) => {
    const n = count('hang');
    await new Promise<void>((resolve) => parked.push(resolve));
    res.status(201).json({ id: n });
  });
  app.use(errorHandler({ onError: () => {} }));
  return { app, runs, parked, writeResults };
}

/** Listens on loopback only; returns the server and its base URL. */
export async function listen(app: Express): Promise<{ server: Server; url: string }> {
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}` };
}

/** Closes a server and every connection it still has. */
export function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** Waits (bounded) until `condition` holds. */
export async function until(condition: () => boolean | Promise<boolean>, limitMs = 5_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await sleep(10);
  }
}
