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

/** `Content-Type` of a JSON body, as every framework on the service writes it. */
export const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * A 200 JSON answer of `data`, after `headers`.
 *
 * @example
 * ```ts
 * jsonReply({ status: 'ok' }); // { status: 200, headers: { 'Content-Type': JSON_TYPE }, body: '{"status":"ok"}' }
 * ```
 */
export function jsonReply(data: unknown, headers: Readonly<Record<string, string>> = {}): PlainReply {
  return { status: 200, headers: { ...headers, 'Content-Type': JSON_TYPE }, body: JSON.stringify(data) };
}
