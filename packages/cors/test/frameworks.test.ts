/**
 * One behaviour table on Express 5, Express 4, Fastify 5 and Hono: the same requests (real
 * `Origin` and `Access-Control-Request-*` headers) get the same status and the same CORS headers,
 * on the route's answer and on the problem responses each framework's @plumbline/errors adapter
 * renders (401, 404, 405), and `Vary` keeps what the route set.
 */
import { HttpError } from '@plumbline/errors';
import { errorHandler, methodNotAllowed as expressMethodNotAllowed } from '@plumbline/errors/express';
import { plumblineErrors } from '@plumbline/errors/fastify';
import {
  methodNotAllowed as honoMethodNotAllowed,
  problemDetails,
  setResponseHeaders,
} from '@plumbline/errors/hono';
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
import { type Cors, type CorsOptions, createCors, DEFAULT_EXPOSE_HEADERS } from '../src/index.js';

const APP = 'https://app.example.com';
const PREVIEW = 'https://pr-7.preview.example.com';
const ROUTES: Readonly<Record<string, readonly string[]>> = {
  '/projects': ['GET', 'POST'],
  '/projects/1': ['GET', 'PATCH', 'DELETE'],
  '/private': ['GET'],
};

const POLICIES = {
  // A browser app with cookies or tokens: exact origins and a pattern, credentials, the route table.
  app: {
    origins: [APP, /https:\/\/[a-z0-9-]+\.preview\.example\.com/],
    credentials: true,
    versionHeader: 'API-Version',
    allowedMethods: (path: string) => ROUTES[path],
  },
  // Public data: any origin, no credentials.
  public: { origins: '*' },
} satisfies Record<string, CorsOptions>;
type Policy = keyof typeof POLICIES;

const project = { id: 1, name: 'Apollo' };
// A request with this header gets `Vary: Accept-Encoding` from a middleware that runs before CORS.
const EARLY = 'x-early-vary';
// What @plumbline/rate-limit and @plumbline/negotiation throw, rendered by the errors adapters.
const limited = () =>
  new HttpError('rate_limited', { headers: { 'Retry-After': '30' }, params: { retry_after: 30 } });
const THROWN: Readonly<Record<string, () => HttpError>> = {
  '/private': () => new HttpError('unauthorized'),
  '/limited': limited,
  '/report': () => new HttpError('not_acceptable'),
};

// The `app` apps take the options, the `public` ones a policy built once by createCors.
function apps(options: CorsOptions, policy?: Cors): FrameworkApps {
  return {
    express: (express) => {
      const app = express();
      app.use((req: Request, res: Response, next: NextFunction) => {
        if (req.headers[EARLY] !== undefined) res.vary('Accept-Encoding');
        next();
      });
      app.use(ex.cors(policy ?? options));
      app.get('/projects', (_req: Request, res: Response) => {
        res.json([project]);
      });
      app
        .route('/projects/1')
        .get((_req: Request, res: Response) => {
          res.setHeader('Vary', 'Accept');
          res.setHeader('ETag', '"v1"');
          res.json(project);
        })
        .patch((_req: Request, res: Response) => {
          res.json(project);
        })
        .all(expressMethodNotAllowed(ROUTES['/projects/1']!));
      for (const [path, error] of Object.entries(THROWN)) {
        app.get(path, (_req: Request, _res: Response, next: NextFunction) => {
          next(error());
        });
      }
      app.use((_req: Request, _res: Response, next: NextFunction) => {
        next(new HttpError('not_found'));
      });
      app.use(errorHandler({ onError: () => {} }));
      return app;
    },
    fastify: async () => {
      const app = Fastify();
      await app.register(plumblineErrors, { onError: () => {}, requestId: false });
      app.addHook('onRequest', async (request, reply) => {
        if (request.headers[EARLY] !== undefined) reply.header('Vary', 'Accept-Encoding');
      });
      await app.register(fa.cors, policy ? { policy } : options);
      app.get('/projects', async () => [project]);
      app.get('/projects/1', async (_request, reply) => {
        reply.header('Vary', 'Accept').header('ETag', '"v1"');
        return project;
      });
      app.patch('/projects/1', async () => project);
      app.delete('/projects/1', async () => project);
      for (const [path, error] of Object.entries(THROWN)) {
        app.get(path, async () => {
          throw error();
        });
      }
      return app;
    },
    hono: () => {
      const app = new Hono();
      const problems = problemDetails({ onError: () => {}, requestId: false });
      app.use(problems.middleware);
      app.onError(problems.onError);
      app.notFound(problems.notFound);
      app.use(async (c, next) => {
        if (c.req.header(EARLY) !== undefined) setResponseHeaders(c, { Vary: 'Accept-Encoding' });
        await next();
      });
      app.use(ho.cors(policy ?? options));
      app.get('/projects', (c) => c.json([project]));
      app.get('/projects/1', (c) => {
        c.header('Vary', 'Accept');
        c.header('ETag', '"v1"');
        return c.json(project);
      });
      app.patch('/projects/1', (c) => c.json(project));
      app.all('/projects/1', honoMethodNotAllowed(ROUTES['/projects/1']!));
      for (const [path, error] of Object.entries(THROWN)) {
        app.get(path, () => {
          throw error();
        });
      }
      return app;
    },
  };
}

