/**
 * Where setResponseHeaders / withResponseHeaders put a header, seen on the wire: on
 * @hono/node-server Node's response (its name goes out as written, e.g. `X-Early`; the response
 * Hono hands the server keeps its plain header object, the server's fast path), elsewhere or once
 * Hono holds a header of its own through `c.header()` (names go out in lower case, as a Web `Headers`
 * sends them).
 */
import { connect } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { listen, type RunningServer } from '@plumbline/test-utils';
import { type Context, Hono, type Next } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { responseParts, sentHeaders } from './hono-node.js';
import { plainResponse, setResponseHeaders, withResponseHeaders } from './hono-response.js';

/** What the outer middleware saw of the handler's response: was it still the server's plain object? */
let plain: boolean | undefined;
let recorded: Record<string, string> | undefined;

function app(): Hono {
  const app = new Hono();
  app.use(async (c, next) => {
    await next();
    const parts = responseParts(c.res);
    plain = Array.isArray(parts) && !(parts[2] instanceof Headers);
  });
  const early = (c: Context, next: Next) =>
    withResponseHeaders(c, { 'X-Early': 'e', Vary: 'Accept', Link: '</doc>; rel="help"' }, next);
  app.get('/json', early, (c) => c.json({ ok: true }));
  app.get('/override', early, (c) => c.json({ ok: true }, 200, { 'X-Early': 'handler' }));
  app.get('/lists', early, (c) => {
    c.header('Vary', 'Origin', { append: true });
    c.header('Vary', 'accept', { append: true });
    c.header('Link', '</p2>; rel="next"', { append: true });
    return c.json({ ok: true });
  });
  app.get(
    '/hono-first',
    async (c, next) => {
      c.header('Vary', 'Origin');
      c.header('X-Early', 'earlier');
      await next();
    },
    early,
    (c) => c.json({ ok: true }),
  );
  // As the idempotency middleware records a response: inside the middleware that set the headers.
  app.get(
    '/recorded',
    (c, next) => {
      setResponseHeaders(c, { 'X-Early': 'e' });
      return withResponseHeaders(c, { Vary: 'Accept' }, next);
    },
    async (c, next) => {
      await next();
      recorded = sentHeaders(c, { vary: c.res.headers.get('vary')!, 'content-type': 'text/plain' });
    },
    (c) => {
      c.header('Vary', 'Origin', { append: true });
      return c.text('x');
    },
  );
  app.get('/raw', early, () => new Response('raw', { headers: { 'Content-Type': 'text/plain' } }));
  // A page answered with plainResponse: three headers of its own, Vary joined with the early one.
  const page = (c: Context) => {
    const headers = { 'Content-Type': 'application/json', Link: '</p2>; rel="next"', Vary: 'Prefer' };
    const plain = plainResponse(c, '[]', 200, headers);
    if (plain !== undefined) return plain;
    // As query-parser's sendPage falls back: lists appended to what middleware set.
    c.header('Link', headers.Link, { append: true });
    c.header('Vary', headers.Vary, { append: true });
    c.header('X-Fallback', 'yes');
    return c.body('[]', 200, { 'Content-Type': headers['Content-Type'] });
  };
  app.get('/plain', early, page);
  app.get(
    '/plain-after-header',
    (c, next) => {
      c.header('X-Mine', 'm');
      return next();
    },
    page,
  );
  return app;
}

/** The response head as sent (status line and header lines, Date removed). */
function head(port: number, path: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (chunk: Buffer) => {
      data += chunk.toString('latin1');
    });
    socket.on('error', reject);
    socket.on('close', () =>
      resolve(
        data
          .slice(0, data.indexOf('\r\n\r\n'))
          .split('\r\n')
          .slice(1)
          .filter((line) => !/^(date|connection|content-length):/i.test(line)),
      ),
    );
    socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
  });
}

describe('on @hono/node-server', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await listen(getRequestListener(app().fetch));
  });
  afterAll(() => server.close());

  it.each<[string, string, string[], boolean]>([
    [
      'written to Node, the handler answers with c.json: its plain headers stay',
      '/json',
      ['X-Early: e', 'Vary: Accept', 'Link: </doc>; rel="help"', 'Content-Type: application/json'],
      true,
    ],
    [
      "the handler's header of the same name wins",
      '/override',
      // Node replaces a header in its place, under the name as the response writes it.
      ['x-early: handler', 'Vary: Accept', 'Link: </doc>; rel="help"', 'content-type: application/json'],
      false,
    ],
    [
      "Vary and Link merged with the handler's: ours first, Vary without repeats",
      '/lists',
      [
        'X-Early: e',
        'vary: Accept, Origin',
        'link: </doc>; rel="help", </p2>; rel="next"',
        'content-type: application/json',
      ],
      false,
    ],
    [
      'an earlier c.header(): everything through Hono, in the order set',
      '/hono-first',
      ['content-type: application/json', 'link: </doc>; rel="help"', 'vary: Origin, Accept', 'x-early: e'],
      false,
    ],
    [
      'a Response built by hand keeps the early headers',
      '/raw',
      ['X-Early: e', 'Vary: Accept', 'Link: </doc>; rel="help"', 'Content-Type: text/plain'],
      true,
    ],
    [
      'plainResponse: the answer keeps a plain header object; early Vary and Link joined before its own',
      '/plain',
      // Node writes the answer's headers in the places of the early ones of the same name.
      [
        'X-Early: e',
        'Vary: Accept, Prefer',
        'Link: </doc>; rel="help", </p2>; rel="next"',
        'Content-Type: application/json',
      ],
      true,
    ],
    [
      'plainResponse after a c.header(): undefined, so the answer goes through Hono',
      '/plain-after-header',
      [
        'content-type: application/json',
        'link: </p2>; rel="next"',
        'vary: Prefer',
        'x-fallback: yes',
        'x-mine: m',
      ],
      false,
    ],
  ])('%s', async (_name, path, lines, plainHeaders) => {
    plain = undefined;
    expect(await head(server.port, path)).toEqual(lines);
    expect(plain).toBe(plainHeaders);
  });

  it('sentHeaders lists what goes out: Node-held headers under the response’s own, Vary joined', async () => {
    await head(server.port, '/recorded');
    expect(recorded).toEqual({ 'x-early': 'e', vary: 'Accept, Origin', 'content-type': 'text/plain' });
  });
});

describe('without Node (app.request)', () => {
  it.each([
    ['/json', { 'x-early': 'e', vary: 'Accept', link: '</doc>; rel="help"' }],
    ['/lists', { 'x-early': 'e', vary: 'Accept, Origin', link: '</doc>; rel="help", </p2>; rel="next"' }],
    ['/override', { 'x-early': 'handler', vary: 'Accept', link: '</doc>; rel="help"' }],
  ])('%s: through c.header()', async (path, expected) => {
    const res = await app().request(path);
    expect({
      'x-early': res.headers.get('x-early'),
      vary: res.headers.get('vary'),
      link: res.headers.get('link'),
    }).toEqual(expected);
  });

  it('plainResponse is undefined without Node: the fallback answers through Hono', async () => {
    const res = await app().request('/plain');
    expect([res.headers.get('x-fallback'), res.headers.get('vary'), res.headers.get('link')]).toEqual([
      'yes',
      'Accept, Prefer',
      '</doc>; rel="help", </p2>; rel="next"',
    ]);
  });

  it('sentHeaders is the response’s own headers', async () => {
    await app().request('/recorded');
    // Through Hono the early headers are the response's own (Vary appended to in order).
    expect(recorded).toEqual({ vary: 'Accept, Origin', 'content-type': 'text/plain' });
  });
});
