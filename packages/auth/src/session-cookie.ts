import { base64url, EncryptJWT, type JWTPayload, jwtDecrypt } from 'jose';

/**
 * The largest cookie value a sealer produces or opens, in bytes: browsers keep at least 4096 bytes
 * per cookie (RFC 6265 6.1); a longer value may be dropped silently, so it is refused instead.
 *
 * @example
 * ```ts
 * MAX_SESSION_COOKIE_BYTES; // 4096
 * ```
 */
export const MAX_SESSION_COOKIE_BYTES = 4096;

/**
 * One key of a {@link SessionSealerOptions.keys} set: 32 bytes for `A256GCM` and the `kid` that names it
 * in the JWE protected header.
 *
 * @example
 * ```ts
 * const key: SessionKey = { kid: '2026-11', key: sessionKeyBytes }; // 32 bytes from the secret store
 * ```
 */
export interface SessionKey {
  /** Names the key in the `kid` header; unique within the set. */
  readonly kid: string;
  /** Exactly 32 random bytes, for example `crypto.getRandomValues(new Uint8Array(32))`, kept in a secret store. */
  readonly key: Uint8Array;
}

/**
 * Options for {@link createSessionSealer}.
 *
 * @example
 * ```ts
 * const options: SessionSealerOptions = { keys: [{ kid: 'k2', key: current }, { kid: 'k1', key: previous }], lifetimeSec: 8 * 3600 };
 * ```
 */
export interface SessionSealerOptions {
  /** The key set: the first key seals, every listed key opens. Rotate by putting a new key first and dropping the oldest later. */
  readonly keys: readonly SessionKey[];
  /** Lifetime of a sealed session (`exp - iat`), in seconds. Default 3600. */
  readonly lifetimeSec?: number;
  /** Leeway for `exp` and `nbf`, in seconds. Default 5. */
  readonly clockToleranceSec?: number;
  /** Clock, in milliseconds. Default `Date.now`. */
  readonly now?: () => number;
}

/**
 * What goes into a session cookie.
 *
 * @example
 * ```ts
 * const session: SessionInput = { subject: 'user-1', clientId: 'web', scopes: ['read:projects'] };
 * ```
 */
export interface SessionInput {
  readonly subject: string;
  readonly clientId: string;
  readonly scopes: readonly string[];
  /** Token id used for revocation. Default: a random UUID. */
  readonly jti?: string;
  /** Overrides the sealer's `lifetimeSec` for this session. */
  readonly lifetimeSec?: number;
}

/**
 * The claims inside an opened session cookie (JWT claim names; `scope` is space-delimited).
 *
 * @example
 * ```ts
 * const claims: SessionClaims = { sub: 'user-1', client_id: 'web', scope: 'read:projects', jti: 'a1', iat: 1, exp: 3601 };
 * ```
 */
export interface SessionClaims {
  readonly sub: string;
  readonly client_id: string;
  readonly scope: string;
  readonly jti: string;
  readonly iat: number;
  readonly exp: number;
}

/**
 * A sealed session: the cookie value and the claims sealed in it (keep `jti` and `exp` to revoke it at logout).
 *
 * @example
 * ```ts
 * const { value, claims } = await sealer.seal({ subject: 'user-1', clientId: 'web', scopes: [] });
 * ```
 */
export interface SealedSession {
  readonly value: string;
  readonly claims: SessionClaims;
}

/**
 * Why {@link SessionSealer.open} refused a cookie value. Stable: match on it.
 *
 * - `oversized`: longer than {@link MAX_SESSION_COOKIE_BYTES}
 * - `malformed`: not a compact JWE with canonical base64url segments and a JSON header
 * - `unsupported_algorithm`: a header other than `alg: dir`, `enc: A256GCM` (for example `alg: none`, `RSA-OAEP`, `A128GCM`), or with `zip`/`crit`
 * - `unknown_key`: no listed key has the header's `kid`
 * - `decryption_failed`: the ciphertext, tag, IV or header was changed, or the key is wrong
 * - `expired`: past `exp` (plus tolerance)
 * - `not_yet_valid`: `iat` or `nbf` in the future (beyond tolerance)
 * - `invalid_claims`: a required claim (`sub`, `client_id`, `scope`, `jti`, `iat`, `exp`) missing or of the wrong type
 *
 * @example
 * ```ts
 * const reason: SessionRejectionReason = 'expired';
 * ```
 */
