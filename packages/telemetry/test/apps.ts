/**
 * The same API on Express 5, Express 4, Fastify 5 and Hono, wired with the real Plumbline packages
 * whose outcomes the spans record: request ids (@plumbline/errors), negotiation (406), a collection
 * query (400 with its code), API-key authentication and idempotency on the POST, a route with a
 * parameter, a route that throws, and the problem handlers (404, 500).
 */
import { generateApiKey, MemoryApiKeyStore } from '@plumbline/auth';
import * as authExpress from '@plumbline/auth/express';
import * as authFastify from '@plumbline/auth/fastify';
import * as authHono from '@plumbline/auth/hono';
import { errorHandler, notFoundHandler, requestId } from '@plumbline/errors/express';
import { plumblineErrors } from '@plumbline/errors/fastify';
import { problemDetails } from '@plumbline/errors/hono';
import { createMemoryStore } from '@plumbline/idempotency';
import * as idemExpress from '@plumbline/idempotency/express';
import * as idemFastify from '@plumbline/idempotency/fastify';
import * as idemHono from '@plumbline/idempotency/hono';
import * as negExpress from '@plumbline/negotiation/express';
import * as negFastify from '@plumbline/negotiation/fastify';
import * as negHono from '@plumbline/negotiation/hono';
import { defineCollection } from '@plumbline/query-parser';
import * as qpExpress from '@plumbline/query-parser/express';
import * as qpFastify from '@plumbline/query-parser/fastify';
import * as qpHono from '@plumbline/query-parser/hono';
import { createLimiter } from '@plumbline/rate-limit';
import * as rlExpress from '@plumbline/rate-limit/express';
import * as rlFastify from '@plumbline/rate-limit/fastify';
import * as rlHono from '@plumbline/rate-limit/hono';
import { EXPRESS_VERSIONS, type Framework, type FrameworkApps } from '@plumbline/test-utils';
import { createVersionPolicy } from '@plumbline/versioning';
import * as verExpress from '@plumbline/versioning/express';
import * as verFastify from '@plumbline/versioning/fastify';
import * as verHono from '@plumbline/versioning/hono';
import type { Request, Response } from 'express';
import Fastify, { type FastifyRequest } from 'fastify';
import { type Context, Hono } from 'hono';
import * as ex from '../src/express.js';
import * as fa from '../src/fastify.js';
import * as ho from '../src/hono.js';
import type { TelemetryOptions } from '../src/index.js';

/** The API key the POST cases send (client id `machine`). */
export const API_KEY = generateApiKey();
const keys = new MemoryApiKeyStore();
keys.add(API_KEY, { clientId: 'machine', access: 'read-write' });
const auth = { apiKeys: { store: keys } };

const projects = defineCollection({
  fields: { id: { type: 'int', sort: true }, name: { type: 'string', sort: true } },
  defaultSort: 'id',
});
const ROWS = [{ id: 1, name: 'Apollo' }];

// GET /reports: versioned by header (v1 deprecated, with a sunset date) and limited to two requests
// a minute per `X-Client`.
const policy = createVersionPolicy({
  strategy: 'header',
  header: 'API-Version',
  versions: [{ version: '1', deprecatedAt: '2026-01-01T00:00:00Z', sunsetAt: '2027-12-31T23:59:59Z' }, '2'],
  defaultVersion: '2',
});
/** How the version was read: the header strategy, or the default when the request named none. */
const sourceOf = (resolved: { readonly defaulted: boolean } | null | undefined): string | undefined =>
  resolved ? (resolved.defaulted ? 'default' : 'header') : undefined;
const clientOf = (value: string | string[] | undefined): string =>
  typeof value === 'string' ? value : 'anonymous';
const FAILURE = 'connection refused by db.internal:5432 (password=hunter2)';

// POST /slow waits in its handler until the test releases it, so a retry arrives while it is in flight.
let slow: { enter: () => void; wait: Promise<void> } | undefined;
const inSlow = async (): Promise<void> => {
  const held = slow;
  held?.enter();
  await held?.wait;
};

