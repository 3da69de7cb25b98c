import { HttpError } from '@plumbline/errors';

/**
 * The CSRF rule applied to requests authenticated by the session cookie (see
 * {@link AuthenticateCookieOptions}). Bearer tokens and API keys are never sent by a browser on its
 * own, so they are not checked.
 *
 * @example
 * ```ts
 * const csrf: CsrfOptions = { header: 'X-Requested-With', origins: ['https://app.example.com'] };
 * ```
 */
export interface CsrfOptions {
  /**
   * The custom header an unsafe request must carry (any value). A cross-site page can only add a
   * non-CORS-safelisted header through `fetch`, which forces a CORS preflight the API does not grant;
   * an HTML form cannot add one at all. Default `X-Requested-With`.
   */
  readonly header?: string;
  /** Accept `Sec-Fetch-Site: same-site` (a sibling subdomain) besides `same-origin`. Default false. */
  readonly allowSameSite?: boolean;
  /**
   * Origins (`https://app.example.com`) accepted from browsers that send no `Sec-Fetch-Site`, judged
   * by the `Origin` header. Default none: such browsers' unsafe cookie requests are refused.
   */
  readonly origins?: readonly string[];
}

/** {@link CsrfOptions} resolved once. */
export interface CompiledCsrf {
  readonly header: string;
  readonly sites: ReadonlySet<string>;
  readonly origins: ReadonlySet<string>;
}

/** Resolves {@link CsrfOptions}; a malformed origin or header name throws a TypeError. */
export function compileCsrf(options: CsrfOptions = {}): CompiledCsrf {
  const header = (options.header ?? 'x-requested-with').toLowerCase();
  if (!/^[!#$%&'*+\-.^_`|~0-9a-z]+$/.test(header))
    throw new TypeError(`csrf.header ${header} is not a header name`);
  const origins = new Set<string>();
  for (const origin of options.origins ?? []) {
    let parsed: URL;
    try {
      parsed = new URL(origin);
    } catch {
      throw new TypeError(`csrf.origins: ${origin} is not an origin`);
    }
    if (parsed.origin === 'null' || parsed.origin !== origin.replace(/\/$/, '')) {
      throw new TypeError(`csrf.origins: ${origin} is not an origin (scheme://host[:port])`);
    }
    origins.add(parsed.origin);
  }
  return {
    header,
    sites: new Set(options.allowSameSite ? ['same-origin', 'same-site'] : ['same-origin']),
    origins,
  };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Whether `method` may change state: everything but GET, HEAD and OPTIONS (an unknown or missing
 * method counts as unsafe).
 */
export function isUnsafeMethod(method: string | undefined): boolean {
  return method === undefined || !SAFE_METHODS.has(method.toUpperCase());
}

function rejected(reason: string): HttpError {
  return new HttpError('csrf_rejected', { status: 403, params: { reason } });
}

/**
 * Throws 403 `csrf_rejected` unless the request (a) comes from an accepted site: `Sec-Fetch-Site`
 * is `same-origin` (or `same-site` when allowed), or, without `Sec-Fetch-Site`, `Origin` is listed;
 * and (b) carries the custom header.
 */
export function checkCsrf(rawHeaders: readonly string[], csrf: CompiledCsrf): void {
  const site: string[] = [];
  const origin: string[] = [];
  let custom = false;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    if (name === 'sec-fetch-site') site.push(rawHeaders[i + 1]!.trim().toLowerCase());
    else if (name === 'origin') origin.push(rawHeaders[i + 1]!.trim());
    else if (name === csrf.header) custom = true;
  }
  if (site.length > 1 || origin.length > 1) throw rejected('repeated Sec-Fetch-Site or Origin header');
  if (site.length === 1) {
    if (!csrf.sites.has(site[0]!)) throw rejected('Sec-Fetch-Site is not an accepted site');
  } else if (origin.length === 0) {
    throw rejected('neither Sec-Fetch-Site nor Origin was sent');
  } else if (!csrf.origins.has(origin[0]!)) {
    throw rejected('the Origin is not accepted');
  }
  if (!custom) throw rejected(`the ${csrf.header} header is missing`);
}
