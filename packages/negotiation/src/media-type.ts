/**
 * Small, allocation-light helpers for media type strings (RFC 9110 section 8.3.1). Parsing for
 * negotiation itself is `negotiator`'s job; these cover configuration, Content-Type checks and
 * the pre-processing of Accept headers that `negotiator` does not do.
 */

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const ESSENCE = new RegExp(`^${TOKEN}/${TOKEN}$`);
// A weight whose value is not an RFC 9110 qvalue followed by the end of the parameter. One
// `test()` over the header, no allocation: the common, valid header pays almost nothing.
const INVALID_WEIGHT = /;[ \t]*q[ \t]*=[ \t]*(?!(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)[ \t]*(?:[;,]|$))/i;
// RFC 9110 section 12.5.1: media-range = "*/*" / ( type "/" "*" ) / ( type "/" subtype ), then
// parameters. A `*` type with a concrete subtype (`*/json`) is not one of them.
const RANGE = new RegExp(`^[ \\t]*(?:\\*/\\*|(?!\\*/)${TOKEN}/${TOKEN})[ \\t]*(?:;|$)`);
// Anything a range can start with that is not a media range; one test() over the whole header.
const SUSPECT_RANGE = new RegExp(
  `(?:^|,)(?![ \\t]*(?:,|$))(?![ \\t]*(?:\\*/\\*|(?!\\*/)${TOKEN}/${TOKEN})[ \\t]*(?:;|,|$))`,
);

/**
 * Accept headers longer than this many characters are cut to their complete ranges within this
 * length before parsing: no real client needs more, and parsing cost grows with every range.
 *
 * @example
 * ```ts
 * if (accept.length > MAX_ACCEPT_LENGTH) log.warn('over-long Accept header truncated');
 * ```
 */
export const MAX_ACCEPT_LENGTH = 1024;

/** A parsed media type: lower-cased `type/subtype` and lower-cased parameter names. */
export interface ParsedMediaType {
  readonly essence: string;
  readonly params: Readonly<Record<string, string>>;
}

/**
 * Parses `type/subtype; name=value; ...`. Returns `undefined` for anything that is not a media
 * type: callers decide whether that is a configuration error or a client error.
 */
export function parseMediaType(value: string): ParsedMediaType | undefined {
  const [head = '', ...rest] = value.split(';');
  const essence = head.trim().toLowerCase();
  if (!ESSENCE.test(essence)) return undefined;
  const params: Record<string, string> = {};
  for (const part of rest) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim().toLowerCase();
    let raw = part.slice(eq + 1).trim();
    if (raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"')) raw = raw.slice(1, -1);
    if (name && !Object.hasOwn(params, name)) params[name] = raw;
  }
  return { essence, params };
}

/** True for `application/json` and every structured `+json` type (RFC 6839). */
export function isJsonType(essence: string): boolean {
  return essence === 'application/json' || essence.endsWith('+json');
}

/** True for `application/xml`, `text/xml` and every structured `+xml` type (RFC 7303). */
export function isXmlType(essence: string): boolean {
  return essence === 'application/xml' || essence === 'text/xml' || essence.endsWith('+xml');
}

/**
 * Cuts an over-long Accept header to {@link MAX_ACCEPT_LENGTH} characters and then drops the
 * last, possibly cut, range: `application/xml;q=0.1` cut to `application/xml` would otherwise
 * turn a weak preference into the strongest one.
 */
export function truncateAccept(header: string): string {
  if (header.length <= MAX_ACCEPT_LENGTH) return header;
  if (header.charCodeAt(MAX_ACCEPT_LENGTH) === 44 /* , */) return header.slice(0, MAX_ACCEPT_LENGTH);
  const cut = header.lastIndexOf(',', MAX_ACCEPT_LENGTH - 1);
  return cut < 0 ? '' : header.slice(0, cut);
}

/**
 * Removes ranges whose weight is not an RFC 9110 qvalue (`q=abc`, `q=2`, `q=0.5x`). `negotiator`
 * reads weights with `parseFloat`, which would rank `q=2` above `q=1` and read `q=0.5x` as 0.5;
 * an invalid range is ignored instead, the way `@plumbline/errors` treats Accept-Language.
 */
export function dropInvalidWeights(header: string): string {
  if (!INVALID_WEIGHT.test(header)) return header;
  return header
    .split(',')
    .filter((range) => !INVALID_WEIGHT.test(range))
    .join(',');
}

/**
 * Removes the elements of an Accept header that are not media ranges (RFC 9110 section 12.5.1):
 * `*\/json`, `json`, `application/`, `/xml`. Like a range with an invalid weight, an invalid range
 * is ignored and the rest negotiated; a header with nothing valid left accepts nothing (406).
 * Empty list elements are kept (the list syntax allows them). Parameter values are not looked at.
 */
export function dropInvalidRanges(header: string): string {
  if (!SUSPECT_RANGE.test(header)) return header;
  return header
    .split(',')
    .filter((range) => range.trim() === '' || RANGE.test(range))
    .join(',');
}
