/**
 * Fastify 5 adapter for @plumbline/negotiation: a plugin that negotiates once per request in its
 * encapsulation context (register it where representations are sent), `reply.represent()`, a
 * `requireContentType()` route hook, and `jsonBodyParser()`, express.json's JSON bodies for a
 * scope. The core decides everything. @packageDocumentation
 */
import { HttpError, mergeVary } from '@plumbline/errors';
import type { FastifyInstance, FastifyPluginCallback, FastifyReply, onRequestHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { createJsonBodyReader, type JsonBodyOptions, type JsonBodyReader } from './json-body.js';
import { createNegotiator, type Negotiation, type NegotiatorOptions, negotiatorOf } from './negotiator.js';
import { checkRequestBody } from './request-body.js';
import { NEGOTIATION_VARY, notModifiedOr, representation, requestHasBody } from './respond.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The decision of `@plumbline/negotiation/fastify`; `null` where the plugin is not registered. */
    negotiation: Negotiation | null;
  }
  interface FastifyReply {
    /** Sends `data` in the negotiated media type (`@plumbline/negotiation/fastify`). */
    represent(data: unknown, status?: number): FastifyReply;
  }
}

// With no Vary yet (the usual case) the merged value is NEGOTIATION_VARY itself: nothing to merge.
function vary(reply: FastifyReply): void {
  const existing = reply.getHeader('vary') as string | undefined;
  reply.header('Vary', existing === undefined ? NEGOTIATION_VARY : mergeVary(existing, NEGOTIATION_VARY));
}

function represent(this: FastifyReply, data: unknown, status = 200): FastifyReply {
  const negotiation = this.request.negotiation;
  const negotiator = negotiatorOf(negotiation);
  if (!negotiator || !negotiation) {
    throw new Error('reply.represent() needs the negotiation plugin registered for this route');
  }
  const response = notModifiedOr(
    representation(negotiator, negotiation, data, status),
    this.request.method,
    (name) => this.request.headers[name] as string | undefined,
    (name) => this.getHeader(name) as string | undefined,
  );
  vary(this);
  for (const [name, value] of Object.entries(response.headers)) {
    if (name !== 'Vary' && !(name === 'ETag' && this.hasHeader('etag'))) this.header(name, value);
  }
  const { body } = response;
  this.code(response.status);
  if (body === null) {
    this.removeHeader('content-type');
    // Fastify's own HEAD route sends Content-Length: 0 for an undefined payload, false for a 304; an
    // empty stream (which it cancels) leaves the header out.
    return this.send(
      response.status === 304 && this.request.method === 'HEAD' ? new ReadableStream() : undefined,
    );
  }
  return this.send(typeof body === 'string' ? body : Buffer.from(body));
}

/**
 * Options of {@link negotiation}: the core options of `createNegotiator`.
 * @example
 * ```ts
 * const options: NegotiationPluginOptions = { languages: ['en', 'de'], vendor: 'plumbline' };
 * ```
 */
export type NegotiationPluginOptions = NegotiatorOptions;

const plugin: FastifyPluginCallback<NegotiationPluginOptions> = (fastify, options, done) => {
  const negotiator = createNegotiator(options);
  if (!fastify.hasRequestDecorator('negotiation')) fastify.decorateRequest('negotiation', null);
  if (!fastify.hasReplyDecorator('represent')) fastify.decorateReply('represent', represent);
  fastify.addHook('onRequest', (request, reply, next) => {
    const result = negotiator.negotiate({
      accept: request.headers.accept,
      acceptLanguage: request.headers['accept-language'],
    });
    vary(reply);
    if (!result.ok) return next(result.error);
    request.negotiation = result;
    reply.header('Content-Language', result.language);
    next();
  });
  done();
};

/**
 * The Fastify plugin: in an `onRequest` hook it negotiates type and language (the core's
 * `createNegotiator`), merges `Accept, Accept-Language` into `Vary`, sets `Content-Language` and
 * puts the decision on `request.negotiation`; no acceptable type is a 406 `not_acceptable` for
 * the `@plumbline/errors/fastify` handler. It applies to the context that registers it and its
 * children (fastify-plugin only lifts it out of its own plugin scope), so register it inside the
 * scope of the routes that send representations.
 * @example
 * ```ts
 * await app.register(plumblineErrors);
 * await app.register(async (api) => {
 *   await api.register(negotiation, { languages: ['en', 'de'] });
 *   api.get('/projects/:id', async (request, reply) => reply.represent({ id: 1 }));
 * });
 * ```
 */
export const negotiation = fp(plugin, { fastify: '5.x', name: '@plumbline/negotiation' });