/** Holds the next POST /slow in its handler: `entered` once it is there, `release()` lets it answer. */
export function holdSlow(): { entered: Promise<void>; release: () => void } {
  let enter = () => {};
  let release = () => {};
  const entered = new Promise<void>((resolve) => {
    enter = resolve;
  });
  const wait = new Promise<void>((resolve) => {
    release = () => {
      slow = undefined;
      resolve();
    };
  });
  slow = { enter, wait };
  return { entered, release };
}

/** The telemetry options of each framework's app (its own SDK providers, say). */
export type OptionsFor = (framework: Framework) => TelemetryOptions;

// The first address of `X-Forwarded-For`, as a service behind a proxy it trusts reads it.
const forwardedFor = (value: string | string[] | undefined): string | undefined =>
  (Array.isArray(value) ? value[0] : value)?.split(',')[0]?.trim();

/**
 * Builds the app on every framework, telemetry first, with `optionsFor(framework)`; with
 * `forwarded`, also a `clientAddress` option reading the first address of `X-Forwarded-For`.
 */
export function telemetryApps(optionsFor: OptionsFor, forwarded = false): FrameworkApps {
  return {
    express: (express) => {
      const name = EXPRESS_VERSIONS.find(([, factory]) => factory === express)![0];
      const app = express();
      app.use(
        ex.telemetry({
          ...optionsFor(name),
          ...(forwarded
            ? { clientAddress: (req: Request) => forwardedFor(req.headers['x-forwarded-for']) }
            : {}),
          principal: authExpress.getPrincipal,
          apiVersion: verExpress.getApiVersion,
          apiVersionSource: (req: Request) => sourceOf(verExpress.getResolvedVersion(req)),
        }),
      );
      app.use(requestId());
      app.use(negExpress.negotiate());
      app.get('/projects', qpExpress.collectionQuery(projects), (_req: Request, res: Response) => {
        negExpress.represent(res, ROWS);
      });
      let next = 8;
      app.post(
        '/projects',
        authExpress.authenticate(auth),
        express.json(),
        idemExpress.idempotency({ store: createMemoryStore() }),
        (req: Request, res: Response) => {
          const id = next++;
          res.setHeader('Location', `/projects/${id}`);
          negExpress.represent(res, { id, ...(req.body as object) }, 201);
        },
      );
      app.post(
        '/slow',
        express.json(),
        idemExpress.idempotency({ store: createMemoryStore() }),
        async (_req: Request, res: Response) => {
          await inSlow();
          res.status(201).json({ done: true });
        },
      );
      app.get('/projects/:id', (req: Request, res: Response) => {
        negExpress.represent(res, { id: Number(req.params['id']), name: 'Apollo' });
      });
      app.get('/boom', () => {
        throw new Error(FAILURE);
      });
      const v1 = express.Router();
      v1.get('/tasks/:id', (req: Request, res: Response) => {
        negExpress.represent(res, { id: Number(req.params['id']) });
      });
      app.use('/v1', v1);
      const limiter = createLimiter({ limit: 2, windowMs: 60_000 });
      app.get(
        '/reports',
        verExpress.versioning(policy),
        rlExpress.rateLimit(limiter, { key: (req) => clientOf(req.headers['x-client']) }),
        (_req: Request, res: Response) => {
          negExpress.represent(res, []);
        },
      );
      app.use(notFoundHandler());
      app.use(errorHandler({ onError: () => {} }));
      return app;
    },
    fastify: async () => {
      const app = Fastify();
      await app.register(fa.telemetry, {
        ...optionsFor('fastify'),
        ...(forwarded
          ? { clientAddress: (request: FastifyRequest) => forwardedFor(request.headers['x-forwarded-for']) }
          : {}),
        principal: authFastify.getPrincipal,
        apiVersion: verFastify.getApiVersion,
        apiVersionSource: (request: FastifyRequest) => sourceOf(request.apiVersion),
      });
      await app.register(plumblineErrors, { onError: () => {} });
      await app.register(async (api) => {
        await api.register(negFastify.negotiation, {});
        const list = qpFastify.collectionQuery(projects);
        api.get('/projects', { ...list }, async (_request, reply) => reply.represent(ROWS));
        let next = 8;
        await api.register(async (writes) => {
          await writes.register(idemFastify.idempotency, { store: createMemoryStore() });
          writes.post('/projects', { onRequest: authFastify.authenticate(auth) }, async (request, reply) => {
            const id = next++;
            return reply
              .header('Location', `/projects/${id}`)
              .represent({ id, ...(request.body as object) }, 201);
          });
        });
        await api.register(async (slowScope) => {
          await slowScope.register(idemFastify.idempotency, { store: createMemoryStore() });
          slowScope.post('/slow', async (_request, reply) => {
            await inSlow();
            return reply.code(201).send({ done: true });
          });
        });
        api.get('/projects/:id', async (request, reply) =>
          reply.represent({ id: Number((request.params as { id: string }).id), name: 'Apollo' }),
        );
        api.get('/boom', async () => {
          throw new Error(FAILURE);
        });
        await api.register(
          async (v1) => {
            v1.get('/tasks/:id', async (request, reply) =>
              reply.represent({ id: Number((request.params as { id: string }).id) }),
            );
          },
          { prefix: '/v1' },
        );
        await api.register(async (reports) => {
          await reports.register(verFastify.versioning, { policy });
          const limiter = createLimiter({ limit: 2, windowMs: 60_000 });
          reports.get(
            '/reports',
            {
              onRequest: rlFastify.rateLimit(limiter, {
                key: (request) => clientOf(request.headers['x-client']),
              }),
            },
            async (_request, reply) => reply.represent([]),
          );
        });
      });
      return app;
    },
    hono: () => {
      const app = new Hono();
      app.use(
        ho.telemetry({
          ...optionsFor('hono'),
          ...(forwarded
            ? { clientAddress: (c: Context) => forwardedFor(c.req.header('x-forwarded-for')) }
            : {}),
          principal: authHono.getPrincipal,
          apiVersion: verHono.getApiVersion,
          apiVersionSource: (c: Context) => sourceOf(verHono.getResolvedVersion(c)),
        }),
      );
      const problems = problemDetails({ onError: () => {} });
      app.use(problems.middleware);
      app.onError(problems.onError);
      app.notFound(problems.notFound);
      app.use(negHono.negotiate());
      app.get('/projects', qpHono.collectionQuery(projects), (c) => negHono.represent(c, ROWS));
      let next = 8;
      app.post(
        '/projects',
        authHono.authenticate(auth),
        idemHono.idempotency({ store: createMemoryStore() }),
        async (c) => {
          const id = next++;
          c.header('Location', `/projects/${id}`);
          return negHono.represent(c, { id, ...(await c.req.json()) }, 201);
        },
      );
      app.post('/slow', idemHono.idempotency({ store: createMemoryStore() }), async (c) => {
        await inSlow();
        return c.json({ done: true }, 201);
      });
      app.get('/projects/:id', (c) =>
        negHono.represent(c, { id: Number(c.req.param('id')), name: 'Apollo' }),
      );
      app.get('/boom', () => {
        throw new Error(FAILURE);
      });
      const v1 = new Hono();
      v1.get('/tasks/:id', (c) => negHono.represent(c, { id: Number(c.req.param('id')) }));
      app.route('/v1', v1);
      const limiter = createLimiter({ limit: 2, windowMs: 60_000 });
      app.get(
        '/reports',
        verHono.versioning(policy),
        rlHono.rateLimit(limiter, { key: (c) => clientOf(c.req.header('x-client')) }),
        (c) => negHono.represent(c, []),
      );
      return app;
    },
  };
}
