import { createPublicKey, createSecretKey, KeyObject } from 'node:crypto';
import { HttpError } from '@plumbline/errors';
import {
  type CryptoKey,
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  type JSONWebKeySet,
  type JWK,
  type JWTPayload,
  type JWTVerifyGetKey,
  type JWTVerifyOptions,
  jwtVerify,
} from 'jose';
import { authError } from './challenge.js';
import { Lru } from './lru.js';
import { type Principal, scopesFromClaims } from './principal.js';
import { createRemoteKeySet, type KeySetErrorEvent, KeySetUnavailableError } from './remote-jwks.js';
import type { RevocationStore } from './revocation.js';

/**
 * Algorithms accepted when an issuer names none.
 *
 * @example
 * ```ts
 * DEFAULT_ALGORITHMS; // ['ES256', 'EdDSA', 'RS256']
 * ```
 */
export const DEFAULT_ALGORITHMS: readonly string[] = Object.freeze(['ES256', 'EdDSA', 'RS256']);

const KNOWN_ALGORITHMS = new Set([
  'HS256',
  'HS384',
  'HS512',
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
]);

/**
 * Remote JWKS tuning.
 *
 * @example
 * ```ts
 * const remote: RemoteJwksOptions = { cooldownMs: 30_000, timeoutMs: 5_000, cacheMaxAgeMs: 600_000 };
 * ```
 */
export interface RemoteJwksOptions {
  /**
   * Minimum time between two fetches triggered by an unknown `kid`; also the first backoff after a
   * failed fetch (at least 1 000 ms), doubling with each further failure. Default 30 000 ms.
   */
  readonly cooldownMs?: number;
  /** Longest backoff after repeated failed fetches. Default 300 000 ms. */
  readonly maxBackoffMs?: number;
  /** Fetch timeout. Default 5 000 ms. */
  readonly timeoutMs?: number;
  /** Refetch a cached key set older than this. Default 600 000 ms. */
  readonly cacheMaxAgeMs?: number;
}

/**
 * One issuer whose tokens are accepted: its `iss`, the audience it must name, and exactly one key
 * source (`jwks`, `jwksUri` or `key`).
 *
 * @example
 * ```ts
 * const trusted: TrustedIssuer = { issuer: 'https://auth.example.com', audience: 'https://api.example.com', jwksUri: 'https://auth.example.com/.well-known/jwks.json' };
 * ```
 */
export interface TrustedIssuer {
  /** Exact `iss` value. */
  readonly issuer: string;
  /** Accepted `aud` value(s); the token must name at least one. */
  readonly audience: string | readonly string[];
  /** A local JSON Web Key Set. */
  readonly jwks?: JSONWebKeySet;
  /** URL of a remote JSON Web Key Set: https (http only on loopback); cached; refetched on an unknown `kid` at most once per cooldown. */
  readonly jwksUri?: string | URL;
  /** A static key: a KeyObject, CryptoKey, public JWK, PEM text, or (HMAC only) secret bytes. */
  readonly key?: KeyObject | CryptoKey | JWK | string | Uint8Array;
  /** Allow-list; never inferred from the key or the token. Default {@link DEFAULT_ALGORITHMS}. */
  readonly algorithms?: readonly string[];
  /**
   * RFC 9068 strict mode: require `typ: at+jwt` and the claims RFC 9068 2.2 makes mandatory besides
   * `iss`, `exp` and `aud`: `iat`, `jti` (so the token can be revoked), `sub` and `client_id`.
   * Default false.
   */
  readonly requireAccessTokenType?: boolean;
  /**
   * Oldest accepted token, in seconds since its `iat` (clock tolerance added); a token without `iat`
   * is refused when this is set. Default: no limit.
   */
  readonly maxTokenAgeSec?: number;
  /**
   * Longest accepted lifetime, `exp - iat`, in seconds; without `iat`, the time left until `exp` must
   * not exceed it. Default: no limit.
   */
  readonly maxLifetimeSec?: number;
  readonly remote?: RemoteJwksOptions;
}

