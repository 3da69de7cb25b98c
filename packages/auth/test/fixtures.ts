// Shared by the test files only: outside src/, so it is never bundled or published.
import { createHmac, sign as cryptoSign, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { CompactSign, exportJWK, type JWK, type JWTPayload, SignJWT } from 'jose';

export const ISS = 'https://issuer.test';
export const AUD = 'https://api.test';
export const STATIC_ISS = 'https://static.test';
export const STRICT_ISS = 'https://strict.test';
/** Trusted with maxTokenAgeSec 3600 and maxLifetimeSec 3600. */
export const AGED_ISS = 'https://aged.test';
/** Trusted with maxLifetimeSec 900 only. */
export const LIFETIME_ISS = 'https://lifetime.test';

export interface TestKey {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  readonly publicJwk: JWK;
  readonly alg: string;
  readonly kid: string;
}

async function key(
  alg: string,
  kid: string,
  pair: { privateKey: KeyObject; publicKey: KeyObject },
): Promise<TestKey> {
  const publicJwk = { ...(await exportJWK(pair.publicKey)), kid, alg, use: 'sig' };
  return { ...pair, publicJwk, alg, kid };
}

export const es256 = await key('ES256', 'es1', generateKeyPairSync('ec', { namedCurve: 'P-256' }));
export const es384 = await key('ES384', 'es384', generateKeyPairSync('ec', { namedCurve: 'P-384' }));
export const eddsa = await key('EdDSA', 'ed1', generateKeyPairSync('ed25519'));
export const rs256 = await key('RS256', 'rs1', generateKeyPairSync('rsa', { modulusLength: 2048 }));
/** Not in any trusted key set. */
export const attacker = await key('ES256', 'es1', generateKeyPairSync('ec', { namedCurve: 'P-256' }));

export const JWKS = { keys: [es256.publicJwk, es384.publicJwk, eddsa.publicJwk, rs256.publicJwk] };
export const RSA_PEM = rs256.publicKey.export({ type: 'spki', format: 'pem' }).toString();

export const nowSec = () => Math.floor(Date.now() / 1000);

export function claims(overrides: Record<string, unknown> = {}): JWTPayload {
  const iat = nowSec();
  const base: Record<string, unknown> = {
    iss: ISS,
    aud: AUD,
    sub: 'user-1',
    client_id: 'web',
    scope: 'read:items write:items',
    iat,
    exp: iat + 300,
    jti: `jti-${Math.random().toString(36).slice(2)}`,
  };
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) delete base[name];
    else base[name] = value;
  }
  return base as JWTPayload;
}

/** A signed JWT; header defaults to the key's alg and kid. */
export function sign(
  overrides: Record<string, unknown> = {},
  with_: TestKey = es256,
  header: Record<string, unknown> = {},
): Promise<string> {
  return new SignJWT(claims(overrides))
    .setProtectedHeader({ alg: with_.alg, kid: with_.kid, ...header })
    .sign(with_.privateKey);
}

/** Signs an exact payload text (for claim values JSON can spell but objects cannot, like 1e400). */
export function signRaw(payloadJson: string, with_: TestKey = es256, header: Record<string, unknown> = {}) {
  return new CompactSign(new TextEncoder().encode(payloadJson))
    .setProtectedHeader({ alg: with_.alg, kid: with_.kid, ...header })
    .sign(with_.privateKey);
}

export const b64 = (value: unknown) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** An HMAC-SHA256 JWT whose "secret" is attacker-chosen text (such as a public key). */
export function hs256With(
  secret: string | Buffer,
  payload: JWTPayload,
  header: Record<string, unknown> = {},
): string {
  const input = `${b64({ alg: 'HS256', typ: 'JWT', ...header })}.${b64(payload)}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

export function unsigned(alg: string, payload: JWTPayload): string {
  return `${b64({ alg, typ: 'JWT' })}.${b64(payload)}.`;
}

/** ES256 signing outside jose, for headers jose refuses to produce (such as an unknown `crit`). */
export function signEs256Manually(
  header: Record<string, unknown>,
  payload: JWTPayload,
  with_: TestKey = es256,
): string {
  const input = `${b64({ alg: 'ES256', kid: with_.kid, ...header })}.${b64(payload)}`;
  const signature = cryptoSign('sha256', Buffer.from(input), {
    key: with_.privateKey,
    dsaEncoding: 'ieee-p1363',
  });
  return `${input}.${signature.toString('base64url')}`;
}
