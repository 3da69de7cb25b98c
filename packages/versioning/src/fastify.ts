/**
 * Fastify 5 adapter for @plumbline/versioning: a plugin that resolves the API version in an
 * `onRequest` hook for the routes of the context that registers it, sets the version headers on
 * every response (errors included) and types `request.apiVersion`. The core decides everything.
 * @packageDocumentation
 */
import type { FastifyPluginCallback, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { HeaderRecord, VersionPolicy } from './policy.js';
import { combineHeader, createRequestVersioning, type VersioningOptions } from './request.js';
import type { ResolvedVersion } from './resolve.js';

export type { VersioningOptions };

declare module 'fastify' {
  interface FastifyRequest {
    /** Resolved by `@plumbline/versioning/fastify`; `null` on version-neutral routes. */
    apiVersion: ResolvedVersion | null;
  }
}

/**
 * Options of {@link versioning}: the policy, plus the core's neutral paths.
 * @example
 * ```ts
 * const options: VersioningPluginOptions = { policy, neutralPaths: ['/health'] };
 * ```
 */
export interface VersioningPluginOptions extends VersioningOptions {
  /** A policy made by `createVersionPolicy`. */
  readonly policy: VersionPolicy;
}

function writeHeaders(reply: FastifyReply, record: HeaderRecord): void {
  for (const name in record) {
    const existing = reply.getHeader(name);
    const current = Array.isArray(existing) ? existing.join(', ') : (existing as string | undefined);
    reply.header(name, combineHeader(name, current, record[name]!));
  }
}

const plugin: FastifyPluginCallback<VersioningPluginOptions> = (fastify, options, done) => {
  const resolve = createRequestVersioning(options.policy, options);
  if (!fastify.hasRequestDecorator('apiVersion')) fastify.decorateRequest('apiVersion', null);
  fastify.addHook('onRequest', (request, reply, next) => {
    const url = request.url;
    const mark = url.indexOf('?');
    const outcome = resolve({
      path: mark === -1 ? url : url.slice(0, mark),
      query: mark === -1 ? '' : url.slice(mark + 1),
      headers: request.headers,
      context: request,
    });
    // Set before the handler runs, so error responses carry them too.
    writeHeaders(reply, outcome.headers);
    if (outcome.kind === 'error') return next(outcome.error as Error);
    if (outcome.kind === 'resolved') request.apiVersion = outcome.resolved;
    next();
  });
  done();
};

/**
 * The Fastify plugin: resolves the version once per request under the policy's strategy (the
 * core's `createRequestVersioning`), puts it on `request.apiVersion`, and sets
 * `API-Supported-Versions`, `API-Deprecated-Versions`, `Deprecation`, `Sunset`, `Link` and `Vary`
 * before the handler runs. A refused request goes to the error handler as the core's `HttpError`
 * (`@plumbline/errors/fastify` renders it). Applies to the context that registers it and its
 * children; with the path strategy, register per-version routes under `/v1`, `/v2` prefixes.
 * @example
 * ```ts
 * const policy = createVersionPolicy({ strategy: 'header', versions: ['1', '2'] });
 * await app.register(plumblineErrors);
 * await app.register(versioning, { policy, neutralPaths: ['/health'] });
 * app.get('/projects', async (request) => ({ version: request.apiVersion?.version }));
 * ```
 */
export const versioning = fp(plugin, { fastify: '5.x', name: '@plumbline/versioning' });

/**
 * The API version resolved for this request, or `undefined` on version-neutral routes.
 * @example
 * ```ts
 * app.get('/projects', async (request) => (getApiVersion(request) === '1' ? legacy() : current()));
 * ```
 */
export function getApiVersion(request: FastifyRequest): string | undefined {
  return request.apiVersion?.version;
}
