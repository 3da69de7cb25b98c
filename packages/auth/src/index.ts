/**
 * @plumbline/auth: API keys and bearer JWTs for resource servers, on `jose`. Framework-agnostic:
 * plain values in, a {@link Principal} or an `HttpError` out.
 *
 * @packageDocumentation
 */
export {
  type ApiKeyAccess,
  type ApiKeyOptions,
  type ApiKeyRecord,
  type ApiKeyStore,
  defaultScopesForAccess,
  generateApiKey,
  hashApiKey,
  isWellFormedApiKey,
  MemoryApiKeyStore,
  verifyApiKey,
} from './api-keys.js';
export {
  type AuthenticateCookieOptions,
  type AuthenticateOptions,
  type Authenticator,
  createAuthenticator,
} from './authenticate.js';
export {
  authError,
  type BearerChallenge,
  type BearerErrorCode,
  formatBearerChallenge,
  sanitizeDescription,
} from './challenge.js';
export {
  type CredentialInput,
  type Credentials,
  DEFAULT_QUERY_CREDENTIALS,
  DEFAULT_REDACTED_PARAMETERS,
  type ExtractCredentialsOptions,
  extractCredentials,
  type RedactOptions,
  redactQuery,
  redactUrl,
} from './credentials.js';
export type { CsrfOptions } from './csrf.js';
export {
  isLoopback,
  isSecureRequest,
  type RequireHttpsOptions,
  type SecureRequestInput,
  type TrustProxy,
} from './https.js';
export {
  createJwtVerifier,
  DEFAULT_ALGORITHMS,
  type JwtVerifier,
  type JwtVerifierOptions,
  type RemoteJwksOptions,
  type TrustedIssuer,
} from './jwt.js';
export {
  type AssertScopesOptions,
  assertScopes,
  type HasScopesOptions,
  hasScopes,
  type Principal,
  scopesFromClaims,
} from './principal.js';
export { isKeySetUnavailable, type KeySetErrorEvent, KeySetUnavailableError } from './remote-jwks.js';
export {
  MemoryRevocationStore,
  type RedisClient,
  RedisRevocationStore,
  type RedisStoreOptions,
  type RedisTransaction,
  type RevocationStore,
} from './revocation.js';
export {
  createSessionCookie,
  createSessionSealer,
  DEFAULT_SESSION_COOKIE,
  MAX_SESSION_COOKIE_BYTES,
  type SealedSession,
  type SessionClaims,
  type SessionCookie,
  type SessionCookieOptions,
  type SessionInput,
  type SessionKey,
  SessionRejectedError,
  type SessionRejectionReason,
  type SessionSealer,
  type SessionSealerOptions,
} from './session-cookie.js';
export { closeSession, openSession, type SessionEndpointOptions } from './session-endpoint.js';
