// The same negotiation app on Express 5, Express 4, Fastify 5 and Hono, for the four-framework tables.
import { HttpError, mergeVary } from '@plumbline/errors';
import { errorHandler } from '@plumbline/errors/express';
import { plumblineErrors } from '@plumbline/errors/fastify';
import { problemDetails } from '@plumbline/errors/hono';
import type { FrameworkApps } from '@plumbline/test-utils';
import type { NextFunction, Request, Response } from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import * as ex from '../src/express.js';
import * as fa from '../src/fastify.js';
import * as ho from '../src/hono.js';
import { type NegotiatorOptions, xmlSerializer } from '../src/index.js';

export const PROJECT = {
  id: 7,
  name: 'Bridge & <Tunnel>',
  tags: ['steel', 'river'],
  owner: { name: 'Ada', roles: ['admin'] },
  archived: false,
  note: null,
};

/** Route → negotiator options; each route represents `{ ok: true }`. */
const SIMPLE: Readonly<Record<string, NegotiatorOptions>> = {
  '/plain': {},
  '/vendor': { vendor: 'plumbline' },
  '/lang': { languages: ['en', 'de', 'zh-Hant'], defaultLanguage: 'en' },
  '/custom-root': { serializers: { 'application/xml': xmlSerializer({ root: 'project' }) } },
};
const BODY_TYPES = ['application/json', 'application/merge-patch+json'];
const MAIN: NegotiatorOptions = { languages: ['en', 'de'], vendor: 'plumbline' };
const silent = { onError: () => {} };