export type SessionRejectionReason =
  | 'oversized'
  | 'malformed'
  | 'unsupported_algorithm'
  | 'unknown_key'
  | 'decryption_failed'
  | 'expired'
  | 'not_yet_valid'
  | 'invalid_claims';

/**
 * Thrown by {@link SessionSealer.open}; `reason` says why. The message never echoes the cookie.
 *
 * @example
 * ```ts
 * try { await sealer.open(value); } catch (error) { if (error instanceof SessionRejectedError) log(error.reason); }
 * ```
 */
export class SessionRejectedError extends Error {
  readonly reason: SessionRejectionReason;
  constructor(reason: SessionRejectionReason, options?: { cause?: unknown }) {
    super(`session cookie rejected: ${reason}`, options);
    this.name = 'SessionRejectedError';
    this.reason = reason;
  }
}

/**
 * Seals sessions into cookie values and opens them (see {@link createSessionSealer}).
 *
 * @example
 * ```ts
 * const claims = await sealer.open(cookieValue);
 * ```
 */
export interface SessionSealer {
  /** Seals with the first key. Throws a RangeError when the value would exceed {@link MAX_SESSION_COOKIE_BYTES}. */
  seal(session: SessionInput): Promise<SealedSession>;
  /** Opens with the key the `kid` names; throws {@link SessionRejectedError}. */
  open(value: string): Promise<SessionClaims>;
}

const KEY_BYTES = 32;

function secretKey(entry: SessionKey, index: number): Uint8Array {
  if (typeof entry.kid !== 'string' || entry.kid === '') {
    throw new TypeError(`session key ${index}: kid must be a non-empty string`);
  }
  if (!(entry.key instanceof Uint8Array))
    throw new TypeError(`session key ${entry.kid}: give 32 bytes (Uint8Array)`);
  if (entry.key.byteLength !== KEY_BYTES) {
    throw new TypeError(
      `session key ${entry.kid}: A256GCM needs a 32-byte key, got ${entry.key.byteLength} bytes (generate one with crypto.getRandomValues(new Uint8Array(32)))`,
    );
  }
  // A copy: a caller zeroing or reusing its buffer cannot change the key in use.
  return Uint8Array.from(entry.key);
}

