/**
 * Fastify 5 adapter for @plumbline/cors. @packageDocumentation
 */
import { mergeVary } from '@plumbline/errors';
import type { FastifyPluginCallback } from 'fastify';
import fp from 'fastify-plugin';
import { type Cors, type CorsOptions, createCors } from './cors.js';

/**
 * Options of the {@link cors} plugin: the options of `createCors`, or a policy it built.
 *
 * @example
 * ```ts
 * const options: CorsPluginOptions = { policy: createCors({ origins: 'https://app.example.com' }) };
 * ```
 */
export type CorsPluginOptions = CorsOptions | { readonly policy: Cors };

const text = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value.join(', ') : value;

const plugin: FastifyPluginCallback<CorsPluginOptions> = (fastify, options, done) => {
  const { decide } = 'policy' in options ? options.policy : createCors(options);
  fastify.addHook('onRequest', (request, reply, next) => {
    const { headers } = request;
    const decision = decide({
      method: request.method,
      // Only a preflight reads the path (for `allowedMethods`): no split on the other requests.
      path: request.method === 'OPTIONS' ? request.url.split('?', 1)[0] : undefined,
      origin: text(headers.origin),
      accessControlRequestMethod: text(headers['access-control-request-method']),
      accessControlRequestHeaders: text(headers['access-control-request-headers']),
    });
    for (const name in decision.headers) {
      const value = decision.headers[name]!;
      const current = name === 'Vary' ? reply.getHeader('vary') : undefined;
      reply.header(name, current === undefined ? value : mergeVary(String(current), value));
    }
    if (decision.preflight) {
      reply.code(decision.status).send();
      return;
    }
    next();
  });
  // A route's reply.header('Vary', ...) replaces the Vary set above: Origin is merged back.
  const vary = decide({ method: 'GET' }).headers['Vary'];
  if (vary !== undefined) {
    fastify.addHook('onSend', (_request, reply, payload, next) => {
      const current = reply.getHeader('vary');
      reply.header('Vary', current === undefined ? vary : mergeVary(String(current), vary));
      next(null, payload);
    });
  }
  done();
};

/**
 * The Fastify 5 plugin: an `onRequest` hook that answers preflights with 204 and sets the CORS
 * headers on every other response before the route runs, so problem responses from
 * `@plumbline/errors/fastify` (401, 404, 405, 429, ...) carry them too. Registered through
 * fastify-plugin, it applies to the whole app; register it before the routes.
 *
 * @example
 * ```ts
 * await app.register(plumblineErrors);
 * await app.register(cors, { origins: ['https://app.example.com'], credentials: true });
 * ```
 */
export const cors = fp(plugin, { fastify: '5.x', name: '@plumbline/cors' });
