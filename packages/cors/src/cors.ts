import { mergeVary } from '@plumbline/errors';

/**
 * Which origins may read the API's responses:
 * - `'*'`: every origin (public data; not allowed with `credentials: true`);
 * - an origin exactly as browsers send it (`'https://app.example.com'`: scheme, host and a
 *   non-default port, lower case, no path, no trailing slash), or `'null'` to allow the opaque origin;
 * - a `RegExp` that must match the whole origin (it is anchored for you: `^(?:pattern)$`);
 * - a function deciding per origin (it is never called for `'null'`);
 * - or a list of strings and patterns.
 *
 * @example
 * ```ts
 * const origins: OriginRule = ['https://app.example.com', /https:\/\/[a-z0-9-]+\.preview\.example\.com/];
 * ```
 */
export type OriginRule = '*' | string | RegExp | readonly (string | RegExp)[] | ((origin: string) => boolean);

/**
 * A list option that is either replaced (an array) or derived from the defaults (a function).
 *
 * @example
 * ```ts
 * const expose: HeaderList = (defaults) => [...defaults, 'X-Total-Count'];
 * ```
 */
export type HeaderList = readonly string[] | ((defaults: readonly string[]) => readonly string[]);

/**
 * Options of {@link createCors}.
 *
 * @example
 * ```ts
 * const options: CorsOptions = { origins: ['https://app.example.com'], credentials: true, versionHeader: 'API-Version' };
 * ```
 */
export interface CorsOptions {
  /** Which origins get CORS headers (see {@link OriginRule}). Required: there is no allow-all default. */
  readonly origins: OriginRule;
  /**
   * Send `Access-Control-Allow-Credentials: true`, so browsers send cookies and HTTP authentication
   * and let the page read the answer. The allowed origin is then echoed, never `*`. Default false.
   */
  readonly credentials?: boolean;
  /** Methods a preflight allows (case-sensitive, as the Fetch standard compares them). Default {@link DEFAULT_METHODS}. */
  readonly methods?: readonly string[];
  /** Request headers a preflight allows (compared case-insensitively). Default {@link DEFAULT_ALLOW_HEADERS}. */
  readonly allowHeaders?: HeaderList;
  /** Response headers the page may read (`Access-Control-Expose-Headers`). Default {@link DEFAULT_EXPOSE_HEADERS}. */
  readonly exposeHeaders?: HeaderList;
  /** The versioning header (e.g. `API-Version`): added to the allowed and to the exposed headers. */
  readonly versionHeader?: string;
  /**
   * Seconds a browser may cache a preflight's answer (`Access-Control-Max-Age`), 0 to 86400.
   * Default 600. Browsers cap it (Chromium at 7200, Firefox at 86400).
   */
  readonly maxAge?: number;
  /**
   * The methods the route at `path` takes (from your route table), or `undefined` when unknown:
   * a preflight then allows only those (among `methods`), so a browser does not send a request the
   * route would answer with 405. An empty list allows none.
   */
  readonly allowedMethods?: (path: string) => readonly string[] | undefined;
}

/**
 * What {@link Cors.decide} reads from a request: plain strings, `undefined` when a header is absent.
 *
 * @example
 * ```ts
 * const request: CorsRequest = { method: 'OPTIONS', path: '/projects/1', origin: 'https://app.example.com', accessControlRequestMethod: 'PATCH' };
 * ```
 */
export interface CorsRequest {
  readonly method: string;
  /** The path without the query, for `allowedMethods`. */
  readonly path?: string | undefined;
  /** The `Origin` request header. */
  readonly origin?: string | undefined;
  /** The `Access-Control-Request-Method` request header. */
  readonly accessControlRequestMethod?: string | undefined;
  /** The `Access-Control-Request-Headers` request header. */
  readonly accessControlRequestHeaders?: string | undefined;
}

/**
 * What to do with a request:
 * - `preflight: true`: answer now with `status` (204) and `headers`, without running the route;
 * - `preflight: false`: run the route and add `headers` to its response, whatever its status
 *   (problem responses included). `Vary` must be merged with the response's own.
 *
 * `allowed` says whether the origin was allowed (false for same-origin and non-browser requests
 * too: they carry no `Origin`). A disallowed origin gets no CORS headers and is not refused: the
 * browser keeps the answer from the page.
 *
 * @example
 * ```ts
 * const decision: CorsDecision = { preflight: false, allowed: false, headers: { Vary: 'Origin' } };
 * ```
 */
export type CorsDecision =
  | {
      readonly preflight: true;
      readonly status: 204;
      readonly allowed: boolean;
      readonly headers: Readonly<Record<string, string>>;
    }
  | {
      readonly preflight: false;
      readonly allowed: boolean;
      readonly headers: Readonly<Record<string, string>>;
    };

/**
 * A CORS policy built by {@link createCors}.
 *
 * @example
 * ```ts
 * const cors: Cors = createCors({ origins: 'https://app.example.com' });
 * cors.decide({ method: 'GET', origin: 'https://app.example.com' }).headers['Access-Control-Allow-Origin']; // 'https://app.example.com'
 * ```
 */
