/**
 * What the Express wiring gets from Express and Fastify does not give, for http/fastify/app.ts and
 * http/fastify/routes.ts: express.json's strict bodies, `.all(methodNotAllowed(...))` on a path.
 */
import { createMethodGuard, HttpError, isHttpError } from '@plumbline/errors';
import { jsonBodyParser } from '@plumbline/negotiation/fastify';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
  RouteOptions,
} from 'fastify';
import type { NeutralRequest } from '../../pages/neutral-routes.js';
import type { PlainReply } from '../../service/plain-reply.js';

/**
 * The body parsers of `scope`, as express.json reads bodies: application/json and
 * application/merge-patch+json through @plumbline/negotiation's `jsonBodyParser` (strict, `limit`
 * bytes, the same 400/413/415 answers), text/plain as text, and any other body left unread (405,
 * 404 and DELETE answer without reading it; a route's own 415 comes first). The version plugin's
 * 404 for any other path reads bodies this way (the contract's routes have their own parsers).
 */
export function expressBodies(scope: FastifyInstance, limit: number): void {
  jsonBodyParser(scope, { types: ['application/json', 'application/merge-patch+json'], limit });
  // After jsonBodyParser, which replaces every parser of the scope: this one then takes text/plain.
  scope.addContentTypeParser('text/plain', { parseAs: 'string' }, (_request, body, done) => done(null, body));
}

/**
 * Answers every method but `allowed` on `url` (OPTIONS 204 with `Allow`, the others 405), after
 * the hooks of `scope` and `options.onRequest`, as Express's `.all(methodNotAllowed(...))` does.
 */
export function otherMethods(
  scope: FastifyInstance,
  url: string,
  allowed: readonly string[],
  options: Partial<RouteOptions> = {},
): void {
  const guard = createMethodGuard(allowed);
  const taken = new Set(guard.allow.split(', ').filter((method) => method !== 'OPTIONS'));
  // Answered in onRequest, after the scope's and the route's own hooks: the body is never read
  // (a 405 with a malformed body is still a 405, as on Express and Hono).
  const answer: onRequestHookHandler = async (request, reply) => {
    // `/projects/` reaches `/projects/:id` with an empty id on Fastify; it is another path.
    if (Object.values((request.params ?? {}) as Record<string, string>).includes(''))
      throw new HttpError('not_found');
    const outcome = guard.answer(request.method);
    if (isHttpError(outcome)) throw outcome;
    return reply.code(204).header('Allow', outcome.headers.Allow).send();
  };
  const own = options.onRequest;
  scope.route({
    ...options,
    exposeHeadRoute: false,
    method: scope.supportedMethods.filter((method) => !taken.has(method)),
    url,
    onRequest: [...(own === undefined ? [] : Array.isArray(own) ? own : [own]), answer],
    handler: async () => {},
  });
}

/** Sends a neutral core's answer as it is. */
export function sendPlain(reply: FastifyReply, plain: PlainReply): FastifyReply {
  return reply.code(plain.status).headers(plain.headers).send(plain.body);
}

/** A Fastify request as the neutral routes read it (pages/neutral-routes.ts). */
export function neutralRequest(request: FastifyRequest): NeutralRequest {
  return {
    query: (name) => {
      const value = (request.query as Record<string, unknown> | undefined)?.[name];
      return value === undefined ? [] : Array.isArray(value) ? value.map(String) : [String(value)];
    },
    header: (name) => {
      const value = request.headers[name];
      return Array.isArray(value) ? value.join(', ') : value;
    },
    param: (name) => String((request.params as Record<string, unknown> | undefined)?.[name] ?? ''),
  };
}
