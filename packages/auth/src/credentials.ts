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
  | { readonly type: 'api_key'; readonly key: string };

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
}

// RFC 6750 2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
// RFC 9110 11.4 credentials = auth-scheme [ 1*SP ( token68 / #auth-param ) ]
const AUTHORIZATION = /^[ \t]*([!#$%&'*+.^_`|~0-9A-Za-z-]+)(?:[ \t]+(.*?))?[ \t]*$/s;

/**
 * Reads the credential from raw request headers and refuses ambiguous or unsafe requests:
 * credentials in the query (400 `credentials_in_query`), two `Authorization` lines, two API keys,
 * an API key together with a bearer token, or an empty or malformed bearer token
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
}

/** Resolves the options of {@link extractCredentials} once. */
export function compileCredentialOptions(options: ExtractCredentialsOptions = {}): CompiledCredentialOptions {
  return {
    realm: options.realm ?? 'plumbline',
    queryNames: new Set((options.queryParameters ?? DEFAULT_QUERY_CREDENTIALS).map((n) => n.toLowerCase())),
    apiKeyHeader: (options.apiKeyHeader ?? 'x-api-key').toLowerCase(),
  };
}

// Outside these characters a query string's keys are its own substrings (no `%` or `+` decoding,
// ASCII lower-casing), so a query that contains none of the names cannot carry one of them.
const NEEDS_DECODING = /[%+\u0080-\uffff]/;

function mayHoldName(query: string, names: ReadonlySet<string>): boolean {
  if (NEEDS_DECODING.test(query)) return true;
  const lower = query.toLowerCase();
  for (const name of names) if (lower.includes(name)) return true;
  return false;
}

/** {@link extractCredentials} with its options compiled. */
export function extractWith(input: CredentialInput, options: CompiledCredentialOptions): Credentials {
  const { realm, queryNames, apiKeyHeader } = options;
  const invalid = (reason: string) =>
    authError(
      'invalid_request',
      { realm, error: 'invalid_request', description: reason },
      { params: { reason } },
    );

  if (input.query && mayHoldName(input.query, queryNames)) {
    for (const name of new URLSearchParams(input.query).keys()) {
      if (queryNames.has(name.toLowerCase())) {
        throw authError(
          'credentials_in_query',
          {
            realm,
            error: 'invalid_request',
            description: 'credentials must not be sent in the query string',
          },
          { params: { parameter: name.toLowerCase() } },
        );
      }
    }
  }

  const authorizations: string[] = [];
  const apiKeys: string[] = [];
  const raw = input.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (name === 'authorization') authorizations.push(raw[i + 1]!);
    else if (name === apiKeyHeader) apiKeys.push(raw[i + 1]!);
  }
  if (authorizations.length > 1) throw invalid('more than one Authorization header');
  if (apiKeys.length > 1) throw invalid('more than one API key header');

  let token: string | undefined;
  const authorization = authorizations[0];
  if (authorization !== undefined) {
    const match = AUTHORIZATION.exec(authorization);
    if (match?.[1]?.toLowerCase() === 'bearer') {
      const value = match[2] ?? '';
      if (value === '') throw invalid('the bearer token is empty');
      if (!B64TOKEN.test(value)) throw invalid('the bearer token is not a valid b64token');
      token = value;
    }
  }
  const key = apiKeys[0]?.trim();
  if (token !== undefined && key !== undefined)
    throw invalid('send either an API key or a bearer token, not both');
  if (token !== undefined) return { type: 'bearer', token };
  if (key !== undefined) {
    if (key === '') throw invalid('the API key is empty');
    return { type: 'api_key', key };
  }
  return { type: 'none' };
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
