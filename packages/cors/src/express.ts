/**
 * Express adapter for @plumbline/cors (Express 4 and 5). @packageDocumentation
 */
import { mergeVary } from '@plumbline/errors';
import type { RequestHandler } from 'express';
import { type Cors, type CorsOptions, createCors } from './cors.js';

const text = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value.join(', ') : value;

/**
 * Express middleware applying a CORS policy (a {@link Cors} or the options of `createCors`): it
 * answers preflights with 204 and, on every other request, sets the headers before the route runs,
 * so they are on every response, problem responses from `@plumbline/errors/express`'s
 * `errorHandler` included. `Vary` is merged with the one set so far, and again when the head is
 * written (a route's `res.setHeader('Vary', ...)` keeps `Origin`). Mount it first.
 *
 * @example
 * ```ts
 * app.use(cors({ origins: ['https://app.example.com'], credentials: true }));
 * app.get('/projects', list);
 * app.use(errorHandler());
 * ```
 */
export function cors(policy: Cors | CorsOptions): RequestHandler {
  const { decide } = 'decide' in policy ? policy : createCors(policy);
  return (req, res, next) => {
    const decision = decide({
      method: req.method,
      // Only a preflight reads the path (for `allowedMethods`): no split on the other requests.
      path: req.method === 'OPTIONS' ? (req.originalUrl ?? req.url).split('?', 1)[0] : undefined,
      origin: text(req.headers.origin),
      accessControlRequestMethod: text(req.headers['access-control-request-method']),
      accessControlRequestHeaders: text(req.headers['access-control-request-headers']),
    });
    for (const name in decision.headers) {
      const value = decision.headers[name]!;
      const current = name === 'Vary' ? res.getHeader('Vary') : undefined;
      res.setHeader(name, current === undefined ? value : mergeVary(String(current), value));
    }
    if (!decision.preflight) {
      const vary = decision.headers['Vary'];
      // A route's res.setHeader('Vary', ...) replaces the Vary set above: merged back when the
      // head is written (as the on-headers package does).
      if (vary !== undefined) {
        const writeHead = res.writeHead;
        res.writeHead = function (this: typeof res, ...args: unknown[]) {
          const current = this.getHeader('Vary');
          if (!this.headersSent)
            this.setHeader('Vary', current === undefined ? vary : mergeVary(String(current), vary));
          return (writeHead as (...rest: unknown[]) => typeof res).apply(this, args);
        } as typeof res.writeHead;
      }
      return next();
    }
    // 204: no body and no Content-Length (RFC 9110, 8.6).
    res.statusCode = decision.status;
    res.end();
  };
}