export interface Cors {
  /** What to do with the request (see {@link CorsDecision}). */
  decide(request: CorsRequest): CorsDecision;
  /** Whether `origin` (an `Origin` header's value) is allowed. */
  isAllowedOrigin(origin: string): boolean;
}

/**
 * The methods of the conventions: what a preflight allows unless `methods` says otherwise.
 *
 * @example
 * ```ts
 * DEFAULT_METHODS.includes('PATCH'); // true
 * ```
 */
export const DEFAULT_METHODS: readonly string[] = Object.freeze([
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
]);

/**
 * The request headers of the conventions a page may send (plus `versionHeader`): credentials,
 * bodies, idempotency keys, preconditions, request ids and the language.
 *
 * @example
 * ```ts
 * DEFAULT_ALLOW_HEADERS.includes('If-Match'); // true
 * ```
 */
export const DEFAULT_ALLOW_HEADERS: readonly string[] = Object.freeze([
  'Authorization',
  'Content-Type',
  'Idempotency-Key',
  'If-Match',
  'If-None-Match',
  'X-API-Key',
  'X-Request-Id',
  'Accept-Language',
]);

/**
 * The response headers of the conventions a page may read (plus `versionHeader`): pagination
 * links, validators, created resources, rate limits, deprecation and the supported versions,
 * language, request ids, idempotent replays, and the media types a 415 says a route accepts.
 *
 * @example
 * ```ts
 * DEFAULT_EXPOSE_HEADERS.includes('RateLimit'); // true
 * ```
 */
export const DEFAULT_EXPOSE_HEADERS: readonly string[] = Object.freeze([
  'Link',
  'ETag',
  'Location',
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'Deprecation',
  'Sunset',
  'Content-Language',
  'X-Request-Id',
  'Idempotency-Key',
  'Idempotent-Replayed',
  'API-Supported-Versions',
  'API-Deprecated-Versions',
  'Accept-Post',
  'Accept-Patch',
]);

const MAX_AGE_LIMIT = 86_400;
// A header name (RFC 9110 token).
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function list(
  option: HeaderList | undefined,
  defaults: readonly string[],
  extra: string | undefined,
): string[] {
  const base = option === undefined ? defaults : typeof option === 'function' ? option(defaults) : option;
  const names = extra === undefined ? [...base] : [...base, extra];
  const seen = new Set<string>();
  const out: string[] = [];
  for (const name of names) {
    if (!TOKEN.test(name)) throw new TypeError(`@plumbline/cors: "${name}" is not a header name`);
    if (name === '*') continue;
    const lower = name.toLowerCase();
    if (seen.has(lower)) continue;
    seen.add(lower);
    out.push(name);
  }
  return out;
}

// An origin as browsers serialize it: the URL's own origin, nothing more.
function checkOrigin(origin: string): void {
  if (origin === 'null') return;
  let serialized: string | undefined;
  try {
    serialized = new URL(origin).origin;
  } catch {
    serialized = undefined;
  }
  if (serialized !== origin) {
    const hint = serialized && serialized !== 'null' ? ` (did you mean "${serialized}"?)` : '';
    throw new TypeError(
      `@plumbline/cors: "${origin}" is not an origin as browsers send it: scheme://host[:port], lower case, no path or trailing slash${hint}`,
    );
  }
}

// The origin matcher, and whether its answer depends on the origin at all.
function originMatcher(
  rule: OriginRule,
  credentials: boolean,
): { any: boolean; match: (origin: string) => boolean } {
  if (rule === '*' || (Array.isArray(rule) && rule.includes('*'))) {
    if (credentials)
      throw new TypeError(
        "@plumbline/cors: origins '*' cannot be combined with credentials: true (browsers refuse it); list the origins instead",
      );
    if (rule !== '*' && (rule as readonly unknown[]).length > 1)
      throw new TypeError("@plumbline/cors: '*' allows every origin; do not list it with other origins");
    return { any: true, match: () => true };
  }
  if (typeof rule === 'function') {
    const allow = rule;
    return { any: false, match: (origin) => origin !== 'null' && allow(origin) === true };
  }
  const entries = (Array.isArray(rule) ? rule : [rule]) as readonly (string | RegExp)[];
  const exact = new Set<string>();
  const patterns: RegExp[] = [];
  for (const entry of entries) {
    if (typeof entry === 'string') {
      checkOrigin(entry);
      exact.add(entry);
    } else if (entry instanceof RegExp) {
      // Anchored, and without g/y, whose lastIndex would make test() stateful.
      patterns.push(new RegExp(`^(?:${entry.source})$`, entry.flags.replace(/[gy]/g, '')));
    } else {
      throw new TypeError('@plumbline/cors: origins lists strings and RegExps only');
    }
  }
  return {
    any: false,
    match: (origin) =>
      exact.has(origin) || (origin !== 'null' && patterns.some((pattern) => pattern.test(origin))),
  };
}

