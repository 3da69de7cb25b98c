/**
 * The JSON request body as `express.json({ strict: true, inflate: false })` reads it, without a
 * framework: which requests it reads (body-parser's rules), what it refuses before reading (415,
 * 413), and how it turns the bytes into a value (UTF-8, strict JSON, 400). The Fastify and Hono
 * adapters read the bytes; everything they answer is decided here.
 */
import { HttpError } from '@plumbline/errors';
import { parseMediaType } from './media-type.js';
import { compiledFor, matches } from './request-body.js';

/**
 * The largest JSON body by default, in bytes: 1 MiB, the conventions' limit (8 (3)). express.json's
 * own default is `'100kb'`; pass `limit: '1mb'` there to get the same answers.
 *
 * @example
 * ```ts
 * jsonBody({ limit: DEFAULT_JSON_BODY_LIMIT / 4 }); // 256 KiB
 * ```
 */
export const DEFAULT_JSON_BODY_LIMIT = 1_048_576;

/**
 * Options of {@link createJsonBodyReader} and of the Fastify and Hono JSON body adapters.
 *
 * @example
 * ```ts
 * const options: JsonBodyOptions = {
 *   types: ['application/merge-patch+json', 'application/json'],
 *   limit: 65_536,
 * };
 * ```
 */
export interface JsonBodyOptions {
  /**
   * The media types read as JSON, as `requireContentType` takes them: exact (`application/json`),
   * `type/*`, `*\/*` or a structured-suffix wildcard (`application/*+json`). A body of any other
   * type is left unread (express.json's `type`). Default `['application/json']`.
   */
  readonly types?: readonly string[];
  /** The largest body in bytes, as received: 413 `payload_too_large` beyond it. Default {@link DEFAULT_JSON_BODY_LIMIT}. */
  readonly limit?: number;
  /**
   * What an empty body (no bytes, or a byte order mark alone) reads as: `'object'`, `{}`, as
   * express.json reads it (default), or `'none'`, `undefined`, as if there were no body (for a
   * schema that requires one to refuse it).
   */
  readonly emptyBody?: 'object' | 'none';
}

/**
 * The request headers {@link JsonBodyReader.start} decides on, as sent (`undefined` when absent).
 *
 * @example
 * ```ts
 * const headers: JsonBodyHeaders = {
 *   contentType: 'application/json', contentLength: '12', transferEncoding: undefined, contentEncoding: undefined,
 * };
 * ```
 */
export interface JsonBodyHeaders {
  readonly contentType: string | undefined;
  readonly contentLength: string | undefined;
  readonly transferEncoding: string | undefined;
  readonly contentEncoding: string | undefined;
}

/**
 * What to do with a request, decided from its headers before any byte is read:
 * - `skip`: no body (no `Transfer-Encoding`, no numeric `Content-Length`), no `Content-Type`, or a
 *   type outside `types`: leave the body unread, the request has no JSON body (`undefined`);
 * - `read`: read the body, counting bytes ({@link JsonBodyReader.limit}), then {@link JsonBodyReader.parse};
 * - `refuse`: answer `error` (415 for a charset other than UTF-8 or a content coding, 413 for a
 *   declared `Content-Length` over the limit); when `drain` is true, read the body to its end and
 *   drop it first, as body-parser does, so the client sees the answer rather than a reset.
 *
 * @example
 * ```ts
 * const start: JsonBodyStart = { action: 'refuse', error: new HttpError('unsupported_media_type'), drain: false };
 * ```
 */
export type JsonBodyStart =
  | { readonly action: 'skip' }
  | { readonly action: 'read' }
  | { readonly action: 'refuse'; readonly error: HttpError; readonly drain: boolean };

/**
 * The outcome of {@link JsonBodyReader.read}: no JSON body (`read: false`, the body was left
 * unread), or the value and the bytes it was read from.
 *
 * @example
 * ```ts
 * const result: JsonBodyResult = { read: true, value: { name: 'Dam' }, bytes: new TextEncoder().encode('{"name":"Dam"}') };
 * ```
 */