function positive(name: string, value: number | undefined, fallback: number, allowZero = false): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    throw new TypeError(`${name} must be a ${allowZero ? 'non-negative' : 'positive'} number of seconds`);
  }
  return value;
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** A segment decodes to bytes that encode back to it: no stray characters, no non-zero padding bits. */
function canonical(segment: string): boolean {
  if (!BASE64URL.test(segment)) return false;
  try {
    return base64url.encode(base64url.decode(segment)) === segment;
  } catch {
    return false;
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function parseHeader(segment: string): Record<string, unknown> {
  let header: unknown;
  try {
    header = JSON.parse(utf8.decode(base64url.decode(segment)));
  } catch (cause) {
    throw new SessionRejectedError('malformed', { cause });
  }
  if (header === null || typeof header !== 'object' || Array.isArray(header)) {
    throw new SessionRejectedError('malformed');
  }
  return header as Record<string, unknown>;
}

const isText = (value: unknown): value is string => typeof value === 'string' && value !== '';
const isTime = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

function claimsOf(payload: JWTPayload): SessionClaims {
  const { sub, jti, iat, exp } = payload;
  const clientId = payload['client_id'];
  const scope = payload['scope'];
  if (!isText(sub) || !isText(clientId) || typeof scope !== 'string' || !isText(jti)) {
    throw new SessionRejectedError('invalid_claims');
  }
  if (!isTime(iat) || !isTime(exp)) throw new SessionRejectedError('invalid_claims');
  return { sub, client_id: clientId, scope, jti, iat, exp };
}

function reasonOf(error: unknown): SessionRejectionReason {
  const code = (error as { code?: unknown }).code;
  if (code === 'ERR_JWT_EXPIRED') return 'expired';
  if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED') {
    const { claim, reason } = error as { claim?: unknown; reason?: unknown };
    return claim === 'nbf' && reason === 'check_failed' ? 'not_yet_valid' : 'invalid_claims';
  }
  if (code === 'ERR_JWE_DECRYPTION_FAILED') return 'decryption_failed';
  if (code === 'ERR_JOSE_ALG_NOT_ALLOWED' || code === 'ERR_JOSE_NOT_SUPPORTED')
    return 'unsupported_algorithm';
  if (code === 'ERR_JWT_INVALID' || code === 'ERR_JWT_CLAIM_INVALID') return 'invalid_claims';
  return 'malformed';
}

/**
 * Seals a browser session (subject, client id, scopes, a `jti` for revocation, `iat`, `exp`) into a
 * compact JWE (`alg: dir`, `enc: A256GCM`, the key's `kid` in the protected header) and opens it again.
 * The cookie is encrypted and authenticated: the browser and any script on the page see only
 * ciphertext, and any change to any byte is refused. Keys rotate: the first key seals, every listed
 * key opens, so a cookie sealed with an old key keeps working while that key is listed.
 * Configuration errors (a key that is not 32 bytes, duplicate or empty `kid`, no keys) throw a TypeError here.
 *
 * @example
 * ```ts
 * const key = crypto.getRandomValues(new Uint8Array(32)); // in production: from a secret store
 * const sealer = createSessionSealer({ keys: [{ kid: '2026-11', key }], lifetimeSec: 8 * 3600 });
 * const { value, claims } = await sealer.seal({ subject: 'user-1', clientId: 'web', scopes: ['read:projects'] });
 * (await sealer.open(value)).sub; // 'user-1'
 * ```
 */
export function createSessionSealer(options: SessionSealerOptions): SessionSealer {
  if (!Array.isArray(options.keys) || options.keys.length === 0) {
    throw new TypeError('createSessionSealer: give at least one key');
  }
  const keys = new Map<string, Uint8Array>();
  options.keys.forEach((entry, index) => {
    const key = secretKey(entry, index);
    if (keys.has(entry.kid)) throw new TypeError(`session key ${entry.kid} is listed twice`);
    keys.set(entry.kid, key);
  });
  const [current] = options.keys as [SessionKey];
  const sealingKey = keys.get(current.kid)!;
  const lifetime = positive('lifetimeSec', options.lifetimeSec, 3600);
  const tolerance = positive('clockToleranceSec', options.clockToleranceSec, 5, true);
  const now = options.now ?? Date.now;

  return {
    async seal(session) {
      if (!isText(session.subject)) throw new TypeError('seal: subject must be a non-empty string');
      if (!isText(session.clientId)) throw new TypeError('seal: clientId must be a non-empty string');
      if (!session.scopes.every((s) => isText(s) && !s.includes(' '))) {
        throw new TypeError('seal: scopes must be non-empty strings without spaces');
      }
      const iat = Math.floor(now() / 1000);
      const exp = iat + positive('lifetimeSec', session.lifetimeSec, lifetime);
      const claims: SessionClaims = {
        sub: session.subject,
        client_id: session.clientId,
        scope: [...new Set(session.scopes)].join(' '),
        jti: session.jti ?? crypto.randomUUID(),
        iat,
        exp,
      };
      if (!isText(claims.jti)) throw new TypeError('seal: jti must be a non-empty string');
      const value = await new EncryptJWT({ ...claims })
        .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid: current.kid })
        .encrypt(sealingKey);
      if (value.length > MAX_SESSION_COOKIE_BYTES) {
        throw new RangeError(
          `the sealed session is ${value.length} bytes; cookies hold at most ${MAX_SESSION_COOKIE_BYTES} (seal fewer scopes)`,
        );
      }
      return { value, claims };
    },

    async open(value) {
      if (typeof value !== 'string') throw new SessionRejectedError('malformed');
      if (value.length > MAX_SESSION_COOKIE_BYTES) throw new SessionRejectedError('oversized');
      const segments = value.split('.');
      // header . encrypted key (empty for dir) . iv . ciphertext . tag
      if (segments.length !== 5 || segments[0] === '' || !segments.every(canonical)) {
        throw new SessionRejectedError('malformed');
      }
      const header = parseHeader(segments[0]!);
      if (
        header['alg'] !== 'dir' ||
        header['enc'] !== 'A256GCM' ||
        header['zip'] !== undefined ||
        header['crit'] !== undefined
      ) {
        throw new SessionRejectedError('unsupported_algorithm');
      }
      if (segments[1] !== '') throw new SessionRejectedError('malformed');
      const kid = header['kid'];
      const key = typeof kid === 'string' ? keys.get(kid) : undefined;
      if (key === undefined) throw new SessionRejectedError('unknown_key');
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtDecrypt(value, key, {
          keyManagementAlgorithms: ['dir'],
          contentEncryptionAlgorithms: ['A256GCM'],
          clockTolerance: tolerance,
          currentDate: new Date(now()),
          requiredClaims: ['exp', 'iat', 'jti', 'sub'],
        }));
      } catch (cause) {
        throw new SessionRejectedError(reasonOf(cause), { cause });
      }
      const claims = claimsOf(payload);
      if (claims.iat > now() / 1000 + tolerance) throw new SessionRejectedError('not_yet_valid');
      return claims;
    },
  };
}

