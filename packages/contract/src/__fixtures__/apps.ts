/** The fixture API (api.ts) on each framework, each with the same front: request id, negotiation, API keys, problem documents. */
import { generateApiKey, MemoryApiKeyStore } from '@plumbline/auth';
import { authenticate } from '@plumbline/auth/express';
import { authenticate as fastifyAuthenticate } from '@plumbline/auth/fastify';
import { authenticate as honoAuthenticate } from '@plumbline/auth/hono';
import { createRequestIdSource, renderProblem } from '@plumbline/errors';
import { errorHandler, notFoundHandler, requestId } from '@plumbline/errors/express';
import { plumblineErrors } from '@plumbline/errors/fastify';
import { problemDetails } from '@plumbline/errors/hono';
import { createMemoryStore } from '@plumbline/idempotency';
import { negotiate } from '@plumbline/negotiation/express';
import { negotiation } from '@plumbline/negotiation/fastify';
import { negotiate as honoNegotiate } from '@plumbline/negotiation/hono';
import {
  EXPRESS_VERSIONS,
  type ExpressFactory,
  type Framework,
  type FrameworkApps,
} from '@plumbline/test-utils';
import type { Express } from 'express';
import Fastify, { type FastifyReply } from 'fastify';
import { Hono } from 'hono';
import { mount } from '../express.js';
import { mount as mountFastify } from '../fastify.js';
import { mount as mountHono } from '../hono.js';
import type { ContractOptions, ResponseMismatch } from '../index.js';
import { apiRoutes, contextRoutes, createStore, type Store, type Tenant } from './api.js';

export const READ_KEY = generateApiKey();
export const WRITE_KEY = generateApiKey();

function keyStore(): MemoryApiKeyStore {
  const keys = new MemoryApiKeyStore();
  keys.add(READ_KEY, { clientId: 'reader', access: 'read' });
  keys.add(WRITE_KEY, { clientId: 'writer', access: 'read-write' });
  return keys;
}

/** What one framework's app holds for the tests to inspect. */
export interface Fixture {
  readonly store: Store;
  readonly mismatches: ResponseMismatch[];
  readonly options: ContractOptions;
}

export function fixture(): Fixture {
  const mismatches: ResponseMismatch[] = [];
  return {
    store: createStore(),
    mismatches,
    options: {
      responseValidation: true,
      onResponseMismatch: (m) => mismatches.push(m),
      languages: ['en', 'de'],
    },
  };
}

export function expressApp(express: ExpressFactory, f: Fixture): Express {
  const app = express();
  app.set('etag', false);
  app.use(
    requestId(),
    negotiate({ languages: ['en', 'de'] }),
    authenticate({ apiKeys: { store: keyStore() }, optional: true }),
  );
  mount(app, [...apiRoutes(f.store), ...contextRoutes()], {
    ...f.options,
    idempotency: { store: createMemoryStore() },
    context: (req): Tenant => ({ tenant: req.get('x-tenant') ?? 'public' }),
  });
  app.use(notFoundHandler(), errorHandler());
  return app;
}

const requestIds = createRequestIdSource();

async function fastifyApp(f: Fixture) {
  const app = Fastify({
    // Fastify's router refuses an id over 100 characters (414) and a bad percent-encoding (400) itself,
    // before any plugin: ids of any length reach the routes, and both errors reach the problem handler.
    routerOptions: { maxParamLength: 16_384 },
    frameworkErrors: (error, request, reply) => {
      const requestId = requestIds.idFor(request.headers[requestIds.lowerHeader] as string | undefined);
      const problem = renderProblem(error, {
        accept: request.headers.accept,
        acceptLanguage: request.headers['accept-language'],
        instance: request.url,
        requestId,
      });
      (reply as FastifyReply)
        .code(problem.status)
        .headers({ ...problem.headers, [requestIds.header]: requestId })
        .send(problem.body);
    },
  });
  await app.register(plumblineErrors, { onError: () => {} });
  await app.register(negotiation, { languages: ['en', 'de'] });
  app.addHook('onRequest', fastifyAuthenticate({ apiKeys: { store: keyStore() }, optional: true }));
  await mountFastify(app, [...apiRoutes(f.store), ...contextRoutes()], {
    ...f.options,
    idempotency: { store: createMemoryStore() },
    context: (request): Tenant => ({
      tenant: (request.headers['x-tenant'] as string | undefined) ?? 'public',
    }),
  });
  return app;
}

function honoApp(f: Fixture) {
  const app = new Hono();
  const problems = problemDetails({ onError: () => {} });
  app.use(problems.middleware);
  app.onError(problems.onError);
  app.notFound(problems.notFound);
  app.use(
    honoNegotiate({ languages: ['en', 'de'] }),
    honoAuthenticate({ apiKeys: { store: keyStore() }, optional: true }),
  );
  return mountHono(app, [...apiRoutes(f.store), ...contextRoutes()], {
    ...f.options,
    idempotency: { store: createMemoryStore() },
    context: (c): Tenant => ({ tenant: c.req.header('x-tenant') ?? 'public' }),
  });
}

/** The apps of every framework, each on its own fixture (`fixtureOf(framework)`). */
export function frameworkApps(fixtureOf: (framework: Framework) => Fixture): FrameworkApps {
  return {
    express: (express) => expressApp(express, fixtureOf(EXPRESS_VERSIONS.find(([, f]) => f === express)![0])),
    fastify: () => fastifyApp(fixtureOf('fastify')),
    hono: () => honoApp(fixtureOf('hono')),
  };
}
