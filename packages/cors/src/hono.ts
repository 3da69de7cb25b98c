/**
 * Hono adapter for @plumbline/cors (Node, Bun, Deno, Workers). @packageDocumentation
 */
import { setResponseHeaders, withResponseHeaders } from '@plumbline/errors/hono';
import type { MiddlewareHandler } from 'hono';
import { type Cors, type CorsOptions, createCors } from './cors.js';

/**
 * Hono middleware applying a CORS policy (a {@link Cors} or the options of `createCors`): it
 * answers preflights with 204 and, on every other request, sets the headers before the handler
 * runs (through `@plumbline/errors/hono`'s `withResponseHeaders`, which merges `Vary` with the
 * handler's), so problem responses from its `problemDetails` carry them too. Mount it first.
 *
 * @example
 * ```ts
 * app.use(cors({ origins: ['https://app.example.com'], credentials: true }));
 * ```
 */
export function cors(policy: Cors | CorsOptions): MiddlewareHandler {
  const { decide } = 'decide' in policy ? policy : createCors(policy);
  return async (c, next) => {
    const decision = decide({
      method: c.req.method,
      path: c.req.path,
      origin: c.req.header('origin'),
      accessControlRequestMethod: c.req.header('access-control-request-method'),
      accessControlRequestHeaders: c.req.header('access-control-request-headers'),
    });
    if (decision.preflight) {
      // Merged with what earlier middleware set (Vary), as on every other response.
      setResponseHeaders(c, decision.headers);
      return c.body(null, decision.status);
    }
    await withResponseHeaders(c, decision.headers, next);
    return undefined;
  };
}
