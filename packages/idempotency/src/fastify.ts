/**
 * Fastify 5 adapter for @plumbline/idempotency: a plugin whose `preHandler` hook claims or replays
 * and whose `onSend` hook records the payload Fastify is about to write (a string, a buffer, or a
 * stream, teed as it flows) and settles the claim.
 * @packageDocumentation
 */
import { pipeline, Readable, Transform } from 'node:stream';
import type { ReadableStream as WebStream } from 'node:stream/web';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { IdempotencyRequestOptions } from './adapter.js';
import {
  currentRequestId,
  isSafeMethod,
  keyHeaderValues,
  middlewareSettings,
  replayOf,
  requestReader,
} from './adapter.js';
import type { IdempotencyOptions } from './core.js';
import { fastifyRoute, sendFastifyReplay } from './fastify-transaction.js';
import { nodeKeyHeader } from './node-response.js';
import { ResponseRecording } from './recording.js';

/**
 * Options of the {@link idempotency} plugin: the core options plus how to read principal, route
 * and whether a key is required from the request.
 * @example
 * ```ts
 * const options: IdempotencyPluginOptions = { store, required: true, principal: (r) => r.principal?.clientId };
 * ```
 */
export interface IdempotencyPluginOptions
  extends IdempotencyOptions,
    IdempotencyRequestOptions<FastifyRequest> {
  /** Called once when a store write after the response (store, release) still failed at the end of the lease (it is retried until then). Default `console.error`. */
  readonly onError?: (error: unknown, request: FastifyRequest) => void;
}

/**
 * The payload to send instead: the same bytes, recorded on the way; the claim settled once, and the
 * response (a stream: its end) let go only once the store answered, so a client that retries as
 * soon as it has the response finds it stored.
 */
async function capture(
  recording: ResponseRecording,
  reply: FastifyReply,
  payload: unknown,
): Promise<unknown> {
  recording.status = reply.statusCode;
  recording.headers = reply.getHeaders();
  const source = payload instanceof ReadableStream ? Readable.fromWeb(payload as WebStream) : payload;
  if (source instanceof Readable) {
    const tap = new Transform({
      transform: (chunk: Buffer, _encoding, done) => {
        recording.record(chunk);
        done(null, chunk);
      },
      flush: (done) => {
        recording.settle('complete').then(() => done());
      },
    });
    // Destroyed before its end (the source failed, the connection broke mid-body): a retry runs again.
    tap.on('close', () => void recording.settle('release'));
    return pipeline(source, tap, () => {});
  }
  if (typeof payload === 'string' || payload instanceof Uint8Array) recording.record(Buffer.from(payload));
  await recording.settle('complete');
  return payload;
}

const plugin: FastifyPluginAsync<IdempotencyPluginOptions> = async (app, options) => {
  const { core, maxBodyBytes, onError } = middlewareSettings(options);
  const reader = requestReader(options, fastifyRoute);
  // One key per registration: two registrations on one route each keep their own recording.
  const RECORDING = Symbol('@plumbline/idempotency.recording');

  app.addHook('preHandler', async (request, reply) => {
    if (isSafeMethod(request.method)) return;
    const headers = keyHeaderValues(reader.keyHeaders, (name) => nodeKeyHeader(request.raw, name));
    const decision = await core.begin(
      reader.read(request, request.method, request.url, headers, request.body),
    );
    if (decision.action === 'replay') {
      const id = currentRequestId(options.requestIdHeader, (name) => reply.getHeader(name));
      return sendFastifyReplay(reply, replayOf(decision.response, core.replayHeaders(decision.response, id)));
    }
    if (decision.action === 'execute') {
      const recording = new ResponseRecording(decision.claim, maxBodyBytes, (error) =>
        onError(error, request),
      );
      (request as unknown as Record<symbol, ResponseRecording>)[RECORDING] = recording;
    }
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const recording = (request as unknown as Record<symbol, ResponseRecording | undefined>)[RECORDING];
    if (recording === undefined || recording.settled) return payload;
    return capture(recording, reply, payload);
  });
};

/**
 * Idempotent POSTs (CONVENTIONS 4.3) for the routes of the context it is registered in
 * (fastify-plugin: it reaches its siblings, not the whole app). The response is captured however
 * it is sent (an object, a string, a buffer, a Node or Web stream) and stored; a retry with the same
 * key and request gets it back byte for byte with `Idempotent-Replayed: true`. Errors (400, 409,
 * 422, 503) are thrown for the `@plumbline/errors/fastify` error handler.
 * @example
 * ```ts
 * await app.register(async (orders) => {
 *   await orders.register(idempotency, { store: createRedisStore({ client: redis }), required: true });
 *   orders.post('/orders', createOrder);
 * });
 * ```
 */
export const idempotency = fp(plugin, { fastify: '5.x' });

export {
  getTransaction,
  type IdempotencyTransactionPluginOptions,
  idempotencyTransaction,
} from './fastify-transaction.js';
