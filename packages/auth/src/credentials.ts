import type { HttpError } from '@plumbline/errors';
import { authError } from './challenge.js';

/**
 * Query parameters that are refused because they carry credentials (RFC 6750 2.3 is not supported).
 *
 * @example
 * ```ts
 * DEFAULT_QUERY_CREDENTIALS.includes('access_token'); // true
 * ```
 */
export const DEFAULT_QUERY_CREDENTIALS: readonly string[] = Object.freeze([
  'access_token',
  'api_key',
  'apikey',
  'token',
]);

/**
 * The credential a request carries, after the structural checks.
 *
 * @example
 * ```ts
 * const c: Credentials = { type: 'bearer', token: 'eyJ...' };
 * ```
 */
export type Credentials =
  | { readonly type: 'none' }
  | { readonly type: 'bearer'; readonly token: string }
  | { readonly type: 'api_key'; readonly key: string }
  | { readonly type: 'cookie'; readonly value: string };

/**
 * What {@link extractCredentials} reads: Node-style raw headers (name, value, name, value, ...) so
 * duplicated lines are visible, and the raw query string.
 *
 * @example
 * ```ts
 * const input: CredentialInput = { rawHeaders: ['Authorization', 'Bearer abc'], query: 'page=2' };
 * ```
 */
export interface CredentialInput {
  readonly rawHeaders: readonly string[];
  /** The query string without `?`; may be empty. */
  readonly query?: string;
  /** The request method; with a session cookie, a missing method counts as unsafe (CSRF-checked). */
  readonly method?: string;
}

/**
 * Options for {@link extractCredentials}.
 *
 * @example
 * ```ts
 * const options: ExtractCredentialsOptions = { realm: 'api', queryParameters: ['access_token', 'key'] };
 * ```
 */
export interface ExtractCredentialsOptions {
  /** Realm of the `Bearer` challenge. Default `plumbline`. */
  readonly realm?: string;
  /** Query parameter names (case-insensitive) refused as credentials. Default {@link DEFAULT_QUERY_CREDENTIALS}. */
  readonly queryParameters?: readonly string[];
  /** API key header name (case-insensitive). Default `X-API-Key`. */
  readonly apiKeyHeader?: string;
  /** Session cookie name (case-sensitive). Default: cookies are not read. */
  readonly cookieName?: string;
}

/**
 * Reads the credential from raw request headers and refuses ambiguous or unsafe requests:
 * credentials in the query (400 `credentials_in_query`), two `Authorization` lines, two API keys,
 * an API key together with a bearer token, two credentials of any kind (bearer token, API key,
 * session cookie), a session cookie sent twice, or an empty or malformed bearer token
 * (400 `invalid_request`). Schemes other than `Bearer` are ignored (another middleware may own them).
 *
 * @example
 * ```ts
 * extractCredentials({ rawHeaders: ['authorization', 'bearer  abc.def.ghi'] }); // { type: 'bearer', token: 'abc.def.ghi' }
 * ```
 */
export function extractCredentials(
  input: CredentialInput,
  options: ExtractCredentialsOptions = {},
): Credentials {
  return extractWith(input, compileCredentialOptions(options));
}

/** {@link ExtractCredentialsOptions} resolved once (by `createAuthenticator`), not per request. */
interface CompiledCredentialOptions {
  readonly realm: string;
  readonly queryNames: ReadonlySet<string>;
  readonly apiKeyHeader: string;
  readonly cookieName: string | undefined;
  /**
   * The last `Authorization` line that held a valid bearer token, and that token (the same string
   * object each time, so its hash is computed once for the verified-token cache). A line equal to it,
   * character for character, holds the same token: the scan is skipped, nothing else is.
   */
  readonly last: { line: string | undefined; token: string | undefined };
}

