/**
 * The session cookie's two endpoints, framework-free: opening a session from a verified bearer token
 * (`POST /session`) and closing it (`DELETE /session`). The adapters' `openSessionEndpoint` and
 * `closeSessionEndpoint` read the principal their `authenticate` set, call these and answer 204 with
 * the `Set-Cookie` value.
 */
import { HttpError } from '@plumbline/errors';
import type { Principal } from './principal.js';
import type { RevocationStore } from './revocation.js';
import type { SessionCookie, SessionSealer } from './session-cookie.js';

/**
 * Options for {@link openSession} and {@link closeSession} (and the adapters' `openSessionEndpoint`
 * and `closeSessionEndpoint`, which check them once, when they are built).
 *
 * @example
 * ```ts
 * const options: SessionEndpointOptions = { sealer, cookie: createSessionCookie(), revocation, maxLifetimeSec: 1800 };
 * ```
 */
export interface SessionEndpointOptions {
  /** Seals the new session (see `createSessionSealer`). */
  readonly sealer: SessionSealer;
  /** Writes the `Set-Cookie` values (see `createSessionCookie`). */
  readonly cookie: SessionCookie;
  /** The `jti` list closing writes to: the one `authenticate({ cookie })` (and the JWT verifier) reads. */
  readonly revocation: RevocationStore;
  /** Longest session opened, in whole seconds; never past the bearer token's `exp` either. Default 3600. */
  readonly maxLifetimeSec?: number;
}

/** Sessions last an hour at most by default, and never past the token they were made from. */
const DEFAULT_MAX_LIFETIME_SEC = 3600;

function hasMethods(value: unknown, methods: readonly string[]): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    methods.every((name) => typeof (value as Record<string, unknown>)[name] === 'function')
  );
}

/** Checks the options (a TypeError for a missing part or a bad `maxLifetimeSec`) and returns the lifetime cap. */
function checkOptions(options: SessionEndpointOptions): number {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('session endpoint: give { sealer, cookie, revocation }');
  }
  if (!hasMethods(options.sealer, ['seal'])) {
    throw new TypeError('session endpoint: sealer must be a SessionSealer (createSessionSealer)');
  }
  if (!hasMethods(options.cookie, ['serialize', 'clear'])) {
    throw new TypeError('session endpoint: cookie must be a SessionCookie (createSessionCookie)');
  }
  if (!hasMethods(options.revocation, ['revoke'])) {
    throw new TypeError('session endpoint: revocation must be a RevocationStore');
  }
  const max = options.maxLifetimeSec;
  if (max === undefined) return DEFAULT_MAX_LIFETIME_SEC;
  if (!Number.isInteger(max) || max <= 0) {
    throw new TypeError(
      `session endpoint: maxLifetimeSec must be a positive whole number of seconds, got ${max}`,
    );
  }
  return max;
}

async function seal(
  options: SessionEndpointOptions,
  maxLifetimeSec: number,
  principal: Principal | undefined,
): Promise<string> {
  const tokenExp = principal?.claims?.exp;
  const remaining = typeof tokenExp === 'number' ? tokenExp - Math.ceil(Date.now() / 1000) : 0;
  // A token inside the verifier's clock tolerance past its exp has nothing left to give a session.
  if (principal === undefined || remaining < 1) throw new HttpError('unauthorized');
  const sealed = await options.sealer.seal({
    subject: principal.subject ?? principal.clientId,
    clientId: principal.clientId,
    scopes: principal.scopes,
    lifetimeSec: Math.min(maxLifetimeSec, remaining),
  });
  return options.cookie.serialize(sealed);
}

async function end(options: SessionEndpointOptions, principal: Principal | undefined): Promise<string> {
  const { jti, exp } = (principal?.claims ?? {}) as { jti?: unknown; exp?: unknown };
  if (typeof jti !== 'string' || typeof exp !== 'number') throw new HttpError('unauthorized');
  await options.revocation.revoke(jti, exp);
  return options.cookie.clear();
}

/**
 * Opens a session (`POST /session`): seals the principal's subject (its client id when it has none),
 * client id and scopes into a new session with its own `jti`, lasting `maxLifetimeSec` at most and
 * never past the bearer token's `exp`, and returns the `Set-Cookie` value. A principal without an
 * `exp` claim (an API key, or no principal: `undefined`) or whose token has less than a second left
 * is refused with the `unauthorized` HttpError (401). Authentication is the caller's: run it behind
 * `authenticate({ jwt })`. Bad options reject with a TypeError.
 *
 * @example
 * ```ts
 * const setCookie = await openSession({ sealer, cookie, revocation }, principal);
 * // '__Host-session=eyJ...; Max-Age=3600; Path=/; HttpOnly; Secure; SameSite=Lax'
 * ```
 */
export async function openSession(
  options: SessionEndpointOptions,
  principal: Principal | undefined,
): Promise<string> {
  return seal(options, checkOptions(options), principal);
}

/**
 * Closes a session (`DELETE /session`): puts the session cookie's `jti` on the revocation list until
 * its `exp` (a copy replayed later is refused) and returns the clearing `Set-Cookie` value. A
 * principal without `jti` and `exp` claims (or no principal: `undefined`) is refused with the
 * `unauthorized` HttpError (401). Authentication is the caller's: run it behind
 * `authenticate({ cookie })`, which also applies the CSRF rule. Bad options reject with a TypeError.
 *
 * @example
 * ```ts
 * const setCookie = await closeSession({ sealer, cookie, revocation }, principal);
 * // '__Host-session=; Max-Age=0; Path=/; HttpOnly; Secure; SameSite=Lax'
 * ```
 */
export async function closeSession(
  options: SessionEndpointOptions,
  principal: Principal | undefined,
): Promise<string> {
  checkOptions(options);
  return end(options, principal);
}

/** The two operations with their options checked once (internal: what the adapters build on). */
export interface SessionEndpointCore {
  open(principal: Principal | undefined): Promise<string>;
  close(principal: Principal | undefined): Promise<string>;
}

/**
 * Checks the options now (a TypeError at start-up, not on the first request) and returns
 * {@link openSession} and {@link closeSession} bound to them. Internal to the package.
 */
export function createSessionEndpointCore(options: SessionEndpointOptions): SessionEndpointCore {
  const maxLifetimeSec = checkOptions(options);
  return {
    open: (principal) => seal(options, maxLifetimeSec, principal),
    close: (principal) => end(options, principal),
  };
}
