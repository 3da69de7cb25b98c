/**
 * Where the framework instrumentations disagree with ours: the same tiny app on Express 5, Fastify
 * and Hono, once with this package's middleware and once with the framework's own instrumentation
 * (`@opentelemetry/instrumentation-express` 0.72.0 with `-http` 0.301.0 for the server span,
 * `@fastify/otel` 0.21.2, `@hono/otel` 1.1.2: the exact versions in package.json), each with its
 * own real SDK exporting to memory. For each request the table pins the server span's name,
 * `http.route`, `http.request.method`, `http.response.status_code`, `error.type` and status as each
 * library records them today.
 *
 * The Express and HTTP instrumentations patch `express` and `node:http` when they are required, so
 * both are required (not imported) after the instrumentations exist, and disabled after the file.
 * The HTTP one traces only the requests of the Express app without our middleware; the Express one
 * patches the module both Express apps use (its child spans go to its own SDK, never read here).
 */
import { createRequire } from 'node:module';
import { FastifyOtelInstrumentation } from '@fastify/otel';
import { httpInstrumentationMiddleware } from '@hono/otel';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { frameworkSenders, type HttpRequestSpec } from '@plumbline/test-utils';
import type { Express, RequestHandler } from 'express';
import Fastify, { type FastifyInstance } from 'fastify';
import { Hono, type MiddlewareHandler } from 'hono';
import { afterAll, describe, expect, it } from 'vitest';
import * as ex from '../src/express.js';
import * as fa from '../src/fastify.js';
import * as ho from '../src/hono.js';
import { createSdk, finishedSpans, registerGlobals, type Sdk } from './sdk.js';

registerGlobals();

/** What one server span says, in the columns of the table. */
interface Row {
  readonly name: string;
  readonly route: unknown;
  readonly method: unknown;
  readonly status: unknown;
  readonly errorType: unknown;
  readonly spanStatus: string;
}

const sdks = {
  express: { ours: createSdk(), theirs: createSdk() },
  hono: { ours: createSdk(), theirs: createSdk() },
  fastify: { ours: createSdk(), theirs: createSdk() },
} satisfies Record<string, Record<'ours' | 'theirs', Sdk>>;

// Enabled only while a request to the Express app without our middleware is in flight: the requests
// it ignores it still serves with tracing suppressed, which would hide every other app's spans.
const http = new HttpInstrumentation({ disableOutgoingRequestInstrumentation: true });
const instrumentations = [http, new ExpressInstrumentation()];
for (const instrumentation of instrumentations) {
  instrumentation.setTracerProvider(sdks.express.theirs.tracerProvider);
}
const require = createRequire(import.meta.url);
require('node:http');
const express = require('express') as typeof import('express');
http.disable();
afterAll(() => {
  for (const instrumentation of instrumentations) instrumentation.disable();
});

// The tiny app: a parameterised route, a handler that throws, a route whose middleware (a path
// middleware on Express and Hono, a route onRequest hook on Fastify) answers 400 before it runs;
// anything else is the framework's own 404.
function expressApp(instrument?: RequestHandler): Express {
  const app = express();
  if (instrument !== undefined) app.use(instrument);
  app.get('/items/:id', (req, res) => {
    res.json({ id: req.params['id'] });
  });
  app.get('/boom', () => {
    throw new Error('boom');
  });
  app.use('/guarded', (_req, res) => {
    res.status(400).json({ error: 'bad' });
  });
  app.get('/guarded/:id', (req, res) => {
    res.json({ id: req.params['id'] });
  });
  return app;
}

function honoApp(instrument: MiddlewareHandler): Hono {
  const app = new Hono();
  app.use(instrument);
  app.onError((_error, c) => c.text('Internal Server Error', 500)); // Hono's default, without its console.error
  app.get('/items/:id', (c) => c.json({ id: c.req.param('id') }));
  app.get('/boom', () => {
    throw new Error('boom');
  });
  app.use('/guarded/*', async (c) => c.json({ error: 'bad' }, 400));
  app.get('/guarded/:id', (c) => c.json({ id: c.req.param('id') }));
  return app;
}

