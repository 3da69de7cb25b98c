import { describe, expect, it } from 'vitest';

// Guards the public API: adding or removing an export must be a deliberate, reviewed change.
describe('public exports', () => {
  it('@plumbline/auth', async () => {
    expect(Object.keys(await import('./index.js')).sort()).toEqual([
      'DEFAULT_ALGORITHMS',
      'DEFAULT_QUERY_CREDENTIALS',
      'DEFAULT_REDACTED_PARAMETERS',
      'DEFAULT_SESSION_COOKIE',
      'KeySetUnavailableError',
      'MAX_SESSION_COOKIE_BYTES',
      'MemoryApiKeyStore',
      'MemoryRevocationStore',
      'RedisRevocationStore',
      'SessionRejectedError',
      'assertScopes',
      'authError',
      'closeSession',
      'createAuthenticator',
      'createJwtVerifier',
      'createSessionCookie',
      'createSessionSealer',
      'defaultScopesForAccess',
      'extractCredentials',
      'formatBearerChallenge',
      'generateApiKey',
      'hasScopes',
      'hashApiKey',
      'isKeySetUnavailable',
      'isLoopback',
      'isSecureRequest',
      'isWellFormedApiKey',
      'openSession',
      'redactQuery',
      'redactUrl',
      'sanitizeDescription',
      'scopesFromClaims',
      'verifyApiKey',
    ]);
  });

  it('@plumbline/auth/issuer', async () => {
    expect(Object.keys(await import('./issuer.js')).sort()).toEqual([
      'MemoryRefreshTokenStore',
      'RedisRefreshTokenStore',
      'createIssuer',
      'createRevocationEndpoint',
      'createTokenEndpoint',
      'generateRefreshToken',
      'hashRefreshToken',
    ]);
  });

  it('@plumbline/auth/express', async () => {
    expect(Object.keys(await import('./express.js')).sort()).toEqual([
      'authenticate',
      'closeSessionEndpoint',
      'getPrincipal',
      'openSessionEndpoint',
      'requireHttps',
      'requireScopes',
      'revocationEndpoint',
      'tokenEndpoint',
    ]);
  });
});
