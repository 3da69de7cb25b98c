// The issuer core; `issuer.ts` is the entry point that re-exports it (and keeps the token endpoint
// importing this file rather than the entry, so the two never import each other).
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { HttpError } from '@plumbline/errors';
import {
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JSONWebKeySet,
  type JWK,
  SignJWT,
} from 'jose';
import { MemoryRefreshTokenStore, type RefreshGrant, type RefreshTokenStore } from './refresh-store.js';

/**
 * A signing key: a private JWK (with `alg`), or nothing to have one generated at start-up.
 *
 * @example
 * ```ts
 * const key: SigningKey = { privateJwk: JSON.parse(process.env.SIGNING_JWK!), kid: '2026-01' };
 * ```
 */
export interface SigningKey {
  readonly privateJwk: JWK;
  /** Key id; default the RFC 7638 thumbprint. */
  readonly kid?: string;
}

/**
 * Options for {@link createIssuer}.
 *
 * @example
 * ```ts
 * const options: IssuerOptions = { issuer: 'https://api.example.com', audience: 'https://api.example.com' };
 * ```
 */
export interface IssuerOptions {
  /** `iss` of every token. */
  readonly issuer: string;
  /** Default `aud` of every token. */
  readonly audience: string | readonly string[];
  /** Signing algorithm. Default `ES256`. */
  readonly algorithm?: 'ES256' | 'ES384' | 'EdDSA' | 'RS256' | 'PS256';
  /** The key; default a fresh key pair generated for `algorithm` (tokens die with the process). */
  readonly signingKey?: SigningKey;
  /** Keys still published in the JWKS after a rotation, so older tokens keep verifying. */
  readonly additionalPublicKeys?: readonly JWK[];
  /** Access token lifetime. Default 900 s (15 minutes). */
  readonly accessTokenTtlSec?: number;
  /** Refresh token lifetime, renewed on every rotation. Default 2 592 000 s (30 days). */
  readonly refreshTokenTtlSec?: number;
  /** Refresh token families. Default an in-memory store (single process). */
  readonly refreshStore?: RefreshTokenStore;
  /** Clock, in milliseconds. Default `Date.now`. */
  readonly now?: () => number;
}

/**
 * What to put in an access token.
 *
 * @example
 * ```ts
 * const claims: AccessTokenRequest = { clientId: 'cli', scopes: ['read:projects'] };
 * ```
 */
export interface AccessTokenRequest {
  readonly clientId: string;
  /** Default: the client id (RFC 9068 2.2 for tokens without a user). */
  readonly subject?: string;
  readonly scopes: readonly string[];
  /** Overrides the issuer's default audience. */
  readonly audience?: string | readonly string[];
}

/**
 * A signed access token.
 *
 * @example
 * ```ts
 * const { accessToken, expiresIn } = await issuer.signAccessToken({ clientId: 'cli', scopes: [] });
 * ```
 */
export interface IssuedAccessToken {
  readonly accessToken: string;
  readonly expiresIn: number;
  readonly jti: string;
}

/**
 * A configured issuer.
 *
 * @example
 * ```ts
 * app.get('/.well-known/jwks.json', (_req, res) => res.json(issuer.jwks()));
 * ```
 */
export interface Issuer {
  readonly issuer: string;
  readonly audience: string | readonly string[];
  readonly algorithm: string;
  readonly kid: string;
  /** Signs an RFC 9068 access token (`typ: at+jwt`). */
  signAccessToken(request: AccessTokenRequest): Promise<IssuedAccessToken>;
  /** The public JSON Web Key Set to publish (private members never included). */
  jwks(): JSONWebKeySet;
  /** Starts a refresh token family and returns its first token. */
  issueRefreshToken(grant: RefreshGrant): Promise<string>;
  /**
   * Rotates a refresh token: returns its replacement and the family's grant. A reused token revokes
   * its family; every failure is 400 `invalid_grant`.
   */
  rotateRefreshToken(token: string, clientId: string): Promise<{ refreshToken: string; grant: RefreshGrant }>;
  /** The grant of a live, newest refresh token, without rotating it. */
  peekRefreshToken(token: string): Promise<RefreshGrant | undefined>;
}

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;