/**
 * Options for {@link createSessionCookie}.
 *
 * @example
 * ```ts
 * const options: SessionCookieOptions = { name: '__Host-session', sameSite: 'Strict' };
 * ```
 */
export interface SessionCookieOptions {
  /**
   * Cookie name. Default `__Host-session`. The `__Host-` prefix makes the browser accept the cookie
   * only with `Secure`, `Path=/` and no `Domain`, so neither a sibling subdomain nor a plain-HTTP
   * response can plant or overwrite it (cookie tossing, session fixation); `__Secure-` keeps only the
   * `Secure` guarantee. Other names are refused unless {@link SessionCookieOptions.allowInsecureName}.
   */
  readonly name?: string;
  /** `Lax` (default: sent on top-level navigations from other sites, not on their sub-requests or POSTs) or `Strict`. `None` is refused: cross-site apps should send bearer tokens. */
  readonly sameSite?: 'Lax' | 'Strict';
  /** Accept a name without the `__Host-`/`__Secure-` prefix (for example an existing cookie during a migration). The cookie is still `Secure` and `HttpOnly`, but the browser no longer stops other subdomains from setting one of the same name. Default false. */
  readonly allowInsecureName?: boolean;
  /** `Domain` attribute; refused with a `__Host-` name. Default: none (host-only). */
  readonly domain?: string;
  /** `Path` attribute; must be `/` with a `__Host-` name. Default `/`. */
  readonly path?: string;
  /** Clock, in milliseconds, for `Max-Age`. Default `Date.now`. */
  readonly now?: () => number;
}

/**
 * Writes `Set-Cookie` values for a session cookie (see {@link createSessionCookie}).
 *
 * @example
 * ```ts
 * res.setHeader('Set-Cookie', cookie.serialize(sealed));
 * ```
 */
export interface SessionCookie {
  /** The cookie name requests are read from. */
  readonly name: string;
  /** The `Set-Cookie` value for a sealed session: `HttpOnly`, `Secure`, `SameSite`, `Path`, `Max-Age` until `exp`. */
  serialize(sealed: SealedSession): string;
  /** The `Set-Cookie` value that deletes the cookie (logout): empty value, `Max-Age=0`, the same attributes. */
  clear(): string;
}

