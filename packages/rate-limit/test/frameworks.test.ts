/**
 * One behaviour table on Express 5, Express 4, Fastify 5 and Hono: after the same sequence of
 * requests every framework sends the same status, the same RateLimit fields and `Retry-After`,
 * and the same 429 problem, through each framework's @plumbline/errors adapter.
 */
import { HttpError } from '@plumbline/errors';
import { errorHandler } from '@plumbline/errors/express';
import { plumblineErrors } from '@plumbline/errors/fastify';
import { problemDetails } from '@plumbline/errors/hono';
import {
  describeAdapters,
  FRAMEWORKS,
  type FrameworkApps,
  frameworkSenders,
  type Outcome,
} from '@plumbline/test-utils';
import type { NextFunction, Request, Response } from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { expect } from 'vitest';
import * as ex from '../src/express.js';
import * as fa from '../src/fastify.js';
import * as ho from '../src/hono.js';
import {
  createLimiter,
  type HeaderMode,
  type Limiter,
  MemoryStore,
  partitionKey,
  type Store,
} from '../src/index.js';

const T = Date.parse('2026-11-25T12:00:00Z');
const DOWN: Store = {
  increment: () => Promise.reject(new Error('ECONNREFUSED')),
  decrement: () => Promise.reject(new Error('ECONNREFUSED')),
  resetKey: () => undefined,
};

// One limiter per prefix, each app its own (every framework counts from zero).
function limiters(): Record<string, Limiter> {
  const at = { now: () => T };
  const limited = (headers: HeaderMode) =>
    createLimiter({ limit: 2, headers, store: new MemoryStore(at), ...at });
  return {
    d8: limited('draft-8'),
    d10: limited('draft-10'),
    d7: limited('draft-7'),
    down: createLimiter({ limit: 2, store: DOWN }),
    fail: createLimiter({
      limit: 1,
      headers: false,
      skipSuccessful: true,
      store: new MemoryStore(at),
      ...at,
    }),
  };
}

const keyOf = (client: string | string[] | undefined) => `client:${String(client)}`;
const skipped = (path: string) => path.endsWith('/health');
// `/fail/...?status=404` answers 404: the failure limiter counts it.
function answer(url: string): { ok: true } {
  if (url.includes('status=404')) throw new HttpError('not_found');
  return { ok: true };
}

const apps: FrameworkApps = {
  express: (express) => {
    const app = express();
    for (const [prefix, limiter] of Object.entries(limiters())) {
      app.use(
        `/${prefix}`,
        ex.rateLimit(limiter, {
          key: (req) => keyOf(req.headers['x-client']),
          skip: (req) => skipped(req.path),
        }),
      );
    }
    app.use((req: Request, res: Response, next: NextFunction) => {
      try {
        res.json(answer(req.originalUrl));
      } catch (error) {
        next(error);
      }
    });
    app.use(errorHandler({ onError: () => {} }));
    return app;
  },
  fastify: async () => {
    const app = Fastify();
    await app.register(plumblineErrors, { onError: () => {}, requestId: false });
    for (const [prefix, limiter] of Object.entries(limiters())) {
      await app.register(
        async (scope) => {
          scope.addHook(
            'onRequest',
            fa.rateLimit(limiter, {
              key: (request) => keyOf(request.headers['x-client']),
              skip: (request) => skipped(request.url),
            }),
          );
          scope.get('/*', async (request) => answer(request.url));
        },
        { prefix: `/${prefix}` },
      );
    }
    return app;
  },
  hono: () => {
    const app = new Hono();
    const problems = problemDetails({ onError: () => {}, requestId: false });
    app.use(problems.middleware);
    app.onError(problems.onError);
    app.notFound(problems.notFound);
    for (const [prefix, limiter] of Object.entries(limiters())) {
      app.use(
        `/${prefix}/*`,
        ho.rateLimit(limiter, {
          key: (c) => keyOf(c.req.header('x-client')),
          skip: (c) => skipped(c.req.path),
        }),
      );
    }
    app.get('*', (c) => c.json(answer(c.req.url)));
    return app;
  },
};

