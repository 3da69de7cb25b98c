// notModified: routes that send their own body and validators answer 304 alike on Express 5,
// Express 4, Fastify 5 and Hono. One table of real requests; every case checks the status, the
// body and the whole set of response headers (all but Date and the connection's own).
import { Readable } from 'node:stream';
import {
  describeAdapters,
  frameworkRunners,
  frameworkSenders,
  type HttpRequestSpec,
} from '@plumbline/test-utils';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import * as ex from '../src/express.js';
import * as fa from '../src/fastify.js';
import * as ho from '../src/hono.js';
import { answer, BODY, LAST_MODIFIED, MODIFIED, notModifiedApps } from './not-modified-apps.js';

const BEFORE = new Date(MODIFIED - 1000).toUTCString();
const AFTER = new Date(MODIFIED + 1000).toUTCString();
const ASCTIME = 'Fri Jan  2 03:04:05 2026';
const NO_CACHE = { 'Cache-Control': 'no-cache' };
const CONNECTION = new Set(['date', 'connection', 'keep-alive']);

interface Case {
  readonly name: string;
  readonly request: HttpRequestSpec;
  /** The answer: 304, or the route's own status with its body (none for HEAD). */
  readonly notModified: boolean;
}

const request = (variant: string, headers: Record<string, string> = {}, method = 'GET') => ({
  method,
  path: `/own/${variant}`,
  headers,
});
const is304 = (name: string, req: HttpRequestSpec): Case => ({ name, request: req, notModified: true });
const not304 = (name: string, req: HttpRequestSpec): Case => ({ name, request: req, notModified: false });

const cases: readonly Case[] = [
  // If-None-Match against the route's ETag: weak comparison, `*`, lists.
  is304('strong ETag, If-None-Match: the tag → 304', request('strong', { 'If-None-Match': '"v1"' })),
  is304(
    'strong ETag, If-None-Match: W/ + the tag → 304 (weak comparison)',
    request('strong', { 'If-None-Match': 'W/"v1"' }),
  ),
  is304('weak ETag, If-None-Match: the weak tag → 304', request('weak', { 'If-None-Match': 'W/"v1"' })),
  is304('weak ETag, If-None-Match: the tag without W/ → 304', request('weak', { 'If-None-Match': '"v1"' })),
  is304('If-None-Match: * → 304', request('strong', { 'If-None-Match': '*' })),
  is304(
    'If-None-Match: * without validators → 304 (any current representation)',
    request('none', { 'If-None-Match': '*' }),
  ),
  is304(
    'If-None-Match: a list with the tag, spaces, an empty member → 304',
    request('strong', { 'If-None-Match': ' "a" ,\tW/"b",, "v1" ' }),
  ),
  not304(
    'If-None-Match: a list of other tags → 200 with body',
    request('strong', { 'If-None-Match': '"a", W/"b"' }),
  ),
  not304('If-None-Match: another tag → 200 with body', request('strong', { 'If-None-Match': '"v2"' })),
  not304(
    'If-None-Match: the tag unquoted (not an entity-tag) → 200',
    request('strong', { 'If-None-Match': 'v1' }),
  ),
  // What fetch sends when it revalidates: Express's own req.fresh would answer 200.
  is304(
    'If-None-Match: the tag, Cache-Control: no-cache → 304',
    request('strong', { 'If-None-Match': '"v1"', ...NO_CACHE }),
  ),
  is304(
    'If-None-Match: the tag, Cache-Control: max-age=0 → 304',
    request('strong', { 'If-None-Match': '"v1"', 'Cache-Control': 'max-age=0' }),
  ),
  // If-Modified-Since against the route's Last-Modified.
  is304('If-Modified-Since = Last-Modified → 304', request('dated', { 'If-Modified-Since': LAST_MODIFIED })),
  is304('If-Modified-Since later than Last-Modified → 304', request('dated', { 'If-Modified-Since': AFTER })),
  not304(
    'If-Modified-Since earlier than Last-Modified → 200',
    request('dated', { 'If-Modified-Since': BEFORE }),
  ),
  is304(
    'If-Modified-Since = Last-Modified in asctime form → 304',
    request('dated', { 'If-Modified-Since': ASCTIME }),
  ),
  not304(
    'If-Modified-Since malformed → ignored, 200',
    request('dated', { 'If-Modified-Since': 'yesterday' }),
  ),
  is304(
    'If-Modified-Since = Last-Modified, Cache-Control: no-cache → 304',
    request('dated', { 'If-Modified-Since': LAST_MODIFIED, ...NO_CACHE }),
  ),
  not304('If-Modified-Since without Last-Modified → 200', request('strong', { 'If-Modified-Since': AFTER })),
  // If-None-Match present: If-Modified-Since is not looked at (RFC 9110 section 13.2.2).
  not304(
    'If-None-Match: another tag, If-Modified-Since current → 200',
    request('both', { 'If-None-Match': '"v2"', 'If-Modified-Since': AFTER }),
  ),
  is304(
    'If-None-Match: the tag, If-Modified-Since earlier → 304',
    request('both', { 'If-None-Match': '"v1"', 'If-Modified-Since': BEFORE }),
  ),
  not304(
    'If-None-Match malformed, If-Modified-Since current → 200',
    request('both', { 'If-None-Match': 'v1', 'If-Modified-Since': AFTER }),
  ),
  // No validators on the response.
  not304('no validators, If-None-Match: a tag → 200', request('none', { 'If-None-Match': '"v1"' })),
  not304('no validators, If-Modified-Since → 200', request('none', { 'If-Modified-Since': AFTER })),
  not304('no conditional field → 200', request('strong')),
  // Only a 200 to GET or HEAD becomes 304.
  not304(
    'POST, If-None-Match: the tag → 200 with body',
    request('strong', { 'If-None-Match': '"v1"' }, 'POST'),
  ),
  not304('PUT, If-None-Match: * → 200 with body', request('strong', { 'If-None-Match': '*' }, 'PUT')),
  not304(
    'DELETE, If-Modified-Since current → 200 with body',
    request('dated', { 'If-Modified-Since': AFTER }, 'DELETE'),
  ),
  not304('GET 201, If-None-Match: the tag → 201', request('created', { 'If-None-Match': '"v1"' })),
  not304('GET 404, If-None-Match: * → 404', request('missing', { 'If-None-Match': '*' })),
  // HEAD: the same decision; an answer with a body carries the GET's Content-Length (on Hono too).
  is304(
    'HEAD, If-None-Match: the tag, no-cache → 304',
    request('strong', { 'If-None-Match': '"v1"', ...NO_CACHE }, 'HEAD'),
  ),
  is304(
    'HEAD, If-Modified-Since = Last-Modified → 304',
    request('dated', { 'If-Modified-Since': LAST_MODIFIED }, 'HEAD'),
  ),
  not304(
    "HEAD, If-None-Match: another tag → 200, the GET's Content-Length",
    request('strong', { 'If-None-Match': '"v2"' }, 'HEAD'),
  ),
  not304("HEAD, no conditional field → 200, the GET's Content-Length", request('none', {}, 'HEAD')),
  not304(
    "HEAD 404, If-None-Match: * → 404, the GET's Content-Length",
    request('missing', { 'If-None-Match': '*' }, 'HEAD'),
  ),
];