export type JsonBodyResult =
  | { readonly read: false }
  | { readonly read: true; readonly value: unknown; readonly bytes: Uint8Array };

/**
 * A JSON body reader for one set of options (see {@link createJsonBodyReader}).
 *
 * @example
 * ```ts
 * const reader: JsonBodyReader = createJsonBodyReader({ limit: 65_536 });
 * reader.limit; // 65536
 * ```
 */
export interface JsonBodyReader {
  /** The limit in bytes. */
  readonly limit: number;
  /** Decides from the headers whether the body is read, left unread or refused. Never throws. */
  start(headers: JsonBodyHeaders): JsonBodyStart;
  /**
   * The value of a body's bytes: UTF-8 (one leading byte order mark dropped, an invalid sequence
   * read as U+FFFD), then an object or an array after JSON whitespace, parsed by `JSON.parse`
   * (a `__proto__` member is an own property, never the prototype). Throws a 400 `malformed_json`
   * `HttpError` for anything else; an empty body reads as `emptyBody` says.
   */
  parse(bytes: Uint8Array): unknown;
  /**
   * {@link JsonBodyReader.parse} for a body already decoded from UTF-8 (a server that hands out
   * text, with the leading byte order mark dropped as `TextDecoder` drops it).
   */
  parseText(text: string): unknown;
  /** The 413 `payload_too_large` error (`params.limit`), for a body found over the limit while read. */
  tooLarge(): HttpError;
  /**
   * Reads a Fetch API `Request`'s body (Hono, Bun, Deno, Workers): `start`, then the body counted
   * as it arrives (over the limit, the rest is read and dropped, then 413), then `parse`. Throws the
   * `HttpError` to answer. A request whose `body` is `null` (a GET on most servers) has no JSON body.
   */
  read(request: Request): Promise<JsonBodyResult>;
}

const SKIP: JsonBodyStart = Object.freeze({ action: 'skip' });
const READ: JsonBodyStart = Object.freeze({ action: 'read' });
const NOT_READ: JsonBodyResult = Object.freeze({ read: false });
// What type-is (through media-typer) takes for a media type: a type it refuses is not read.
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;
// body-parser's strict check: the first character after JSON whitespace (RFC 8259 section 2).
const FIRST_NON_WHITESPACE = /^[ \t\n\r]*([^ \t\n\r]|$)/;
// Not fatal: an invalid sequence is U+FFFD, as iconv-lite decodes it for body-parser; one leading
// byte order mark is dropped, as iconv-lite does.
const UTF8 = new TextDecoder('utf-8');

/**
 * Whether a request has a body, as body-parser (type-is's `hasBody`) decides it: a
 * `Transfer-Encoding`, or a `Content-Length` that is a number (`0` included: an empty body).
 */
function hasBody(contentLength: string | undefined, transferEncoding: string | undefined): boolean {
  return (
    transferEncoding !== undefined || (contentLength !== undefined && !Number.isNaN(Number(contentLength)))
  );
}

/** Reads a stream to its end, dropping what it holds. */
async function drain(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  while (!(await reader.read()).done);
}

/**
 * A reader of JSON request bodies with express.json's answers (`strict: true`, `inflate: false`),
 * checked byte for byte against Express by this package's tests:
 *
 * | request | answer |
 * |---|---|
 * | no body, no `Content-Type`, or a type outside `types` | not read: no JSON body (`undefined`) |
 * | `charset` other than `utf-8` (an empty one is `utf-8`) | 415 `unsupported_media_type` |
 * | `Content-Encoding` other than `identity` | 415 `unsupported_media_type` |
 * | over `limit` bytes (declared or counted) | 413 `payload_too_large` with `params.limit` |
 * | empty (zero bytes, or a byte order mark alone) | `{}` (or `undefined` with `emptyBody: 'none'`) |
 * | not an object or an array after JSON whitespace, or not JSON | 400 `malformed_json` |
 *
 * Invalid types or a negative, fractional or non-number `limit` throw a `TypeError` here, at start-up.
 *
 * @example
 * ```ts
 * const reader = createJsonBodyReader({ types: ['application/json'], limit: 65_536 });
 * const result = await reader.read(request); // a Fetch API Request
 * if (result.read) console.log(result.value); // { name: 'Dam' }
 * ```
 */
