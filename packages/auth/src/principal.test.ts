import { describe, expect, it } from 'vitest';
import { assertScopes, hasScopes, type Principal, scopesFromClaims } from './index.js';

const jwt = (scopes: string[]): Principal => ({ type: 'jwt', clientId: 'c', scopes });
const key = (scopes: string[]): Principal => ({ type: 'api_key', clientId: 'c', scopes });

describe('hasScopes', () => {
  it.each([
    ['exact match', jwt(['write:items']), ['write:items'], 'all', true],
    ['all of two', jwt(['read:items', 'write:items']), ['read:items', 'write:items'], 'all', true],
    ['all: one missing', jwt(['read:items']), ['read:items', 'write:items'], 'all', false],
    ['any: one present', jwt(['read:items']), ['read:items', 'write:items'], 'any', true],
    ['any: none present', jwt(['read:other']), ['read:items', 'write:items'], 'any', false],
    ['nothing required', jwt([]), [], 'all', true],
    ['prefix trick', jwt(['write:item']), ['write:items'], 'all', false],
    ['longer scope', jwt(['write:items:all']), ['write:items'], 'all', false],
    ['case trick', jwt(['WRITE:items']), ['write:items'], 'all', false],
    ['JWT wildcard is a plain string', jwt(['write:*']), ['write:items'], 'all', false],
    ['JWT star', jwt(['*']), ['write:items'], 'all', false],
    ['API key read:* covers read:items', key(['read:*']), ['read:items'], 'all', true],
    ['API key read:* does not cover write:items', key(['read:*']), ['write:items'], 'all', false],
    ['API key read:* does not cover a scope without action', key(['read:*']), ['read'], 'all', false],
    ['API key read:* does not cover READ:items', key(['read:*']), ['READ:items'], 'all', false],
    ['API key read:*, write:* covers both', key(['read:*', 'write:*']), ['read:a', 'write:b'], 'all', true],
  ] as const)('%s', (_name, principal, required, mode, expected) => {
    expect(hasScopes(principal, required, { mode })).toBe(expected);
  });
});

describe('assertScopes', () => {
  it('no principal → 401 unauthorized with a plain challenge', () => {
    expect(() => assertScopes(undefined, ['read:items'], { realm: 'api' })).toThrow(
      expect.objectContaining({
        status: 401,
        code: 'unauthorized',
        headers: { 'WWW-Authenticate': 'Bearer realm="api"' },
      }),
    );
  });

  it('missing scope → 403 with every required scope in the challenge', () => {
    expect(() => assertScopes(jwt([]), ['read:items', 'write:items'])).toThrow(
      expect.objectContaining({
        status: 403,
        code: 'insufficient_scope',
        headers: {
          'WWW-Authenticate':
            'Bearer realm="plumbline", error="insufficient_scope", scope="read:items write:items"',
        },
      }),
    );
  });
});

describe('scopesFromClaims', () => {
  it.each([
    ['space-delimited scope', { scope: 'a b  c' }, ['a', 'b', 'c']],
    ['scp array', { scp: ['a', 'b'] }, ['a', 'b']],
    ['both, merged and deduplicated', { scope: 'a b', scp: ['b', 'c'] }, ['a', 'b', 'c']],
    ['neither', {}, []],
    ['empty scope', { scope: '' }, []],
    ['scope a number', { scope: 1 }, undefined],
    ['scope null', { scope: null }, undefined],
    ['scope an array', { scope: ['a'] }, undefined],
    ['scp a string', { scp: 'a' }, undefined],
    ['scp with an object', { scp: ['a', {}] }, undefined],
    ['scp with an empty string', { scp: [''] }, undefined],
  ])('%s', (_name, claims, expected) => {
    expect(scopesFromClaims(claims)).toEqual(expected);
  });
});
