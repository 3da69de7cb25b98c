/**
 * A response as kept for replay: status, the safe headers (name/value pairs, names lower-case)
 * and the exact body bytes.
 *
 * @example
 * ```ts
 * const stored: StoredResponse = { status: 201, headers: [['location', '/orders/7']], body: new Uint8Array() };
 * ```
 */
export interface StoredResponse {
  readonly status: number;
  readonly headers: readonly (readonly [string, string])[];
  readonly body: Uint8Array;
}

/**
 * What {@link IdempotencyStore.claim} asks for: the request fingerprint, a fresh fencing token and
 * the lease length.
 *
 * @example
 * ```ts
 * const request: ClaimRequest = { fingerprint: 'ab12…', token: randomUUID(), leaseMs: 60_000 };
 * ```
 */
export interface ClaimRequest {
  readonly fingerprint: string;
  readonly token: string;
  readonly leaseMs: number;
}

/**
 * The outcome of a claim: `new` (the caller holds the lease under its token and runs the
 * operation), `in_flight` (another request holds a live lease), `completed` (the stored response)
 * or `mismatch` (the key was used with a different request fingerprint).
 *
 * @example
 * ```ts
 * const result: ClaimResult = { state: 'in_flight', retryAfterMs: 800 };
 * ```
 */
export type ClaimResult =
  | { readonly state: 'new'; readonly token: string }
  | { readonly state: 'in_flight'; readonly retryAfterMs: number }
  | { readonly state: 'completed'; readonly response: StoredResponse }
  | { readonly state: 'mismatch' };

/**
 * Where idempotency records live. Every method is one atomic step; `complete` and `release` only
 * act when the record is still in flight under `token` (fencing), so a request whose lease expired
 * and was taken over can never overwrite or delete the newer claim. A store that cannot reach its
 * backend rejects; the caller then fails closed.
 *
 * @example
 * ```ts
 * const store: IdempotencyStore = createMemoryStore();
 * const claim = await store.claim('k', { fingerprint: 'f', token: 't', leaseMs: 60_000 });
 * ```
 */
export interface IdempotencyStore {
  /** Atomically creates an in-flight record (or takes over an expired lease) or reports what is there. */
  claim(key: string, request: ClaimRequest): Promise<ClaimResult>;
  /** Stores the response for `retentionMs` if `token` still holds the lease; true when stored. */
  complete(key: string, token: string, response: StoredResponse, retentionMs: number): Promise<boolean>;
  /** Deletes the in-flight record if `token` still holds the lease; true when released. */
  release(key: string, token: string): Promise<boolean>;
}
