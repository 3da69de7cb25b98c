// One app on Express 5, Express 4, Fastify 5 and Hono that reads JSON bodies: express.json (strict,
// inflate: false) on Express, jsonBodyParser on Fastify, jsonBody on Hono, each behind the route's
// requireContentType, and the @plumbline/errors handler of each framework. The handler answers
// what it received, the same bytes on every framework.
import { once } from 'node:events';
import { request } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { errorHandler } from '@plumbline/errors/express';
import { plumblineErrors } from '@plumbline/errors/fastify';
import { problemDetails } from '@plumbline/errors/hono';
import {
  EXPRESS_VERSIONS,
  type Framework,
  listen,
  type Outcome,
  type RunningServer,
} from '@plumbline/test-utils';
import type { Request, Response } from 'express';
import Fastify from 'fastify';
import { Hono, type MiddlewareHandler } from 'hono';
import { afterAll } from 'vitest';
import * as ex from '../src/express.js';
import * as fa from '../src/fastify.js';
import * as ho from '../src/hono.js';

/** One route: its method and path, the types it takes, its limit, and whether requireContentType guards it. */
interface BodyRoute {
  readonly method: 'POST' | 'PATCH';
  readonly path: string;
  readonly types: readonly string[];
  readonly limit: number;
  readonly guarded: boolean;
}

export const SMALL_LIMIT = 64;

const ROUTES: readonly BodyRoute[] = [
  { method: 'POST', path: '/echo', types: ['application/json'], limit: 1_048_576, guarded: true },
  {
    method: 'PATCH',
    path: '/patch',
    types: ['application/merge-patch+json', 'application/json'],
    limit: 1_048_576,
    guarded: true,
  },
  { method: 'POST', path: '/suffix', types: ['application/*+json'], limit: 1_048_576, guarded: true },
  { method: 'POST', path: '/small', types: ['application/json'], limit: SMALL_LIMIT, guarded: true },
  // The body reader alone: no requireContentType in front of it.
  { method: 'POST', path: '/open', types: ['application/json'], limit: 1_048_576, guarded: false },
];

/** What the handler saw, as JSON text: whether a body was read, the value, and no prototype pollution. */
function received(present: boolean, body: unknown): string {
  const polluted = ({} as Record<string, unknown>)['polluted'] !== undefined;
  if (!present) return JSON.stringify({ present: false, polluted });
  let json: string;
  try {
    json = JSON.stringify(body);
  } catch {
    // Too deep for JSON.stringify: its depth, counted without recursion.
    let depth = 0;
    let at: unknown = body;
    while (Array.isArray(at)) {
      depth += 1;
      at = at[0];
    }
    json = `depth ${depth}`;
  }
  const proto = Object.getPrototypeOf(body);
  const ownProto = typeof body === 'object' && body !== null && Object.hasOwn(body, '__proto__');
  return JSON.stringify({
    present: true,
    json,
    plain: proto === Object.prototype || proto === Array.prototype,
    ownProto,
    polluted,
  });
}

const RECEIVED_TYPE = 'application/json; charset=utf-8';
const silent = { onError: () => {} };

function expressApp(express: (typeof EXPRESS_VERSIONS)[number][1], four: boolean) {
  const app = express();
  for (const route of ROUTES) {
    const handlers = [
      ...(route.guarded ? [ex.requireContentType(...route.types)] : []),
      express.json({ strict: true, inflate: false, type: [...route.types], limit: route.limit }),
      (req: Request, res: Response) => {
        // Express 4's express.json sets `req.body = {}` on every request and marks the ones it read
        // with `_body`; Express 5 leaves `req.body` undefined when it read nothing.
        const present = four ? (req as { _body?: boolean })._body === true : req.body !== undefined;
        res.status(200).type(RECEIVED_TYPE).send(received(present, req.body));
      },
    ];
    app[route.method === 'POST' ? 'post' : 'patch'](route.path, ...handlers);
  }
  app.use(errorHandler(silent));
  return app;
}