/** Resolves the options of {@link extractCredentials} once. */
export function compileCredentialOptions(options: ExtractCredentialsOptions = {}): CompiledCredentialOptions {
  return {
    realm: options.realm ?? 'plumbline',
    queryNames: new Set((options.queryParameters ?? DEFAULT_QUERY_CREDENTIALS).map((n) => n.toLowerCase())),
    apiKeyHeader: (options.apiKeyHeader ?? 'x-api-key').toLowerCase(),
    cookieName: options.cookieName,
    last: { line: undefined, token: undefined },
  };
}

// The hot path below scans characters instead of running regular expressions: a bearer token is
// hundreds of characters long, and the RFC 9110 credentials pattern with its lazy `(.*?)` and the
// b64token pattern cost tens of thousands of instructions per request (issue #16).

const SP = 0x20;
const HTAB = 0x09;

// RFC 9110 5.6.2 tchar, and RFC 6750 2.1 b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
const TCHAR = new Uint8Array(128);
const B64 = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const alnum = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
  TCHAR[c] = alnum || "!#$%&'*+-.^_`|~".includes(String.fromCharCode(c)) ? 1 : 0;
  B64[c] = alnum || '-._~+/'.includes(String.fromCharCode(c)) ? 1 : 0;
}

/** Whether `value` is a b64token (RFC 6750 2.1). */
function isB64Token(value: string): boolean {
  const n = value.length;
  let i = 0;
  while (i < n) {
    const c = value.charCodeAt(i);
    if (c >= 128 || B64[c] === 0) break;
    i++;
  }
  if (i === 0) return false;
  while (i < n && value.charCodeAt(i) === 0x3d) i++;
  return i === n;
}

/**
 * The value of a `Bearer` credentials line (RFC 9110 11.4: `scheme [ 1*SP value ]`, surrounding
 * SP/HTAB dropped; the scheme case-insensitive), `''` when it has none, or `undefined` for another
 * scheme or a line that is not `credentials` at all (left to another middleware).
 */
function bearerValue(line: string): string | undefined {
  const n = line.length;
  let i = 0;
  while (i < n && isBlank(line.charCodeAt(i))) i++;
  const start = i;
  while (i < n && isTchar(line.charCodeAt(i))) i++;
  // Another scheme, or a line that is not credentials: ignored, whatever follows.
  if (i - start !== 6 || !isBearer(line, start)) return undefined;
  if (i === n) return '';
  if (!isBlank(line.charCodeAt(i))) return undefined;
  let end = n;
  while (end > i && isBlank(line.charCodeAt(end - 1))) end--;
  while (i < end && isBlank(line.charCodeAt(i))) i++;
  return line.slice(i, end);
}

const isBlank = (c: number) => c === SP || c === HTAB;
const isTchar = (c: number) => c < 128 && TCHAR[c] === 1;

const BEARER = 'bearer';

function isBearer(line: string, start: number): boolean {
  for (let k = 0; k < 6; k++) {
    const c = line.charCodeAt(start + k);
    if ((c >= 65 && c <= 90 ? c + 32 : c) !== BEARER.charCodeAt(k)) return false;
  }
  return true;
}

/** `name.toLowerCase() === lower`, without allocating for ASCII names. */
function isHeader(name: string, lower: string): boolean {
  const n = name.length;
  if (n !== lower.length) return !isAscii(name) && name.toLowerCase() === lower;
  for (let i = 0; i < n; i++) {
    let c = name.charCodeAt(i);
    // Unicode case mapping can change lengths and map non-ASCII to ASCII (U+212A K to k).
    if (c >= 128) return name.toLowerCase() === lower;
    if (c >= 65 && c <= 90) c += 32;
    if (c !== lower.charCodeAt(i)) return false;
  }
  return true;
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) >= 128) return false;
  return true;
}

function invalid(realm: string, reason: string): HttpError {
  return authError(
    'invalid_request',
    { realm, error: 'invalid_request', description: reason },
    { params: { reason } },
  );
}

