/**
 * What the Express, Fastify and Hono adapters of @plumbline/auth share, framework-free: the raw
 * query of a URL, the arguments of `requireScopes`, the realm a request was authenticated in, and
 * the form endpoints' body limit. An adapter only reads its framework's request and answers.
 */
import { assertScopes, type HasScopesOptions, type Principal } from './principal.js';

/** Largest form body the token and revocation endpoints read (16 KiB); more is 413. */
export const MAX_FORM_BYTES = 16 * 1024;

/** The raw query string of a request URL (path or absolute), without `?`; empty when there is none. */
export function queryOf(url: string): string {
  const mark = url.indexOf('?');
  return mark < 0 ? '' : url.slice(mark + 1);
}

/**
 * `requireScopes('a', 'b', { mode: 'any' })`'s check: the scope names, and the options object when
 * one is last. The check throws 401/403 as `assertScopes` does; the realm defaults to `plumbline`.
 */
export function scopeCheck(
  args: readonly (string | HasScopesOptions)[],
): (principal: Principal | undefined, realm: string | undefined) => void {
  const scopes = args.filter((a): a is string => typeof a === 'string');
  const options = args.find((a): a is HasScopesOptions => typeof a === 'object') ?? {};
  return (principal, realm) => assertScopes(principal, scopes, { ...options, realm: realm ?? 'plumbline' });
}

const REALM = Symbol.for('@plumbline/auth.realm');

/** Remembers the realm `authenticate()` used on the framework's request object, for `requireScopes`. */
export function setRealm(holder: object, realm: string): void {
  const slot = holder as Record<symbol, string | undefined>;
  // `requireScopes` reads no realm as `plumbline`: the default needs no property on the request
  // (one more property per request costs the framework's objects a shape change), unless another
  // realm is there to be replaced.
  if (realm === 'plumbline' && slot[REALM] === undefined) return;
  slot[REALM] = realm;
}

/** The realm {@link setRealm} remembered (`undefined` also for the default, `plumbline`). */
export function realmOf(holder: object): string | undefined {
  return (holder as Record<symbol, string | undefined>)[REALM];
}

/** Every `Authorization` line of Node-style raw header lines (two are refused by the endpoint core). */
export function authorizationLines(rawHeaders: readonly string[]): string[] {
  return rawHeaders.filter((_, i, raw) => i % 2 === 1 && /^authorization$/i.test(raw[i - 1]!));
}

/** What `authenticate()` leaves on a request whose framework has no typed slot for it (Express). */
export interface AuthState {
  readonly principal: Principal | undefined;
  readonly realm: string;
}

const STATE = Symbol.for('@plumbline/auth.state');

/** Leaves the authentication result on the request (one property: Express requests are costly to extend). */
function setAuthState(holder: object, state: AuthState): void {
  (holder as Record<symbol, AuthState>)[STATE] = state;
}

/** {@link setAuthState}, then `next()`: the Express adapter's success, with or without a promise. */
export function authenticated(holder: object, state: AuthState, next: () => void): void {
  setAuthState(holder, state);
  next();
}

/** What {@link setAuthState} left, if authentication ran. */
export function authStateOf(holder: object): AuthState | undefined {
  return (holder as Record<symbol, AuthState | undefined>)[STATE];
}

/** Whether the core's answer is still to come (a promise) rather than the principal itself. */
export function isPending<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | undefined)?.then === 'function';
}

/** The error `check` throws, or `undefined`: for adapters that pass failures on instead of throwing. */
export function failureOf(check: () => void): unknown {
  try {
    check();
    return undefined;
  } catch (error) {
    return error;
  }
}
