/**
 * @plumbline/auth/issuer: access-token signing, the public JWKS, refresh-token rotation with
 * families, and an RFC 6749 token endpoint core (`client_credentials`, `refresh_token`).
 *
 * @packageDocumentation
 */
export {
  type AccessTokenRequest,
  type AccessTokenReservation,
  createIssuer,
  generateRefreshToken,
  hashRefreshToken,
  type IssuedAccessToken,
  type Issuer,
  type IssuerOptions,
  type SigningKey,
} from './create-issuer.js';
export {
  type AccessTokenRef,
  MemoryRefreshTokenStore,
  RedisRefreshTokenStore,
  type RefreshGrant,
  type RefreshTokenStore,
  type RevokeFamilyResult,
  type RotateOptions,
  type RotateResult,
} from './refresh-store.js';
export {
  createRevocationEndpoint,
  createTokenEndpoint,
  type OAuthClient,
  type RevocationEndpointOptions,
  type TokenEndpoint,
  type TokenEndpointOptions,
  type TokenRequest,
  type TokenResponse,
} from './token-endpoint.js';
