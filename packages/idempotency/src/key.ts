import { HttpError } from '@plumbline/errors';

/**
 * The longest key accepted, in characters ({@link https://github.com/plumbline/plumbline/blob/main/docs/design.md#d-idempotency | design: idempotency key}).
 *
 * @example
 * ```ts
 * const key = crypto.randomUUID(); // 36 characters, well within MAX_KEY_LENGTH
 * ```
 */
export const MAX_KEY_LENGTH = 255;

/**
 * Header values as Node exposes them: one string, the distinct lines of a repeated header, or
 * absent. Pass `req.headersDistinct[name]` where available so two header lines stay two values.
 *
 * @example
 * ```ts
 * const value: HeaderValue = ['"a"', '"b"']; // two header lines
 * ```
 */
export type HeaderValue = string | readonly string[] | undefined;

const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

// RFC 8941 section 3.1.2: parameters after an Item, `*( ";" *SP key [ "=" bare-item ] )`, where a
// bare item is an Integer, Decimal, String, Token, Byte Sequence or Boolean (sections 3.3.1-3.3.6).
const BARE_ITEM =
  '(?:-?\\d{1,12}\\.\\d{1,3}|-?\\d{1,15}|"(?:[\\x20\\x21\\x23-\\x5b\\x5d-\\x7e]|\\\\["\\\\])*"|[A-Za-z*][!#$%&\'*+\\-.^_`|~0-9A-Za-z:/]*|:[A-Za-z0-9+/]*=*:|\\?[01])';
const PARAMETERS = new RegExp(`^(?:;[ ]*[a-z*][a-z0-9_.*-]*(?:=${BARE_ITEM})?)+$`);
const OWS = /^[ \t]+|[ \t]+$/g;

function invalid(reason: string, header: string): HttpError {
  return new HttpError('idempotency_key_invalid', {
    params: { reason, header },
    errors: [{ header, code: 'idempotency_key_invalid', params: { reason } }],
  });
}

// RFC 8941 section 3.3.3: a String is DQUOTE *(unescaped / "\" ( DQUOTE / "\" )) DQUOTE.
function unquote(value: string, header: string): string {
  let out = '';
  for (let i = 1; i < value.length; i += 1) {
    const char = value.charCodeAt(i);
    if (char === 0x5c) {
      const next = value[i + 1];
      if (next !== '"' && next !== '\\') throw invalid('a backslash may only escape " or \\', header);
      out += next;
      i += 1;
    } else if (char === 0x22) {
      // Parameters are valid structured-field syntax; none is defined for this header, so they are
      // ignored (the key is the string alone), as RFC 8941 lets a recipient do with unknown ones.
      if (i !== value.length - 1 && !PARAMETERS.test(value.slice(i + 1))) {
        const rest = value.slice(i + 1).trimStart();
        throw invalid(
          rest.startsWith(',') ? 'a list of keys is not allowed' : 'text follows the quoted string',
          header,
        );
      }
      return out;
    } else if (char < 0x20 || char > 0x7e) {
      throw invalid('only visible ASCII characters are allowed', header);
    } else {
      out += value[i];
    }
  }
  throw invalid('the quoted string is not closed', header);
}

function parseOne(raw: string, header: string): string {
  const value = raw.replace(OWS, '');
  if (value === '') throw invalid('the key is empty', header);
  const key = value.startsWith('"') ? unquote(value, header) : value;
  if (!value.startsWith('"') && key.includes(',')) throw invalid('a list of keys is not allowed', header);
  if (key === '') throw invalid('the key is empty', header);
  if (key.length > MAX_KEY_LENGTH)
    throw invalid(`the key is longer than ${MAX_KEY_LENGTH} characters`, header);
  if (!VISIBLE_ASCII.test(key)) throw invalid('only visible ASCII characters are allowed', header);
  return key;
}

/**
 * Reads the idempotency key from the request headers: each configured header is parsed (an RFC
 * 8941 sf-string is unquoted, a bare token is taken as is), and the key must be 1–255 visible
 * ASCII characters. Returns `undefined` when no configured header is present. An empty or too long
 * value, control characters, a comma list, a header sent twice, or two headers with different keys
 * throw 400 `idempotency_key_invalid`.
 *
 * @param headers - request headers with lower-case names
 * @param names - header names to read, in order of preference
 * @example
 * ```ts
 * parseIdempotencyKey({ 'idempotency-key': '"8e03978e-40d5"' }, ['Idempotency-Key']); // '8e03978e-40d5'
 * parseIdempotencyKey({}, ['Idempotency-Key']); // undefined
 * ```
 */
export function parseIdempotencyKey(
  headers: Readonly<Record<string, HeaderValue>>,
  names: readonly string[] = DEFAULT_KEY_HEADERS,
): string | undefined {
  let found: { key: string; header: string } | undefined;
  for (const header of names) {
    const value = headers[header.toLowerCase()];
    if (value === undefined) continue;
    const lines = typeof value === 'string' ? [value] : value;
    if (lines.length === 0) continue;
    if (lines.length > 1) throw invalid('the header is sent more than once', header);
    const key = parseOne(lines[0]!, header);
    if (found !== undefined && found.key !== key) {
      throw invalid(`${found.header} and ${header} carry different keys`, header);
    }
    found ??= { key, header };
  }
  return found?.key;
}

/**
 * The headers read by default: the IETF httpapi draft's name first, then the `X-` spelling.
 *
 * @example
 * ```ts
 * parseIdempotencyKey(headers, DEFAULT_KEY_HEADERS);
 * ```
 */
export const DEFAULT_KEY_HEADERS: readonly string[] = Object.freeze(['Idempotency-Key', 'X-Idempotency-Key']);