interface Case {
  readonly name: string;
  readonly policy: Policy;
  readonly method?: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly status: number;
  /** Exact values (`Vary` and `Allow` as sets of members); `undefined` means the header must be absent. */
  readonly expect: Readonly<Record<string, string | undefined>>;
  /** The `error_code` of a problem response, or the JSON body of a route's answer. */
  readonly body?: unknown;
}

const EXPOSE = [...DEFAULT_EXPOSE_HEADERS, 'API-Version'].join(', ');
const ALLOW_HEADERS =
  'Authorization, Content-Type, Idempotency-Key, If-Match, If-None-Match, X-API-Key, X-Request-Id, Accept-Language, API-Version';
const NO_CORS = {
  'access-control-allow-origin': undefined,
  'access-control-allow-credentials': undefined,
  'access-control-expose-headers': undefined,
  'access-control-allow-methods': undefined,
};
const allowedFor = (origin: string) => ({
  'access-control-allow-origin': origin,
  'access-control-allow-credentials': 'true',
  'access-control-expose-headers': EXPOSE,
  'access-control-allow-methods': undefined,
});
const PREFLIGHT_VARY = 'Access-Control-Request-Headers, Access-Control-Request-Method, Origin';
const preflight = (method: string, requested?: string, origin = APP) => ({
  Origin: origin,
  'Access-Control-Request-Method': method,
  ...(requested === undefined ? {} : { 'Access-Control-Request-Headers': requested }),
});