/**
 * A route `onRequest` hook that answers a body whose Content-Type is missing or not one of `types`
 * with 415 `unsupported_media_type` (and `Accept-Post` / `Accept-Patch` / `Accept`) before Fastify
 * parses it. Requests without a body pass. Invalid types throw at start-up.
 * @example
 * ```ts
 * app.post('/projects', { onRequest: requireContentType('application/json') }, create);
 * ```
 */
export function requireContentType(...types: readonly string[]): onRequestHookHandler {
  const accepted = Object.freeze([...types]);
  checkRequestBody({ contentType: undefined, hasBody: false, method: 'GET', accepted });
  return (request, _reply, next) => {
    const result = checkRequestBody({
      contentType: request.headers['content-type'],
      hasBody: requestHasBody(request.headers['content-length'], request.headers['transfer-encoding']),
      method: request.method,
      accepted,
    });
    next(result.ok ? undefined : result.error);
  };
}

type Done = (error: Error | null, body?: unknown) => void;

/** Reads a Node stream to its end and drops what it holds, then calls `then`. */
function drain(payload: NodeJS.ReadableStream, then: () => void): void {
  const finish = () => {
    payload.removeListener('end', finish);
    payload.removeListener('error', finish);
    then();
  };
  payload.on('end', finish);
  payload.on('error', finish);
  payload.resume();
}

/** Collects the body counting bytes as they arrive; over the limit, the rest is read and dropped. */
function collect(payload: NodeJS.ReadableStream, reader: JsonBodyReader, done: Done): void {
  const chunks: Buffer[] = [];
  let received = 0;
  let over = false;
  const onData = (chunk: Buffer | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    received += bytes.length;
    if (over) return;
    if (received > reader.limit) {
      over = true;
      chunks.length = 0;
      return;
    }
    chunks.push(bytes);
  };
  const stop = () => {
    payload.removeListener('data', onData);
    payload.removeListener('end', onEnd);
    payload.removeListener('error', onError);
  };
  const onEnd = () => {
    stop();
    if (over) {
      done(reader.tooLarge());
      return;
    }
    let value: unknown;
    try {
      value = reader.parse(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
    } catch (error) {
      done(error as Error);
      return;
    }
    done(null, value);
  };
  // The client went away in the middle of the body (body-parser's `request.aborted`).
  const onError = (cause: unknown) => {
    stop();
    done(new HttpError('bad_request', { cause }));
  };
  payload.on('data', onData);
  payload.on('end', onEnd);
  payload.on('error', onError);
  payload.resume();
}

/**
 * Makes `scope` (an instance, or the instance a plugin receives) read request bodies as
 * `express.json({ strict: true, inflate: false, type: types, limit })` does, with the same answers:
 * a body of one of `types` is parsed strictly into `request.body` (an object or an array; an empty
 * body is `{}`); a charset other than UTF-8 or a `Content-Encoding` is 415 `unsupported_media_type`,
 * more than `limit` bytes 413 `payload_too_large` (counted as they arrive; the rest is read and
 * dropped before the answer, as body-parser does), anything but strict JSON 400 `malformed_json`,
 * for `plumblineErrors` of `@plumbline/errors/fastify` to render. Every other body is left unread
 * (`request.body` is `undefined`), as express.json leaves it: this replaces all of the scope's
 * content-type parsers, Fastify's own JSON and text parsers included, so call it before adding
 * routes, and add a parser for another type after it (a `text/plain` parser then takes that type).
 * A missing or unlisted Content-Type is refused by the route's {@link requireContentType}, as on
 * Express. Fastify never reads the body of a GET or HEAD. Applies to the scope and its children.
 * Invalid `types` or `limit` throw here, at start-up.
 *
 * @example
 * ```ts
 * await app.register(async (api) => {
 *   jsonBodyParser(api, { types: ['application/merge-patch+json', 'application/json'], limit: 65_536 });
 *   api.patch('/projects/:id', { onRequest: requireContentType('application/merge-patch+json', 'application/json') },
 *     async (request) => update(request.body));
 * });
 * ```
 */
export function jsonBodyParser(scope: FastifyInstance, options: JsonBodyOptions = {}): void {
  const reader = createJsonBodyReader(options);
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', (request, payload, done: Done) => {
    const headers = request.headers;
    const decision = reader.start({
      contentType: headers['content-type'],
      contentLength: headers['content-length'],
      transferEncoding: headers['transfer-encoding'],
      contentEncoding: headers['content-encoding'],
    });
    if (decision.action === 'skip') done(null, undefined);
    else if (decision.action === 'read') collect(payload, reader, done);
    else if (decision.drain) drain(payload, () => done(decision.error));
    else done(decision.error);
  });
}

export {
  type ConditionalOptions,
  conditional,
  entityTagOf,
  getPreconditions,
  notModified,
  type PreconditionState,
} from './fastify-conditional.js';
export type { JsonBodyOptions } from './json-body.js';
