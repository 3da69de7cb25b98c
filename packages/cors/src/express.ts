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
 * `errorHandler` included. `Vary` is merged with the one set so far. Mount it first.
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
      path: (req.originalUrl ?? req.url).split('?', 1)[0],
      origin: text(req.headers.origin),
      accessControlRequestMethod: text(req.headers['access-control-request-method']),
      accessControlRequestHeaders: text(req.headers['access-control-request-headers']),
    });
    for (const name in decision.headers) {
      const value = decision.headers[name]!;
      const current = name === 'Vary' ? res.getHeader('Vary') : undefined;
      res.setHeader(name, current === undefined ? value : mergeVary(String(current), value));
    }
    if (!decision.preflight) return next();
    res.statusCode = decision.status;
    res.setHeader('Content-Length', '0');
    res.end();
  };
}