/**
 * Builds a CORS policy: `decide(request)` says whether a request is a preflight to answer now
 * (204) and which headers to send. Everything is checked here, once: `'*'` with
 * `credentials: true`, an origin string that is not an origin as browsers send it (a trailing
 * slash, upper case, a path), a `maxAge` outside 0 to 86400 and a header name that is not a token
 * throw a `TypeError`.
 *
 * Rules (the Fetch standard's CORS protocol):
 * - an allowed origin gets `Access-Control-Allow-Origin` (`*`, or the origin echoed),
 *   `Access-Control-Expose-Headers` and, with `credentials`, `Access-Control-Allow-Credentials: true`;
 * - a request without `Origin`, or from an origin not allowed, gets no CORS headers and is served
 *   as usual (the browser keeps the answer from the page); unless origins is `'*'` every response
 *   carries `Vary: Origin`, so a cache never hands one origin's answer to another;
 * - a preflight is `OPTIONS` with `Origin` and `Access-Control-Request-Method`; it is answered
 *   204 with `Vary: Origin, Access-Control-Request-Method, Access-Control-Request-Headers` (no
 *   `Origin` for `'*'`). For an allowed origin it adds `Access-Control-Allow-Methods` (the route's
 *   methods through `allowedMethods`), `Access-Control-Allow-Headers` (the configured list) and,
 *   when the method and every requested header are allowed, `Access-Control-Max-Age`. When they
 *   are not, the browser finds the method or header missing from the lists and fails the preflight,
 *   naming it in its console.
 *
 * @example
 * ```ts
 * const cors = createCors({ origins: ['https://app.example.com'], credentials: true });
 * const decision = cors.decide({
 *   method: 'OPTIONS',
 *   origin: 'https://app.example.com',
 *   accessControlRequestMethod: 'PATCH',
 *   accessControlRequestHeaders: 'content-type,if-match',
 * });
 * decision.preflight; // true
 * decision.headers['Access-Control-Allow-Methods']; // 'GET, HEAD, POST, PUT, PATCH, DELETE'
 * ```
 */
export function createCors(options: CorsOptions): Cors {
  const credentials = options.credentials ?? false;
  const { any, match } = originMatcher(options.origins, credentials);
  const methods = [...(options.methods ?? DEFAULT_METHODS)];
  for (const method of methods)
    if (!TOKEN.test(method)) throw new TypeError(`@plumbline/cors: "${method}" is not a method`);
  const allowHeaders = list(options.allowHeaders, DEFAULT_ALLOW_HEADERS, options.versionHeader);
  const allowedLower = new Set(allowHeaders.map((name) => name.toLowerCase()));
  const exposeHeaders = list(options.exposeHeaders, DEFAULT_EXPOSE_HEADERS, options.versionHeader);
  const maxAge = options.maxAge ?? 600;
  if (!Number.isInteger(maxAge) || maxAge < 0 || maxAge > MAX_AGE_LIMIT)
    throw new TypeError(
      `@plumbline/cors: maxAge must be a whole number of seconds from 0 to ${MAX_AGE_LIMIT}`,
    );
  const routeMethods = options.allowedMethods;

  const vary = any ? undefined : 'Origin';
  const preflightVary = mergeVary(vary, 'Access-Control-Request-Method, Access-Control-Request-Headers');
  const none: Record<string, string> = vary === undefined ? {} : { Vary: vary };
  const allowHeadersValue = allowHeaders.join(', ');
  const exposeValue = exposeHeaders.join(', ');

  const origin = (value: string): Record<string, string> => {
    const headers: Record<string, string> = { 'Access-Control-Allow-Origin': any ? '*' : value };
    if (credentials) headers['Access-Control-Allow-Credentials'] = 'true';
    return headers;
  };

  const isAllowedOrigin = (value: string) => match(value);

  return {
    isAllowedOrigin,
    decide(request) {
      const value = request.origin;
      const preflight =
        request.method === 'OPTIONS' &&
        value !== undefined &&
        request.accessControlRequestMethod !== undefined;
      const allowed = value !== undefined && match(value);
      if (!preflight) {
        if (!allowed) return { preflight: false, allowed: false, headers: none };
        const headers = origin(value);
        if (exposeValue !== '') headers['Access-Control-Expose-Headers'] = exposeValue;
        if (vary !== undefined) headers['Vary'] = vary;
        return { preflight: false, allowed: true, headers };
      }
      if (!allowed) return { preflight: true, status: 204, allowed: false, headers: { Vary: preflightVary } };
      const route = request.path === undefined ? undefined : routeMethods?.(request.path);
      const usable = route === undefined ? methods : methods.filter((method) => route.includes(method));
      const headers = origin(value);
      if (usable.length > 0) headers['Access-Control-Allow-Methods'] = usable.join(', ');
      if (allowHeadersValue !== '') headers['Access-Control-Allow-Headers'] = allowHeadersValue;
      const requested = (request.accessControlRequestHeaders ?? '')
        .split(',')
        .map((name) => name.trim().toLowerCase())
        .filter((name) => name !== '');
      const passes =
        usable.includes(request.accessControlRequestMethod!) &&
        requested.every((name) => allowedLower.has(name));
      if (passes) headers['Access-Control-Max-Age'] = String(maxAge);
      headers['Vary'] = preflightVary;
      return { preflight: true, status: 204, allowed: true, headers };
    },
  };
}
