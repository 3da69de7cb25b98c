/**
 * Hono adapter for the transactional store: Web-standard middleware that opens the database
 * transaction, takes the key in it, runs the handler in it (`getTransaction(c)`), and lets the
 * `Response` out only after the record is written and the transaction committed.
 */
import { sentHeaders } from '@plumbline/errors/hono';
import type { Context, MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
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
  webRequestBody,
} from './adapter.js';
import { createTransactionalIdempotency, type TransactionalIdempotencyOptions } from './core.js';
import { headerRecord } from './hono-response.js';

/**
 * Options for {@link idempotencyTransaction}: the core options, how to open a transaction and run
 * a statement in it, and how to read principal, route and whether a key is required.
 * @example
 * ```ts
 * const options: IdempotencyTransactionOptions<Db> = {
 *   store: createSqlStore({ dialect: 'postgres' }),
 *   transaction: (work) => db.transaction(work),
 *   query: (tx) => (sql, params) => tx.query(sql, params),
 * };
 * ```
 */
export interface IdempotencyTransactionOptions<Tx>
  extends TransactionalIdempotencyOptions,
    TransactionAccess<Tx>,
    IdempotencyRequestOptions<Context> {}

/** The default route key of the Hono middlewares: the matched route's path (`/orders/:id`). */
export const honoRoute = (c: Context): string => routePath(c, -1);

/** Node's raw header lines on `@hono/node-server` (`[name, value, name, value, ...]`), else undefined. */
function nodeHeaderLines(c: Context): readonly string[] | undefined {
  const raw = (c.env as { incoming?: { rawHeaders?: unknown } } | undefined)?.incoming?.rawHeaders;
  return Array.isArray(raw) ? (raw as string[]) : undefined;
}

/** The values of every line named `lowerName` (lower case), in order. */
function linesOf(lines: readonly string[], lowerName: string): string[] {
  const values: string[] = [];
  for (let i = 0; i < lines.length; i += 2) {
    const name = lines[i]!;
    if (name.length === lowerName.length && name.toLowerCase() === lowerName) values.push(lines[i + 1]!);
  }
  return values;
}

/** What both Hono middlewares read from the request: key headers, path with query, and body. */
export async function honoRequest(c: Context, keyHeaders: readonly string[]) {
  // The Fetch API joins repeated lines with ", ", which the core refuses as a list: two keys stay
  // invalid. On @hono/node-server Node's own lines are read, so two lines are reported as two lines,
  // as on Express and Fastify.
  const lines = nodeHeaderLines(c);
  const headers = keyHeaderValues(keyHeaders, (name) => {
    if (lines === undefined) return c.req.header(name);
    const found = linesOf(lines, name.toLowerCase());
    return found.length === 0 ? undefined : found.length === 1 ? found[0] : found;
  });
  const url = new URL(c.req.url);
  // Not `c.req.raw.body !== null`: on @hono/node-server that builds a whole Fetch Request (stream,
  // abort signal) just to ask. Only GET and HEAD cannot have a body; an absent one reads as empty.
  const method = c.req.method;
  const hasBody = method !== 'GET' && method !== 'HEAD';
  const body = await webRequestBody(hasBody, c.req.header('content-type'), c.req);
  return { headers, url: url.pathname + url.search, body };
}

/**
 * A replay as the context's response: the headers set so far (the retry's request id among them)
 * are kept unless the replay names them, and the replay's own win (the original request id).
 */
export function honoReplay(c: Context, replay: Replay): Response {
  // Assigning c.res merges the headers set so far into the new response; the replay's are set after.
  c.res = new Response((replay.body as Uint8Array<ArrayBuffer> | undefined) ?? null, {
    status: replay.status,
  });
  const headers = c.res.headers;
  for (const [name, value] of Object.entries(replay.headers)) {
    headers.delete(name);
    for (const item of typeof value === 'string' ? [value] : value) headers.append(name, item);
  }
  return c.res;
}

/**
 * The request id `@plumbline/errors/hono` set on the response (on Hono's or, on @hono/node-server,
 * on Node's), for the replay's headers.
 */
export const honoRequestId = (c: Context, header: string | false | undefined): string | undefined =>
  currentRequestId(header, (name) => sentHeaders(c, headerRecord(c.res.headers))[name.toLowerCase()]);

const TRANSACTION = Symbol('@plumbline/idempotency.transaction');
type Slots = Record<symbol, unknown>;

/**
 * The transaction {@link idempotencyTransaction} opened for this request; the handler writes its
 * side effect through it. Undefined when the request carries no key (then no transaction is open).
 * @example
 * ```ts
 * const tx = getTransaction<Db>(c) ?? db;
 * ```
 */
export function getTransaction<Tx>(c: Context): Tx | undefined {
  return (c as unknown as Slots)[TRANSACTION] as Tx | undefined;
}

/**
 * Middleware for exactly-once POSTs over a `SqlIdempotencyStore` (`createSqlStore()` from the
 * package root): the key is taken and the response stored in the handler's own database
 * transaction (`getTransaction(c)`), and the response is let out after the commit. A 5xx (or
 * 401/403/409/429) rolls back and is sent as it is; a failed commit is thrown for the
 * `@plumbline/errors/hono` error handler (503 when the database is away).
 * @example
 * ```ts
 * app.post('/orders', idempotencyTransaction({ store, transaction: (work) => db.transaction(work), query: (tx) => tx.query }), async (c) =>
 *   c.json(await createOrder(getTransaction(c), await c.req.json()), 201),
 * );
 * ```
 */
export function idempotencyTransaction<Tx>(options: IdempotencyTransactionOptions<Tx>): MiddlewareHandler {
  const core = createTransactionalIdempotency(options);
  const reader = requestReader(options, honoRoute);

  return async (c, next) => {
    const { headers, url, body } = await honoRequest(c, reader.keyHeaders);
    const prepared = core.prepare(reader.read(c, c.req.method, url, headers, body));
    if (prepared === undefined) return next();
    // The headers before the handler ran: a failed commit makes its answer void, headers included.
    const before = new Headers(c.res.headers);
    let result: TransactionResult;
    try {
      result = await runTransaction(core, options, prepared, async (tx) => {
        (c as unknown as Slots)[TRANSACTION] = tx;
        await next();
        const res = c.res;
        // With the headers middleware wrote to Node's response on @hono/node-server.
        const headers = sentHeaders(c, headerRecord(res.headers));
        return { status: res.status, headers, body: new Uint8Array(await res.arrayBuffer()) };
      });
    } catch (error) {
      // Unset first: Hono would merge the void answer's headers into the next response.
      c.res = undefined as unknown as Response;
      c.res = new Response(null, { headers: before });
      throw error;
    } finally {
      (c as unknown as Slots)[TRANSACTION] = undefined;
    }
    if (result.action === 'replay') {
      const id = honoRequestId(c, options.requestIdHeader);
      return honoReplay(c, replayOf(result.response, core.replayHeaders(result.response, id)));
    }
    const { status, body: bytes } = result.response;
    const empty = status === 204 || status === 304;
    c.res = new Response(empty ? null : (bytes as Uint8Array<ArrayBuffer>), {
      status,
      headers: c.res.headers,
    });
    return undefined;
  };
}