export const negotiationApps: FrameworkApps = {
  express: (express) => {
    const app = express();
    // Express adds a weak ETag to res.send bodies; the other frameworks do not, so it is off here.
    app.set('etag', false);
    for (const [path, options] of Object.entries(SIMPLE)) {
      app.get(path, ex.negotiate(options), (_req: Request, res: Response) => {
        ex.represent(res, { ok: true });
      });
    }
    app.all('/body', ex.requireContentType(...BODY_TYPES), (_req: Request, res: Response) => {
      res.json({ passed: true });
    });
    app.get('/bare', (_req: Request, res: Response) => {
      ex.represent(res, { ok: true });
    });
    const preset = (req: Request, res: Response, next: NextFunction) => {
      const value = req.headers['x-preset-vary'];
      if (typeof value === 'string') res.setHeader('Vary', value);
      next();
    };
    const main = ex.negotiate(MAIN);
    app.get('/project', preset, main, (_req: Request, res: Response) => {
      ex.represent(res, PROJECT);
    });
    app.post('/projects', main, ex.requireContentType('application/json'), express.json(), (req, res) => {
      res.location('/projects/8');
      ex.represent(res, { id: 8, ...req.body }, 201);
    });
    app.get('/decision', main, (req: Request, res: Response) => {
      res.json(ex.getNegotiation(req) ?? null);
    });
    app.get('/cors-after', main, (_req: Request, res: Response) => {
      res.vary('Origin');
      res.vary('Accept');
      ex.represent(res, { ok: true });
    });
    app.get('/empty', main, (_req: Request, res: Response) => {
      ex.represent(res, undefined, 204);
    });
    // The handler's own headers after negotiate(): its Content-Language wins, its Vary is added to.
    app.get('/own-language', main, (_req: Request, res: Response) => {
      res.setHeader('Content-Language', 'fr');
      res.json({ ok: true });
    });
    app.get('/vary-added', main, (_req: Request, res: Response) => {
      res.vary('Origin');
      res.json({ ok: true });
    });
    app.get('/vary-added-then-fail', main, (_req: Request, res: Response) => {
      res.vary('Origin');
      throw new HttpError('conflict');
    });
    app.use(errorHandler(silent));
    return app;
  },
  fastify: async () => {
    const app = Fastify();
    await app.register(plumblineErrors, { ...silent, requestId: false });
    app.addContentTypeParser('application/merge-patch+json', { parseAs: 'string' }, (_req, body, done) =>
      done(null, JSON.parse(body as string)),
    );
    for (const [path, options] of Object.entries(SIMPLE)) {
      await app.register(async (scope) => {
        await scope.register(fa.negotiation, options);
        scope.get(path, async (_request, reply) => reply.represent({ ok: true }));
      });
    }
    app.all('/body', { onRequest: fa.requireContentType(...BODY_TYPES) }, async () => ({ passed: true }));
    app.get('/bare', async (_request, reply) => reply.represent({ ok: true }));
    await app.register(async (scope) => {
      scope.addHook('onRequest', async (request, reply) => {
        const value = request.headers['x-preset-vary'];
        if (typeof value === 'string') reply.header('Vary', value);
      });
      await scope.register(fa.negotiation, MAIN);
      scope.get('/project', async (_request, reply) => reply.represent(PROJECT));
      scope.post(
        '/projects',
        { onRequest: fa.requireContentType('application/json') },
        async (request, reply) =>
          reply.header('Location', '/projects/8').represent({ id: 8, ...(request.body as object) }, 201),
      );
      scope.get('/decision', async (request) => request.negotiation);
      scope.get('/cors-after', async (_request, reply) => {
        reply.header('Vary', mergeVary(reply.getHeader('vary') as string, 'Origin'));
        reply.header('Vary', mergeVary(reply.getHeader('vary') as string, 'Accept'));
        return reply.represent({ ok: true });
      });
      scope.get('/empty', async (_request, reply) => reply.represent(undefined, 204));
      scope.get('/own-language', async (_request, reply) => {
        reply.header('Content-Language', 'fr');
        return { ok: true };
      });
      scope.get('/vary-added', async (_request, reply) => {
        reply.header('Vary', mergeVary(reply.getHeader('vary') as string, 'Origin'));
        return { ok: true };
      });
      scope.get('/vary-added-then-fail', async (_request, reply) => {
        reply.header('Vary', mergeVary(reply.getHeader('vary') as string, 'Origin'));
        throw new HttpError('conflict');
      });
    });
    return app;
  },
  hono: () => {
    const app = new Hono();
    const problems = problemDetails({ ...silent, requestId: false });
    app.use(problems.middleware);
    app.onError(problems.onError);
    app.notFound(problems.notFound);
    for (const [path, options] of Object.entries(SIMPLE)) {
      app.get(path, ho.negotiate(options), (c) => ho.represent(c, { ok: true }));
    }
    app.all('/body', ho.requireContentType(...BODY_TYPES), (c) => c.json({ passed: true }));
    app.get('/bare', (c) => ho.represent(c, { ok: true }));
    const main = ho.negotiate(MAIN);
    app.get(
      '/project',
      async (c, next) => {
        const value = c.req.header('x-preset-vary');
        if (value !== undefined) c.header('Vary', value);
        await next();
      },
      main,
      (c) => ho.represent(c, PROJECT),
    );
    app.post('/projects', main, ho.requireContentType('application/json'), async (c) => {
      c.header('Location', '/projects/8');
      return ho.represent(c, { id: 8, ...(await c.req.json()) }, 201);
    });
    app.get('/decision', main, (c) => c.json(ho.getNegotiation(c) ?? null));
    app.get('/cors-after', main, (c) => {
      c.header('Vary', mergeVary(c.res.headers.get('vary') ?? undefined, 'Origin'));
      c.header('Vary', mergeVary(c.res.headers.get('vary') ?? undefined, 'Accept'));
      return ho.represent(c, { ok: true });
    });
    app.get('/empty', main, (c) => ho.represent(c, undefined, 204));
    app.get('/own-language', main, (c) => {
      c.header('Content-Language', 'fr');
      return c.json({ ok: true });
    });
    app.get('/vary-added', main, (c) => {
      c.header('Vary', 'Origin', { append: true });
      return c.json({ ok: true });
    });
    app.get('/vary-added-then-fail', main, (c) => {
      c.header('Vary', 'Origin', { append: true });
      throw new HttpError('conflict');
    });
    return app;
  },
};