async function fastifyApp(instrument: (app: FastifyInstance) => Promise<void>): Promise<FastifyInstance> {
  const app = Fastify();
  await instrument(app);
  app.get('/items/:id', async (request) => ({ id: (request.params as { id: string }).id }));
  app.get('/boom', async () => {
    throw new Error('boom');
  });
  app.get(
    '/guarded/:id',
    { onRequest: async (_request, reply) => reply.code(400).send({ error: 'bad' }) },
    async (request) => ({ id: (request.params as { id: string }).id }),
  );
  return app;
}

const fastifyOtel = new FastifyOtelInstrumentation();
fastifyOtel.setTracerProvider(sdks.fastify.theirs.tracerProvider);

const senders = {
  express: {
    ours: frameworkSenders({
      express: () => expressApp(ex.telemetry({ tracerProvider: sdks.express.ours.tracerProvider })),
    }).express5!,
    theirs: frameworkSenders({ express: () => expressApp() }).express5!,
  },
  hono: {
    ours: frameworkSenders({
      hono: () => honoApp(ho.telemetry({ tracerProvider: sdks.hono.ours.tracerProvider })),
    }).hono!,
    theirs: frameworkSenders({
      hono: () => honoApp(httpInstrumentationMiddleware({ tracerProvider: sdks.hono.theirs.tracerProvider })),
    }).hono!,
  },
  fastify: {
    ours: frameworkSenders({
      fastify: () =>
        fastifyApp(async (app) => {
          await app.register(fa.telemetry, { tracerProvider: sdks.fastify.ours.tracerProvider });
        }),
    }).fastify!,
    theirs: frameworkSenders({
      fastify: () =>
        fastifyApp(async (app) => {
          await app.register(fastifyOtel.plugin());
        }),
    }).fastify!,
  },
};

type Library = 'ours' | 'theirs';
type Name = keyof typeof sdks;

async function serverSpan(framework: Name, library: Library, request: HttpRequestSpec): Promise<Row> {
  const sdk = sdks[framework][library];
  sdk.exporter.reset();
  const traced = framework === 'express' && library === 'theirs';
  if (traced) http.enable();
  try {
    await senders[framework][library](request);
  } finally {
    if (traced) http.disable();
  }
  await finishedSpans(sdk.exporter);
  // Give the library's child spans (if any) time to end, then take the one server span.
  await new Promise((resolve) => setTimeout(resolve, 20));
  const servers = sdk.exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.SERVER);
  expect(servers).toHaveLength(1);
  const span = servers[0]!;
  return {
    name: span.name,
    route: span.attributes['http.route'],
    method: span.attributes['http.request.method'],
    status: span.attributes['http.response.status_code'],
    errorType: span.attributes['error.type'],
    spanStatus: SpanStatusCode[span.status.code] + (span.status.message ? `: ${span.status.message}` : ''),
  };
}

const GET_ITEM: HttpRequestSpec = { path: '/items/7' };
const NO_ROUTE: HttpRequestSpec = { path: '/nowhere' };
const THROWS: HttpRequestSpec = { path: '/boom' };
const GUARDED: HttpRequestSpec = { path: '/guarded/7' };
const UNKNOWN_METHOD: HttpRequestSpec = { method: 'PURGE', path: '/items/7' };

const row = (
  name: string,
  route: string | undefined,
  method: string,
  status: number,
  errorType: string | undefined,
  spanStatus: string,
): Row => ({ name, route, method, status, errorType, spanStatus });

interface Case {
  readonly name: string;
  readonly request: HttpRequestSpec;
  readonly expected: Record<Name, Record<Library, Row>>;
}

