// The same app on Express 5, Express 4, Fastify 5 and Hono, for the four-framework tables.
import type { FrameworkApps } from '@plumbline/test-utils';
import type { Request, Response } from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import * as expressAdapter from '../src/express.js';
import { plumblineErrors } from '../src/fastify.js';
import { methodNotAllowed as honoMethodNotAllowed, problemDetails } from '../src/hono.js';
import { HttpError, httpErrors } from '../src/index.js';

const silent = { onError: () => {} };
const DRIVER = 'duplicate key value violates unique constraint "users_email_key" at /srv/app/db.js:12';

// Routes that throw, keyed by path; each framework mounts every one as GET.
const THROWERS: Readonly<Record<string, () => never>> = {
  '/string': () => {
    throw 'a thrown string';
  },
  '/driver': () => {
    throw new Error(DRIVER);
  },
  '/status-999': () => {
    throw Object.assign(new Error('weird'), { status: 999 });
  },
  '/expose-false': () => {
    throw new HttpError('conflict', { detail: 'secret internal detail', expose: false });
  },
  '/validation': () => {
    throw new HttpError('validation_failed', {
      errors: [
        { parameter: 'sort', code: 'sort_field_not_allowed', params: { field: 'hidden', allowed: ['name'] } },
        { pointer: '/name', code: 'invalid_value', params: { parameter: 'name', expected: 'a string' } },
      ],
    });
  },
};

/** The request id a route sets itself, over the one the middleware set. */
export const OWN_ID = 'set-by-the-route';
const FAILED_HEADERS = { ETag: '"abc"', Location: '/x', 'API-Supported-Versions': '1, 2', Vary: 'Origin' };
const TOKEN_ERROR = () =>
  new HttpError('invalid_token', { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });

export const errorApps: FrameworkApps = {
  express: (express) => {
    const app = express();
    app.use(expressAdapter.requestId());
    app.get('/fail/:code', (req) => {
      throw new HttpError(req.params['code']!);
    });
    for (const [path, thrower] of Object.entries(THROWERS)) app.get(path, thrower);
    app.get('/id', (req: Request, res: Response) => {
      res.json({ id: expressAdapter.getRequestId(req) });
    });
    app.get('/own-id', (_req: Request, res: Response) => {
      res.setHeader('X-Request-Id', OWN_ID);
      res.json({ ok: true });
    });
    app.get('/with-headers', (_req: Request, res: Response) => {
      for (const [name, value] of Object.entries(FAILED_HEADERS)) res.setHeader(name, value);
      throw TOKEN_ERROR();
    });
    app.post('/json', express.json({ limit: 1024 }), (req: Request, res: Response) => {
      res.status(201).json(req.body);
    });
    app
      .route('/only-get')
      .get((_req: Request, res: Response) => res.json({ ok: true }))
      .all(expressAdapter.methodNotAllowed(['GET']));
    app.use(expressAdapter.notFoundHandler());
    app.use(expressAdapter.errorHandler(silent));
    return app;
  },
  fastify: async () => {
    const app = Fastify();
    await app.register(plumblineErrors, silent);
    app.get<{ Params: { code: string } }>('/fail/:code', async (request) => {
      throw new HttpError(request.params.code);
    });
    for (const [path, thrower] of Object.entries(THROWERS)) app.get(path, async () => thrower());
    app.get('/id', async (request) => ({ id: request.requestId }));
    app.get('/own-id', async (_request, reply) => {
      reply.header('X-Request-Id', OWN_ID);
      return { ok: true };
    });
    app.get('/with-headers', async (_request, reply) => {
      reply.headers(FAILED_HEADERS);
      throw TOKEN_ERROR();
    });
    app.post('/json', { bodyLimit: 1024 }, async (request, reply) => reply.code(201).send(request.body));
    app.get('/only-get', async () => ({ ok: true }));
    return app;
  },
  hono: () => {
    const app = new Hono();
    const problems = problemDetails(silent);
    app.use(problems.middleware);
    app.onError(problems.onError);
    app.notFound(problems.notFound);
    app.get('/fail/:code', (c) => {
      throw new HttpError(c.req.param('code'));
    });
    for (const [path, thrower] of Object.entries(THROWERS)) app.get(path, thrower);
    app.get('/id', (c) => c.json({ id: c.get('requestId') }));
    app.get('/own-id', (c) => {
      c.header('X-Request-Id', OWN_ID);
      return c.json({ ok: true });
    });
    app.get('/with-headers', (c) => {
      for (const [name, value] of Object.entries(FAILED_HEADERS)) c.header(name, value);
      throw TOKEN_ERROR();
    });
    // Hono has no body parser of its own: the app maps its failures to catalogue errors.
    const limit = bodyLimit({
      maxSize: 1024,
      onError: () => {
        throw httpErrors.payloadTooLarge({ params: { limit: 1024 } });
      },
    });
    app.post('/json', limit, async (c) => {
      const body = await c.req.json().catch(() => {
        throw httpErrors.malformedJson();
      });
      return c.json(body, 201);
    });
    app.get('/only-get', (c) => c.json({ ok: true })).all('/only-get', honoMethodNotAllowed(['GET']));
    return app;
  },
};
