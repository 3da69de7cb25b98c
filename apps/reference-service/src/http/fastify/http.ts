/**
 * What the Express wiring gets from Express and Fastify does not give, for http/fastify/app.ts and
 * http/fastify/routes.ts: express.json's strict bodies, a neutral core's answer, a request as the
 * neutral routes read it.
 */
import { jsonBodyParser } from '@plumbline/negotiation/fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
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