const cases: Case[] = [
  {
    name: 'an allowed exact origin (credentials): echoed, with Allow-Credentials and Expose-Headers',
    policy: 'app',
    path: '/projects',
    headers: { Origin: APP },
    status: 200,
    expect: { ...allowedFor(APP), vary: 'Origin' },
    body: [project],
  },
  {
    name: 'an origin matching the pattern',
    policy: 'app',
    path: '/projects',
    headers: { Origin: PREVIEW },
    status: 200,
    expect: { ...allowedFor(PREVIEW), vary: 'Origin' },
    body: [project],
  },
  {
    name: 'a disallowed origin: served, without CORS headers',
    policy: 'app',
    path: '/projects',
    headers: { Origin: 'https://evil.com' },
    status: 200,
    expect: { ...NO_CORS, vary: 'Origin' },
    body: [project],
  },
  {
    name: 'no Origin (same origin, curl): served, Vary: Origin only',
    policy: 'app',
    path: '/projects',
    headers: {},
    status: 200,
    expect: { ...NO_CORS, vary: 'Origin' },
    body: [project],
  },
  {
    name: 'the null origin is not allowed unless listed',
    policy: 'app',
    path: '/projects',
    headers: { Origin: 'null' },
    status: 200,
    expect: { ...NO_CORS, vary: 'Origin' },
    body: [project],
  },
  ...[
    'https://app.example.com.evil.com',
    'https://evil.com/https://app.example.com',
    'HTTPS://APP.EXAMPLE.COM',
    'https://app.example.com/',
    'https://pr-7.preview.example.com.evil.com',
    'https://evil.com?https://pr-7.preview.example.com',
  ].map(
    (origin): Case => ({
      name: `attacker origin ${origin}: no CORS headers`,
      policy: 'app',
      path: '/projects',
      headers: { Origin: origin },
      status: 200,
      expect: { ...NO_CORS, vary: 'Origin' },
      body: [project],
    }),
  ),
  {
    name: "'*' without credentials: *, no Allow-Credentials, no Vary",
    policy: 'public',
    path: '/projects',
    headers: { Origin: 'https://anyone.test' },
    status: 200,
    expect: {
      'access-control-allow-origin': '*',
      'access-control-allow-credentials': undefined,
      'access-control-expose-headers': DEFAULT_EXPOSE_HEADERS.join(', '),
      vary: undefined,
    },
    body: [project],
  },
  {
    name: 'Vary: the route’s own member is kept next to Origin',
    policy: 'app',
    path: '/projects/1',
    headers: { Origin: APP },
    status: 200,
    expect: { ...allowedFor(APP), vary: 'Accept, Origin', etag: '"v1"' },
    body: project,
  },
  {
    name: 'Vary: a member set before the CORS middleware is kept',
    policy: 'app',
    path: '/projects',
    headers: { Origin: APP, [EARLY]: '1' },
    status: 200,
    expect: { ...allowedFor(APP), vary: 'Accept-Encoding, Origin' },
    body: [project],
  },
  {
    name: 'Vary: a member set before the CORS middleware is kept on a preflight',
    policy: 'app',
    method: 'OPTIONS',
    path: '/projects',
    headers: { ...preflight('POST', 'content-type'), [EARLY]: '1' },
    status: 204,
    expect: {
      'access-control-allow-origin': APP,
      'access-control-allow-methods': 'GET, POST',
      'access-control-max-age': '600',
      vary: `Accept-Encoding, ${PREFLIGHT_VARY}`,
    },
    body: '',
  },
  {
    name: 'preflight PATCH with If-Match and Content-Type (merge-patch): 204, the route’s methods, Max-Age',
    policy: 'app',
    method: 'OPTIONS',
    path: '/projects/1',
    headers: preflight('PATCH', 'content-type,if-match'),
    status: 204,
    expect: {
      'access-control-allow-origin': APP,
      'access-control-allow-credentials': 'true',
      'access-control-allow-methods': 'GET, PATCH, DELETE',
      'access-control-allow-headers': ALLOW_HEADERS,
      'access-control-max-age': '600',
      'access-control-expose-headers': undefined,
      'content-length': undefined,
      'content-type': undefined,
      vary: PREFLIGHT_VARY,
    },
    body: '',
  },
  {
    name: 'preflight asking a header not allowed: the list without it, no Max-Age (the browser fails it)',
    policy: 'app',
    method: 'OPTIONS',
    path: '/projects/1',
    headers: preflight('PATCH', 'if-match,x-debug'),
    status: 204,
    expect: {
      'access-control-allow-origin': APP,
      'access-control-allow-methods': 'GET, PATCH, DELETE',
      'access-control-allow-headers': ALLOW_HEADERS,
      'access-control-max-age': undefined,
      vary: PREFLIGHT_VARY,
    },
    body: '',
  },
  {
    name: 'preflight for a method the route does not take: its methods only, no Max-Age',
    policy: 'app',
    method: 'OPTIONS',
    path: '/projects',
    headers: preflight('DELETE'),
    status: 204,
    expect: {
      'access-control-allow-origin': APP,
      'access-control-allow-methods': 'GET, POST',
      'access-control-max-age': undefined,
      vary: PREFLIGHT_VARY,
    },
    body: '',
  },
  {
    name: 'preflight from a disallowed origin: 204 without CORS headers',
    policy: 'app',
    method: 'OPTIONS',
    path: '/projects/1',
    headers: preflight('PATCH', 'if-match', 'https://app.example.com.evil.com'),
    status: 204,
    expect: {
      ...NO_CORS,
      'access-control-allow-headers': undefined,
      'access-control-max-age': undefined,
      vary: PREFLIGHT_VARY,
    },
    body: '',
  },
  {
    name: 'a 401 problem still carries the CORS headers',
    policy: 'app',
    path: '/private',
    headers: { Origin: APP },
    status: 401,
    expect: {
      ...allowedFor(APP),
      'content-type': 'application/problem+json; charset=utf-8',
      vary: 'Accept, Accept-Language, Origin',
    },
    body: 'unauthorized',
  },
  {
    name: 'a 404 problem still carries the CORS headers',
    policy: 'app',
    path: '/nope',
    headers: { Origin: PREVIEW },
    status: 404,
    expect: { ...allowedFor(PREVIEW), vary: 'Accept, Accept-Language, Origin' },
    body: 'not_found',
  },
  {
    name: 'a 405 problem still carries the CORS headers',
    policy: 'app',
    method: 'PUT',
    path: '/projects/1',
    headers: { Origin: APP },
    status: 405,
    expect: {
      ...allowedFor(APP),
      allow: 'GET, HEAD, PATCH, DELETE, OPTIONS',
      vary: 'Accept, Accept-Language, Origin',
    },
    body: 'method_not_allowed',
  },
  {
    name: 'a 429 problem carries the CORS headers, and Retry-After is exposed to the page',
    policy: 'app',
    path: '/limited',
    headers: { Origin: APP },
    status: 429,
    expect: { ...allowedFor(APP), 'retry-after': '30', vary: 'Accept, Accept-Language, Origin' },
    body: 'rate_limited',
  },
  {
    name: 'a 406 problem still carries the CORS headers',
    policy: 'app',
    path: '/report',
    headers: { Origin: PREVIEW },
    status: 406,
    expect: { ...allowedFor(PREVIEW), vary: 'Accept, Accept-Language, Origin' },
    body: 'not_acceptable',
  },
  {
    name: "a preflight on '*': *, no Allow-Credentials, Vary without Origin",
    policy: 'public',
    method: 'OPTIONS',
    path: '/projects/1',
    headers: preflight('DELETE', 'authorization', 'https://anyone.test'),
    status: 204,
    expect: {
      'access-control-allow-origin': '*',
      'access-control-allow-credentials': undefined,
      'access-control-allow-methods': 'GET, HEAD, POST, PUT, PATCH, DELETE',
      'access-control-max-age': '600',
      vary: 'Access-Control-Request-Headers, Access-Control-Request-Method',
    },
    body: '',
  },
  {
    name: "a 404 problem on '*' carries Allow-Origin: *",
    policy: 'public',
    path: '/nope',
    headers: { Origin: 'https://anyone.test' },
    status: 404,
    expect: {
      'access-control-allow-origin': '*',
      'access-control-expose-headers': DEFAULT_EXPOSE_HEADERS.join(', '),
      vary: 'Accept, Accept-Language',
    },
    body: 'not_found',
  },
];

