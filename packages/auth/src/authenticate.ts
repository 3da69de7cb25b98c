import { HttpError } from '@plumbline/errors';
import { type ApiKeyOptions, verifyApiKey } from './api-keys.js';
import { authError } from './challenge.js';
import { type CredentialInput, compileCredentialOptions, extractWith } from './credentials.js';
import { type CsrfOptions, checkCsrf, compileCsrf, isUnsafeMethod } from './csrf.js';
import { createJwtVerifier, fastVerify, type JwtVerifier, type JwtVerifierOptions } from './jwt.js';
import type { Principal } from './principal.js';
import type { RevocationStore } from './revocation.js';
import {
  checkCookieName,
  DEFAULT_SESSION_COOKIE,
  type SessionClaims,
  SessionRejectedError,
  type SessionSealer,
} from './session-cookie.js';

/**
 * The `cookie` option of {@link AuthenticateOptions}: a sealed session cookie as a credential.
 *
 * @example
 * ```ts
 * const cookie: AuthenticateCookieOptions = { sealer, revocation, csrf: { origins: ['https://app.example.com'] } };
 * ```
 */
export interface AuthenticateCookieOptions {
  /** Opens the cookie (see `createSessionSealer`). */
  readonly sealer: SessionSealer;
  /** The `jti` revocation list logout writes to; share it with the JWT verifier. Consulted on every request. */
  readonly revocation: RevocationStore;
  /** Cookie name, as given to `createSessionCookie`. Default `__Host-session`. */
  readonly name?: string;
  /** Accept a name without the `__Host-`/`__Secure-` prefix (see `createSessionCookie`). Default false. */
  readonly allowInsecureName?: boolean;
  /** The CSRF rule for unsafe methods (everything but GET, HEAD, OPTIONS) on cookie-authenticated requests. */
  readonly csrf?: CsrfOptions;
}

/**
 * Options for {@link createAuthenticator} (and the Express `authenticate()`).
 *
 * @example
 * ```ts
 * const options: AuthenticateOptions = { apiKeys: { store }, jwt: { issuers: [trusted] } };
 * ```
 */
export interface AuthenticateOptions {
  /** Accept `X-API-Key`. Without it an API key header counts as no credential. */
  readonly apiKeys?: Omit<ApiKeyOptions, 'realm'>;
  /**
   * Accept a sealed session cookie: 401 `unauthorized` when it cannot be opened, is expired or
   * revoked; 403 `csrf_rejected` on an unsafe method without the CSRF proofs; 400 when it comes
   * together with a bearer token or an API key.
   */
  readonly cookie?: AuthenticateCookieOptions;
  /** Accept bearer JWTs: verifier options, or a verifier shared with other routes. */
  readonly jwt?: JwtVerifierOptions | JwtVerifier;
  /** A request without credentials passes with no principal (invalid credentials still fail). Default false. */
  readonly optional?: boolean;
  /** Realm of every `Bearer` challenge. Default `plumbline`. */
  readonly realm?: string;
  /** Query parameters refused as credentials. Default `access_token`, `api_key`, `apikey`, `token`. */
  readonly queryParameters?: readonly string[];
  /** API key header. Default `X-API-Key`. */
  readonly apiKeyHeader?: string;
}

/**
 * A configured authenticator.
 *
 * @example
 * ```ts
 * const principal = await authenticator.authenticate({ rawHeaders, query });
 * ```
 */
export interface Authenticator {
  /** The principal, `undefined` for an anonymous request when `optional`, or a thrown HttpError. */
  authenticate(input: CredentialInput): Promise<Principal | undefined>;
  readonly realm: string;
}

function isVerifier(value: JwtVerifierOptions | JwtVerifier): value is JwtVerifier {
  return typeof (value as JwtVerifier).verify === 'function';
}

/**
 * What the adapters call: {@link Authenticator.authenticate}, but the principal comes back
 * synchronously when nothing had to be awaited (a verified-token cache hit without a revocation
 * list, an anonymous optional request). Failures come back as a rejected promise, never thrown.
 */
export interface AuthenticatorCore extends Authenticator {
  resolve(input: CredentialInput): Principal | undefined | Promise<Principal | undefined>;
}

