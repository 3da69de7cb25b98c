// One conditional-request app on Express 5, Express 4, Fastify 5 and Hono, for the four-framework table.
// Handlers change nothing, so every case sees the same state: /docs/a exists, /docs/<other> does not,
// /gone/<id> was deleted (410 before any precondition), /strict/* requires a precondition on writes.
// /plain/* has no conditional(): represent() alone answers If-None-Match (GET 200 with Cache-Control,
// POST 201, GET /plain/other 203, GET /plain/missing 404; /plain/dated sets Last-Modified).
import { HttpError } from '@plumbline/errors';
import { errorHandler } from '@plumbline/errors/express';
import { plumblineErrors } from '@plumbline/errors/fastify';
import { problemDetails } from '@plumbline/errors/hono';
import type { FrameworkApps } from '@plumbline/test-utils';
import type { Request, Response } from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import * as ex from '../src/express.js';
import * as fa from '../src/fastify.js';
import * as ho from '../src/hono.js';

export const DOC = { id: 'a', title: 'Bridge' };
export const MODIFIED = Date.UTC(2026, 0, 2, 3, 4, 5);
export const CACHE_CONTROL = 'private, max-age=60';
const PLAIN_STATUS: Readonly<Record<string, number>> = { other: 203, missing: 404 };
const plainStatus = (id: string | undefined) => PLAIN_STATUS[id ?? ''] ?? 200;
const silent = { onError: () => {} };

function lookup(prefix: string, id: string | undefined): typeof DOC | undefined {
  if (prefix === 'gone') throw new HttpError('gone');
  return id === 'a' ? DOC : undefined;
}

export const conditionalApps: FrameworkApps = {
  express: (express) => {
    const app = express();
    app.set('etag', false);
    app.use(ex.negotiate());
    for (const prefix of ['docs', 'gone', 'strict']) {
      const preconditions = ex.conditional({
        current: (req, res) => {
          const doc = lookup(prefix, req.params['id'] as string);
          return doc && { etag: ex.entityTagOf(res, doc), lastModified: MODIFIED };
        },
        requirePrecondition: prefix === 'strict',
      });
      app.get(`/${prefix}/:id`, preconditions, (_req: Request, res: Response) => {
        ex.represent(res, DOC);
      });
      app.put(`/${prefix}/:id`, preconditions, (req: Request, res: Response) => {
        const exists = lookup(prefix, req.params['id'] as string) !== undefined;
        res.status(exists ? 200 : 201).json({ conditional: ex.getPreconditions(req)?.conditional });
      });
      app.delete(`/${prefix}/:id`, preconditions, (_req: Request, res: Response) => {
        res.status(204).end();
      });
    }
    app.get('/plain/:id', (req: Request, res: Response) => {
      res.setHeader('Cache-Control', CACHE_CONTROL);
      if (req.params['id'] === 'dated') res.setHeader('Last-Modified', new Date(MODIFIED).toUTCString());
      ex.represent(res, DOC, plainStatus(req.params['id'] as string));
    });
    app.post('/plain/:id', (_req: Request, res: Response) => {
      ex.represent(res, DOC, 201);
    });
    app.use(errorHandler(silent));
    return app;
  },
  fastify: async () => {
    const app = Fastify();
    await app.register(plumblineErrors, { ...silent, requestId: false });
    await app.register(async (api) => {
      await api.register(fa.negotiation, {});
      for (const prefix of ['docs', 'gone', 'strict']) {
        const preHandler = fa.conditional({
          current: (request, reply) => {
            const doc = lookup(prefix, (request.params as { id: string }).id);
            return doc && { etag: fa.entityTagOf(reply, doc), lastModified: MODIFIED };
          },
          requirePrecondition: prefix === 'strict',
        });
        api.get(`/${prefix}/:id`, { preHandler }, async (_request, reply) => reply.represent(DOC));
        api.put(`/${prefix}/:id`, { preHandler }, async (request, reply) => {
          const exists = lookup(prefix, (request.params as { id: string }).id) !== undefined;
          return reply
            .code(exists ? 200 : 201)
            .send({ conditional: fa.getPreconditions(request)?.conditional });
        });
        api.delete(`/${prefix}/:id`, { preHandler }, async (_request, reply) => reply.code(204).send());
      }
      api.get('/plain/:id', async (request, reply) => {
        const { id } = request.params as { id: string };
        reply.header('Cache-Control', CACHE_CONTROL);
        if (id === 'dated') reply.header('Last-Modified', new Date(MODIFIED).toUTCString());
        return reply.represent(DOC, plainStatus(id));
      });
      api.post('/plain/:id', async (_request, reply) => reply.represent(DOC, 201));
    });
    return app;
  },
  hono: () => {
    const app = new Hono();
    const problems = problemDetails({ ...silent, requestId: false });
    app.use(problems.middleware);
    app.onError(problems.onError);
    app.notFound(problems.notFound);
    app.use(ho.negotiate());
    const preconditions = (prefix: string) =>
      ho.conditional({
        current: (c) => {
          const doc = lookup(prefix, c.req.param('id'));
          return doc && { etag: ho.entityTagOf(c, doc), lastModified: MODIFIED };
        },
        requirePrecondition: prefix === 'strict',
      });
    for (const prefix of ['docs', 'gone', 'strict']) {
      const check = preconditions(prefix);
      app.get(`/${prefix}/:id`, check, (c) => ho.represent(c, DOC));
      app.put(`/${prefix}/:id`, check, (c) => {
        const exists = lookup(prefix, c.req.param('id')) !== undefined;
        return c.json({ conditional: ho.getPreconditions(c)?.conditional }, exists ? 200 : 201);
      });
      app.delete(`/${prefix}/:id`, check, (c) => c.body(null, 204));
    }
    app.get('/plain/:id', (c) => {
      c.header('Cache-Control', CACHE_CONTROL);
      if (c.req.param('id') === 'dated') c.header('Last-Modified', new Date(MODIFIED).toUTCString());
      return ho.represent(c, DOC, plainStatus(c.req.param('id')));
    });
    app.post('/plain/:id', (c) => ho.represent(c, DOC, 201));
    return app;
  },
};
