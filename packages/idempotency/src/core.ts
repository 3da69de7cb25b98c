import { hash, randomUUID } from 'node:crypto';
import { HttpError } from '@plumbline/errors';
import { compileExclusions, fingerprintRequest } from './fingerprint.js';
import { DEFAULT_KEY_HEADERS, type HeaderValue, parseIdempotencyKey } from './key.js';
import { persist } from './persist.js';
import type { SqlIdempotencyStore, SqlQuery } from './sql-store.js';
import type { IdempotencyStore, StoredResponse } from './store.js';

/**
 * Headers replayed by default: the ones that describe the stored representation or the created
 * resource, plus the versioning headers. `Set-Cookie`, hop-by-hop headers and `Content-Length`
 * (recomputed) are never replayed.
 *
 * @example
 * ```ts
 * createIdempotency({ store, replayHeaders: [...DEFAULT_REPLAY_HEADERS, 'x-order-status'] });
 * ```
 */
export const DEFAULT_REPLAY_HEADERS: readonly string[] = Object.freeze([
  'content-type',
  'content-language',
  'content-encoding',
  'content-location',
  'location',
  'etag',
  'last-modified',
  'link',
  'api-version',
  'x-api-version',
  'api-supported-versions',
  'api-deprecated-versions',
  'deprecation',
  'sunset',
]);

