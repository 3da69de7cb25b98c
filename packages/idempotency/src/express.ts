/**
 * Express adapter for @plumbline/idempotency (Express 4.21+ and 5). Thin: the core decides; this
 * file reads the request, lets the Node response capture record what is sent, and replays.
 *
 * @packageDocumentation
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
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
import { expressRoute } from './express-transaction.js';
import { captureResponse, hasBodyBytes, nodeKeyHeader, sendReplay } from './node-response.js';

/**
 * Options for {@link idempotency}: the core options plus how to read principal, route and
 * whether a key is required from the request.
 *
 * @example
 * ```ts
 * const options: IdempotencyMiddlewareOptions = {
 *   store: createRedisStore({ client: redis }),
 *   required: true,
 *   principal: (req) => req.auth?.clientId,
 * };
 * ```
 */
export interface IdempotencyMiddlewareOptions extends IdempotencyOptions, IdempotencyRequestOptions<Request> {
  /** Called once when a store write after the response (store, release) still failed at the end of the lease (it is retried until then). Default `console.error`. */
  readonly onError?: (error: unknown, req: Request) => void;
}

/**
 * Express middleware for idempotent POSTs ({@link https://github.com/plumbline/plumbline/blob/main/docs/conventions.md#s-4-3 | conventions 4.3},
 * {@link https://github.com/plumbline/plumbline/blob/main/docs/design.md#d-idempotency | design: idempotency key}). Mount it after
 * the body parser and authentication, per route or on a router. A request with a key is claimed;
 * the handler's response is captured however it is sent (`res.json`, `res.send`, `write` + `end`,
 * piped streams) and stored, and a retry with the same key and request gets it back byte for byte
 * with `Idempotent-Replayed: true`. Errors (400, 409, 422, 503) go to `next(err)` for the error handler.
 *
 * @example
 * ```ts
 * const idem = idempotency({ store: createRedisStore({ client: redis }), required: true, principal: (req) => req.auth?.clientId });
 * app.post('/orders', express.json(), idem, createOrder);
 * ```
 */
export function idempotency(options: IdempotencyMiddlewareOptions): RequestHandler {
  const { core, maxBodyBytes, onError } = middlewareSettings(options);
  const reader = requestReader(options, expressRoute);

  return (req: Request, res: Response, next: NextFunction) => {
    if (isSafeMethod(req.method)) {
      next();
      return;
    }
    const withBody = hasBodyBytes(req);
    if (req.body === undefined && withBody) {
      next(new Error('idempotency() must be mounted after a body parser: the request body is not parsed'));
      return;
    }
    let begun: ReturnType<typeof core.begin>;
    try {
      const headers = keyHeaderValues(reader.keyHeaders, (name) => nodeKeyHeader(req, name));
      // No body bytes is no body, whether or not a parser left `{}` behind (Express 4, or an empty
      // body sent with `Content-Type: application/json` and `Content-Length: 0`).
      const body = withBody ? req.body : undefined;
      begun = core.begin(reader.read(req, req.method, req.originalUrl ?? req.url, headers, body));
    } catch (error) {
      next(error);
      return;
    }
    begun.then((decision) => {
      if (decision.action === 'proceed') {
        next();
      } else if (decision.action === 'replay') {
        const id = currentRequestId(options.requestIdHeader, (name) => res.getHeader(name));
        sendReplay(res, replayOf(decision.response, core.replayHeaders(decision.response, id)));
      } else {
        captureResponse(res, decision.claim, maxBodyBytes, (error) => onError(error, req));
        next();
      }
    }, next);
  };
}

export {
  getTransaction,
  type IdempotencyTransactionOptions,
  idempotencyTransaction,
} from './express-transaction.js';
