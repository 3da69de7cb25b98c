/**
 * What the Express, Fastify and Hono adapters share, framework-free: option defaults, the request
 * as the core sees it, the shape of a replay, and the transaction flow of the transactional
 * flavour. An adapter only reads its framework's request and writes its response.
 */
import { HttpError } from '@plumbline/errors';
import {
  type CapturedResponse,
  createIdempotency,
  type IdempotencyOptions,
  type IdempotentRequest,
  type PreparedIdempotentRequest,
  type TransactionalIdempotency,
} from './core.js';
import { DEFAULT_KEY_HEADERS, type HeaderValue } from './key.js';
import type { SqlQuery } from './sql-store.js';
import type { StoredResponse } from './store.js';

/**
 * The per-request choices every adapter's options offer, over the framework's request type `R`
 * (Express `Request`, `FastifyRequest`, Hono `Context`).
 *
 * @example
 * ```ts
 * const choices: IdempotencyRequestOptions<Request> = { required: true, principal: (req) => getPrincipal(req)?.clientId };
 * ```
 */
export interface IdempotencyRequestOptions<R> {
  /** Whether requests without a key are refused with 400 `idempotency_key_missing`. Default false. */
  readonly required?: boolean | ((request: R) => boolean);
  /** The authenticated client id; keys are scoped by it. Default `'anonymous'`. */
  readonly principal?: (request: R) => string | undefined;
  /**
   * The route the key is scoped to. Default the matched route pattern: `req.baseUrl + req.route.path`
   * on Express (else the path), `request.routeOptions.url` on Fastify, `routePath(c, -1)` on Hono.
   */
  readonly routeKey?: (request: R) => string;
}

/** How an adapter turns its framework's request into the core's {@link IdempotentRequest}. */
export interface RequestReader<R> {
  /** The key headers, lower-case, in order of preference. */
  readonly keyHeaders: readonly string[];
  /** `url` is the path with the query; `headers` the key headers as read. */
  read(
    request: R,
    method: string,
    url: string,
    headers: Record<string, HeaderValue>,
    body: unknown,
  ): IdempotentRequest;
}

/** The option defaults of every adapter, resolved once per middleware. */
export function requestReader<R>(
  options: IdempotencyRequestOptions<R> & { readonly headerNames?: readonly string[] | undefined },
  defaultRouteKey: (request: R) => string,
): RequestReader<R> {
  const required = options.required ?? false;
  const isRequired = typeof required === 'function' ? required : () => required;
  const principal = options.principal ?? (() => undefined);
  const routeKey = options.routeKey ?? defaultRouteKey;
  return {
    keyHeaders: (options.headerNames ?? DEFAULT_KEY_HEADERS).map((name) => name.toLowerCase()),
    read(request, method, url, headers, body) {
      const mark = url.indexOf('?');
      const who = principal(request);
      return {
        method,
        path: mark === -1 ? url : url.slice(0, mark),
        query: mark === -1 ? '' : url.slice(mark + 1),
        route: routeKey(request),
        headers,
        body,
        required: isRequired(request),
        ...(who !== undefined ? { principal: who } : {}),
      };
    },
  };
}

/** The key headers present, read with `get` (lower-case names). */
export function keyHeaderValues(
  names: readonly string[],
  get: (name: string) => HeaderValue,
): Record<string, HeaderValue> {
  const headers: Record<string, HeaderValue> = {};
  for (const name of names) {
    const value = get(name);
    if (value !== undefined) headers[name] = value;
  }
  return headers;
}

/**
 * The middleware's core and settle-time options: the state machine, the body cap and the
 * reporter of claims that failed to settle after the response went out.
 */
export function middlewareSettings<R>(
  options: IdempotencyOptions & { readonly onError?: ((error: unknown, request: R) => void) | undefined },
) {
  return {
    core: createIdempotency(options),
    maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024,
    onError:
      options.onError ??
      ((error: unknown) => console.error('[plumbline] idempotency: settling a claim failed', error)),
  };
}

