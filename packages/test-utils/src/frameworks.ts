import { getRequestListener } from '@hono/node-server';
import type { Express } from 'express';
import type { FastifyInstance } from 'fastify';
import type { Hono } from 'hono';
import { afterAll } from 'vitest';
import type { AdapterRunner, Outcome } from './adapters.js';
import { EXPRESS_VERSIONS } from './express-apps.js';
import { type HttpRequestSpec, listen, type RunningServer, send } from './http.js';

/** The Express factory of either major (`express5` or `express4`). */
export type ExpressFactory = (typeof EXPRESS_VERSIONS)[number][1];

/** The four frameworks every adapter is held to, in the order tables report them. */
export const FRAMEWORKS = ['express5', 'express4', 'fastify', 'hono'] as const;
/** One of {@link FRAMEWORKS}. */
export type Framework = (typeof FRAMEWORKS)[number];

/**
 * How to build the same app on each framework. Each builder is called once, on first use; the
 * app is served on a real loopback server (Hono through `@hono/node-server`, Fastify through
 * `fastify.routing` after `ready()`), so every framework is reached by the same HTTP client.
 */
export interface FrameworkApps {
  /** Called once for Express 5 and once for Express 4 with that major's factory. */
  readonly express?: (express: ExpressFactory) => Express | Promise<Express>;
  readonly fastify?: () => FastifyInstance | Promise<FastifyInstance>;
  readonly hono?: () => Hono | Promise<Hono>;
}

async function start(framework: Framework, apps: FrameworkApps): Promise<RunningServer> {
  if (framework === 'fastify') {
    const app = await apps.fastify!();
    await app.ready();
    const server = await listen((req, res) => app.routing(req, res));
    return { ...server, close: async () => Promise.all([server.close(), app.close()]).then(() => {}) };
  }
  if (framework === 'hono') {
    const app = await apps.hono!();
    return listen(getRequestListener(app.fetch));
  }
  const factory = EXPRESS_VERSIONS.find(([name]) => name === framework)![1];
  return listen(await apps.express!(factory));
}

/**
 * One runner per framework for `describeAdapters`: each builds its app once (lazily), serves it
 * on 127.0.0.1 and sends the case's request. Servers close after the file's tests. Frameworks
 * without a builder are left out.
 *
 * @example
 * ```ts
 * describeAdapters('errors', cases, {
 *   core: (c) => coreOutcome(() => ...),
 *   ...frameworkRunners(apps, (c) => ({ path: c.path, headers: c.headers })),
 * }, check);
 * ```
 */
export function frameworkRunners<C>(
  apps: FrameworkApps,
  toRequest: (testCase: C) => HttpRequestSpec,
): Partial<Record<Framework, AdapterRunner<C>>> {
  const runners: Partial<Record<Framework, AdapterRunner<C>>> = {};
  const started: Promise<RunningServer>[] = [];
  for (const framework of FRAMEWORKS) {
    const builder = framework.startsWith('express') ? apps.express : apps[framework as 'fastify' | 'hono'];
    if (builder === undefined) continue;
    let server: Promise<RunningServer> | undefined;
    runners[framework] = async (testCase): Promise<Outcome> => {
      if (server === undefined) {
        server = start(framework, apps);
        started.push(server);
      }
      return send((await server).port, toRequest(testCase));
    };
  }
  afterAll(async () => {
    await Promise.all(started.map(async (server) => (await server).close()));
  });
  return runners;
}

/**
 * Serves each framework's app once and returns a sender per framework, for tests that are not
 * tables (`it.each(FRAMEWORKS)`): `(await servers).fastify({ path: '/x' })`.
 *
 * @example
 * ```ts
 * const senders = frameworkSenders(apps);
 * it.each(FRAMEWORKS)('%s', async (framework) => { const outcome = await senders[framework]!({ path: '/' }); });
 * ```
 */
export function frameworkSenders(
  apps: FrameworkApps,
): Partial<Record<Framework, (request: HttpRequestSpec) => Promise<Outcome>>> {
  return frameworkRunners<HttpRequestSpec>(apps, (request) => request) as Partial<
    Record<Framework, (request: HttpRequestSpec) => Promise<Outcome>>
  >;
}