/**
 * Options for {@link createJwtVerifier}.
 *
 * @example
 * ```ts
 * const options: JwtVerifierOptions = { issuers: [trusted], revocation: new MemoryRevocationStore() };
 * ```
 */
export interface JwtVerifierOptions {
  readonly issuers: readonly TrustedIssuer[];
  /** Leeway for `exp`, `nbf` and `iat`, in seconds. Default 30. */
  readonly clockToleranceSec?: number;
  /** Longer tokens are refused before any parsing. Default 8192 characters. */
  readonly maxTokenLength?: number;
  /** Verified-token cache size (entries); 0 disables it. Default 10 000. */
  readonly cacheSize?: number;
  /** `jti` revocation list, consulted on every request, cached or not. */
  readonly revocation?: RevocationStore;
  /** Refuse tokens without `jti` (only meaningful with `revocation`). Default false. */
  readonly requireJti?: boolean;
  /** Realm of the `Bearer` challenge. Default `plumbline`. */
  readonly realm?: string;
  /** Clock, in milliseconds. Default `Date.now`. */
  readonly now?: () => number;
  /**
   * Called once per failed remote key-set fetch (at most once per backoff period), for logging the
   * outage; requests meanwhile are answered from the last good set, or 503 when there is none.
   */
  readonly onKeySetError?: (event: KeySetErrorEvent) => void;
}

/**
 * A configured verifier: bearer token in, {@link Principal} out.
 *
 * @example
 * ```ts
 * const principal = await verifier.verify(token);
 * ```
 */
export interface JwtVerifier {
  /** Verifies the token; throws 401 `invalid_token` (or 503 when keys or revocations are unreachable). */
  verify(token: string): Promise<Principal>;
  /** Drops every cached verification (for example after rotating trust settings). */
  clearCache(): void;
  /** Number of cached verifications. */
  readonly cacheSize: number;
}

interface PreparedIssuer {
  readonly getKey: JWTVerifyGetKey | KeyObject | CryptoKey | Uint8Array;
  readonly remote: boolean;
  readonly options: JWTVerifyOptions;
  readonly strict: boolean;
  readonly maxAgeSec: number | undefined;
  readonly maxLifetimeSec: number | undefined;
}

interface CacheEntry {
  readonly principal: Principal;
  /** First instant (ms) a cache hit may serve: from `nbf` and `iat`, no earlier than full verification would accept. */
  readonly validFromMs: number;
  readonly expiresAtMs: number;
  readonly jti: string | undefined;
}

/** A verification that is synchronous when the verified-token cache answers and nothing is awaited. */
type FastVerify = (token: string) => Principal | Promise<Principal>;

const FAST_VERIFY = new WeakMap<JwtVerifier, FastVerify>();

/**
 * `verifier.verify`, but answering a cache hit synchronously (no promise) when no revocation list
 * has to be asked; for verifiers not made by {@link createJwtVerifier}, their own `verify`.
 */
export function fastVerify(verifier: JwtVerifier): FastVerify {
  return FAST_VERIFY.get(verifier) ?? ((token) => verifier.verify(token));
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

const isHmac = (alg: string) => alg.startsWith('HS');

type StaticKey = NonNullable<TrustedIssuer['key']>;

function isJwk(key: StaticKey): key is JWK {
  return typeof key === 'object' && !(key instanceof Uint8Array) && typeof (key as JWK).kty === 'string';
}

function isSecret(key: StaticKey): boolean {
  if (key instanceof Uint8Array) return true;
  if (typeof key === 'string') return false;
  if (isJwk(key)) return key.kty === 'oct';
  return (key as KeyObject | CryptoKey).type === 'secret';
}

function staticKey(key: StaticKey): KeyObject | CryptoKey | Uint8Array {
  if (key instanceof Uint8Array) return createSecretKey(key);
  if (typeof key === 'string') return createPublicKey(key.trim());
  if (isJwk(key)) {
    if (key.kty === 'oct') throw new TypeError('use secret bytes, not an "oct" JWK, for HMAC keys');
    const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...publicJwk } = key;
    return createPublicKey({ key: publicJwk as import('node:crypto').JsonWebKey, format: 'jwk' });
  }
  return key;
}