function inQuery(realm: string, name: string): HttpError {
  return authError(
    'credentials_in_query',
    { realm, error: 'invalid_request', description: 'credentials must not be sent in the query string' },
    { params: { parameter: name.toLowerCase() } },
  );
}

/**
 * The first query parameter (in order) whose name, decoded as `URLSearchParams` does and
 * lower-cased, is one of `names`. A query without `%`, `+` or non-ASCII characters is split by
 * hand (its names are its own substrings then); any other goes through `URLSearchParams`.
 */
function refusedParameter(query: string, names: ReadonlySet<string>): string | undefined {
  const n = query.length;
  for (let i = 0; i < n; i++) {
    const c = query.charCodeAt(i);
    if (c === 0x25 || c === 0x2b || c >= 128) {
      for (const name of new URLSearchParams(query).keys()) {
        if (names.has(name.toLowerCase())) return name;
      }
      return undefined;
    }
  }
  // URLSearchParams drops one leading `?`.
  let start = query.charCodeAt(0) === 0x3f ? 1 : 0;
  while (start <= n) {
    let amp = query.indexOf('&', start);
    if (amp < 0) amp = n;
    if (amp > start) {
      const eq = query.indexOf('=', start);
      const name = query.slice(start, eq < 0 || eq > amp ? amp : eq);
      if (names.has(name.toLowerCase())) return name;
    }
    start = amp + 1;
  }
  return undefined;
}

/** {@link extractCredentials} with its options compiled. */
export function extractWith(input: CredentialInput, options: CompiledCredentialOptions): Credentials {
  const realm = options.realm;
  const query = input.query;
  if (query) {
    const name = refusedParameter(query, options.queryNames);
    if (name !== undefined) throw inQuery(realm, name);
  }

  const apiKeyHeader = options.apiKeyHeader;
  let authorization: string | undefined;
  let apiKey: string | undefined;
  let authorizations = 0;
  let apiKeys = 0;
  let cookie: string | undefined;
  let cookies = 0;
  const cookieName = options.cookieName;
  const raw = input.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    if (isHeader(name, 'authorization')) {
      if (authorizations++ === 0) authorization = raw[i + 1]!;
    } else if (isHeader(name, apiKeyHeader)) {
      if (apiKeys++ === 0) apiKey = raw[i + 1]!;
    } else if (cookieName !== undefined && isHeader(name, 'cookie')) {
      // HTTP/2 may split cookies over several lines; every pair counts.
      for (const value of cookieValues(raw[i + 1]!, cookieName)) if (cookies++ === 0) cookie = value;
    }
  }
  if (authorizations > 1) throw invalid(realm, 'more than one Authorization header');
  if (apiKeys > 1) throw invalid(realm, 'more than one API key header');
  if (cookies > 1) throw invalid(realm, 'more than one session cookie');

  let token: string | undefined;
  const last = options.last;
  if (authorization !== undefined && authorization === last.line) token = last.token;
  else if (authorization !== undefined) {
    const value = bearerValue(authorization);
    if (value !== undefined) {
      if (value === '') throw invalid(realm, 'the bearer token is empty');
      if (!isB64Token(value)) throw invalid(realm, 'the bearer token is not a valid b64token');
      token = value;
      last.line = authorization;
      last.token = value;
    }
  }
  const key = apiKey?.trim();
  if (token !== undefined && key !== undefined)
    throw invalid(realm, 'send either an API key or a bearer token, not both');
  if (cookie !== undefined && (token !== undefined || key !== undefined))
    throw invalid(realm, 'send either a session cookie or a bearer token or API key, not both');
  if (token !== undefined) return { type: 'bearer', token };
  if (key !== undefined) {
    if (key === '') throw invalid(realm, 'the API key is empty');
    return { type: 'api_key', key };
  }
  if (cookie !== undefined) return { type: 'cookie', value: cookie };
  return { type: 'none' };
}

