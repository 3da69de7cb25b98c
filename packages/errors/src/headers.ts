/**
 * Header values every adapter writes the same way, whatever the framework: `Vary` merging and
 * the request id.
 */

/**
 * Adds `names` (a comma-separated list) to an existing `Vary` value: members already present (in
 * any case) are not repeated, and `*` absorbs everything (RFC 9110 section 12.5.5).
 *
 * @example
 * ```ts
 * mergeVary('Origin', 'Accept, Accept-Language'); // 'Origin, Accept, Accept-Language'
 * mergeVary('accept', 'Accept'); // 'accept'
 * mergeVary(undefined, 'Accept'); // 'Accept'
 * ```
 */
export function mergeVary(existing: string | undefined, names: string): string {
  const current = (existing ?? '')
    .split(',')
    .map((member) => member.trim())
    .filter((member) => member !== '');
  if (current.includes('*')) return '*';
  const seen = new Set(current.map((member) => member.toLowerCase()));
  for (const raw of names.split(',')) {
    const name = raw.trim();
    if (name === '') continue;
    if (name === '*') return '*';
    if (seen.has(name.toLowerCase())) continue;
    seen.add(name.toLowerCase());
    current.push(name);
  }
  return current.join(', ');
}

/**
 * Options for {@link createRequestIdSource} and every adapter's `requestId`.
 *
 * @example
 * ```ts
 * const options: RequestIdOptions = { header: 'X-Correlation-Id' };
 * ```
 */
export interface RequestIdOptions {
  /** Header read from the request and echoed on the response. Default `X-Request-Id`. */
  readonly header?: string;
  /** Accept a sane incoming id (1–128 of `A-Z a-z 0-9 . _ : @ + = / -`). Default true. */
  readonly trustIncoming?: boolean;
  /**
   * Id generator. Default: a random UUID (version 4) from Web Crypto, like `crypto.randomUUID()`,
   * drawn 64 at a time (so it runs on Node, Bun, Deno and Workers).
   */
  readonly generate?: () => string;
}

/**
 * A configured request id rule: `header` is the name to echo, `lowerHeader` the name to read and
 * `idFor(incoming)` the id to use.
 *
 * @example
 * ```ts
 * const source: RequestIdSource = createRequestIdSource();
 * ```
 */
export interface RequestIdSource {
  readonly header: string;
  readonly lowerHeader: string;
  /** The id for a request whose header held `incoming` (a string, an array of lines or nothing). */
  idFor(incoming: unknown): string;
}

const SANE_REQUEST_ID = /^[A-Za-z0-9._:@+=/-]{1,128}$/;

// Random UUIDs (version 4, RFC 9562), the same ids as `crypto.randomUUID()` from the same source
// (Web Crypto's CSPRNG, 122 random bits each), made BATCH at a time: one `getRandomValues` call
// fills the bytes and one string holds the batch's ids, so an id is one slice of it. Nothing is
// reused: every id is cut from bytes drawn for it alone.
const BATCH = 64;
const HEX_DIGITS = Array.from('0123456789abcdef', (digit) => digit.charCodeAt(0));
const randomBytes = new Uint8Array(16 * BATCH);
const idChars = new Uint8Array(36 * BATCH);
let idBatch = '';
let idsLeft = 0;

function refillIds(): void {
  globalThis.crypto.getRandomValues(randomBytes);
  let at = 0;
  for (let byte = 0; byte < randomBytes.length; byte++) {
    const index = byte % 16;
    if (index === 4 || index === 6 || index === 8 || index === 10) idChars[at++] = 0x2d; // -
    let value = randomBytes[byte]!;
    if (index === 6)
      value = (value & 0x0f) | 0x40; // version 4
    else if (index === 8) value = (value & 0x3f) | 0x80; // variant 10
    idChars[at++] = HEX_DIGITS[value >> 4]!;
    idChars[at++] = HEX_DIGITS[value & 0x0f]!;
  }
  idBatch = String.fromCharCode.apply(null, idChars as unknown as number[]);
  idsLeft = BATCH;
}

// The default request id: a fresh random UUID (version 4), lower-case hex like crypto.randomUUID().
function randomRequestId(): string {
  if (idsLeft === 0) refillIds();
  const start = 36 * (BATCH - idsLeft--);
  return idBatch.slice(start, start + 36);
}

/**
 * The request id rule every adapter shares: a sane incoming id (1–128 of
 * `A-Z a-z 0-9 . _ : @ + = / -`) is kept, anything else (absent, too long, spaces, markup) is
 * replaced by a fresh UUID.
 *
 * @example
 * ```ts
 * const ids = createRequestIdSource();
 * ids.idFor('abc-123'); // 'abc-123'
 * ids.idFor('<script>'); // a fresh UUID
 * ```
 */
export function createRequestIdSource(options: RequestIdOptions = {}): RequestIdSource {
  const header = options.header ?? 'X-Request-Id';
  const trustIncoming = options.trustIncoming ?? true;
  const generate = options.generate ?? randomRequestId;
  return Object.freeze({
    header,
    lowerHeader: header.toLowerCase(),
    idFor: (incoming: unknown) =>
      trustIncoming && typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : generate(),
  });
}
