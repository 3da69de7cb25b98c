/**
 * Express adapter for the transactional store: the middleware opens the database transaction,
 * takes the key in it, lets the handler run in it (`getTransaction(req)`), holds the response until
 * the record is written and the transaction committed, and only then sends it.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { IdempotencyRequestOptions } from './adapter.js';
import {
  currentRequestId,
  keyHeaderValues,
  replayOf,
  requestReader,
  runTransaction,
  type TransactionAccess,
} from './adapter.js';
import { createTransactionalIdempotency, type TransactionalIdempotencyOptions } from './core.js';
import {
  dropHeadersSince,
  type HeldResponse,
  hasBodyBytes,
  holdResponse,
  nodeKeyHeader,
  sendReplay,
} from './node-response.js';

/**
 * Options for {@link idempotencyTransaction}: the core options, how to open a transaction and run
 * a statement in it, and how to read principal, route and whether a key is required.
 *
 * @example
 * ```ts
 * const options: IdempotencyTransactionOptions<Db> = {
 *   store: createSqlStore({ dialect: 'postgres' }),
 *   transaction: (work) => db.transaction(work),
 *   query: (tx) => (sql, params) => tx.allNative(sql, params),
 * };
 * ```
 */
export interface IdempotencyTransactionOptions<Tx>
  extends TransactionalIdempotencyOptions,
    TransactionAccess<Tx>,
    IdempotencyRequestOptions<Request> {}

const TRANSACTION = Symbol('@plumbline/idempotency.transaction');
type WithTransaction = Request & { [TRANSACTION]?: unknown };

/**
 * The transaction {@link idempotencyTransaction} opened for this request; the handler writes its
 * side effect through it. Undefined when the request carries no key (then no transaction is open).
 *
 * @example
 * ```ts
 * const tx = getTransaction<Db>(req) ?? db;
 * await new Repository(tx).createOrder(req.body);
 * ```
 */
export function getTransaction<Tx>(req: Request): Tx | undefined {
  return (req as WithTransaction)[TRANSACTION] as Tx | undefined;
}

/** The default route key of both Express middlewares: `req.baseUrl + req.route.path` when routed, else the path. */
export function expressRoute(req: Request): string {
  const routePath = (req.route as { path?: unknown } | undefined)?.path;
  return req.baseUrl + (typeof routePath === 'string' ? routePath : req.path);
}

/**
 * Express middleware for exactly-once POSTs over a `SqlIdempotencyStore` (`createSqlStore()` from the package root): mount it right
 * before the handler, which writes through `getTransaction(req)`. The key is taken and the response
 * stored in that transaction; the response is sent after the commit, so a client never sees a
 * result that a crash could still undo. A 5xx (or 401/403/409/429) rolls the transaction back and is
 * sent as it is; a failed commit is answered by the error handler (503 when the database is away).
 *
 * @example
 * ```ts
 * const idem = idempotencyTransaction({ store, transaction: (work) => db.transaction(work), query: (tx) => tx.query, required: true });
 * app.post('/orders', express.json(), idem, async (req, res) => {
 *   const order = await createOrder(getTransaction(req), req.body);
 *   res.status(201).json(order);
 * });
 * ```
 */
export function idempotencyTransaction<Tx>(options: IdempotencyTransactionOptions<Tx>): RequestHandler {
  const core = createTransactionalIdempotency(options);
  const reader = requestReader(options, expressRoute);

  return (req: Request, res: Response, next: NextFunction) => {
    const withBody = hasBodyBytes(req);
    if (req.body === undefined && withBody) {
      next(new Error('idempotencyTransaction() must be mounted after a body parser'));
      return;
    }
    let prepared: ReturnType<typeof core.prepare>;
    try {
      const headers = keyHeaderValues(reader.keyHeaders, (name) => nodeKeyHeader(req, name));
      const body = withBody ? req.body : undefined;
      prepared = core.prepare(reader.read(req, req.method, req.originalUrl ?? req.url, headers, body));
    } catch (error) {
      next(error);
      return;
    }
    if (prepared === undefined) {
      next();
      return;
    }
    let held: HeldResponse | undefined;
    const finish = () => {
      held?.restore();
      (req as WithTransaction)[TRANSACTION] = undefined;
    };
    runTransaction(core, options, prepared, (tx) => {
      held = holdResponse(res);
      (req as WithTransaction)[TRANSACTION] = tx;
      next();
      return held.ended;
    }).then(
      (result) => {
        finish();
        if (result.action === 'send') {
          res.end(result.response.body);
          return;
        }
        const id = currentRequestId(options.requestIdHeader, (name) => res.getHeader(name));
        sendReplay(res, replayOf(result.response, core.replayHeaders(result.response, id)));
      },
      (error: unknown) => {
        finish();
        // The commit (or the record's write) failed after the handler answered: that answer is
        // void. Drop the headers it set, and let the error handler answer instead.
        if (held) dropHeadersSince(res, held.before);
        next(error);
      },
    );
  };
}