/** What every framework sends: the route's headers (and Vary, Content-Language), less the body's own on a 304. */
function expected(c: Case): { status: number; headers: Record<string, string>; body: unknown } {
  const route = answer(c.request.path!.slice('/own/'.length));
  const headers: Record<string, string> = { vary: 'Accept, Accept-Language', 'content-language': 'en' };
  for (const [name, value] of Object.entries(route.headers)) headers[name.toLowerCase()] = value;
  if (c.notModified) {
    delete headers['content-type'];
    return { status: 304, headers, body: '' };
  }
  headers['content-length'] = String(Buffer.byteLength(BODY));
  return { status: route.status, headers, body: c.request.method === 'HEAD' ? '' : JSON.parse(BODY) };
}

describeAdapters(
  'notModified: one table, four frameworks',
  cases,
  frameworkRunners(notModifiedApps, (c: Case) => c.request),
  (outcome, c) => {
    const headers = Object.fromEntries(
      Object.entries(outcome.headers).filter(([name]) => !CONNECTION.has(name)),
    );
    expect({ status: outcome.status, headers, body: outcome.body }).toEqual(expected(c));
  },
);

describe('notModified on Express', () => {
  const route = (app: ReturnType<Parameters<NonNullable<typeof notModifiedApps.express>>[0]>) => {
    app.set('etag', false);
    app.get('/r', (_req, res) => {
      res.set('ETag', '"v1"').send('text');
    });
    return app;
  };
  const senders = frameworkSenders({
    express: (express) => {
      const app = route(express());
      // A mounted app's requests inherit from the parent's request: notModified(parent) covers it.
      app.use('/sub', route(express()));
      ex.notModified(app);
      return app;
    },
  });
  const plain = frameworkSenders({ express: (express) => route(express()) });
  const revalidate = { 'If-None-Match': '"v1"', ...NO_CACHE };

  it.each(['express5', 'express4'] as const)(
    '%s: without it, res.send answers 200 to Cache-Control: no-cache; with it, 304 (apps mounted on the app too)',
    async (framework) => {
      expect((await plain[framework]!({ path: '/r', headers: revalidate })).status).toBe(200);
      expect((await senders[framework]!({ path: '/r', headers: revalidate })).status).toBe(304);
      expect((await senders[framework]!({ path: '/sub/r', headers: revalidate })).status).toBe(304);
    },
  );
});

describe('notModified and streamed bodies', () => {
  const closed: Record<string, boolean> = {};
  const senders = frameworkSenders({
    fastify: async () => {
      const app = Fastify();
      await app.register(fa.notModified);
      app.get('/stream', async (_request, reply) => {
        const stream = Readable.from(['a', 'b']);
        stream.on('close', () => {
          closed['fastify'] = true;
        });
        return reply.header('ETag', '"v1"').send(stream);
      });
      return app;
    },
    hono: () => {
      const app = new Hono();
      app.use(ho.notModified());
      app.get('/stream', (c) => {
        const stream = new ReadableStream<Uint8Array>({
          pull: (controller) => controller.enqueue(new TextEncoder().encode('data: tick\n\n')),
          cancel: () => {
            closed['hono'] = true;
          },
        });
        return c.body(stream, 200, { ETag: '"v1"', 'Content-Type': 'text/event-stream' });
      });
      // A stream that never ends: HEAD must not wait for it.
      app.get('/events', (c) =>
        c.body(new ReadableStream<Uint8Array>(), 200, { 'Content-Type': 'text/event-stream' }),
      );
      return app;
    },
  });

  it.each(['fastify', 'hono'] as const)('%s: a 304 closes the stream it does not send', async (framework) => {
    const outcome = await senders[framework]!({ path: '/stream', headers: { 'If-None-Match': '"v1"' } });
    expect([outcome.status, outcome.body]).toEqual([304, '']);
    await expect.poll(() => closed[framework]).toBe(true);
  });

  it('hono: HEAD of a stream that has not ended answers at once, without Content-Length', async () => {
    const outcome = await senders.hono!({ method: 'HEAD', path: '/events' });
    expect([outcome.status, outcome.headers['content-length'], outcome.body]).toEqual([200, undefined, '']);
  });
});