const NEVER_REPLAYED = new Set([
  'set-cookie',
  'content-length',
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);
const NOT_STORED = new Set([401, 403, 409, 429]);

/**
 * The header added to every replayed response.
 *
 * @example
 * ```ts
 * const replayed = response.headers.get(REPLAYED_HEADER) === 'true';
 * ```
 */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/**
 * The header of a replay that carries the retry's own request id. A replay is the original
 * response, so its body and its `X-Request-Id` name the original request; this header names the
 * request that received the replay, so both stay traceable.
 *
 * @example
 * ```ts
 * const retryId = response.headers.get(REPLAYED_BY_HEADER); // the retry's id; X-Request-Id is the original's
 * ```
 */
export const REPLAYED_BY_HEADER = 'Replayed-By-Request-Id';

/**
 * True when a response with this status is kept for replay: 2xx, 3xx and 4xx except 401, 403, 409
 * and 429 (those depend on state that may change, so a retry must run again). 5xx is never stored.
 *
 * @example
 * ```ts
 * isStorableStatus(201); // true
 * isStorableStatus(429); // false
 * ```
 */
export function isStorableStatus(status: number): boolean {
  return status >= 200 && status < 500 && !NOT_STORED.has(status);
}

/**
 * Options for {@link createIdempotency}.
 *
 * @example
 * ```ts
 * const options: IdempotencyOptions = { store: createMemoryStore(), leaseMs: 30_000, excludeFields: ['sent_at'] };
 * ```
 */
export interface IdempotencyOptions {
  /** Where records live: {@link createMemoryStore} or {@link createRedisStore}. */
  readonly store: IdempotencyStore;
  /** Request headers carrying the key, in order of preference. Default `Idempotency-Key`, `X-Idempotency-Key`. */
  readonly headerNames?: readonly string[];
  /** How long an in-flight claim blocks others before it can be taken over (ms). Default 60 000. */
  readonly leaseMs?: number;
  /** How long a completed response is replayed (ms). Default 86 400 000 (24 h). */
  readonly retentionMs?: number;
  /** Larger response bodies are not stored and the key is released. Default 1 MiB. */
  readonly maxBodyBytes?: number;
  /** Dotted body fields left out of the fingerprint, e.g. `['sent_at', 'meta.trace_id']`. Default none. */
  readonly excludeFields?: readonly string[];
  /** Response headers kept for replay (case-insensitive). Default {@link DEFAULT_REPLAY_HEADERS}. */
  readonly replayHeaders?: readonly string[];
  /** `Retry-After` seconds on 409 `idempotency_key_in_use` and 503. Default 1. */
  readonly retryAfterSeconds?: number;
  /**
   * The request id response header (as `@plumbline/errors` sets it). It is stored with the response
   * and replayed, so a replay names the original request in its header as in its body; the retry's
   * own id goes in `Replayed-By-Request-Id`. `false`: neither. Default `X-Request-Id`.
   */
  readonly requestIdHeader?: string | false;
}

/**
 * One request as the core sees it.
 *
 * @example
 * ```ts
 * const request: IdempotentRequest = {
 *   method: 'POST', path: '/orders', query: '', route: '/orders', principal: 'client-7',
 *   headers: { 'idempotency-key': 'a1' }, body: { qty: 1 }, required: true,
 * };
 * ```
 */
export interface IdempotentRequest {
  readonly method: string;
  /** The request path without the query. */
  readonly path: string;
  /** The raw query string without `?`. Default empty. */
  readonly query?: string;
  /** The route the key is scoped to (e.g. `/orders`). Default: `path`. */
  readonly route?: string;
  /** The authenticated client id. Default `anonymous`. */
  readonly principal?: string;
  /** Request headers, lower-case names. */
  readonly headers: Readonly<Record<string, HeaderValue>>;
  /** The parsed body (JSON value), a string or bytes; absent for no body. */
  readonly body?: unknown;
  /** Whether a key is required here (missing → 400). Default false. */
  readonly required?: boolean;
}

/**
 * A response the operation produced, to be stored: status, headers as sent and the body bytes.
 *
 * @example
 * ```ts
 * const response: CapturedResponse = { status: 201, headers: { location: '/orders/7' }, body: Buffer.from('{}') };
 * ```
 */
export interface CapturedResponse {
  readonly status: number;
  /** Header names in any case; several values as an array. */
  readonly headers: Readonly<Record<string, string | number | readonly string[] | undefined>>;
  readonly body: Uint8Array;
  /** True when the body was cut at the size cap (the key is then released). */
  readonly truncated?: boolean;
}

/**
 * The claim a new request holds: finish it with exactly one of `complete` or `release`.
 * `complete` stores the response when it may be stored and releases the key otherwise. A call that
 * rejects (the store failed) left the claim open: it may be called again until the lease ends (the
 * fencing token makes a repeat of a write that did land a no-op). A call while another is pending,
 * or after one succeeded, throws.
 *
 * @example
 * ```ts
 * const outcome = await claim.complete({ status: 201, headers: {}, body: bytes }); // 'stored'
 * ```
 */
export interface Claim {
  /** The store key (a hash of principal, method, route and client key). */
  readonly key: string;
  readonly token: string;
  /** When the lease ends (epoch ms, by this process's clock): after it a retry may take the key over. */
  readonly leaseEndsAt: number;
  /** `stored`, `released` (not storable), or `fenced` (the lease was lost; nothing written). */
  complete(response: CapturedResponse): Promise<'stored' | 'released' | 'fenced'>;
  /** Deletes the claim so a retry runs again; false when the lease was already lost. */
  release(): Promise<boolean>;
}

/**
 * What to do with a request: `proceed` (no idempotency applies: safe method, or no key where none
 * is required), `replay` (send the stored response), or `execute` (run the operation, then settle
 * the claim). Errors (400, 409, 422, 503) are thrown as `HttpError`s.
 *
 * @example
 * ```ts
 * const decision: Decision = { action: 'proceed' };
 * ```
 */
export type Decision =
  | { readonly action: 'proceed' }
  | { readonly action: 'replay'; readonly response: StoredResponse }
  | { readonly action: 'execute'; readonly claim: Claim };

/**
 * The idempotency state machine bound to its options.
 *
 * @example
 * ```ts
 * const idem: Idempotency = createIdempotency({ store: createMemoryStore() });
 * ```
 */
export interface Idempotency {
  /** Decides what to do with a request and, for a new key, claims it. */
  begin(request: IdempotentRequest): Promise<Decision>;
  /**
   * The headers of a replay: the stored safe headers (the original request id among them) plus
   * `Idempotent-Replayed: true`, and `Replayed-By-Request-Id` when the retry's id is given.
   */
  replayHeaders(response: StoredResponse, requestId?: string): readonly (readonly [string, string])[];
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a positive number`);
  return value;
}

/**
 * The store key for a request: a SHA-256 over principal, method, route and client key, so one
 * client can never see another's response, nor one route another's.
 *
 * @example
 * ```ts
 * lookupKey({ principal: 'anonymous', method: 'POST', route: '/orders', key: 'a1' }); // 64 hex chars
 * ```
 */
export function lookupKey(parts: {
  readonly principal: string;
  readonly method: string;
  readonly route: string;
  readonly key: string;
}): string {
  return hash(
    'sha256',
    JSON.stringify([parts.principal, parts.method.toUpperCase(), parts.route, parts.key]),
    'hex',
  );
}

/** A request idempotency applies to: its store key and its fingerprint. */
interface PreparedRequest {
  readonly key: string;
  readonly fingerprint: string;
}

/** The options every flavour shares, validated once, and the pieces built from them. */
function shared(options: Omit<IdempotencyOptions, 'store'>) {
  const headerNames = (options.headerNames ?? DEFAULT_KEY_HEADERS).map((name) => name.toLowerCase());
  if (headerNames.length === 0) throw new TypeError('headerNames must name at least one header');
  const retentionMs = positive('retentionMs', options.retentionMs ?? 24 * 60 * 60 * 1000);
  const maxBodyBytes = positive('maxBodyBytes', options.maxBodyBytes ?? 1024 * 1024);
  const exclusions = compileExclusions(options.excludeFields ?? []);
  const retryAfter = String(positive('retryAfterSeconds', options.retryAfterSeconds ?? 1));
  const replayable = new Set(
    (options.replayHeaders ?? DEFAULT_REPLAY_HEADERS).map((name) => name.toLowerCase()),
  );
  for (const name of replayable) {
    if (NEVER_REPLAYED.has(name)) throw new TypeError(`replayHeaders: "${name}" must never be replayed`);
  }
  const requestIdHeader = options.requestIdHeader ?? 'x-request-id';
  // The original's id is kept with the response: a replay names the original in header and body alike.
  if (requestIdHeader !== false) replayable.add(requestIdHeader.toLowerCase());
  const missingHeader = options.headerNames?.[0] ?? DEFAULT_KEY_HEADERS[0]!;

  const unavailable = (cause: unknown) =>
    new HttpError('service_unavailable', { headers: { 'Retry-After': retryAfter }, cause });

  const toStored = (response: CapturedResponse): StoredResponse => {
    const headers: [string, string][] = [];
    const captured = response.headers;
    for (const name in captured) {
      if (!Object.hasOwn(captured, name)) continue;
      const value = captured[name];
      // Node's getHeaders() names are lower-case already; lower-case only the rest.
      let lower = name;
      if (!replayable.has(lower)) {
        lower = name.toLowerCase();
        if (lower === name || !replayable.has(lower)) continue;
      }
      if (value === undefined) continue;
      if (Array.isArray(value)) for (const item of value) headers.push([lower, String(item)]);
      else headers.push([lower, String(value)]);
    }
    // 204 and 304 have no body by definition, whatever the handler passed.
    const empty = response.status === 204 || response.status === 304;
    return { status: response.status, headers, body: empty ? new Uint8Array(0) : response.body };
  };

  const prepare = (request: IdempotentRequest): PreparedRequest | undefined => {
    const method = request.method.toUpperCase();
    if (SAFE_METHODS.has(method)) return undefined;
    const clientKey = parseIdempotencyKey(request.headers, headerNames);
    if (clientKey === undefined) {
      if (!request.required) return undefined;
      throw new HttpError('idempotency_key_missing', { params: { header: missingHeader } });
    }
    const fingerprint = fingerprintRequest(
      { method, path: request.path, query: request.query ?? '', body: request.body },
      exclusions,
    );
    const key = lookupKey({
      principal: request.principal ?? 'anonymous',
      method,
      route: request.route ?? request.path,
      key: clientKey,
    });
    return { key, fingerprint };
  };

  const replayHeaders = (
    response: StoredResponse,
    requestId?: string,
  ): readonly (readonly [string, string])[] => {
    const headers: (readonly [string, string])[] = [...response.headers, [REPLAYED_HEADER, 'true']];
    if (requestId !== undefined && requestIdHeader !== false) headers.push([REPLAYED_BY_HEADER, requestId]);
    return headers;
  };

  return { retentionMs, maxBodyBytes, retryAfter, unavailable, toStored, prepare, replayHeaders };
}

/**
 * Builds the idempotency state machine over a store ({@link https://github.com/plumbline/plumbline/blob/main/docs/conventions.md#s-4-3 | conventions 4.3},
 * {@link https://github.com/plumbline/plumbline/blob/main/docs/design.md#d-idempotency | design: idempotency key}, IETF httpapi Idempotency-Key draft). `begin` parses the key, fingerprints the request and claims the
 * key atomically; the caller then replays, or runs the operation and settles the claim. A store
 * failure throws 503 `service_unavailable` (fail closed: the operation must not run).
 *
 * @example
 * ```ts
 * const idem = createIdempotency({ store: createMemoryStore() });
 * const decision = await idem.begin({ method: 'POST', path: '/orders', headers, body, required: true });
 * if (decision.action === 'execute') {
 *   const response = await createOrder(body);
 *   await decision.claim.complete(response);
 * }
 * ```
 */
export function createIdempotency(options: IdempotencyOptions): Idempotency {
  const store = options.store;
  const leaseMs = positive('leaseMs', options.leaseMs ?? 60_000);
  const { retentionMs, maxBodyBytes, retryAfter, unavailable, toStored, prepare, replayHeaders } =
    shared(options);

  const settle = (key: string, token: string, leaseEndsAt: number): Claim => {
    // open → pending → settled; a write that rejects returns the claim to open, so it can be repeated.
    let state: 'open' | 'pending' | 'settled' = 'open';
    const step = async <T>(write: () => Promise<T>): Promise<T> => {
      if (state !== 'open')
        throw new Error(
          state === 'settled' ? 'this claim is already settled' : 'this claim is being settled',
        );
      state = 'pending';
      try {
        const result = await write();
        state = 'settled';
        return result;
      } catch (error) {
        state = 'open';
        throw error;
      }
    };
    return {
      key,
      token,
      leaseEndsAt,
      complete(response) {
        return step(async () => {
          const storable =
            isStorableStatus(response.status) &&
            !response.truncated &&
            response.body.byteLength <= maxBodyBytes;
          if (!storable) {
            await store.release(key, token);
            return 'released' as const;
          }
          return (await store.complete(key, token, toStored(response), retentionMs)) ? 'stored' : 'fenced';
        });
      },
      release() {
        return step(() => store.release(key, token));
      },
    };
  };

  return {
    async begin(request) {
      const prepared = prepare(request);
      if (prepared === undefined) return { action: 'proceed' };
      const { key, fingerprint } = prepared;
      const token = randomUUID();
      const leaseEndsAt = Date.now() + leaseMs;
      let result: Awaited<ReturnType<IdempotencyStore['claim']>>;
      try {
        result = await store.claim(key, { fingerprint, token, leaseMs });
      } catch (error) {
        // A claim that timed out may still be applied later (a frozen Redis runs its queue once it
        // thaws), leaving the key "in flight" for a whole lease. A release under the same token,
        // sent after it on the same connection, undoes exactly that claim and nothing else; it is
        // tried again while the store is down (a claim that did not land makes it a no-op).
        void persist(
          () => store.release(key, token),
          leaseEndsAt,
          () => {},
        );
        throw unavailable(error);
      }
      switch (result.state) {
        case 'new':
          return { action: 'execute', claim: settle(key, token, leaseEndsAt) };
        case 'completed':
          return { action: 'replay', response: result.response };
        case 'mismatch':
          throw new HttpError('idempotency_key_reused');
        case 'in_flight':
          throw new HttpError('idempotency_key_in_use', { headers: { 'Retry-After': retryAfter } });
      }
    },
    replayHeaders,
  };
}

/**
 * Options for {@link createTransactionalIdempotency}: the shared options over a
 * {@link SqlIdempotencyStore}. No lease: the database transaction holds the key.
 *
 * @example
 * ```ts
 * const options: TransactionalIdempotencyOptions = { store: createSqlStore({ dialect: 'postgres' }) };
 * ```
 */
export interface TransactionalIdempotencyOptions extends Omit<IdempotencyOptions, 'store' | 'leaseMs'> {
  readonly store: SqlIdempotencyStore;
}

/**
 * A request idempotency applies to, as {@link TransactionalIdempotency.prepare} returns it.
 *
 * @example
 * ```ts
 * const prepared: PreparedIdempotentRequest | undefined = idem.prepare(request);
 * ```
 */
export interface PreparedIdempotentRequest {
  /** The store key (a hash of principal, method, route and client key). */
  readonly key: string;
  readonly fingerprint: string;
}

/**
 * What {@link TransactionalIdempotency.complete} did: `stored` (commit), `not_stored` (commit; the
 * body was over `maxBodyBytes`, so a retry runs again), or `rollback` (a 5xx, or 401/403/409/429:
 * roll the transaction back and send the response as it is).
 *
 * @example
 * ```ts
 * const outcome: TransactionalOutcome = 'stored';
 * ```
 */
export type TransactionalOutcome = 'stored' | 'not_stored' | 'rollback';

/**
 * Idempotency inside the handler's own database transaction ("atomic phases"): the key is taken
 * and the response stored in the transaction that makes the side effect, so a crash commits both
 * or neither, and the response may only be sent after the commit.
 *
 * @example
 * ```ts
 * const idem: TransactionalIdempotency = createTransactionalIdempotency({ store: createSqlStore({ dialect: 'sqlite' }) });
 * ```
 */
export interface TransactionalIdempotency {
  /** Parses the key and fingerprints the request (no I/O); undefined when idempotency does not apply. Throws 400. */
  prepare(request: IdempotentRequest): PreparedIdempotentRequest | undefined;
  /** In the transaction: takes the key. Resolves to replay or execute; throws 409, 422 or 503. */
  claim(
    query: SqlQuery,
    prepared: PreparedIdempotentRequest,
  ): Promise<
    { readonly action: 'replay'; readonly response: StoredResponse } | { readonly action: 'execute' }
  >;
  /** In the same transaction, before commit: stores the response when it may be stored. */
  complete(
    query: SqlQuery,
    prepared: PreparedIdempotentRequest,
    response: CapturedResponse,
  ): Promise<TransactionalOutcome>;
  /** The headers of a replay, as {@link Idempotency.replayHeaders}. */
  replayHeaders(response: StoredResponse, requestId?: string): readonly (readonly [string, string])[];
}

/**
 * Builds idempotency over a {@link SqlIdempotencyStore} that runs inside the caller's transaction.
 * The caller opens the transaction, calls `claim`, runs the operation in the same transaction,
 * calls `complete`, commits (or rolls back on `rollback` or an error) and only then sends the
 * response. A crash before the commit leaves neither the side effect nor the key: the retry runs
 * once. A concurrent request with the same key gets 409 at once (PostgreSQL) or waits for the write
 * lock (SQLite); once the first commits, it is replayed.
 *
 * @example
 * ```ts
 * const idem = createTransactionalIdempotency({ store: createSqlStore({ dialect: 'postgres' }) });
 * const prepared = idem.prepare(request);
 * const response = await db.transaction(async (tx) => {
 *   const claim = await idem.claim(tx.query, prepared);
 *   if (claim.action === 'replay') return claim.response;
 *   const created = await createOrder(tx, body);
 *   await idem.complete(tx.query, prepared, created);
 *   return created;
 * });
 * ```
 */
export function createTransactionalIdempotency(
  options: TransactionalIdempotencyOptions,
): TransactionalIdempotency {
  const store = options.store;
  const { retentionMs, maxBodyBytes, retryAfter, unavailable, toStored, prepare, replayHeaders } =
    shared(options);
  return {
    prepare,
    async claim(query, { key, fingerprint }) {
      let result: Awaited<ReturnType<SqlIdempotencyStore['claim']>>;
      try {
        result = await store.claim(query, key, fingerprint);
      } catch (error) {
        // The database's own errors (already mapped by the caller's driver layer) pass through.
        throw error instanceof HttpError ? error : unavailable(error);
      }
      switch (result.state) {
        case 'new':
          return { action: 'execute' };
        case 'completed':
          return { action: 'replay', response: result.response };
        case 'mismatch':
          throw new HttpError('idempotency_key_reused');
        case 'in_flight':
          throw new HttpError('idempotency_key_in_use', { headers: { 'Retry-After': retryAfter } });
      }
    },
    async complete(query, { key, fingerprint }, response) {
      if (!isStorableStatus(response.status)) return 'rollback';
      if (response.truncated || response.body.byteLength > maxBodyBytes) return 'not_stored';
      await store.save(query, key, fingerprint, toStored(response), retentionMs);
      return 'stored';
    },
    replayHeaders,
  };
}
