/**
 * How the Hono middleware captures the `Response` a handler returned, on @hono/node-server: a body
 * the server keeps as it is (string, bytes, none) is read without its stream and the response goes
 * out exactly as without the middleware (same bytes on the wire); anything else is recorded as it
 * streams. Either way the replay carries the status and body bytes that were sent.
 */
import { connect } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { listen, type RunningServer } from '@plumbline/test-utils';
import { type Context, Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idempotency } from './hono.js';
import { knownResponse, readAvailable } from './hono-response.js';
import { createMemoryStore } from './memory-store.js';
import type { IdempotencyStore } from './store.js';

// The runtime's own Response. @hono/node-server puts its lightweight one in its place (with the
// runtime's as its prototype) when a listener is made, here or in a file that ran before in this
// worker (the package's files share their modules and globals).
const current: typeof Response = globalThis.Response;
const NativeResponse: typeof Response =
  Object.getPrototypeOf(current) === Function.prototype ? current : Object.getPrototypeOf(current);
const listener = getRequestListener(() => new Response(null));

const utf8 = new TextEncoder();
const BINARY = new Uint8Array([0, 255, 1, 2, 200, 13, 10]);
const stream = (chunks: readonly string[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(utf8.encode(chunk));
      controller.close();
    },
  });

/** Handler, the body bytes it sends (base64), and whether the server keeps its body as it is. */
const HANDLERS: [string, (c: Context) => Response, string, boolean][] = [
  [
    'c.json with status and a header (string body)',
    (c) => c.json({ id: 1, name: 'Ä' }, 201, { Location: '/orders/1' }),
    Buffer.from('{"id":1,"name":"Ä"}').toString('base64'),
    true,
  ],
  [
    'c.text without headers (default Content-Type)',
    (c) => c.text('hello wörld'),
    Buffer.from('hello wörld').toString('base64'),
    true,
  ],
  [
    'c.body with binary bytes',
    (c) => c.body(BINARY, 200, { 'Content-Type': 'application/octet-stream' }),
    Buffer.from(BINARY).toString('base64'),
    true,
  ],
  ['c.body with an empty string', (c) => c.body('', 200), '', true],
  ['c.body(null, 204)', (c) => c.body(null, 204), '', true],
  [
    'headers set before the body (Headers object)',
    (c) => {
      c.header('ETag', '"v1"');
      c.header('Link', '</a>; rel="a"');
      c.status(202);
      return c.json({ ok: true });
    },
    Buffer.from('{"ok":true}').toString('base64'),
    true,
  ],
  [
    'a Response built by hand',
    () => new Response('raw', { status: 200, headers: { 'content-type': 'text/plain', link: '<b>' } }),
    Buffer.from('raw').toString('base64'),
    true,
  ],
  [
    'an ArrayBuffer body (read as it streams)',
    (c) => c.body(new Uint8Array([9, 8, 7]).buffer, 200, { 'Content-Type': 'application/octet-stream' }),
    Buffer.from([9, 8, 7]).toString('base64'),
    false,
  ],
  [
    'a streamed body (read as it streams)',
    (c) => c.body(stream(['one,', 'two,', 'three']), 200, { 'Content-Type': 'text/plain' }),
    Buffer.from('one,two,three').toString('base64'),
    false,
  ],
  [
    'a body that streams over time (chunked, recorded as it goes)',
    (c) =>
      c.body(
        new ReadableStream<Uint8Array>({
          async start(controller) {
            controller.enqueue(utf8.encode('first,'));
            await new Promise((resolve) => setTimeout(resolve, 30));
            controller.enqueue(utf8.encode('later'));
            controller.close();
          },
        }),
        200,
        { 'Content-Type': 'text/plain' },
      ),
    Buffer.from('first,later').toString('base64'),
    false,
  ],
];

/**
 * A store whose writes after the handler answer 40 ms later: the response waits for them, and must
 * still go out framed as without the middleware (a body that was all there keeps its Content-Length).
 */
const slowWrites = (store: IdempotencyStore): IdempotencyStore => ({
  claim: (key, request) => store.claim(key, request),
  complete: async (...args) => {
    await new Promise((resolve) => setTimeout(resolve, 40));
    return store.complete(...args);
  },
  release: (key, token) => store.release(key, token),
});
const STORES: [string, () => IdempotencyStore][] = [
  ['memory', () => createMemoryStore()],
  ['slow-writing memory', () => slowWrites(createMemoryStore())],
];

interface Raw {
  readonly head: string;
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
}

