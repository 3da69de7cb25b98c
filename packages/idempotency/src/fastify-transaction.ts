/**
 * Fastify 5 adapter for the transactional store: a `preHandler` hook opens the database
 * transaction and takes the key in it; the handler runs in it (`getTransaction(request)`); an
 * `onSend` hook holds the payload until the record is written and the transaction committed.
 */
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { IdempotencyRequestOptions } from './adapter.js';
import {
  currentRequestId,
  keyHeaderValues,
  type Replay,
  replayOf,
  requestReader,
  runTransaction,
  type TransactionAccess,
  type TransactionResult,
} from './adapter.js';
import {
  type CapturedResponse,
  createTransactionalIdempotency,
  type TransactionalIdempotencyOptions,
} from './core.js';
import { nodeKeyHeader, payloadBytes } from './node-response.js';

/**
 * Options of the {@link idempotencyTransaction} plugin: the core options, how to open a
 * transaction and run a statement in it, and how to read principal, route and whether a key is
 * required from the request.
 * @example
 * ```ts
 * const options: IdempotencyTransactionPluginOptions<Db> = {
 *   store: createSqlStore({ dialect: 'postgres' }),
 *   transaction: (work) => db.transaction(work),
 *   query: (tx) => (sql, params) => tx.query(sql, params),
 * };
 * ```
 */
export interface IdempotencyTransactionPluginOptions<Tx>
  extends TransactionalIdempotencyOptions,
    TransactionAccess<Tx>,
    IdempotencyRequestOptions<FastifyRequest> {}

/** Sends a replay through Fastify (its `onSend` hooks, then the bytes as they were stored). */
export function sendFastifyReplay(reply: FastifyReply, replay: Replay): FastifyReply {
  reply.headers(replay.headers).code(replay.status);
  return replay.body === undefined ? reply.send() : reply.send(Buffer.from(replay.body));
}

/** The default route key of the Fastify plugins: the route's URL pattern (`/orders/:id`). */
export const fastifyRoute = (request: FastifyRequest): string => request.routeOptions.url ?? request.url;

const TRANSACTION = Symbol('@plumbline/idempotency.transaction');
type Slots = Record<symbol, unknown>;

/**
 * The transaction {@link idempotencyTransaction} opened for this request; the handler writes its
 * side effect through it. Undefined when the request carries no key (then no transaction is open).
 * @example
 * ```ts
 * const tx = getTransaction<Db>(request) ?? db;
 * ```
 */
export function getTransaction<Tx>(request: FastifyRequest): Tx | undefined {
  return (request as unknown as Slots)[TRANSACTION] as Tx | undefined;
}

/** A handler running in the transaction: where its response goes, the outcome, the headers before it. */
type Pending = [(response: CapturedResponse) => void, Promise<TransactionResult>, ReadonlySet<string>];

/**
 * Exactly-once POSTs over a `SqlIdempotencyStore` (`createSqlStore()` from the package root) for
 * the routes of the context it is registered in: the key is taken and the response stored in the
 * handler's own database transaction (`getTransaction(request)`), and the response is sent after
 * the commit. A 5xx (or 401/403/409/429) rolls back and is sent as it is; a failed commit is
 * answered by the `@plumbline/errors/fastify` error handler (503 when the database is away).
 * @example
 * ```ts
 * await app.register(async (orders) => {
 *   await orders.register(idempotencyTransaction({ store, transaction: (work) => db.transaction(work), query: (tx) => tx.query }));
 *   orders.post('/orders', async (request, reply) => reply.code(201).send(await createOrder(getTransaction(request), request.body)));
 * });
 * ```
 */
export function idempotencyTransaction<Tx>(
  options: IdempotencyTransactionPluginOptions<Tx>,
): FastifyPluginAsync {
  return fp(async (app) => transactionHooks(app, options), { fastify: '5.x' });
}

function transactionHooks<Tx>(app: FastifyInstance, options: IdempotencyTransactionPluginOptions<Tx>): void {
  const core = createTransactionalIdempotency(options);
  const reader = requestReader(options, fastifyRoute);
  const PENDING = Symbol('@plumbline/idempotency.pending');

  app.addHook('preHandler', async (request, reply) => {
    const headers = keyHeaderValues(reader.keyHeaders, (name) => nodeKeyHeader(request.raw, name));
    const prepared = core.prepare(reader.read(request, request.method, request.url, headers, request.body));
    if (prepared === undefined) return;
    let started = () => {};
    const running = new Promise<undefined>((resolve) => {
      started = () => resolve(undefined);
    });
    let respond: (response: CapturedResponse) => void = () => {};
    const responded = new Promise<CapturedResponse>((resolve) => {
      respond = resolve;
    });
    const result = runTransaction(core, options, prepared, (tx) => {
      (request as unknown as Slots)[TRANSACTION] = tx;
      started();
      return responded;
    });
    // Either the key is taken and the handler may run, or the claim already answered (or failed).
    const first = await Promise.race([running, result]);
    if (first?.action !== 'replay') {
      result.catch(() => {}); // awaited in onSend
      const before = new Set(Object.keys(reply.getHeaders()));
      (request as unknown as Slots)[PENDING] = [respond, result, before] satisfies Pending;
      return;
    }
    const id = currentRequestId(options.requestIdHeader, (name) => reply.getHeader(name));
    return sendFastifyReplay(reply, replayOf(first.response, core.replayHeaders(first.response, id)));
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const pending = (request as unknown as Slots)[PENDING] as Pending | undefined;
    if (pending === undefined) return payload;
    const [respond, result, before] = pending;
    (request as unknown as Slots)[PENDING] = undefined;
    const body = await payloadBytes(payload);
    respond({ status: reply.statusCode, headers: reply.getHeaders(), body });
    try {
      await result;
    } catch (error) {
      // The commit failed after the handler answered: that answer is void. Drop the headers it
      // set, and let the error handler answer instead.
      for (const name of Object.keys(reply.getHeaders())) if (!before.has(name)) reply.removeHeader(name);
      throw error;
    } finally {
      (request as unknown as Slots)[TRANSACTION] = undefined;
    }
    return body;
  });
}