/** RFC 6265 4.1.1 cookie-name is an RFC 9110 token. */
const COOKIE_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** RFC 6265 4.1.1: av-value excludes CTLs and `;`. */
const ATTRIBUTE_VALUE = /^[\x21-\x3a\x3c-\x7e]+$/;

/**
 * The default session cookie name.
 *
 * @example
 * ```ts
 * DEFAULT_SESSION_COOKIE; // '__Host-session'
 * ```
 */
export const DEFAULT_SESSION_COOKIE = '__Host-session';

/**
 * Checks a session cookie name the way {@link createSessionCookie} does, and returns it.
 * Internal to the package (also used by `authenticate`'s `cookie` option).
 */
export function checkCookieName(name: string, allowInsecureName: boolean): string {
  if (!COOKIE_NAME.test(name))
    throw new TypeError(`cookie name ${JSON.stringify(name)} is not an RFC 6265 token`);
  if (!allowInsecureName && !name.startsWith('__Host-') && !name.startsWith('__Secure-')) {
    throw new TypeError(
      `cookie name ${name}: use a __Host- (or __Secure-) prefix so browsers refuse the cookie from subdomains and plain HTTP, or set allowInsecureName`,
    );
  }
  return name;
}

/**
 * Builds the `Set-Cookie` values of a session cookie: `HttpOnly` (scripts cannot read it, so an XSS
 * cannot steal it), `Secure` (never sent over plain HTTP), `SameSite=Lax` (or `Strict`), `Path=/`,
 * `Max-Age` until the session's `exp`, and the `__Host-` prefix by default. The attributes are
 * checked here, once: a name without `__Host-`/`__Secure-` (unless `allowInsecureName`), a `Domain`
 * or a `Path` other than `/` with `__Host-`, and `SameSite=None` throw a TypeError.
 *
 * @example
 * ```ts
 * const cookie = createSessionCookie();
 * cookie.serialize(await sealer.seal({ subject: 'user-1', clientId: 'web', scopes: [] }));
 * // '__Host-session=eyJ...; Max-Age=3600; Path=/; HttpOnly; Secure; SameSite=Lax'
 * cookie.clear(); // '__Host-session=; Max-Age=0; Path=/; HttpOnly; Secure; SameSite=Lax'
 * ```
 */
export function createSessionCookie(options: SessionCookieOptions = {}): SessionCookie {
  const name = checkCookieName(options.name ?? DEFAULT_SESSION_COOKIE, options.allowInsecureName === true);
  const sameSite: string = options.sameSite ?? 'Lax';
  if (sameSite !== 'Lax' && sameSite !== 'Strict') {
    throw new TypeError(
      `SameSite=${sameSite} is not supported: cross-site cookies are out of scope; cross-site apps should send a bearer token`,
    );
  }
  const path = options.path ?? '/';
  const host = name.startsWith('__Host-');
  if (host && path !== '/') throw new TypeError('a __Host- cookie must have Path=/');
  if (host && options.domain !== undefined) throw new TypeError('a __Host- cookie must not have a Domain');
  for (const [attribute, value] of [
    ['path', path],
    ['domain', options.domain],
  ] as const) {
    if (value !== undefined && !ATTRIBUTE_VALUE.test(value))
      throw new TypeError(`cookie ${attribute} ${JSON.stringify(value)} is not valid`);
  }
  const now = options.now ?? Date.now;
  const attributes = `; Path=${path}${options.domain === undefined ? '' : `; Domain=${options.domain}`}; HttpOnly; Secure; SameSite=${sameSite}`;
  return {
    name,
    serialize(sealed) {
      const maxAge = Math.max(0, Math.floor(sealed.claims.exp - now() / 1000));
      return `${name}=${sealed.value}; Max-Age=${maxAge}${attributes}`;
    },
    clear() {
      return `${name}=; Max-Age=0${attributes}`;
    },
  };
}