/** One request on its own connection; the raw response, Date line removed. */
function post(port: number, path: string, key: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const all = Buffer.concat(chunks);
      const split = all.indexOf('\r\n\r\n');
      const head = all
        .subarray(0, split)
        .toString('latin1')
        .replace(/\r\ndate: [^\r]*/i, '');
      const lines = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      let body = all.subarray(split + 4);
      if (headers['transfer-encoding'] === 'chunked') {
        const parts: Buffer[] = [];
        for (let at = 0; ; ) {
          const end = body.indexOf('\r\n', at);
          const size = Number.parseInt(body.subarray(at, end).toString('latin1'), 16);
          if (size === 0) break;
          parts.push(body.subarray(end + 2, end + 2 + size));
          at = end + 2 + size + 2;
        }
        body = Buffer.concat(parts);
      }
      resolve({ head, status: Number(lines[0]!.split(' ')[1]), headers, body });
    });
    const payload = '{"a":1}';
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${payload.length}\r\nIdempotency-Key: ${key}\r\n\r\n${payload}`,
    );
  });
}

describe.each(STORES)('Hono capture on @hono/node-server, %s store', (_store, makeStore) => {
  const runs = new Map<string, number>();
  let server: RunningServer;
  beforeAll(async () => {
    const app = new Hono();
    const idem = idempotency({ store: makeStore(), onError: () => {} });
    HANDLERS.forEach(([, handler], index) => {
      const counted = (c: Context) => {
        runs.set(`/${index}`, (runs.get(`/${index}`) ?? 0) + 1);
        return handler(c);
      };
      app.post(`/idem/${index}`, idem, counted);
      app.post(`/bare/${index}`, counted);
    });
    app.post('/idem/throws', idem, () => {
      runs.set('throws', (runs.get('throws') ?? 0) + 1);
      throw new Error('boom');
    });
    app.onError((_error, c) => c.text('failed', 500));
    server = await listen(getRequestListener(app.fetch));
  });
  afterAll(() => server.close());

  it.each(HANDLERS.map(([name, , body, kept], index) => [name, index, body, kept] as const))(
    '%s: sent as without the middleware, replayed with the same status and bytes',
    async (_name, index, body, kept) => {
      const key = `capture-${index}`;
      const bare = await post(server.port, `/bare/${index}`, `bare-${key}`);
      const first = await post(server.port, `/idem/${index}`, key);
      const replay = await post(server.port, `/idem/${index}`, key);
      expect({
        // A body the server keeps goes out untouched, byte for byte; a streamed one keeps its bytes.
        sameAsBare: kept ? first.head === bare.head : first.head.toLowerCase() === bare.head.toLowerCase(),
        first: [first.status, first.body.toString('base64'), first.headers['idempotent-replayed']],
        replay: [replay.status, replay.body.toString('base64'), replay.headers['idempotent-replayed']],
        type: replay.headers['content-type'] === first.headers['content-type'],
        runs: runs.get(`/${index}`),
      }).toEqual({
        sameAsBare: true,
        first: [first.status, body, undefined],
        replay: [first.status, body, 'true'],
        type: true,
        runs: 2, // once bare, once with the middleware
      });
    },
  );

  it('a handler that throws: its 500 goes out and is not stored, so the retry runs again', async () => {
    const first = await post(server.port, '/idem/throws', 'capture-throws');
    const retry = await post(server.port, '/idem/throws', 'capture-throws');
    expect([
      first.status,
      first.body.toString(),
      retry.status,
      retry.headers['idempotent-replayed'],
      runs.get('throws'),
    ]).toEqual([500, 'failed', 500, undefined, 2]);
  });
});

describe('knownResponse', () => {
  it.each([
    [
      'a string body',
      new Response('abc', { status: 201, headers: { 'X-A': '1' } }),
      201,
      'abc',
      { 'x-a': '1' },
    ],
    [
      'bytes',
      new Response(BINARY, {
        status: 200,
        headers: [
          ['link', '<a>'],
          ['link', '<b>'],
        ],
      }),
      200,
      BINARY,
      { link: '<a>, <b>' },
    ],
    ['no body', new Response(null, { status: 204 }), 204, null, {}],
    ['no headers', new Response('x'), 200, 'x', { 'content-type': 'text/plain; charset=UTF-8' }],
  ] as const)(
    '%s: status, body and headers as the server sends them',
    (_name, res, status, body, headers) => {
      expect(knownResponse(res)).toEqual({ status, body, headers });
    },
  );

  it('is undefined for a stream, a Blob, a response whose body was read, and a native Response', () => {
    const touched = new Response('abc');
    void touched.body;
    expect([
      knownResponse(new Response(stream(['a']))),
      knownResponse(new Response(new Blob(['a']))),
      knownResponse(touched),
      knownResponse(new NativeResponse('abc')),
      typeof listener,
    ]).toEqual([undefined, undefined, undefined, undefined, 'function']);
  });
});

describe('readAvailable', () => {
  const drain = async (body: ReadableStream<Uint8Array>) => {
    const out: string[] = [];
    const reader = body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return [...out, 'end'];
        out.push(Buffer.from(value).toString());
      }
    } catch (error) {
      return [...out, `error ${(error as Error).message}`];
    }
  };
  const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it.each([
    ['a closed stream of one chunk is all there', () => stream(['ab']), { done: true, body: 'ab' }],
    // The server, too, reads at most two chunks before it decides (and then sends chunked).
    [
      'two chunks and the end are more than is read without waiting',
      () => stream(['a', 'b']),
      { done: false, rest: ['a', 'b', 'end'] },
    ],
    [
      'a stream that waits is handed on whole: what was read, then the rest',
      () =>
        new ReadableStream<Uint8Array>({
          async start(controller) {
            controller.enqueue(utf8.encode('a'));
            await later(30);
            controller.enqueue(utf8.encode('b'));
            controller.close();
          },
        }),
      { done: false, rest: ['a', 'b', 'end'] },
    ],
    [
      'a source that fails while read here fails after the chunks it gave',
      () => {
        let sent = false;
        return new ReadableStream<Uint8Array>({
          pull(controller) {
            if (sent) controller.error(new Error('cut'));
            else controller.enqueue(utf8.encode('a'));
            sent = true;
          },
        });
      },
      { done: false, rest: ['a', 'error cut'] },
    ],
  ] as const)('%s', async (_name, make, expected) => {
    const available = await readAvailable(make());
    expect(
      available.done
        ? { done: true, body: Buffer.from(available.body).toString() }
        : { done: false, rest: await drain(available.rest) },
    ).toEqual(expected);
  });
});
