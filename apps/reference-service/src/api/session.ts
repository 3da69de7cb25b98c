/**
 * The same-site session cookie's endpoints (`SESSION_KEYS`), framework-neutral: each wiring mounts
 * `POST /session` behind `authenticate({ jwt })` (a bearer token this service's verifier accepts) and
 * `DELETE /session` behind `authenticate({ cookie })` (the cookie, CSRF-checked), then answers 204
 * with the `Set-Cookie` value these return.
 */
import type { Principal, RevocationStore, SessionCookie, SessionSealer } from '@plumbline/auth';
import { HttpError } from '@plumbline/errors';

/** What the session endpoints need: the sealer, the cookie writer and the verifier's revocation list. */
export interface SessionEndpoints {
  readonly sealer: SessionSealer;
  readonly cookie: SessionCookie;
  readonly revocation: RevocationStore;
}

/** Sessions last an hour at most, and never past the token they were made from. */
const MAX_SESSION_SEC = 3600;

/**
 * `POST /session`: seals the bearer token's subject, client and scopes into a new session (its own
 * `jti`, `exp` no later than the token's) and returns the `Set-Cookie` value.
 */
export async function openSession(endpoints: SessionEndpoints, principal: Principal): Promise<string> {
  const tokenExp = principal.claims?.exp;
  const remaining = typeof tokenExp === 'number' ? tokenExp - Math.ceil(Date.now() / 1000) : 0;
  // A token inside the verifier's clock tolerance past its exp has nothing left to give a session.
  if (remaining < 1) throw new HttpError('unauthorized');
  const sealed = await endpoints.sealer.seal({
    subject: principal.subject ?? principal.clientId,
    clientId: principal.clientId,
    scopes: principal.scopes,
    lifetimeSec: Math.min(MAX_SESSION_SEC, remaining),
  });
  return endpoints.cookie.serialize(sealed);
}

/** `DELETE /session`: revokes the cookie's `jti` until its `exp` and returns the clearing `Set-Cookie` value. */
export async function closeSession(endpoints: SessionEndpoints, principal: Principal): Promise<string> {
  const { jti, exp } = (principal.claims ?? {}) as { jti?: unknown; exp?: unknown };
  if (typeof jti !== 'string' || typeof exp !== 'number') throw new HttpError('unauthorized');
  await endpoints.revocation.revoke(jti, exp);
  return endpoints.cookie.clear();
}
