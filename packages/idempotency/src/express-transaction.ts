/**
 * Express adapter for the transactional store: the middleware opens the database transaction,
 * takes the key in it, lets the handler run in it (`getTransaction(req)`), holds the response until
 * the record is written and the transaction committed, and only then sends it.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import {
  type CapturedResponse,
  createTransactionalIdempotency,
  type TransactionalIdempotencyOptions,
} from './core.js';
import type { SqlQuery } from './sql-store.js';

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
export interface IdempotencyTransactionOptions<Tx> extends TransactionalIdempotencyOptions {
  /** Runs `work` in one transaction: commits when it resolves, rolls back when it rejects. */
  readonly transaction: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>;
  /** Runs one statement in `tx` (dialect placeholders) and resolves to its rows. */
  readonly query: (tx: Tx) => SqlQuery;
  /** Whether requests without a key are refused with 400 `idempotency_key_missing`. Default false. */
  readonly required?: boolean | ((req: Request) => boolean);
  /** The authenticated client id; keys are scoped by it. Default `'anonymous'`. */
  readonly principal?: (req: Request) => string | undefined;
  /** The route the key is scoped to. Default `req.baseUrl + req.route.path`, else the path. */
  readonly routeKey?: (req: Request) => string;
}

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

/** Thrown inside the transaction to roll it back while still sending the handler's response. */
class Rollback extends Error {
  constructor(readonly response: CapturedResponse) {
    super('idempotency: transaction rolled back');
  }
}

function routeOf(req: Request): string {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? req.baseUrl + path : req.baseUrl + req.path;
}

function hasBodyBytes(req: Request): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/**
 * Holds everything the handler sends (status, headers, bytes) instead of sending it; resolves with
 * the captured response when the handler ends it. `restore` puts the real methods back.
 */
function hold(res: Response): { ended: Promise<CapturedResponse>; restore(): void; before: Set<string> } {
  const original = { writeHead: res.writeHead, write: res.write, end: res.end };
  const before = new Set(res.getHeaderNames());
  const chunks: Buffer[] = [];
  const record = (chunk: unknown, encoding: unknown) => {
    // `encoding` may be the callback (`write(chunk, cb)`): only a string names an encoding.
    if (typeof chunk === 'string')
      chunks.push(Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'));
    else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
  };
  let done: (response: CapturedResponse) => void = () => {};
  const ended = new Promise<CapturedResponse>((resolve) => {
    done = resolve;
  });
  res.writeHead = ((status: number, ...rest: unknown[]) => {
    res.statusCode = status;
    const headers = typeof rest[0] === 'string' ? rest[1] : rest[0];
    if (headers && typeof headers === 'object' && !Array.isArray(headers)) {
      for (const [name, value] of Object.entries(headers))
        if (value !== undefined) res.setHeader(name, value);
    }
    return res;
  }) as Response['writeHead'];
  res.write = ((chunk: unknown, encoding?: unknown) => {
    record(chunk, encoding);
    return true;
  }) as Response['write'];
  res.end = ((chunk?: unknown, encoding?: unknown) => {
    if (typeof chunk !== 'function') record(chunk, encoding);
    done({ status: res.statusCode, headers: res.getHeaders(), body: Buffer.concat(chunks) });
    return res;
  }) as Response['end'];
  return { ended, before, restore: () => Object.assign(res, original) };
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
  const required = options.required ?? false;
  const isRequired = typeof required === 'function' ? required : () => required;
  const principal = options.principal ?? (() => undefined);
  const routeKey = options.routeKey ?? routeOf;

  return (req: Request, res: Response, next: NextFunction) => {
    if (req.body === undefined && hasBodyBytes(req)) {
      next(new Error('idempotencyTransaction() must be mounted after a body parser'));
      return;
    }
    const url = req.originalUrl ?? req.url;
    const at = url.indexOf('?');
    let prepared: ReturnType<typeof core.prepare>;
    try {
      const who = principal(req);
      prepared = core.prepare({
        method: req.method,
        path: at === -1 ? url : url.slice(0, at),
        query: at === -1 ? '' : url.slice(at + 1),
        route: routeKey(req),
        headers: req.headers,
        body: hasBodyBytes(req) ? req.body : undefined,
        required: isRequired(req),
        ...(who !== undefined ? { principal: who } : {}),
      });
    } catch (error) {
      next(error);
      return;
    }
    if (prepared === undefined) {
      next();
      return;
    }
    const key = prepared;
    let held: ReturnType<typeof hold> | undefined;
    options
      .transaction(async (tx) => {
        const query = options.query(tx);
        const claim = await core.claim(query, key);
        if (claim.action === 'replay') return { replay: claim.response };
        held = hold(res);
        (req as WithTransaction)[TRANSACTION] = tx;
        next();
        const response = await held.ended;
        if ((await core.complete(query, key, response)) === 'rollback') throw new Rollback(response);
        return { send: response };
      })
      .then(
        (result) => {
          held?.restore();
          (req as WithTransaction)[TRANSACTION] = undefined;
          if ('replay' in result) {
            const replay = result.replay;
            res.statusCode = replay.status;
            for (const [name, value] of core.replayHeaders(replay)) res.appendHeader(name, value);
            res.end(replay.status === 204 || replay.status === 304 ? undefined : replay.body);
          } else {
            res.end(result.send.body);
          }
        },
        (error: unknown) => {
          held?.restore();
          (req as WithTransaction)[TRANSACTION] = undefined;
          if (error instanceof Rollback) {
            res.end(error.response.body);
            return;
          }
          // The commit (or the record's write) failed after the handler answered: that answer is
          // void. Drop the headers it set, and let the error handler answer instead.
          if (held)
            for (const name of res.getHeaderNames()) if (!held.before.has(name)) res.removeHeader(name);
          next(error);
        },
      );
  };
}