function publicPart(jwk: JWK): JWK {
  const copy: Record<string, unknown> = { ...jwk };
  for (const member of PRIVATE_MEMBERS) delete copy[member];
  return copy as JWK;
}

/**
 * A new opaque refresh token: `plr_` + 43 base64url characters (256 random bits).
 *
 * @example
 * ```ts
 * generateRefreshToken(); // 'plr_x3...'
 * ```
 */
export function generateRefreshToken(): string {
  return `plr_${randomBytes(32).toString('base64url')}`;
}

/**
 * SHA-256 hex of a refresh token: the only form stores keep.
 *
 * @example
 * ```ts
 * hashRefreshToken('plr_abc').length; // 64
 * ```
 */
export function hashRefreshToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

const REFRESH_SHAPE = /^plr_[A-Za-z0-9_-]{43}$/;

/**
 * Creates an issuer. Asynchronous because keys are imported or generated here, once.
 *
 * @example
 * ```ts
 * const issuer = await createIssuer({ issuer: 'https://api.example.com', audience: 'https://api.example.com' });
 * const { accessToken } = await issuer.signAccessToken({ clientId: 'cli', scopes: ['read:projects'] });
 * ```
 */
export async function createIssuer(options: IssuerOptions): Promise<Issuer> {
  const algorithm = options.algorithm ?? 'ES256';
  const now = options.now ?? Date.now;
  const accessTtl = options.accessTokenTtlSec ?? 900;
  const refreshTtlMs = (options.refreshTokenTtlSec ?? 2_592_000) * 1000;
  const store = options.refreshStore ?? new MemoryRefreshTokenStore({ now });
  let privateJwk: JWK;
  if (options.signingKey) {
    privateJwk = options.signingKey.privateJwk;
  } else {
    const pair = await generateKeyPair(algorithm, { extractable: true });
    privateJwk = await exportJWK(pair.privateKey);
  }
  const publicJwk = publicPart(privateJwk);
  const kid = options.signingKey?.kid ?? privateJwk.kid ?? (await calculateJwkThumbprint(publicJwk));
  const privateKey = await importJWK({ ...privateJwk, alg: algorithm }, algorithm);
  const published: JSONWebKeySet = Object.freeze({
    keys: Object.freeze([
      Object.freeze({ ...publicJwk, kid, alg: algorithm, use: 'sig' }),
      ...(options.additionalPublicKeys ?? []).map((k) => Object.freeze(publicPart(k))),
    ]) as JWK[],
  });
  const invalidGrant = () => new HttpError('invalid_grant');

  return {
    issuer: options.issuer,
    audience: options.audience,
    algorithm,
    kid,
    async signAccessToken(request) {
      const iat = Math.floor(now() / 1000);
      const jti = randomUUID();
      const audience = request.audience ?? options.audience;
      const accessToken = await new SignJWT({ client_id: request.clientId, scope: request.scopes.join(' ') })
        .setProtectedHeader({ alg: algorithm, typ: 'at+jwt', kid })
        .setIssuer(options.issuer)
        .setAudience(typeof audience === 'string' ? audience : [...audience])
        .setSubject(request.subject ?? request.clientId)
        .setIssuedAt(iat)
        .setExpirationTime(iat + accessTtl)
        .setJti(jti)
        .sign(privateKey);
      return { accessToken, expiresIn: accessTtl, jti };
    },
    jwks() {
      return published;
    },
    async issueRefreshToken(grant) {
      const token = generateRefreshToken();
      await store.createFamily(hashRefreshToken(token), grant, refreshTtlMs);
      return token;
    },
    async peekRefreshToken(token) {
      if (!REFRESH_SHAPE.test(token)) return undefined;
      return store.find(hashRefreshToken(token));
    },
    async rotateRefreshToken(token, clientId) {
      if (!REFRESH_SHAPE.test(token)) throw invalidGrant();
      const next = generateRefreshToken();
      const result = await store.rotate(
        hashRefreshToken(token),
        hashRefreshToken(next),
        clientId,
        refreshTtlMs,
      );
      if (result.status !== 'rotated') throw invalidGrant();
      return { refreshToken: next, grant: result.grant };
    },
  };
}
