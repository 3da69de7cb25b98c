/**
 * Fastify 5 adapter for conditional requests: a route `preHandler` that evaluates the preconditions
 * with the core's `evaluatePreconditions`, `entityTagOf()` for the tag `reply.represent` sends, and
 * the `notModified` plugin, the core's `isNotModifiedResponse` for every route.
 */
import type {
  FastifyPluginCallback,
  FastifyReply,
  FastifyRequest,
  onSendHookHandler,
  preHandlerAsyncHookHandler,
} from 'fastify';
import fp from 'fastify-plugin';
import {
  checkPreconditions,
  isNotModifiedResponse,
  type PreconditionState,
  type Validators,
} from './conditional.js';

export type { PreconditionState };

import { negotiatorOf } from './negotiator.js';
import { representationTag } from './respond.js';

/**
 * Options of {@link conditional}: `current` loads the validators of the target resource
 * (`undefined` when it has no current representation; throw an `HttpError` such as 404 or 410 when
 * the request would fail without its preconditions); `requirePrecondition` answers an unsafe request
 * on an existing resource without `If-Match` or `If-Unmodified-Since` with 428.
 * @example
 * ```ts
 * const options: ConditionalOptions = { current: async (request) => store.validators(request.params), requirePrecondition: true };
 * ```
 */
export interface ConditionalOptions {
  /** Loads the current validators of the target resource; `undefined` when it has none. */
  readonly current: (
    request: FastifyRequest,
    reply: FastifyReply,
  ) => Validators | undefined | Promise<Validators | undefined>;
  /** Answer 428 to an unsafe request on an existing resource without If-Match or If-Unmodified-Since. */
  readonly requirePrecondition?: boolean;
}

const CHECKED = new WeakMap<FastifyRequest, PreconditionState>();

/**
 * A route `preHandler` for conditional requests (RFC 9110 section 13): loads the current
 * validators, answers 304 (GET/HEAD), throws 412 `precondition_failed` or 428
 * `precondition_required` for the `@plumbline/errors/fastify` handler, or lets the request through;
 * a GET that proceeds gets the current `ETag` and `Last-Modified`.
 * @example
 * ```ts
 * const preconditions = conditional({ current: async (request, reply) => ({ etag: entityTagOf(reply, await load(request)) }) });
 * api.put('/projects/:id', { preHandler: preconditions }, async (request, reply) => reply.represent(await save(request.body)));
 * ```
 */
export function conditional(options: ConditionalOptions): preHandlerAsyncHookHandler {
  const { current, requirePrecondition = false } = options;
  return async (request, reply) => {
    const step = checkPreconditions(
      request.method,
      (name) => request.headers[name] as string | undefined,
      await current(request, reply),
      requirePrecondition,
    );
    if (step.outcome === 'failed') throw step.error;
    reply.headers(step.headers);
    if (step.outcome === 'not-modified') return reply.code(304).send();
    CHECKED.set(request, step.state);
    return undefined;
  };
}

/**
 * What {@link conditional} decided for this request, or `undefined` when it did not run.
 * @example
 * ```ts
 * if (getPreconditions(request)?.conditional) await store.updateIfUnchanged(id, data, version);
 * ```
 */
export function getPreconditions(request: FastifyRequest): PreconditionState | undefined {
  return CHECKED.get(request);
}

/**
 * The strong `ETag` that `reply.represent(data)` would send: use it as the `current` tag so a
 * precondition compares with what GET gave the client. Needs the negotiation plugin.
 * @example
 * ```ts
 * conditional({ current: async (request, reply) => ({ etag: entityTagOf(reply, await load(request)) }) });
 * ```
 */
export function entityTagOf(reply: FastifyReply, data: unknown): string {
  const negotiation = reply.request.negotiation;
  const negotiator = negotiatorOf(negotiation);
  if (!negotiator || !negotiation)
    throw new Error('entityTagOf() needs the negotiation plugin for this route');
  return representationTag(negotiator, negotiation, data);
}

/** A payload that will not be sent: a stream is closed (a file it reads is let go), anything else is left. */
function discard(payload: unknown): void {
  if (payload === null || typeof payload !== 'object') return;
  const stream = payload as { destroy?: () => void; cancel?: () => Promise<void> };
  if (typeof stream.destroy === 'function') stream.destroy();
  else if (typeof stream.cancel === 'function') stream.cancel().catch(() => {});
}

const onSend: onSendHookHandler = (request, reply, payload, done) => {
  if (
    !isNotModifiedResponse(request.method, reply.statusCode, request.headers, (name) => reply.getHeader(name))
  )
    return done(null, payload);
  discard(payload);
  reply
    .code(304)
    .removeHeader('content-type')
    .removeHeader('content-length')
    .removeHeader('transfer-encoding');
  // A HEAD goes on to the onSend hook of Fastify's own HEAD route, which sets Content-Length: 0 for
  // no payload and fails on null; an empty stream (which it cancels) leaves the header out, as
  // `reply.represent` does.
  done(null, request.method === 'HEAD' ? new ReadableStream() : null);
};

const notModifiedPlugin: FastifyPluginCallback = (fastify, _options, done) => {
  fastify.addHook('onSend', onSend);
  done();
};

/**
 * The Fastify plugin that gives every route the 304 `reply.represent` gives its own: in an `onSend`
 * hook, a GET or HEAD about to be answered 200 whose `If-None-Match` matches the `ETag` the route set
 * (weak comparison, `*` matches), or without `If-None-Match`, whose `If-Modified-Since` is not earlier
 * than its `Last-Modified` (the core's `isNotModifiedResponse`), becomes a 304 with no body and
 * without `Content-Type`, `Content-Length` and `Transfer-Encoding`; every other header stays (a
 * stream payload is closed). The same status, headers and empty body as `notModified(app)` on
 * Express and `notModified()` on Hono. Registered through fastify-plugin, it applies to the context that registers
 * it and all its children: register it on the root instance, before the routes.
 * @example
 * ```ts
 * await app.register(notModified);
 * app.get('/report', async (request, reply) =>
 *   reply.header('ETag', '"r42"').header('Cache-Control', 'no-cache').send(report), // 304 to If-None-Match: "r42"
 * );
 * ```
 */
export const notModified = fp(notModifiedPlugin, {
  fastify: '5.x',
  name: '@plumbline/negotiation/not-modified',
});