interface Case {
  readonly name: string;
  readonly path: string;
  /** Requests sent before the one whose answer is checked (same client, same path). */
  readonly before: number;
  /** A client id of its own, so cases do not share counts. */
  readonly client: string;
  readonly status: number;
  /** Exact values; `undefined` means the header must be absent. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body: unknown;
}

const pk = (client: string) => `:${partitionKey(`client:${client}`)}:`;
const OK = { ok: true };
const problem = (instance: string, extra: Record<string, unknown> = {}) => ({
  ...extra,
  type: '/errors/rate_limited',
  title: 'Too Many Requests',
  status: 429,
  detail: 'Too many requests; retry after 60 seconds.',
  instance,
  error_code: 'rate_limited',
  message: 'Too many requests; retry after 60 seconds.',
});
const NO_FIELDS = { ratelimit: undefined, 'ratelimit-policy': undefined, 'retry-after': undefined };

const cases: Case[] = [
  {
    name: 'draft-8: the first request of a client',
    path: '/d8/items',
    before: 0,
    client: 'a',
    status: 200,
    headers: {
      ratelimit: '"2-in-1min"; r=1; t=60',
      'ratelimit-policy': `"2-in-1min"; q=2; w=60; pk=${pk('a')}`,
      'retry-after': undefined,
    },
    body: OK,
  },
  {
    name: 'draft-8: the last request within the limit',
    path: '/d8/items',
    before: 1,
    client: 'b',
    status: 200,
    headers: {
      ratelimit: '"2-in-1min"; r=0; t=60',
      'ratelimit-policy': `"2-in-1min"; q=2; w=60; pk=${pk('b')}`,
      'retry-after': undefined,
    },
    body: OK,
  },
  {
    name: 'draft-8: a spent limit is the 429 problem with Retry-After and the fields',
    path: '/d8/items',
    before: 2,
    client: 'c',
    status: 429,
    headers: {
      ratelimit: '"2-in-1min"; r=0; t=60',
      'ratelimit-policy': `"2-in-1min"; q=2; w=60; pk=${pk('c')}`,
      'retry-after': '60',
      'content-type': 'application/problem+json; charset=utf-8',
    },
    body: problem('/d8/items'),
  },
  {
    name: 'draft-8: a skipped request is not counted and has no fields',
    path: '/d8/health',
    before: 4,
    client: 'd',
    status: 200,
    headers: NO_FIELDS,
    body: OK,
  },
  {
    name: 'draft-10: a spent limit names the violated policy in the problem',
    path: '/d10/items',
    before: 2,
    client: 'e',
    status: 429,
    headers: {
      ratelimit: '"2-in-1min"; r=0; t=60',
      'ratelimit-policy': `"2-in-1min"; q=2; w=60; pk=${pk('e')}`,
      'retry-after': '60',
    },
    body: problem('/d10/items', { 'violated-policies': ['2-in-1min'] }),
  },
  {
    name: 'draft-7: the first request of a client',
    path: '/d7/items',
    before: 0,
    client: 'f',
    status: 200,
    headers: {
      ratelimit: 'limit=2, remaining=1, reset=60',
      'ratelimit-policy': '2;w=60',
      'retry-after': undefined,
    },
    body: OK,
  },
  {
    name: 'draft-7: a spent limit',
    path: '/d7/items',
    before: 2,
    client: 'g',
    status: 429,
    headers: {
      ratelimit: 'limit=2, remaining=0, reset=60',
      'ratelimit-policy': '2;w=60',
      'retry-after': '60',
    },
    body: problem('/d7/items'),
  },
  {
    name: 'a store that fails lets every request pass, without fields',
    path: '/down/items',
    before: 3,
    client: 'h',
    status: 200,
    headers: NO_FIELDS,
    body: OK,
  },
  {
    name: 'failure limiter: successful requests take their hit back',
    path: '/fail/items?status=200',
    before: 3,
    client: 'i',
    status: 200,
    headers: NO_FIELDS,
    body: OK,
  },
  {
    name: 'failure limiter: failed requests are counted, and the next one is refused (Retry-After only)',
    path: '/fail/items?status=404',
    before: 1,
    client: 'j',
    status: 429,
    headers: { ...NO_FIELDS, 'retry-after': '60' },
    body: problem('/fail/items'),
  },
];

const senders = frameworkSenders(apps);

async function run(framework: (typeof FRAMEWORKS)[number], testCase: Case): Promise<Outcome> {
  const send = senders[framework]!;
  const request = { path: testCase.path, headers: { 'x-client': testCase.client } };
  for (let i = 0; i < testCase.before; i++) await send(request);
  return send(request);
}

describeAdapters(
  'rate limits on every framework',
  cases,
  Object.fromEntries(
    FRAMEWORKS.map((framework) => [framework, (testCase: Case) => run(framework, testCase)]),
  ),
  (outcome, testCase) => {
    const seen = Object.fromEntries(
      Object.keys(testCase.headers).map((name) => [name, outcome.headers[name]]),
    );
    expect({ status: outcome.status, headers: seen, body: outcome.body }).toEqual({
      status: testCase.status,
      headers: testCase.headers,
      body: testCase.body,
    });
  },
);