/**
 * Combines credential extraction, API keys, bearer JWTs and a sealed session cookie into one check.
 * Any one mechanism authenticates; a request carrying two is refused with 400.
 *
 * @example
 * ```ts
 * const authenticator = createAuthenticator({ apiKeys: { store }, jwt: { issuers: [trusted] } });
 * const principal = await authenticator.authenticate({ rawHeaders: ['X-API-Key', key] });
 * ```
 */
export function createAuthenticator(options: AuthenticateOptions): Authenticator {
  const { realm, authenticate } = createAuthenticatorCore(options);
  return { realm, authenticate };
}

/** {@link createAuthenticator} for the adapters, with the synchronous {@link AuthenticatorCore.resolve}. */
export function createAuthenticatorCore(options: AuthenticateOptions): AuthenticatorCore {
  if (options.apiKeys === undefined && options.jwt === undefined && options.cookie === undefined) {
    throw new TypeError('configure apiKeys, jwt, cookie or several');
  }
  const cookie = options.cookie;
  const cookieName =
    cookie === undefined
      ? undefined
      : checkCookieName(cookie.name ?? DEFAULT_SESSION_COOKIE, cookie.allowInsecureName === true);
  const csrf = cookie === undefined ? undefined : compileCsrf(cookie.csrf);
  const realm = options.realm ?? 'plumbline';
  const extractOptions = compileCredentialOptions({
    realm,
    ...(options.queryParameters ? { queryParameters: options.queryParameters } : {}),
    ...(options.apiKeyHeader ? { apiKeyHeader: options.apiKeyHeader } : {}),
    ...(cookieName !== undefined ? { cookieName } : {}),
  });
  const verify =
    options.jwt === undefined
      ? undefined
      : fastVerify(isVerifier(options.jwt) ? options.jwt : createJwtVerifier({ realm, ...options.jwt }));
  const apiKeys = options.apiKeys === undefined ? undefined : { ...options.apiKeys, realm };
  const optional = options.optional ?? false;

  function resolve(input: CredentialInput): Principal | undefined | Promise<Principal | undefined> {
    try {
      return settle(input);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  function settle(input: CredentialInput): Principal | undefined | Promise<Principal | undefined> {
    const credentials = extractWith(input, extractOptions);
    if (credentials.type === 'bearer' && verify !== undefined) return verify(credentials.token);
    if (credentials.type === 'api_key' && apiKeys !== undefined)
      return verifyApiKey(credentials.key, apiKeys);
    if (credentials.type === 'cookie' && cookie !== undefined) {
      // CSRF first: a forged cross-site request is refused before any decryption.
      if (isUnsafeMethod(input.method)) checkCsrf(input.rawHeaders, csrf!);
      return fromCookie(credentials.value, cookie);
    }
    if (credentials.type === 'bearer') {
      // A bearer token on a route that only takes API keys: not a usable credential (RFC 6750 3.1).
      throw authError('invalid_token', {
        realm,
        error: 'invalid_token',
        description: 'Bearer tokens are not accepted here',
      });
    }
    if (optional) return undefined;
    throw authError('unauthorized', { realm });
  }

  // No bearer token was sent, so no RFC 6750 error code: the bare challenge, as for an API key.
  const rejectCookie = (reason: string, cause?: unknown) =>
    authError(
      'unauthorized',
      { realm },
      { detail: 'The session is not valid or has ended; sign in again.', params: { reason }, cause },
    );

  async function fromCookie(
    value: string,
    { sealer, revocation }: AuthenticateCookieOptions,
  ): Promise<Principal> {
    let claims: SessionClaims;
    try {
      claims = await sealer.open(value);
    } catch (cause) {
      if (cause instanceof SessionRejectedError) throw rejectCookie(cause.reason, cause);
      throw cause;
    }
    let revoked: boolean;
    try {
      revoked = await revocation.isRevoked(claims.jti);
    } catch (cause) {
      throw cause instanceof HttpError ? cause : new HttpError('service_unavailable', { cause });
    }
    if (revoked) throw rejectCookie('revoked');
    return Object.freeze({
      type: 'session',
      clientId: claims.client_id,
      subject: claims.sub,
      scopes: Object.freeze(claims.scope.split(' ').filter((s) => s !== '')),
      claims: Object.freeze({ ...claims }),
    });
  }

  return {
    realm,
    resolve,
    async authenticate(input) {
      return resolve(input);
    },
  };
}
