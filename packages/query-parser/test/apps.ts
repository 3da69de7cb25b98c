// The same collection app on Express 5, Express 4, Fastify 5 and Hono, for the four-framework table.
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
import { applyToArray, buildPage, type Collection, countInArray, defineCollection } from '../src/index.js';

type Row = Record<string, unknown>;
const silent = { onError: () => {} };
const other = defineCollection({ fields: { id: { type: 'int' } } });
const DEPRECATION = '</docs/v1>; rel="deprecation"';

/** Routes: GET /tasks, POST /tasks/search, GET /projects/:projectId/tasks, plus wiring mistakes. */
export function collectionApps(collection: Collection, rows: readonly Row[]): FrameworkApps {
  const page = (query: Parameters<typeof applyToArray>[0], baseUrl: string) =>
    buildPage(query, applyToArray(query, rows), {
      baseUrl,
      total: query.count ? countInArray(query, rows) : undefined,
    });
  return {
    express: (express) => {
      const app = express();
      const list = (base?: string) => (req: Request, res: Response) =>
        ex.sendPage(res, page(ex.getCollectionQuery(req, collection), base ?? req.path));
      app.get('/tasks', ex.collectionQuery(collection), list('/tasks'));
      app.post('/tasks/search', ex.collectionQuery(collection), list('/tasks'));
      const scope = (req: Request) => ({ project_id: req.params['projectId'] });
      app.get('/projects/:projectId/tasks', ex.collectionQuery(collection, { scope }), list());
      app.get('/wrong', ex.collectionQuery(collection), (req, res) => {
        res.json(ex.getCollectionQuery(req, other));
      });
      app.get('/none', (req, res) => {
        res.json(ex.getCollectionQuery(req, collection));
      });
      app.get('/linked', ex.collectionQuery(collection), (req, res) => {
        res.setHeader('Link', DEPRECATION);
        res.setHeader('Vary', 'Accept');
        ex.sendPage(res, buildPage(ex.getCollectionQuery(req, collection), [], { baseUrl: '/linked' }));
      });
      app.use(errorHandler(silent));
      return app;
    },
    fastify: async () => {
      const app = Fastify();
      await app.register(plumblineErrors, silent);
      const hooks = fa.collectionQuery(collection);
      const list =
        (base?: string) =>
        async (request: import('fastify').FastifyRequest, reply: import('fastify').FastifyReply) =>
          fa.sendPage(
            reply,
            page(fa.getCollectionQuery(request, collection), base ?? request.url.split('?')[0]!),
          );
      app.get('/tasks', hooks, list('/tasks'));
      app.post('/tasks/search', hooks, list('/tasks'));
      const scope = (request: import('fastify').FastifyRequest) => ({
        project_id: (request.params as { projectId: string }).projectId,
      });
      app.get('/projects/:projectId/tasks', fa.collectionQuery(collection, { scope }), list());
      app.get('/wrong', hooks, async (request) => fa.getCollectionQuery(request, other));
      app.get('/none', async (request) => fa.getCollectionQuery(request, collection));
      app.get('/linked', hooks, async (request, reply) => {
        reply.header('Link', DEPRECATION).header('Vary', 'Accept');
        return fa.sendPage(
          reply,
          buildPage(fa.getCollectionQuery(request, collection), [], { baseUrl: '/linked' }),
        );
      });
      return app;
    },
    hono: () => {
      const app = new Hono();
      const problems = problemDetails(silent);
      app.use(problems.middleware);
      app.onError(problems.onError);
      app.notFound(problems.notFound);
      const list = (base?: string) => (c: import('hono').Context) =>
        ho.sendPage(c, page(ho.getCollectionQuery(c, collection), base ?? c.req.path));
      app.get('/tasks', ho.collectionQuery(collection), list('/tasks'));
      app.post('/tasks/search', ho.collectionQuery(collection), list('/tasks'));
      const scope = (c: import('hono').Context) => ({ project_id: c.req.param('projectId') });
      app.get('/projects/:projectId/tasks', ho.collectionQuery(collection, { scope }), list());
      app.get('/wrong', ho.collectionQuery(collection), (c) => c.json(ho.getCollectionQuery(c, other)));
      app.get('/none', (c) => c.json(ho.getCollectionQuery(c, collection)));
      app.get('/linked', ho.collectionQuery(collection), (c) => {
        c.header('Link', DEPRECATION);
        c.header('Vary', 'Accept');
        return ho.sendPage(c, buildPage(ho.getCollectionQuery(c, collection), [], { baseUrl: '/linked' }));
      });
      return app;
    },
  };
}