// RFC 7518 3.2: an HMAC key must be at least as long as the hash output.
const HMAC_MIN_BYTES: Readonly<Record<string, number>> = { HS256: 32, HS384: 48, HS512: 64 };

function secretLength(key: StaticKey): number | undefined {
  if (key instanceof Uint8Array) return key.byteLength;
  if (key instanceof KeyObject) return key.type === 'secret' ? key.symmetricKeySize : undefined;
  const algorithm = (key as CryptoKey).algorithm as { name?: string; length?: number } | undefined;
  return algorithm?.name === 'HMAC' && typeof algorithm.length === 'number'
    ? algorithm.length / 8
    : undefined;
}

const CURVES: Readonly<Record<string, string>> = {
  prime256v1: 'P-256',
  secp384r1: 'P-384',
  secp521r1: 'P-521',
};

function keyFamily(key: KeyObject | CryptoKey | Uint8Array): string {
  if (key instanceof Uint8Array) return 'secret';
  if (key instanceof KeyObject) {
    if (key.type === 'secret') return 'secret';
    const type = key.asymmetricKeyType;
    if (type === 'rsa' || type === 'rsa-pss') return 'rsa';
    if (type === 'ec') return `ec:${CURVES[key.asymmetricKeyDetails?.namedCurve ?? ''] ?? 'unknown'}`;
    return String(type);
  }
  const algorithm = key.algorithm as { name: string; namedCurve?: string };
  if (algorithm.name === 'HMAC') return 'secret';
  if (algorithm.name === 'ECDSA') return `ec:${algorithm.namedCurve}`;
  if (algorithm.name.startsWith('RSA')) return 'rsa';
  return algorithm.name.toLowerCase();
}

function algorithmFamily(alg: string): string {
  if (alg.startsWith('HS')) return 'secret';
  if (alg.startsWith('RS') || alg.startsWith('PS')) return 'rsa';
  if (alg === 'ES256') return 'ec:P-256';
  if (alg === 'ES384') return 'ec:P-384';
  if (alg === 'ES512') return 'ec:P-521';
  return 'ed25519';
}

interface RemoteContext {
  readonly now: () => number;
  readonly onKeySetError: ((event: KeySetErrorEvent) => void) | undefined;
}

