/**
 * A complete answer as plain values, for the routes whose answer does not depend on negotiation:
 * a wiring sets `headers` in their order, then sends `status` and `body` as they are. `Content-Type`
 * is always given in full (with its charset), so no framework has to guess it.
 */

/** Status, headers and body of one answer. */
export interface PlainReply {
  readonly status: number;
  /** Set in this order; `Content-Type` included. */
  readonly headers: Readonly<Record<string, string>>;
  /** Text (UTF-8) or bytes. */
  readonly body: string | Uint8Array;
}