const senders = {
  app: frameworkSenders(apps(POLICIES.app)),
  public: frameworkSenders(apps(POLICIES.public, createCors(POLICIES.public))),
};

// Vary and Allow as sets: frameworks put the route's members (and HEAD) in their own order.
const LISTS = new Set(['vary', 'allow']);
const memberSet = (value: string | undefined) =>
  value
    ?.split(',')
    .map((member) => member.trim())
    .sort((a, b) => a.localeCompare(b))
    .join(', ');

describeAdapters(
  'CORS on every framework',
  cases,
  Object.fromEntries(
    FRAMEWORKS.map((framework) => [
      framework,
      (testCase: Case): Promise<Outcome> =>
        senders[testCase.policy][framework]!({
          method: testCase.method ?? 'GET',
          path: testCase.path,
          headers: testCase.headers,
        }),
    ]),
  ),
  (outcome, testCase) => {
    const seen = Object.fromEntries(
      Object.keys(testCase.expect).map((name) => [
        name,
        LISTS.has(name) ? memberSet(outcome.headers[name]) : outcome.headers[name],
      ]),
    );
    const body =
      typeof testCase.body === 'string' && testCase.body !== ''
        ? (outcome.body as { error_code?: unknown }).error_code
        : outcome.body;
    expect({ status: outcome.status, headers: seen, body }).toEqual({
      status: testCase.status,
      headers: Object.fromEntries(
        Object.entries(testCase.expect).map(([name, value]) => [
          name,
          LISTS.has(name) ? memberSet(value) : value,
        ]),
      ),
      body: testCase.body,
    });
  },
);