/** The values of every `name=value` pair named `name` in one `Cookie` line (RFC 6265 5.4). */
function cookieValues(line: string, name: string): string[] {
  const values: string[] = [];
  if (!line.includes(name)) return values;
  for (const pair of line.split(';')) {
    const eq = pair.indexOf('=');
    if (eq < 0 || pair.slice(0, eq).trim() !== name) continue;
    // An emptied cookie (a logout the browser has not applied yet) is no credential.
    const value = pair.slice(eq + 1).trim();
    if (value !== '') values.push(value);
  }
  return values;
}

/**
 * Query parameters whose values {@link redactUrl} and {@link redactQuery} hide: the refused credential
 * names plus other secrets that end up in URLs by mistake.
 *
 * @example
 * ```ts
 * DEFAULT_REDACTED_PARAMETERS.includes('client_secret'); // true
 * ```
 */
export const DEFAULT_REDACTED_PARAMETERS: readonly string[] = Object.freeze([
  ...DEFAULT_QUERY_CREDENTIALS,
  'client_secret',
  'refresh_token',
  'id_token',
  'password',
  'assertion',
  'client_assertion',
]);

/**
 * Options for {@link redactUrl} and {@link redactQuery}.
 *
 * @example
 * ```ts
 * const options: RedactOptions = { parameters: ['access_token', 'sig'], replacement: '***' };
 * ```
 */
export interface RedactOptions {
  /** Names (case-insensitive; `name[...]` forms included) whose values are hidden. Default {@link DEFAULT_REDACTED_PARAMETERS}. */
  readonly parameters?: readonly string[];
  /** What replaces a value. Default `[REDACTED]`. */
  readonly replacement?: string;
}

const REDACTED = '[REDACTED]';

function redactedNames(options: RedactOptions): (name: string) => boolean {
  const names = new Set((options.parameters ?? DEFAULT_REDACTED_PARAMETERS).map((n) => n.toLowerCase()));
  return (name) => {
    let decoded = name;
    try {
      decoded = decodeURIComponent(name.replace(/\+/g, ' '));
    } catch {
      // A malformed escape: judge the raw name.
    }
    const lower = decoded.trim().toLowerCase();
    const bracket = lower.indexOf('[');
    return names.has(lower) || (bracket > 0 && names.has(lower.slice(0, bracket)));
  };
}

/**
 * A URL (or path with query) for logs: the values of credential parameters are replaced, names and
 * everything else kept byte for byte. A refused `?access_token=...` never reaches the access log.
 *
 * @example
 * ```ts
 * redactUrl('/v2/projects?access_token=eyJ...&page=2'); // '/v2/projects?access_token=[REDACTED]&page=2'
 * ```
 */
export function redactUrl(url: string, options: RedactOptions = {}): string {
  const mark = url.indexOf('?');
  if (mark < 0) return url;
  const hash = url.indexOf('#', mark);
  const end = hash < 0 ? url.length : hash;
  const secret = redactedNames(options);
  const replacement = options.replacement ?? REDACTED;
  const query = url
    .slice(mark + 1, end)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      return secret(name) ? `${name}=${replacement}` : pair;
    })
    .join('&');
  return `${url.slice(0, mark + 1)}${query}${url.slice(end)}`;
}

/**
 * A parsed query object for logs: credential parameters' values replaced (a shallow copy; the
 * input is not changed).
 *
 * @example
 * ```ts
 * redactQuery({ api_key: 'plk_...', page: '2' }); // { api_key: '[REDACTED]', page: '2' }
 * ```
 */
export function redactQuery(
  query: Readonly<Record<string, unknown>>,
  options: RedactOptions = {},
): Record<string, unknown> {
  const secret = redactedNames(options);
  const replacement = options.replacement ?? REDACTED;
  const copy: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(query)) copy[name] = secret(name) ? replacement : value;
  return copy;
}