function prepareIssuer(
  trusted: TrustedIssuer,
  clockTolerance: number,
  context: RemoteContext,
): PreparedIssuer {
  const sources = [trusted.jwks, trusted.jwksUri, trusted.key].filter((s) => s !== undefined);
  if (sources.length !== 1) {
    throw new TypeError(`issuer ${trusted.issuer}: give exactly one of jwks, jwksUri or key`);
  }
  const algorithms = [...(trusted.algorithms ?? DEFAULT_ALGORITHMS)];
  if (algorithms.length === 0)
    throw new TypeError(`issuer ${trusted.issuer}: the algorithm allow-list is empty`);
  for (const alg of algorithms) {
    if (!KNOWN_ALGORITHMS.has(alg)) throw new TypeError(`issuer ${trusted.issuer}: unknown algorithm ${alg}`);
  }
  // Mixing HMAC with public keys is how "HS256 signed with the public key" attacks start.
  const symmetric = trusted.key !== undefined && isSecret(trusted.key);
  if (algorithms.some((a) => isHmac(a) !== symmetric)) {
    throw new TypeError(
      `issuer ${trusted.issuer}: HMAC algorithms need a secret key and public-key algorithms a public key`,
    );
  }
  if (symmetric) {
    const bytes = secretLength(trusted.key!) ?? 0;
    for (const alg of algorithms) {
      const needed = HMAC_MIN_BYTES[alg] ?? 0;
      if (bytes < needed) {
        throw new TypeError(
          `issuer ${trusted.issuer}: the ${alg} secret is ${bytes} bytes; RFC 7518 3.2 requires at least ${needed} (the hash output size)`,
        );
      }
    }
  }
  for (const [name, value] of [
    ['maxTokenAgeSec', trusted.maxTokenAgeSec],
    ['maxLifetimeSec', trusted.maxLifetimeSec],
  ] as const) {
    if (value !== undefined && !(Number.isFinite(value) && value > 0)) {
      throw new TypeError(`issuer ${trusted.issuer}: ${name} must be a positive number of seconds`);
    }
  }
  const limits = {
    strict: trusted.requireAccessTokenType === true,
    maxAgeSec: trusted.maxTokenAgeSec,
    maxLifetimeSec: trusted.maxLifetimeSec,
  };
  const options: JWTVerifyOptions = {
    algorithms,
    issuer: trusted.issuer,
    audience: typeof trusted.audience === 'string' ? trusted.audience : [...trusted.audience],
    requiredClaims: ['exp', 'iss', 'aud'],
    clockTolerance,
    ...(trusted.requireAccessTokenType ? { typ: 'at+jwt' } : {}),
  };
  if (trusted.jwks !== undefined)
    return { getKey: createLocalJWKSet(trusted.jwks), remote: false, options, ...limits };
  if (trusted.jwksUri !== undefined) {
    const remote = trusted.remote ?? {};
    const url = new URL(trusted.jwksUri);
    // Keys fetched over plain HTTP could be swapped in transit; only loopback is exempt (tests, sidecars).
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname))) {
      throw new TypeError(`issuer ${trusted.issuer}: jwksUri must use https (http only on loopback)`);
    }
    const getKey = createRemoteKeySet(url, {
      issuer: trusted.issuer,
      cooldownMs: remote.cooldownMs ?? 30_000,
      timeoutMs: remote.timeoutMs ?? 5_000,
      cacheMaxAgeMs: remote.cacheMaxAgeMs ?? 600_000,
      maxBackoffMs: remote.maxBackoffMs ?? 300_000,
      now: context.now,
      onError: context.onKeySetError,
    });
    return { getKey, remote: true, options, ...limits };
  }
  const key = staticKey(trusted.key!);
  // jose would otherwise fail per request on a mismatch; say so once, at start-up.
  const family = keyFamily(key);
  const misfit = algorithms.find((alg) => algorithmFamily(alg) !== family);
  if (misfit !== undefined) {
    throw new TypeError(
      `issuer ${trusted.issuer}: algorithm ${misfit} does not fit the static key (${family})`,
    );
  }
  return { getKey: key, remote: false, options, ...limits };
}

const CLAIM_DESCRIPTIONS: Readonly<Record<string, string>> = {
  iss: 'The access token issuer is not accepted',
  aud: 'The access token audience is not accepted',
  nbf: 'The access token is not valid yet',
  exp: 'The access token has no valid expiry',
  iat: 'The access token issue time is not valid',
  typ: 'The access token type is not accepted',
};

// Fixed texts only: a description never echoes anything taken from the token.
function describe(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return 'The access token expired';
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      return (
        CLAIM_DESCRIPTIONS[String((error as { claim?: unknown }).claim)] ??
        'The access token claims are not valid'
      );
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return 'The access token algorithm is not accepted';
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return 'The access token signature is not valid';
    case 'ERR_JWKS_NO_MATCHING_KEY':
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return 'No trusted key matches the access token';
    case 'ERR_JOSE_NOT_SUPPORTED':
      return 'The access token uses an unsupported feature';
    default:
      return 'The access token is malformed';
  }
}

// A remote key set that was never fetched is our outage, not the client's fault: 503, fail closed.
function isKeySourceFailure(error: unknown, remote: boolean): boolean {
  return remote && error instanceof KeySetUnavailableError;
}

const numericDate = (value: unknown) =>
  value === undefined || (typeof value === 'number' && Number.isFinite(value));

