/** The fixture API (api.ts) on each framework, each with the same front: request id, negotiation, API keys, problem documents. */
import { generateApiKey, MemoryApiKeyStore } from '@plumbline/auth';
import { authenticate } from '@plumbline/auth/express';
import { errorHandler, notFoundHandler, requestId } from '@plumbline/errors/express';
import { createMemoryStore } from '@plumbline/idempotency';
import { negotiate } from '@plumbline/negotiation/express';
import {
  EXPRESS_VERSIONS,
  type ExpressFactory,
  type Framework,
  type FrameworkApps,
} from '@plumbline/test-utils';
import type { Express } from 'express';
import { mount } from '../express.js';
import type { ContractOptions, ResponseMismatch } from '../index.js';
import { apiRoutes, createStore, type Store } from './api.js';

export const READ_KEY = generateApiKey();
export const WRITE_KEY = generateApiKey();

export function keyStore(): MemoryApiKeyStore {
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
  mount(app, apiRoutes(f.store), { ...f.options, idempotency: { store: createMemoryStore() } });
  app.use(notFoundHandler(), errorHandler());
  return app;
}

/** The apps of every framework, each on its own fixture (`fixtureOf(framework)`). */
export function frameworkApps(fixtureOf: (framework: Framework) => Fixture): FrameworkApps {
  return {
    express: (express) => expressApp(express, fixtureOf(EXPRESS_VERSIONS.find(([, f]) => f === express)![0])),
  };
}
