import { generateKeyPairSync, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { EncryptJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  createSessionCookie,
  createSessionSealer,
  MAX_SESSION_COOKIE_BYTES,
  type SessionRejectionReason,
} from './session-cookie.js';

const T0 = 1_800_000_000_000;
const k1 = { kid: 'k1', key: randomBytes(32) };
const k2 = { kid: 'k2', key: randomBytes(32) };
const clock = { ms: T0 };
const now = () => clock.ms;
const sealer = createSessionSealer({ keys: [k1], now, lifetimeSec: 600 });
const session = { subject: 'user-1', clientId: 'web', scopes: ['read:projects', 'write:projects'] };
const sealed = await sealer.seal(session);
const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const segments = sealed.value.split('.');

async function reason(value: string, opener = sealer): Promise<SessionRejectionReason | 'opened'> {
  try {
    await opener.open(value);
    return 'opened';
  } catch (error) {
    return (error as { reason: SessionRejectionReason }).reason;
  }
}

/** Replaces the character at `i` by another base64url character that decodes to different bytes. */
function flip(value: string, i: number): string {
  const c = value[i] === 'A' ? 'Q' : 'A';
  return value.slice(0, i) + c + value.slice(i + 1);
}

async function sealWith(
  payload: Record<string, unknown>,
  header: { alg: string; enc: string; kid?: string },
  key: Uint8Array | import('node:crypto').KeyObject,
) {
  return new EncryptJWT(payload).setProtectedHeader(header).encrypt(key);
}

const claims = {
  sub: 'user-1',
  client_id: 'web',
  scope: 'read:projects',
  jti: 'j1',
  iat: T0 / 1000,
  exp: T0 / 1000 + 600,
};

describe('createSessionSealer: sealing', () => {
  it('round-trips the session as a compact dir/A256GCM JWE naming its key', async () => {
    expect(segments).toHaveLength(5);
    expect(segments[1]).toBe('');
    expect(JSON.parse(Buffer.from(segments[0]!, 'base64url').toString())).toEqual({
      alg: 'dir',
      enc: 'A256GCM',
      kid: 'k1',
    });
    expect(sealed.value).not.toContain('user-1');
    expect(await sealer.open(sealed.value)).toEqual({
      sub: 'user-1',
      client_id: 'web',
      scope: 'read:projects write:projects',
      jti: sealed.claims.jti,
      iat: T0 / 1000,
      exp: T0 / 1000 + 600,
    });
    expect(sealed.claims.jti).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('takes a given jti and lifetime', async () => {
    const own = await sealer.seal({ ...session, jti: 'logout-me', lifetimeSec: 60 });
    expect([own.claims.jti, own.claims.exp - own.claims.iat]).toEqual(['logout-me', 60]);
  });

  it('refuses to seal a value larger than a cookie holds', async () => {
    const scopes = Array.from({ length: 400 }, (_, i) => `scope:${i}`);
    await expect(sealer.seal({ ...session, scopes })).rejects.toThrow(RangeError);
  });

  it.each([
    ['a 16-byte key', { keys: [{ kid: 'a', key: randomBytes(16) }] }, /32-byte key, got 16 bytes/],
    ['a 64-byte key', { keys: [{ kid: 'a', key: randomBytes(64) }] }, /32-byte key/],
    ['no keys', { keys: [] }, /at least one key/],
    ['an empty kid', { keys: [{ kid: '', key: randomBytes(32) }] }, /kid/],
    ['a kid listed twice', { keys: [k1, { kid: 'k1', key: randomBytes(32) }] }, /listed twice/],
    ['a zero lifetime', { keys: [k1], lifetimeSec: 0 }, /lifetimeSec/],
  ])('refuses %s at construction with a TypeError', (_name, options, message) => {
    expect(() => createSessionSealer(options)).toThrow(TypeError);
    expect(() => createSessionSealer(options)).toThrow(message);
  });
});

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const cases: [string, () => Promise<string> | string, SessionRejectionReason][] = [
  [
    'a changed ciphertext',
    () => `${segments.slice(0, 3).join('.')}.${flip(segments[3]!, 0)}.${segments[4]}`,
    'decryption_failed',
  ],
  ['a changed tag', () => `${segments.slice(0, 4).join('.')}.${flip(segments[4]!, 0)}`, 'decryption_failed'],
  [
    'a changed IV',
    () => `${segments.slice(0, 2).join('.')}.${flip(segments[2]!, 0)}.${segments.slice(3).join('.')}`,
    'decryption_failed',
  ],
  [
    'a header with an extra field (authenticated data)',
    () => [b64({ alg: 'dir', enc: 'A256GCM', kid: 'k1', x: 1 }), ...segments.slice(1)].join('.'),
    'decryption_failed',
  ],
  [
    'a header naming an unknown kid',
    () => [b64({ alg: 'dir', enc: 'A256GCM', kid: 'k9' }), ...segments.slice(1)].join('.'),
    'unknown_key',
  ],
  [
    'a header without kid',
    () => [b64({ alg: 'dir', enc: 'A256GCM' }), ...segments.slice(1)].join('.'),
    'unknown_key',
  ],
  [
    'the right kid but another key',
    () => sealWith(claims, { alg: 'dir', enc: 'A256GCM', kid: 'k1' }, randomBytes(32)),
    'decryption_failed',
  ],
  [
    'alg none',
    () => [b64({ alg: 'none', enc: 'A256GCM', kid: 'k1' }), ...segments.slice(1)].join('.'),
    'unsupported_algorithm',
  ],
  [
    'enc A128GCM',
    () => sealWith(claims, { alg: 'dir', enc: 'A128GCM', kid: 'k1' }, randomBytes(16)),
    'unsupported_algorithm',
  ],
  [
    'alg RSA-OAEP',
    () => sealWith(claims, { alg: 'RSA-OAEP', enc: 'A256GCM', kid: 'k1' }, rsa.publicKey),
    'unsupported_algorithm',
  ],
  [
    'a zip header',
    () => [b64({ alg: 'dir', enc: 'A256GCM', kid: 'k1', zip: 'DEF' }), ...segments.slice(1)].join('.'),
    'unsupported_algorithm',
  ],
  ['a JWS instead of a JWE', () => `${b64({ alg: 'HS256' })}.${b64(claims)}.sig`, 'malformed'],
  [
    'a header that is not JSON',
    () => [Buffer.from('nope').toString('base64url'), ...segments.slice(1)].join('.'),
    'malformed',
  ],
  ['a non-canonical base64url character', () => `${sealed.value.slice(0, -1)}!`, 'malformed'],
  ['garbage', () => 'abc', 'malformed'],
  ['a value over 4096 bytes', () => 'a'.repeat(MAX_SESSION_COOKIE_BYTES + 1), 'oversized'],
  [
    'an expired session',
    () =>
      sealWith(
        { ...claims, exp: T0 / 1000 - 10, iat: T0 / 1000 - 700 },
        { alg: 'dir', enc: 'A256GCM', kid: 'k1' },
        k1.key,
      ),
    'expired',
  ],
  [
    'nbf in the future',
    () => sealWith({ ...claims, nbf: T0 / 1000 + 60 }, { alg: 'dir', enc: 'A256GCM', kid: 'k1' }, k1.key),
    'not_yet_valid',
  ],
  [
    'iat in the future',
    () => sealWith({ ...claims, iat: T0 / 1000 + 60 }, { alg: 'dir', enc: 'A256GCM', kid: 'k1' }, k1.key),
    'not_yet_valid',
  ],
  [
    'no client_id',
    () => sealWith({ ...claims, client_id: undefined }, { alg: 'dir', enc: 'A256GCM', kid: 'k1' }, k1.key),
    'invalid_claims',
  ],
  [
    'no jti',
    () => sealWith({ ...claims, jti: undefined }, { alg: 'dir', enc: 'A256GCM', kid: 'k1' }, k1.key),
    'invalid_claims',
  ],
  [
    'no sub',
    () => sealWith({ ...claims, sub: undefined }, { alg: 'dir', enc: 'A256GCM', kid: 'k1' }, k1.key),
    'invalid_claims',
  ],
  [
    'no iat',
    () => sealWith({ ...claims, iat: undefined }, { alg: 'dir', enc: 'A256GCM', kid: 'k1' }, k1.key),
    'invalid_claims',
  ],
  [
    'no exp',
    () => sealWith({ ...claims, exp: undefined }, { alg: 'dir', enc: 'A256GCM', kid: 'k1' }, k1.key),
    'invalid_claims',
  ],
  [
    'a scope that is not a string',
    () => sealWith({ ...claims, scope: ['a'] }, { alg: 'dir', enc: 'A256GCM', kid: 'k1' }, k1.key),
    'invalid_claims',
  ],
];

describe('createSessionSealer: open refuses', () => {
  it.each(cases)('%s → %s', async (_name, make, expected) => {
    expect(await reason(await make())).toBe(expected);
  });

  it('a session within the clock tolerance of exp opens; past it, expired', async () => {
    const value = (await sealer.seal({ ...session, lifetimeSec: 60 })).value;
    clock.ms = T0 + 64_000;
    try {
      expect(await reason(value)).toBe('opened');
      clock.ms = T0 + 66_000;
      expect(await reason(value)).toBe('expired');
    } finally {
      clock.ms = T0;
    }
  });

  it('the control: the untouched value opens', async () => {
    expect(await reason(sealed.value)).toBe('opened');
    expect(await reason(await sealWith(claims, { alg: 'dir', enc: 'A256GCM', kid: 'k1' }, k1.key))).toBe(
      'opened',
    );
  });

  it('any single-character change of the sealed value fails to open (fast-check)', async () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/! ';
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: sealed.value.length - 1 }),
        fc.constantFrom(...alphabet),
        async (i, c) => {
          fc.pre(sealed.value[i] !== c);
          const changed = sealed.value.slice(0, i) + c + sealed.value.slice(i + 1);
          expect(await reason(changed)).not.toBe('opened');
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('createSessionSealer: key rotation', () => {
  const old = createSessionSealer({ keys: [k1], now });
  const rotated = createSessionSealer({ keys: [k2, k1], now });
  const retired = createSessionSealer({ keys: [k2], now });

  it('a cookie sealed with the old key opens while the key is listed, and new ones use the first key', async () => {
    const before = await old.seal(session);
    expect((await rotated.open(before.value)).sub).toBe('user-1');
    const after = await rotated.seal(session);
    expect(JSON.parse(Buffer.from(after.value.split('.')[0]!, 'base64url').toString()).kid).toBe('k2');
    expect((await retired.open(after.value)).sub).toBe('user-1');
  });

  it('fails with unknown_key once the old key is removed', async () => {
    const before = await old.seal(session);
    expect(await reason(before.value, retired)).toBe('unknown_key');
  });
});

describe('createSessionCookie', () => {
  const cookie = createSessionCookie({ now });

  it('writes a __Host- cookie: HttpOnly, Secure, SameSite=Lax, Path=/, Max-Age until exp', () => {
    expect(cookie.name).toBe('__Host-session');
    expect(cookie.serialize(sealed)).toBe(
      `__Host-session=${sealed.value}; Max-Age=600; Path=/; HttpOnly; Secure; SameSite=Lax`,
    );
  });

  it('clears it with the same attributes and Max-Age=0', () => {
    expect(cookie.clear()).toBe('__Host-session=; Max-Age=0; Path=/; HttpOnly; Secure; SameSite=Lax');
  });

  it('counts Max-Age down from the clock and never below 0', () => {
    clock.ms = T0 + 100_000;
    try {
      expect(cookie.serialize(sealed)).toContain('; Max-Age=500;');
      clock.ms = T0 + 700_000;
      expect(cookie.serialize(sealed)).toContain('; Max-Age=0;');
    } finally {
      clock.ms = T0;
    }
  });

  it('takes SameSite=Strict, and Path and Domain with a __Secure- name', () => {
    const strict = createSessionCookie({
      name: '__Secure-sid',
      sameSite: 'Strict',
      path: '/app',
      domain: 'example.com',
    });
    expect(strict.clear()).toBe(
      '__Secure-sid=; Max-Age=0; Path=/app; Domain=example.com; HttpOnly; Secure; SameSite=Strict',
    );
  });

  it('accepts an unprefixed name only with allowInsecureName, still Secure and HttpOnly', () => {
    expect(createSessionCookie({ name: 'sid', allowInsecureName: true }).clear()).toBe(
      'sid=; Max-Age=0; Path=/; HttpOnly; Secure; SameSite=Lax',
    );
  });

  it.each([
    ['an unprefixed name', { name: 'sid' }, /__Host-/],
    ['SameSite=None', { sameSite: 'None' as 'Lax' }, /cross-site/],
    ['a Domain with __Host-', { domain: 'example.com' }, /Domain/],
    ['a Path other than / with __Host-', { path: '/app' }, /Path=\//],
    ['a name that is not a token', { name: '__Host-a b' }, /token/],
    ['a Path with ;', { name: '__Secure-s', path: '/;x' }, /path/],
  ])('refuses %s at construction', (_name, options, message) => {
    expect(() => createSessionCookie(options)).toThrow(TypeError);
    expect(() => createSessionCookie(options)).toThrow(message);
  });
});