export function createJsonBodyReader(options: JsonBodyOptions = {}): JsonBodyReader {
  const types = Object.freeze([...(options.types ?? ['application/json'])]);
  const rules = compiledFor(types);
  const limit = options.limit ?? DEFAULT_JSON_BODY_LIMIT;
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 0) {
    throw new TypeError(`limit must be a whole number of bytes, got ${String(limit)}`);
  }
  const empty = options.emptyBody === 'none' ? undefined : 'object';
  const tooLarge = () => new HttpError('payload_too_large', { params: { limit } });

  const start = (headers: JsonBodyHeaders): JsonBodyStart => {
    if (!hasBody(headers.contentLength, headers.transferEncoding)) return SKIP;
    const contentType = headers.contentType;
    if (contentType === undefined || contentType === '') return SKIP;
    const parsed = parseMediaType(contentType);
    if (!parsed || !MEDIA_TYPE.test(parsed.essence) || !matches(rules, parsed.essence)) return SKIP;
    // body-parser takes any `utf-*` iconv-lite knows; JSON is UTF-8 (RFC 8259 section 8.1), and
    // requireContentType refuses the others for JSON types before the body is reached.
    const charset = (parsed.params['charset'] ?? '').toLowerCase();
    if (charset !== '' && charset !== 'utf-8') {
      return { action: 'refuse', error: new HttpError('unsupported_media_type'), drain: false };
    }
    // inflate: false. A small compressed body cannot grow past the limit unseen.
    const coding = headers.contentEncoding;
    if (coding !== undefined && coding !== '' && coding.toLowerCase() !== 'identity') {
      return { action: 'refuse', error: new HttpError('unsupported_media_type'), drain: false };
    }
    if (headers.transferEncoding === undefined && Number(headers.contentLength) > limit) {
      return { action: 'refuse', error: tooLarge(), drain: true };
    }
    return READ;
  };

  const parse = (bytes: Uint8Array): unknown => parseText(UTF8.decode(bytes));
  const parseText = (text: string): unknown => {
    if (text.length === 0) return empty === undefined ? undefined : {};
    const head = text.charCodeAt(0);
    if (head !== 0x7b /* { */ && head !== 0x5b /* [ */) {
      const first = FIRST_NON_WHITESPACE.exec(text)?.[1];
      if (first !== '{' && first !== '[') throw new HttpError('malformed_json');
    }
    try {
      return JSON.parse(text);
    } catch (cause) {
      throw new HttpError('malformed_json', { cause });
    }
  };

  const read = async (request: Request): Promise<JsonBodyResult> => {
    const h = request.headers;
    const decision = start({
      contentType: h.get('content-type') ?? undefined,
      contentLength: h.get('content-length') ?? undefined,
      transferEncoding: h.get('transfer-encoding') ?? undefined,
      contentEncoding: h.get('content-encoding') ?? undefined,
    });
    if (decision.action === 'skip' || request.body === null) return NOT_READ;
    const reader = request.body.getReader();
    if (decision.action === 'refuse') {
      if (decision.drain) await drain(reader).catch(() => {});
      throw decision.error;
    }
    const chunks: Uint8Array[] = [];
    let received = 0;
    let over = false;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        received += value.byteLength;
        if (received > limit) {
          over = true;
          await drain(reader);
          break;
        }
        chunks.push(value);
      }
    } catch (cause) {
      // The client went away in the middle of the body (body-parser's `request.aborted`).
      throw new HttpError('bad_request', { cause });
    }
    if (over) throw tooLarge();
    const bytes = concat(chunks, received);
    return { read: true, value: parse(bytes), bytes };
  };

  return { limit, start, parse, parseText, tooLarge, read };
}

/** The chunks as one array (the chunk itself when there is one). */
function concat(chunks: readonly Uint8Array[], length: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
