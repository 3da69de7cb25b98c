/**
 * Hono adapter for @plumbline/idempotency: Web-standard middleware. It claims or replays before
 * the handler, then records the `Response` the handler produced as its body streams to the client.
 * @packageDocumentation
 */
import { sentHeaders } from '@plumbline/errors/hono';
import type { Context, MiddlewareHandler } from 'hono';
import type { IdempotencyRequestOptions } from './adapter.js';
import { isSafeMethod, middlewareSettings, replayOf, requestReader } from './adapter.js';
import type { IdempotencyOptions } from './core.js';
import { headerRecord, knownResponse, readAvailable } from './hono-response.js';
import { honoReplay, honoRequest, honoRequestId, honoRoute } from './hono-transaction.js';
import { ResponseRecording } from './recording.js';

const utf8 = new TextEncoder();

/**
 * Options for {@link idempotency}: the core options plus how to read principal, route and
 * whether a key is required from the request.
 * @example
 * ```ts
 * const options: IdempotencyMiddlewareOptions = { store, required: true, principal: (c) => c.get('principal')?.clientId };
 * ```
 */
export interface IdempotencyMiddlewareOptions extends IdempotencyOptions, IdempotencyRequestOptions<Context> {
  /** Called once when a store write after the response (store, release) still failed at the end of the lease (it is retried until then). Default `console.error`. */
  readonly onError?: (error: unknown, c: Context) => void;
}

/**
 * Middleware for idempotent POSTs (CONVENTIONS 4.3). A request with a key is claimed; the
 * `Response` the handler returns is recorded as its body streams out (`c.json`, `c.body`, a
 * `ReadableStream`) and stored, and a retry with the same key and request gets it back byte for
 * byte with `Idempotent-Replayed: true`. Errors (400, 409, 422, 503) are thrown for the
 * `@plumbline/errors/hono` error handler.
 * @example
 * ```ts
 * app.post('/orders', idempotency({ store: createMemoryStore(), required: true }), async (c) =>
 *   c.json(await createOrder(await c.req.json()), 201),
 * );
 * ```
 */
export function idempotency(options: IdempotencyMiddlewareOptions): MiddlewareHandler {
  const { core, maxBodyBytes, onError } = middlewareSettings(options);
  const reader = requestReader(options, honoRoute);

  return async (c, next) => {
    const method = c.req.method;
    if (isSafeMethod(method)) return next();
    const { headers, url, body } = await honoRequest(c, reader.keyHeaders);
    const decision = await core.begin(reader.read(c, method, url, headers, body));
    if (decision.action === 'replay') {
      const id = honoRequestId(c, options.requestIdHeader);
      return honoReplay(c, replayOf(decision.response, core.replayHeaders(decision.response, id)));
    }
    if (decision.action === 'proceed') return next();

    const recording = new ResponseRecording(decision.claim, maxBodyBytes, (error) => onError(error, c));
    await next();
    const res = c.res;
    const known = knownResponse(res);
    if (known !== undefined) {
      // The server writes exactly these bytes, and the handler produced them in full: stored now,
      // as Express stores a response at `end()`. The response itself is left as it is.
      recording.status = known.status;
      // With the headers middleware wrote to Node's response on @hono/node-server (request id, ...).
      recording.headers = sentHeaders(c, known.headers);
      const { body } = known;
      if (body !== null) recording.record(typeof body === 'string' ? utf8.encode(body) : body);
      // Sent once the store answered: a client retrying as soon as it has the response finds it stored.
      await recording.settle('complete');
      return;
    }
    recording.status = res.status;
    recording.headers = sentHeaders(c, headerRecord(res.headers));
    if (res.body === null) {
      await recording.settle('complete');
      return;
    }
    const available = await readAvailable(res.body);
    if (available.done) {
      // The whole body was there: stored before the response goes out (a retry finds it), and sent
      // as bytes, so the server frames it with Content-Length as it would have.
      recording.record(available.body);
      await recording.settle('complete');
    }
    const replaced = new Response(available.done ? available.body : recording.tapWeb(available.rest), res);
    // Unset first: the setter would otherwise rebuild the response to merge in the headers of
    // the one it replaces, which `replaced` already carries.
    c.res = undefined as unknown as Response;
    c.res = replaced;
  };
}

export {
  getTransaction,
  type IdempotencyTransactionOptions,
  idempotencyTransaction,
} from './hono-transaction.js';