/** True for methods idempotency never applies to (the adapters skip them before any work). */
export function isSafeMethod(method: string): boolean {
  return method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
}

/** The request id already on the outgoing response (set by `@plumbline/errors`), read with `get`. */
export function currentRequestId(
  header: string | false | undefined,
  get: (name: string) => unknown,
): string | undefined {
  const value = header === false ? undefined : get(header ?? 'x-request-id');
  return typeof value === 'string' ? value : undefined;
}

/** A replay ready to send: status, headers (repeated names as arrays) and body (none for 204/304 or empty). */
export interface Replay {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[]>>;
  readonly body: Uint8Array | undefined;
}

/** The stored response as the adapters send it, with the replay headers grouped by name. */
export function replayOf(response: StoredResponse, headers: readonly (readonly [string, string])[]): Replay {
  const grouped: Record<string, string | string[]> = {};
  for (const [name, value] of headers) {
    const previous = grouped[name];
    grouped[name] =
      previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value];
  }
  const { status, body } = response;
  const empty = body.byteLength === 0 || status === 204 || status === 304;
  return { status, headers: grouped, body: empty ? undefined : body };
}

/**
 * How the transactional adapters reach the caller's database: open a transaction, and run a
 * statement in it.
 *
 * @example
 * ```ts
 * const access: TransactionAccess<Db> = {
 *   transaction: (work) => db.transaction(work),
 *   query: (tx) => (sql, params) => tx.all(sql, params),
 * };
 * ```
 */
export interface TransactionAccess<Tx> {
  /** Runs `work` in one transaction: commits when it resolves, rolls back when it rejects. */
  readonly transaction: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>;
  /** Runs one statement in `tx` (dialect placeholders) and resolves to its rows. */
  readonly query: (tx: Tx) => SqlQuery;
}

/** Thrown inside the transaction to roll it back while still sending the handler's response. */
class Rollback extends Error {
  constructor(readonly response: CapturedResponse) {
    super('idempotency: transaction rolled back');
  }
}

/** What the transaction produced: a stored response to replay, or the handler's response to send. */
export type TransactionResult =
  | { readonly action: 'replay'; readonly response: StoredResponse }
  | { readonly action: 'send'; readonly response: CapturedResponse };

/**
 * Drives one request through the transactional flavour: in one transaction, take the key (or find
 * the stored response), run the handler (`execute` resolves with its whole response), store it,
 * commit. A response that must not be stored rolls back and is still sent. Rejects with 409, 422
 * or 503 from the claim, or with the failure of the commit (then the handler's answer is void).
 */
export async function runTransaction<Tx>(
  core: TransactionalIdempotency,
  access: TransactionAccess<Tx>,
  prepared: PreparedIdempotentRequest,
  execute: (tx: Tx) => Promise<CapturedResponse>,
): Promise<TransactionResult> {
  try {
    return await access.transaction(async (tx): Promise<TransactionResult> => {
      const query = access.query(tx);
      const claim = await core.claim(query, prepared);
      if (claim.action === 'replay') return claim;
      const response = await execute(tx);
      if ((await core.complete(query, prepared, response)) === 'rollback') throw new Rollback(response);
      return { action: 'send', response };
    });
  } catch (error) {
    if (error instanceof Rollback) return { action: 'send', response: error.response };
    throw error;
  }
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/**
 * A Web request's body for the fingerprint: JSON by value (reordered keys are the same request),
 * anything else by its bytes; no bytes is no body. `body` is what reads it (Hono's request keeps
 * what it read, so the handler can read it again).
 */
export async function webRequestBody(
  hasBody: boolean,
  contentType: string | undefined,
  body: { text(): Promise<string>; arrayBuffer(): Promise<ArrayBuffer> },
): Promise<unknown> {
  if (!hasBody) return undefined;
  if (!JSON_TYPE.test(contentType ?? '')) {
    const bytes = new Uint8Array(await body.arrayBuffer());
    return bytes.byteLength === 0 ? undefined : bytes;
  }
  const text = await body.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new HttpError('malformed_json', { cause });
  }
}