async function fastifyApp() {
  const app = Fastify();
  await app.register(plumblineErrors, { ...silent, requestId: false });
  for (const route of ROUTES) {
    await app.register(async (scope) => {
      fa.jsonBodyParser(scope, { types: route.types, limit: route.limit });
      scope.route({
        method: route.method,
        url: route.path,
        ...(route.guarded ? { onRequest: fa.requireContentType(...route.types) } : {}),
        handler: async (request, reply) =>
          reply
            .code(200)
            .header('Content-Type', RECEIVED_TYPE)
            .send(received(request.body !== undefined, request.body)),
      });
    });
  }
  return app;
}

function honoApp() {
  const app = new Hono();
  const problems = problemDetails({ ...silent, requestId: false });
  app.use(problems.middleware);
  app.onError(problems.onError);
  app.notFound(problems.notFound);
  for (const route of ROUTES) {
    const handlers: MiddlewareHandler[] = [
      ...(route.guarded ? [ho.requireContentType(...route.types)] : []),
      ho.jsonBody({ types: route.types, limit: route.limit }),
      async (c) => {
        const body = ho.getJsonBody(c);
        return c.body(received(body !== undefined, body), 200, { 'Content-Type': RECEIVED_TYPE });
      },
    ];
    app.on(route.method, route.path, ...(handlers as [MiddlewareHandler]));
  }
  return app;
}

const servers = new Map<Framework, Promise<RunningServer>>();
afterAll(async () => {
  await Promise.all([...servers.values()].map(async (server) => (await server).close()));
});

async function start(framework: Framework): Promise<RunningServer> {
  if (framework === 'fastify') {
    const app = await fastifyApp();
    await app.ready();
    const server = await listen((req, res) => app.routing(req, res));
    return { ...server, close: async () => Promise.all([server.close(), app.close()]).then(() => {}) };
  }
  if (framework === 'hono') return listen(getRequestListener(honoApp().fetch));
  const factory = EXPRESS_VERSIONS.find(([name]) => name === framework)![1];
  return listen(expressApp(factory, framework === 'express4'));
}

/** The port of `framework`'s app, started on first use and closed after the file's tests. */
export function portOf(framework: Framework): Promise<number> {
  let server = servers.get(framework);
  if (server === undefined) {
    server = start(framework);
    servers.set(framework, server);
  }
  return server.then((s) => s.port);
}

/** A request as the table writes it: raw bytes, sent with a Content-Length, chunked, or with no framing at all. */
export interface RawBodyRequest {
  readonly method: 'POST' | 'PATCH';
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Sent whole with its Content-Length. */
  readonly body?: string | Uint8Array;
  /** Sent with `Transfer-Encoding: chunked`, one chunk each (none: an empty chunked body). */
  readonly chunks?: readonly (string | Uint8Array)[];
}

/** The headers the answers are compared on (not `Date`, `Connection`, `Keep-Alive`: the transport's). */
export const COMPARED_HEADERS = [
  'content-type',
  'content-length',
  'content-language',
  'vary',
  'accept',
  'accept-post',
  'accept-patch',
] as const;

/**
 * Sends `spec` to 127.0.0.1:`port`: a body with its Content-Length, chunks chunked, or neither
 * Content-Length nor Transfer-Encoding (a request without a body). The answer's headers are only
 * the compared ones, its body parsed when JSON.
 */
export async function exchange(port: number, spec: RawBodyRequest): Promise<Outcome> {
  const req = request({ host: '127.0.0.1', port, method: spec.method, path: spec.path, agent: false });
  for (const [name, value] of Object.entries(spec.headers ?? {})) req.setHeader(name, value);
  const answer = once(req, 'response');
  if (spec.chunks !== undefined) {
    req.setHeader('Transfer-Encoding', 'chunked');
    for (const chunk of spec.chunks) req.write(chunk);
    req.end();
  } else if (spec.body !== undefined) {
    const bytes = typeof spec.body === 'string' ? Buffer.from(spec.body) : spec.body;
    req.setHeader('Content-Length', String(bytes.byteLength));
    req.end(bytes);
  } else {
    req.removeHeader('Content-Length');
    req.removeHeader('Transfer-Encoding');
    req.end();
  }
  const [res] = (await answer) as [import('node:http').IncomingMessage];
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  const headers: Record<string, string> = {};
  for (const name of COMPARED_HEADERS) {
    const value = res.headers[name];
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const body = /[/+]json\b/.test(headers['content-type'] ?? '') && text !== '' ? JSON.parse(text) : text;
  return { status: res.statusCode ?? 0, headers, body };
}