const cases: readonly Case[] = [
  {
    name: 'GET on a parameterised route, 200',
    request: GET_ITEM,
    expected: {
      express: {
        ours: row('GET /items/:id', '/items/:id', 'GET', 200, undefined, 'UNSET'),
        theirs: row('GET /items/:id', '/items/:id', 'GET', 200, undefined, 'UNSET'),
      },
      hono: {
        ours: row('GET /items/:id', '/items/:id', 'GET', 200, undefined, 'UNSET'),
        theirs: row('GET /items/:id', '/items/:id', 'GET', 200, undefined, 'UNSET'),
      },
      fastify: {
        ours: row('GET /items/:id', '/items/:id', 'GET', 200, undefined, 'UNSET'),
        // Differs: the span is named 'request', not '{method} {route}'.
        theirs: row('request', '/items/:id', 'GET', 200, undefined, 'UNSET'),
      },
    },
  },
  {
    name: 'no route, 404',
    request: NO_ROUTE,
    expected: {
      express: {
        ours: row('GET', undefined, 'GET', 404, undefined, 'UNSET'),
        theirs: row('GET', undefined, 'GET', 404, undefined, 'UNSET'),
      },
      hono: {
        ours: row('GET', undefined, 'GET', 404, undefined, 'UNSET'),
        // Differs: http.route (and the name) is the instrumentation's own '*' pattern, not absent.
        theirs: row('GET /*', '/*', 'GET', 404, undefined, 'UNSET'),
      },
      fastify: {
        ours: row('GET', undefined, 'GET', 404, undefined, 'UNSET'),
        // Differs: the span is named 'request' (http.route absent in both).
        theirs: row('request', undefined, 'GET', 404, undefined, 'UNSET'),
      },
    },
  },
  {
    name: 'the handler throws, 500',
    request: THROWS,
    expected: {
      express: {
        ours: row('GET /boom', '/boom', 'GET', 500, '500', 'ERROR'),
        theirs: row('GET /boom', '/boom', 'GET', 500, '500', 'ERROR'),
      },
      hono: {
        ours: row('GET /boom', '/boom', 'GET', 500, '500', 'ERROR'),
        // Differs: no error.type on a 5xx.
        theirs: row('GET /boom', '/boom', 'GET', 500, undefined, 'ERROR'),
      },
      fastify: {
        ours: row('GET /boom', '/boom', 'GET', 500, '500', 'ERROR'),
        // Differs: named 'request', no error.type, and the exception's message is the status description.
        theirs: row('request', '/boom', 'GET', 500, undefined, 'ERROR: boom'),
      },
    },
  },
  {
    name: 'a middleware answers 400 before the route',
    request: GUARDED,
    expected: {
      express: {
        ours: row('GET /guarded/:id', '/guarded/:id', 'GET', 400, undefined, 'UNSET'),
        // Differs: http.route is the answering middleware's mount path '/guarded', not the route.
        theirs: row('GET /guarded', '/guarded', 'GET', 400, undefined, 'UNSET'),
      },
      hono: {
        ours: row('GET /guarded/:id', '/guarded/:id', 'GET', 400, undefined, 'UNSET'),
        // Differs: http.route is the answering middleware's '/guarded/*', not the route (honojs/middleware#1914).
        theirs: row('GET /guarded/*', '/guarded/*', 'GET', 400, undefined, 'UNSET'),
      },
      fastify: {
        ours: row('GET /guarded/:id', '/guarded/:id', 'GET', 400, undefined, 'UNSET'),
        // Differs: the span is named 'request'.
        theirs: row('request', '/guarded/:id', 'GET', 400, undefined, 'UNSET'),
      },
    },
  },
  {
    name: 'a method the conventions do not know (PURGE), 404',
    request: UNKNOWN_METHOD,
    expected: {
      express: {
        ours: row('HTTP', undefined, '_OTHER', 404, undefined, 'UNSET'),
        // Differs: the method is '_OTHER' in both, but the span is named 'PURGE' where the conventions say 'HTTP'.
        theirs: row('PURGE', undefined, '_OTHER', 404, undefined, 'UNSET'),
      },
      hono: {
        ours: row('HTTP', undefined, '_OTHER', 404, undefined, 'UNSET'),
        // Differs: the method is recorded as sent (not '_OTHER'), http.route is '/*', the name 'PURGE /*'.
        theirs: row('PURGE /*', '/*', 'PURGE', 404, undefined, 'UNSET'),
      },
      fastify: {
        ours: row('HTTP', undefined, '_OTHER', 404, undefined, 'UNSET'),
        // Differs: the method is recorded as sent (not '_OTHER'), the span named 'request'.
        theirs: row('request', undefined, 'PURGE', 404, undefined, 'UNSET'),
      },
    },
  },
];

describe.each(['express', 'hono', 'fastify'] as const)(
  '%s: ours and the framework instrumentation',
  (framework) => {
    it.each(cases)('$name', async ({ request, expected }) => {
      expect({
        ours: await serverSpan(framework, 'ours', request),
        theirs: await serverSpan(framework, 'theirs', request),
      }).toStrictEqual(expected[framework]);
    });
  },
);
