import { HttpError } from '@plumbline/errors';
import type { JWTPayload } from 'jose';
import { authError } from './challenge.js';

/**
 * Who made the request, the same shape for every mechanism: `api_key`, `jwt` (bearer token) or
 * `session` (a sealed session cookie, its claims in `claims`).
 *
 * @example
 * ```ts
 * const p: Principal = { type: 'jwt', clientId: 'web', subject: 'user-1', scopes: ['read:projects'], claims: {} };
 * ```
 */
export interface Principal {
  readonly type: 'api_key' | 'jwt' | 'session';
  readonly clientId: string;
  readonly subject?: string;
  readonly scopes: readonly string[];
  readonly claims?: Readonly<JWTPayload>;
}

/**
 * Options for {@link hasScopes}.
 *
 * @example
 * ```ts
 * const options: HasScopesOptions = { mode: 'any' };
 * ```
 */
export interface HasScopesOptions {
  /** `all` (default): every required scope; `any`: at least one. */
  readonly mode?: 'all' | 'any';
}

function grants(principal: Principal, required: string): boolean {
  if (principal.scopes.includes(required)) return true;
  // Only API keys carry server-assigned `<action>:*` scopes; a JWT's `*` is just a character.
  if (principal.type !== 'api_key') return false;
  const colon = required.indexOf(':');
  return colon > 0 && principal.scopes.includes(`${required.slice(0, colon)}:*`);
}

/**
 * Whether a principal holds the required scopes. Exact, case-sensitive string match: no prefixes,
 * no case folding. The one exception: an API key principal's server-assigned `read:*` / `write:*`
 * satisfies any `read:<resource>` / `write:<resource>`.
 *
 * @example
 * ```ts
 * hasScopes(principal, ['read:projects', 'write:projects']); // all required
 * hasScopes(principal, ['admin', 'write:projects'], { mode: 'any' });
 * ```
 */
export function hasScopes(
  principal: Principal,
  required: readonly string[],
  options: HasScopesOptions = {},
): boolean {
  if (required.length === 0) return true;
  return options.mode === 'any'
    ? required.some((s) => grants(principal, s))
    : required.every((s) => grants(principal, s));
}

/**
 * Options for {@link assertScopes}.
 *
 * @example
 * ```ts
 * const options: AssertScopesOptions = { realm: 'api', mode: 'all' };
 * ```
 */
export interface AssertScopesOptions extends HasScopesOptions {
  /** Realm of the `Bearer` challenge. Default `plumbline`. */
  readonly realm?: string;
}

/**
 * Throws unless the principal holds the scopes: no principal → 401 `unauthorized`; missing scope →
 * 403 `insufficient_scope`, for a JWT with `WWW-Authenticate: Bearer realm=..., error="insufficient_scope", scope="..."`,
 * for an API key or a session cookie without a challenge (`insufficient_scope` is a Bearer token error).
 *
 * @example
 * ```ts
 * assertScopes(principal, ['write:projects']);
 * ```
 */
export function assertScopes(
  principal: Principal | undefined,
  required: readonly string[],
  options: AssertScopesOptions = {},
): asserts principal is Principal {
  const realm = options.realm ?? 'plumbline';
  if (principal === undefined) throw authError('unauthorized', { realm });
  if (hasScopes(principal, required, options)) return;
  // insufficient_scope is a Bearer token error (RFC 6750 3.1); an API key or a session cookie is not
  // a bearer token, and a 403 needs no challenge, so such a caller gets none.
  if (principal.type !== 'jwt') {
    throw new HttpError('insufficient_scope', { params: { scopes: required.join(' ') } });
  }
  throw authError(
    'insufficient_scope',
    { realm, error: 'insufficient_scope', scopes: required },
    { params: { scopes: required.join(' ') } },
  );
}

/**
 * Reads scopes from JWT claims: `scope` (space-delimited string, RFC 8693/9068) or `scp` (array of
 * strings). Returns `undefined` when a claim has the wrong type, so the caller can refuse the token.
 *
 * @example
 * ```ts
 * scopesFromClaims({ scope: 'read:a write:a' }); // ['read:a', 'write:a']
 * scopesFromClaims({ scope: 42 }); // undefined
 * ```
 */
export function scopesFromClaims(claims: Readonly<Record<string, unknown>>): readonly string[] | undefined {
  const scope = claims['scope'];
  const scp = claims['scp'];
  if (scope !== undefined && typeof scope !== 'string') return undefined;
  if (scp !== undefined && (!Array.isArray(scp) || !scp.every((s) => typeof s === 'string' && s !== ''))) {
    return undefined;
  }
  const list = [
    ...(typeof scope === 'string' ? scope.split(' ') : []),
    ...((scp as string[] | undefined) ?? []),
  ];
  return [...new Set(list.filter((s) => s !== ''))];
}
