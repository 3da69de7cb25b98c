/**
 * The explicit per-path 405 on every framework: Express's `.all(methodNotAllowed(...))`, Hono's
 * `app.all(path, methodNotAllowed(...))` and Fastify's `methodNotAllowed(app, path, ...)` get one
 * table of real requests and must answer alike (Express 5 and 4, Fastify 5, Hono): status, `Allow`,
 * `Content-Type` and the body's bytes, which for a problem are what the core renders.
 */
import { METHODS } from 'node:http';
import {
  describeAdapters,
  type FrameworkApps,
  frameworkRunners,
  type HttpRequestSpec,
} from '@plumbline/test-utils';
import type { NextFunction, Request, Response } from 'express';
import Fastify, { type FastifyRequest, type onRequestHookHandler } from 'fastify';
import { Hono, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { expect } from 'vitest';
import * as expressAdapter from '../src/express.js';
import { methodNotAllowed, plumblineErrors } from '../src/fastify.js';
import { methodNotAllowed as honoMethodNotAllowed, problemDetails } from '../src/hono.js';
import { HttpError, httpErrors, renderProblem } from '../src/index.js';

const silent = { onError: () => {} };
const ID = 'method-table';
const TEXT = 'text/plain; charset=utf-8';
const TOKEN = 'Bearer good';
const LIMIT = 1024;
const denied = (authorization: string | undefined) =>
  authorization === TOKEN ? undefined : new HttpError('unauthorized');

/**
 * The same four paths on each framework: `/only-get` (GET), `/items/:id` (GET, DELETE), `/projects`
 * (POST, reading a JSON body) and `/private` (GET, behind an authentication step that answers 401).
 */
const apps: FrameworkApps = {
  express: (express) => {
    const app = express();
    app.use(expressAdapter.requestId());
    const auth = (req: Request, _res: Response, next: NextFunction) =>
      next(denied(req.headers.authorization));
    app
      .route('/only-get')
      .get((_req: Request, res: Response) => res.type(TEXT).send('ok'))
      .all(expressAdapter.methodNotAllowed(['GET']));
    app
      .route('/items/:id')
      .get((req: Request, res: Response) => res.type(TEXT).send(`item ${req.params['id']}`))
      .delete((_req: Request, res: Response) => res.status(204).end())
      .all(expressAdapter.methodNotAllowed(['GET', 'DELETE']));
    app
      .route('/projects')
      .post(express.json({ limit: LIMIT }), (req: Request, res: Response) =>
        res.status(201).type(TEXT).send(`created ${req.body.name}`),
      )
      .all(expressAdapter.methodNotAllowed(['POST']));
    app
      .route('/private')
      .all(auth)
      .get((_req: Request, res: Response) => res.type(TEXT).send('ok'))
      .all(expressAdapter.methodNotAllowed(['GET']));
    app.use(expressAdapter.notFoundHandler());
    app.use(expressAdapter.errorHandler(silent));
    return app;
  },
  fastify: async () => {
    // No routeEveryMethod(app): methodNotAllowed makes PROPFIND and the rest routable itself.
    const app = Fastify({ bodyLimit: LIMIT });
    await app.register(plumblineErrors, silent);
    const auth: onRequestHookHandler = async (request) => {
      const refused = denied(request.headers.authorization);
      if (refused) throw refused;
    };
    app.get('/only-get', async (_request, reply) => reply.type(TEXT).send('ok'));
    methodNotAllowed(app, '/only-get', ['GET']);
    app.get('/items/:id', async (request: FastifyRequest<{ Params: { id: string } }>, reply) =>
      reply.type(TEXT).send(`item ${request.params.id}`),
    );
    app.delete('/items/:id', async (_request, reply) => reply.code(204).send());
    methodNotAllowed(app, '/items/:id', ['GET', 'DELETE']);
    app.post('/projects', async (request: FastifyRequest<{ Body: { name: string } }>, reply) =>
      reply.code(201).type(TEXT).send(`created ${request.body.name}`),
    );
    methodNotAllowed(app, '/projects', ['POST']);
    app.get('/private', { onRequest: auth }, async (_request, reply) => reply.type(TEXT).send('ok'));
    methodNotAllowed(app, '/private', ['GET'], { onRequest: auth });
    return app;
  },
  hono: () => {
    const app = new Hono();
    const problems = problemDetails(silent);
    app.use(problems.middleware);
    app.onError(problems.onError);
    app.notFound(problems.notFound);
    const auth: MiddlewareHandler = async (c, next) => {
      const refused = denied(c.req.header('authorization'));
      if (refused) throw refused;
      await next();
    };
    const text = (body: string, status: 200 | 201 = 200) =>
      new Response(body, { status, headers: { 'Content-Type': TEXT } });
    app.get('/only-get', () => text('ok')).all('/only-get', honoMethodNotAllowed(['GET']));
    app
      .get('/items/:id', (c) => text(`item ${c.req.param('id')}`))
      .delete('/items/:id', (c) => c.body(null, 204))
      .all('/items/:id', honoMethodNotAllowed(['GET', 'DELETE']));
    const limit = bodyLimit({
      maxSize: LIMIT,
      onError: () => {
        throw httpErrors.payloadTooLarge({ params: { limit: LIMIT } });
      },
    });
    app
      .post('/projects', limit, async (c) => {
        const body = await c.req.json<{ name: string }>().catch(() => {
          throw httpErrors.malformedJson();
        });
        return text(`created ${body.name}`, 201);
      })
      .all('/projects', honoMethodNotAllowed(['POST']));
    app.use('/private', auth);
    app.get('/private', () => text('ok')).all('/private', honoMethodNotAllowed(['GET']));
    return app;
  },
};

/** What a case must get: a problem (rendered by the core), an OPTIONS answer, or a handler's text. */
type Expected =
  | { readonly problem: HttpError }
  | { readonly options: string }
  | { readonly status: number; readonly text: string };

interface Case {
  readonly name: string;
  readonly request: HttpRequestSpec;
  readonly expected: Expected;
}

function request(
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): HttpRequestSpec {
  return {
    method,
    path,
    headers: { 'X-Request-Id': ID, ...headers },
    ...(body === undefined ? {} : { body }),
  };
}

const notAllowed = (method: string, allowed: readonly string[]) =>
  new HttpError('method_not_allowed', {
    headers: { Allow: allowed.join(', ') },
    params: { method, allowed: [...allowed] },
  });
const ONLY_GET = ['GET', 'HEAD', 'OPTIONS'];
const ITEMS = ['GET', 'DELETE', 'HEAD', 'OPTIONS'];
const PROJECTS = ['POST', 'OPTIONS'];
const JSON_BODY = { 'Content-Type': 'application/json' };
const MALFORMED = '{"name":';
const AUTH = { Authorization: TOKEN };
const OVERSIZED = JSON.stringify({ name: 'x'.repeat(2 * LIMIT) });
// Every method Node's parser accepts (CONNECT goes to the server's `connect` event, never a framework).
const PARSED = METHODS.filter((method) => method !== 'CONNECT');

const cases: Case[] = [
  // The allowed methods reach their handlers.
  {
    name: 'GET /only-get reaches the handler',
    request: request('GET', '/only-get'),
    expected: { status: 200, text: 'ok' },
  },
  {
    name: 'HEAD /only-get is the GET route’s HEAD',
    request: request('HEAD', '/only-get'),
    expected: { status: 200, text: '' },
  },
  {
    name: 'GET /items/7 reaches the handler',
    request: request('GET', '/items/7'),
    expected: { status: 200, text: 'item 7' },
  },
  {
    name: 'DELETE /items/7 reaches the handler',
    request: request('DELETE', '/items/7'),
    expected: { status: 204, text: '' },
  },
  {
    name: 'POST /projects reads its JSON body',
    request: request('POST', '/projects', JSON_BODY, '{"name":"Bridge"}'),
    expected: { status: 201, text: 'created Bridge' },
  },
  {
    name: 'POST /projects with a malformed body is 400 malformed_json (the body is read there)',
    request: request('POST', '/projects', JSON_BODY, MALFORMED),
    expected: { problem: new HttpError('malformed_json') },
  },
  {
    name: 'POST /projects with a body over the limit is 413',
    request: request('POST', '/projects', JSON_BODY, OVERSIZED),
    expected: { problem: new HttpError('payload_too_large', { params: { limit: LIMIT } }) },
  },
  // Every other method Node parses: 405 with Allow (PROPFIND, SEARCH and the rest included).
  ...PARSED.filter((method) => !ONLY_GET.includes(method)).map(
    (method): Case => ({
      name: `${method} /only-get is 405 with Allow`,
      request: request(method, '/only-get'),
      expected: { problem: notAllowed(method, ONLY_GET) },
    }),
  ),
  ...['POST', 'PUT', 'PATCH', 'PROPFIND', 'SEARCH', 'QUERY'].map(
    (method): Case => ({
      name: `${method} /items/7 is 405 with Allow`,
      request: request(method, '/items/7'),
      expected: { problem: notAllowed(method, ITEMS) },
    }),
  ),
  ...['GET', 'HEAD', 'PUT', 'DELETE', 'LOCK'].map(
    (method): Case => ({
      name: `${method} /projects is 405 with Allow${method === 'HEAD' ? ' (no GET, so no HEAD)' : ''}`,
      request: request(method, '/projects'),
      expected: { problem: notAllowed(method, PROJECTS) },
    }),
  ),
  // OPTIONS: 204 with Allow.
  {
    name: 'OPTIONS /only-get is 204 with Allow',
    request: request('OPTIONS', '/only-get'),
    expected: { options: ONLY_GET.join(', ') },
  },
  {
    name: 'OPTIONS /items/7 is 204 with Allow',
    request: request('OPTIONS', '/items/7'),
    expected: { options: ITEMS.join(', ') },
  },
  {
    name: 'OPTIONS /projects is 204 with Allow',
    request: request('OPTIONS', '/projects'),
    expected: { options: PROJECTS.join(', ') },
  },
  // The body of a refused method is never read: no 400, 413 or 415 instead of the 405.
  {
    name: 'PUT /projects with a malformed JSON body is still 405',
    request: request('PUT', '/projects', JSON_BODY, MALFORMED),
    expected: { problem: notAllowed('PUT', PROJECTS) },
  },
  {
    name: 'PATCH /only-get with a malformed JSON body is still 405',
    request: request('PATCH', '/only-get', JSON_BODY, MALFORMED),
    expected: { problem: notAllowed('PATCH', ONLY_GET) },
  },
  {
    name: 'PUT /projects with a body over the limit is 405, not 413',
    request: request('PUT', '/projects', JSON_BODY, OVERSIZED),
    expected: { problem: notAllowed('PUT', PROJECTS) },
  },
  {
    name: 'PUT /projects with a body of an unknown type is 405, not 415',
    request: request('PUT', '/projects', { 'Content-Type': 'application/x-unknown' }, 'anything'),
    expected: { problem: notAllowed('PUT', PROJECTS) },
  },
  {
    name: 'PROPFIND /only-get with an XML body is 405',
    request: request(
      'PROPFIND',
      '/only-get',
      { 'Content-Type': 'application/xml' },
      '<propfind xmlns="DAV:"/>',
    ),
    expected: { problem: notAllowed('PROPFIND', ONLY_GET) },
  },
  // The route's own steps come first: authentication's 401 wins over the 405.
  ...['GET', 'DELETE', 'OPTIONS', 'PROPFIND'].map(
    (method): Case => ({
      name: `${method} /private without credentials is 401`,
      request: request(method, '/private'),
      expected: { problem: new HttpError('unauthorized') },
    }),
  ),
  {
    name: 'GET /private with credentials reaches the handler',
    request: request('GET', '/private', AUTH),
    expected: { status: 200, text: 'ok' },
  },
  {
    name: 'DELETE /private with credentials is 405',
    request: request('DELETE', '/private', AUTH),
    expected: { problem: notAllowed('DELETE', ONLY_GET) },
  },
  {
    name: 'OPTIONS /private with credentials is 204',
    request: request('OPTIONS', '/private', AUTH),
    expected: { options: ONLY_GET.join(', ') },
  },
  // `/items/` is another path than `/items/:id` (Fastify's router hands it an empty id).
  ...['PUT', 'OPTIONS', 'PROPFIND'].map(
    (method): Case => ({
      name: `${method} /items/ is 404`,
      request: request(method, '/items/'),
      expected: { problem: new HttpError('not_found') },
    }),
  ),
  ...['GET', 'PROPFIND'].map(
    (method): Case => ({
      name: `${method} /nope (no route) is 404`,
      request: request(method, '/nope'),
      expected: { problem: new HttpError('not_found') },
    }),
  ),
];

function check(outcome: { status: number; headers: Record<string, string>; body: unknown }, c: Case): void {
  const text = typeof outcome.body === 'string' ? outcome.body : JSON.stringify(outcome.body);
  const head = c.request.method === 'HEAD';
  const { expected } = c;
  if ('problem' in expected) {
    const rendered = renderProblem(expected.problem, { instance: c.request.path, requestId: ID });
    expect(outcome.status).toBe(rendered.status);
    for (const [name, value] of Object.entries(rendered.headers))
      expect(outcome.headers[name.toLowerCase()], name).toBe(value);
    expect(outcome.headers['allow']).toBe(expected.problem.headers['Allow']);
    if (head) expect(text).toBe('');
    else {
      // The same bytes the core renders.
      expect(text).toBe(rendered.body);
      expect(Number(outcome.headers['content-length'])).toBe(Buffer.byteLength(rendered.body));
    }
    return;
  }
  if ('options' in expected) {
    expect([outcome.status, outcome.headers['allow'], outcome.headers['content-type'], text]).toEqual([
      204,
      expected.options,
      undefined,
      '',
    ]);
    return;
  }
  expect(outcome.status).toBe(expected.status);
  expect(outcome.headers['allow']).toBeUndefined();
  expect(outcome.headers['content-type']).toBe(expected.status === 204 ? undefined : TEXT);
  expect(text).toBe(expected.text);
}

describeAdapters(
  'methodNotAllowed: one table, four frameworks',
  cases,
  frameworkRunners(apps, (c: Case) => c.request),
  (outcome, c) => check(outcome, c),
);
