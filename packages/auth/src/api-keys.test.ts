import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import {
  type ApiKeyStore,
  defaultScopesForAccess,
  generateApiKey,
  hashApiKey,
  isWellFormedApiKey,
  MemoryApiKeyStore,
  verifyApiKey,
} from './index.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

describe('API key format', () => {
  it('is plk_ + 32 base62 + 6 base62 checksum, unique per call', () => {
    const keys = Array.from({ length: 200 }, generateApiKey);
    for (const key of keys) {
      expect(key).toMatch(/^plk_[0-9A-Za-z]{38}$/);
      expect(isWellFormedApiKey(key)).toBe(true);
    }
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('any single-character change is caught by the checksum', () => {
    fc.assert(
      fc.property(fc.integer({ min: 4, max: 41 }), fc.integer({ min: 1, max: 61 }), (position, shift) => {
        const key = generateApiKey();
        const replaced = BASE62[(BASE62.indexOf(key[position]!) + shift) % 62]!;
        const mutated = key.slice(0, position) + replaced + key.slice(position + 1);
        return !isWellFormedApiKey(mutated);
      }),
      { numRuns: 300 },
    );
  });

  it.each([
    ['empty', ''],
    ['prefix only', 'plk_'],
    ['truncated', 'TRUNCATE'],
    ['one extra character', 'EXTRA'],
    ['other prefix', 'PREFIX'],
    ['non-base62 character', 'DASH'],
    ['trailing newline', 'NEWLINE'],
  ])('%s is not well formed', (_name, kind) => {
    const key = generateApiKey();
    const variants: Record<string, string> = {
      TRUNCATE: key.slice(0, -1),
      EXTRA: `${key}a`,
      PREFIX: `pk_${key.slice(4)}`,
      DASH: `${key.slice(0, 10)}-${key.slice(11)}`,
      NEWLINE: `${key}\n`,
    };
    expect(isWellFormedApiKey(variants[kind] ?? kind)).toBe(false);
  });

  it('hashes with SHA-256 (hex)', () => {
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('verifyApiKey', () => {
  const key = generateApiKey();
  const hash = hashApiKey(key);

  it('checks the checksum before any lookup', async () => {
    const findByHash = vi.fn(() => ({ clientId: 'c', access: 'read' as const }));
    const bad = `${key.slice(0, -1)}${key.endsWith('0') ? '1' : '0'}`;
    await expect(verifyApiKey(bad, { store: { findByHash } })).rejects.toMatchObject({
      status: 401,
      code: 'unauthorized',
    });
    await expect(verifyApiKey('plk_nonsense', { store: { findByHash } })).rejects.toMatchObject({
      status: 401,
    });
    expect(findByHash).not.toHaveBeenCalled();
    await verifyApiKey(key, { store: { findByHash } });
    expect(findByHash).toHaveBeenCalledWith(hash);
  });

  it.each([
    ['read', ['read:*']],
    ['read-write', ['read:*', 'write:*']],
  ] as const)('maps access %s to %j server-side', async (access, scopes) => {
    const store = new MemoryApiKeyStore();
    store.add(key, { clientId: 'billing', access });
    expect(await verifyApiKey(key, { store })).toEqual({ type: 'api_key', clientId: 'billing', scopes });
    expect(defaultScopesForAccess(access)).toEqual(scopes);
  });

  it('takes a custom access mapping', async () => {
    const store = new MemoryApiKeyStore();
    store.add(hash, { clientId: 'billing', access: 'read' });
    const principal = await verifyApiKey(key, { store, scopesForAccess: () => ['read:invoices'] });
    expect(principal.scopes).toEqual(['read:invoices']);
  });

  it('refuses a record whose stored hash differs (a sloppy store lookup)', async () => {
    const store: ApiKeyStore = {
      findByHash: () => ({ clientId: 'c', access: 'read', hash: hash.toUpperCase() }),
    };
    await expect(verifyApiKey(key, { store })).rejects.toMatchObject({ status: 401 });
  });

  it('revoked → 401, same as unknown', async () => {
    const store = new MemoryApiKeyStore();
    store.add(key, { clientId: 'c', access: 'read' });
    store.revoke(key);
    await expect(verifyApiKey(key, { store })).rejects.toMatchObject({
      status: 401,
      code: 'unauthorized',
      headers: { 'WWW-Authenticate': 'Bearer realm="plumbline"' },
    });
  });

  it('a failing store → 503 service_unavailable (fail closed)', async () => {
    const store: ApiKeyStore = {
      findByHash: () => Promise.reject(new Error('connection refused: postgres://secret@db')),
    };
    await expect(verifyApiKey(key, { store })).rejects.toMatchObject({
      status: 503,
      code: 'service_unavailable',
      expose: false,
    });
  });
});