/**
 * Builds a bearer JWT verifier on `jose`: explicit algorithm allow-list, `exp`/`iss`/`aud` required
 * and checked, clock tolerance, optional RFC 9068 `typ: at+jwt`, unknown `crit` refused, keys from a
 * local JWKS, a remote JWKS or a static key, several trusted issuers, a bounded verified-token cache
 * that never outlives a token, and a `jti` revocation list. Configuration errors throw here, at
 * start-up, not per request.
 *
 * @example
 * ```ts
 * const verifier = createJwtVerifier({
 *   issuers: [{ issuer: 'https://auth.example.com', audience: 'api', jwksUri: 'https://auth.example.com/.well-known/jwks.json' }],
 * });
 * const principal = await verifier.verify(token);
 * ```
 */
export function createJwtVerifier(options: JwtVerifierOptions): JwtVerifier {
  if (options.issuers.length === 0) throw new TypeError('at least one trusted issuer is required');
  const realm = options.realm ?? 'plumbline';
  const tolerance = options.clockToleranceSec ?? 30;
  const maxLength = options.maxTokenLength ?? 8192;
  const now = options.now ?? Date.now;
  const revocation = options.revocation;
  const requireJti = options.requireJti ?? false;
  const issuers = new Map<string, PreparedIssuer>();
  for (const trusted of options.issuers) {
    if (issuers.has(trusted.issuer)) throw new TypeError(`issuer ${trusted.issuer} is listed twice`);
    issuers.set(
      trusted.issuer,
      prepareIssuer(trusted, tolerance, { now, onKeySetError: options.onKeySetError }),
    );
  }
  const cache = new Lru<string, CacheEntry>(options.cacheSize ?? 10_000);

  const reject = (description: string, cause?: unknown) =>
    authError('invalid_token', { realm, error: 'invalid_token', description }, { cause });

  async function checkRevoked(jti: string | undefined): Promise<void> {
    if (revocation === undefined || jti === undefined) return;
    let revoked: boolean;
    try {
      revoked = await revocation.isRevoked(jti);
    } catch (cause) {
      throw cause instanceof HttpError ? cause : new HttpError('service_unavailable', { cause });
    }
    if (revoked) throw reject('The access token was revoked');
  }

  // Per-issuer limits: strict RFC 9068 claims, maximum age and lifetime.
  function checkIssuerRules(payload: JWTPayload, issuer: PreparedIssuer): void {
    if (issuer.strict) {
      if (payload.iat === undefined) throw reject('The access token has no issue time');
      if (payload.jti === undefined) throw reject('The access token has no identifier');
      if (payload.sub === undefined) throw reject('The access token has no subject');
      const clientId = payload['client_id'];
      if (typeof clientId !== 'string' || clientId === '') throw reject('The access token has no client_id');
    }
    const nowSec = now() / 1000;
    if (issuer.maxAgeSec !== undefined) {
      if (payload.iat === undefined) throw reject('The access token has no issue time');
      if (nowSec - payload.iat > issuer.maxAgeSec + tolerance) throw reject('The access token is too old');
    }
    if (issuer.maxLifetimeSec !== undefined) {
      const lifetime = payload.exp! - (payload.iat ?? nowSec);
      const slack = payload.iat === undefined ? tolerance : 0;
      if (lifetime > issuer.maxLifetimeSec + slack) throw reject('The access token lifetime is too long');
    }
  }

  function principalFrom(payload: JWTPayload): Principal {
    for (const claim of ['exp', 'nbf', 'iat'] as const) {
      if (!numericDate(payload[claim])) throw reject(CLAIM_DESCRIPTIONS[claim]!);
    }
    if (!(payload.exp! > 0)) throw reject(CLAIM_DESCRIPTIONS['exp']!);
    if (payload.iat !== undefined && payload.iat > now() / 1000 + tolerance)
      throw reject(CLAIM_DESCRIPTIONS['iat']!);
    if (payload.sub !== undefined && typeof payload.sub !== 'string')
      throw reject('The access token subject is not valid');
    if (payload.jti !== undefined && (typeof payload.jti !== 'string' || payload.jti === '')) {
      throw reject('The access token identifier is not valid');
    }
    if (requireJti && payload.jti === undefined) throw reject('The access token has no identifier');
    const clientId = payload['client_id'] ?? payload['azp'] ?? payload.sub;
    if (typeof clientId !== 'string' || clientId === '') throw reject('The access token names no client');
    const scopes = scopesFromClaims(payload);
    if (scopes === undefined) throw reject('The access token scope claim is not valid');
    return Object.freeze({
      type: 'jwt',
      clientId,
      ...(payload.sub !== undefined ? { subject: payload.sub } : {}),
      scopes: Object.freeze([...scopes]),
      claims: Object.freeze({ ...payload }),
    });
  }

  async function verifyUncached(token: string): Promise<CacheEntry> {
    if (token.length > maxLength) throw reject('The access token is too large');
    const segments = token.split('.');
    if (segments.length === 5) throw reject('Encrypted tokens are not accepted');
    if (segments.length !== 3) throw reject('The access token is malformed');
    let iss: unknown;
    try {
      decodeProtectedHeader(token);
      iss = decodeJwt(token).iss;
    } catch (cause) {
      throw reject('The access token is malformed', cause);
    }
    const issuer = typeof iss === 'string' ? issuers.get(iss) : undefined;
    if (issuer === undefined) throw reject(CLAIM_DESCRIPTIONS['iss']!);
    let payload: JWTPayload;
    try {
      const verifyOptions = options.now
        ? { ...issuer.options, currentDate: new Date(now()) }
        : issuer.options;
      ({ payload } = await jwtVerify(token, issuer.getKey as JWTVerifyGetKey, verifyOptions));
    } catch (cause) {
      if (isKeySourceFailure(cause, issuer.remote)) throw new HttpError('service_unavailable', { cause });
      throw reject(describe(cause), cause);
    }
    const principal = principalFrom(payload);
    checkIssuerRules(payload, issuer);
    // With a maximum age, a cached verification must not outlive it either.
    const expiresAtMs =
      issuer.maxAgeSec !== undefined
        ? Math.min(payload.exp!, payload.iat! + issuer.maxAgeSec + tolerance) * 1000
        : payload.exp! * 1000;
    // A hit is served only once full verification would accept the token too: `nbf` (jose: not
    // after the whole second plus tolerance; here the next whole second, without tolerance) and
    // `iat` (principalFrom: not after now + tolerance). Before that, the token is verified again.
    const validFromMs = Math.max(
      payload.nbf === undefined ? -Infinity : Math.ceil(payload.nbf - Math.min(tolerance, 0)) * 1000,
      payload.iat === undefined ? -Infinity : (payload.iat - tolerance) * 1000,
    );
    return { principal, validFromMs, expiresAtMs, jti: payload.jti };
  }

  async function verifyMiss(token: string): Promise<Principal> {
    const entry = await verifyUncached(token);
    // Re-check after the await: a token verified in its tolerance window is not worth caching.
    if (entry.expiresAtMs > now()) cache.set(token, entry);
    if (revocation !== undefined && entry.jti !== undefined) await checkRevoked(entry.jti);
    return entry.principal;
  }

  async function revokedOrPrincipal(entry: CacheEntry): Promise<Principal> {
    await checkRevoked(entry.jti);
    return entry.principal;
  }

  // The cache is keyed on the whole token string; a hit is checked against the clock every time.
  const verifyFast: FastVerify = (token) => {
    const entry = cache.get(token);
    if (entry !== undefined) {
      const t = now();
      if (entry.validFromMs <= t && t < entry.expiresAtMs) {
        // Without a revocation list there is nothing to wait for: no promise at all.
        if (revocation === undefined || entry.jti === undefined) return entry.principal;
        return revokedOrPrincipal(entry);
      }
      cache.delete(token);
    }
    return verifyMiss(token);
  };

  const verifier: JwtVerifier = {
    async verify(token) {
      return verifyFast(token);
    },
    clearCache() {
      cache.clear();
    },
    get cacheSize() {
      return cache.size;
    },
  };
  FAST_VERIFY.set(verifier, verifyFast);
  return verifier;
}
