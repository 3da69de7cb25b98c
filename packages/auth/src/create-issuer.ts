// The issuer core; `issuer.ts` is the entry point that re-exports it (and keeps the token endpoint
// importing this file rather than the entry, so the two never import each other).
import { createCipheriv, createDecipheriv, createHash, randomBytes, randomUUID } from 'node:crypto';
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
import {
  type AccessTokenRef,
  MemoryRefreshTokenStore,
  type RefreshGrant,
  type RefreshTokenStore,
} from './refresh-store.js';
import type { RevocationStore } from './revocation.js';

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
  /**
   * The resource servers' `jti` revocation list. With it, a reused refresh token (or one revoked at
   * the revocation endpoint) also revokes every live access token issued from its family, on every
   * instance that shares the list. Give the verifier the same store.
   */
  readonly revocation?: RevocationStore;
  /**
   * Reuse grace interval: a refresh token presented again within this many seconds of its rotation,
   * for the first time, returns the same successor (a client retrying a refresh whose answer it
   * lost keeps its session). A second retry, or any older token, still revokes the family.
   * Default 0: every reuse is treated as theft.
   */
  readonly refreshReuseGraceSec?: number;
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
  /** Identity and times reserved with {@link Issuer.reserveAccessToken} (default: fresh ones). */
  readonly reservation?: AccessTokenReservation;
}

/**
 * A reserved access token identity: its `jti`, `iat` and `exp` (seconds), known before the token is
 * signed so a refresh token family can record it atomically with the rotation.
 *
 * @example
 * ```ts
 * const reservation = issuer.reserveAccessToken();
 * const { refreshToken } = await issuer.rotateRefreshToken(token, 'cli', reservation);
 * await issuer.signAccessToken({ clientId: 'cli', scopes, reservation });
 * ```
 */
export interface AccessTokenReservation extends AccessTokenRef {
  readonly iat: number;
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
  /** Access token lifetime in seconds. */
  readonly accessTokenTtlSec: number;
  /** Reserves the identity of the next access token (see {@link AccessTokenReservation}). */
  reserveAccessToken(): AccessTokenReservation;
  /** Starts a refresh token family and returns its first token; `accessToken` joins the family. */
  issueRefreshToken(grant: RefreshGrant, accessToken?: AccessTokenRef): Promise<string>;
  /**
   * Rotates a refresh token: returns its replacement and the family's grant; `accessToken` joins
   * the family. A reused token revokes its family and the family's access tokens (with
   * `revocation`); every failure is 400 `invalid_grant`.
   */
  rotateRefreshToken(
    token: string,
    clientId: string,
    accessToken?: AccessTokenRef,
  ): Promise<{ refreshToken: string; grant: RefreshGrant }>;
  /**
   * Revokes the family of a refresh token owned by `clientId`, and the family's access tokens (with
   * `revocation`). Returns false when there was nothing of that client's to revoke.
   */
  revokeRefreshToken(token: string, clientId: string): Promise<boolean>;
  /** The grant of a live, newest refresh token, without rotating it. */
  peekRefreshToken(token: string): Promise<RefreshGrant | undefined>;
}

// The successor kept for the grace interval is sealed under a key derived from the presented token:
// only a caller holding that token can open it, and the store (which keeps SHA-256 of the token, a
// different derivation) cannot.
function graceKey(token: string): Buffer {
  return createHash('sha256').update('plumbline refresh grace\0', 'utf8').update(token, 'utf8').digest();
}

function seal(successor: string, token: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', graceKey(token), iv);
  const body = Buffer.concat([cipher.update(successor, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

function unseal(sealed: string, token: string): string | undefined {
  try {
    const raw = Buffer.from(sealed, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', graceKey(token), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
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
  const revocation = options.revocation;
  const graceSec = options.refreshReuseGraceSec ?? 0;
  if (!(Number.isFinite(graceSec) && graceSec >= 0)) {
    throw new TypeError('refreshReuseGraceSec must be a number of seconds, 0 or more');
  }
  const graceMs = graceSec * 1000;
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
  const revokeAccessTokens = async (tokens: readonly AccessTokenRef[]) => {
    if (revocation === undefined) return;
    await Promise.all(tokens.map((t) => revocation.revoke(t.jti, t.exp)));
  };
  const reserve = (): AccessTokenReservation => {
    const iat = Math.floor(now() / 1000);
    return { jti: randomUUID(), iat, exp: iat + accessTtl };
  };

  return {
    issuer: options.issuer,
    audience: options.audience,
    algorithm,
    kid,
    accessTokenTtlSec: accessTtl,
    reserveAccessToken: reserve,
    async signAccessToken(request) {
      const { jti, iat, exp } = request.reservation ?? reserve();
      const audience = request.audience ?? options.audience;
      const accessToken = await new SignJWT({ client_id: request.clientId, scope: request.scopes.join(' ') })
        .setProtectedHeader({ alg: algorithm, typ: 'at+jwt', kid })
        .setIssuer(options.issuer)
        .setAudience(typeof audience === 'string' ? audience : [...audience])
        .setSubject(request.subject ?? request.clientId)
        .setIssuedAt(iat)
        .setExpirationTime(exp)
        .setJti(jti)
        .sign(privateKey);
      return { accessToken, expiresIn: exp - iat, jti };
    },
    jwks() {
      return published;
    },
    async issueRefreshToken(grant, accessToken) {
      const token = generateRefreshToken();
      await store.createFamily(hashRefreshToken(token), grant, refreshTtlMs, accessToken);
      return token;
    },
    async revokeRefreshToken(token, clientId) {
      if (!REFRESH_SHAPE.test(token)) return false;
      const result = await store.revokeFamily(hashRefreshToken(token), clientId);
      if (result.status !== 'revoked') return false;
      await revokeAccessTokens(result.accessTokens);
      return true;
    },
    async peekRefreshToken(token) {
      if (!REFRESH_SHAPE.test(token)) return undefined;
      return store.find(hashRefreshToken(token));
    },
    async rotateRefreshToken(token, clientId, accessToken) {
      if (!REFRESH_SHAPE.test(token)) throw invalidGrant();
      const next = generateRefreshToken();
      const result = await store.rotate(
        hashRefreshToken(token),
        hashRefreshToken(next),
        clientId,
        refreshTtlMs,
        {
          ...(accessToken !== undefined ? { accessToken } : {}),
          ...(graceMs > 0 ? { graceMs, sealedSuccessor: seal(next, token) } : {}),
        },
      );
      if (result.status === 'rotated') return { refreshToken: next, grant: result.grant };
      if (result.status === 'grace') {
        const successor = unseal(result.sealedSuccessor, token);
        if (successor !== undefined) return { refreshToken: successor, grant: result.grant };
      }
      // A detected replay means the grant is compromised: end the family's access tokens too.
      if (result.status === 'reused') await revokeAccessTokens(result.accessTokens);
      throw invalidGrant();
    },
  };
}
