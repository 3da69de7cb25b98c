import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalBody, canonicalJson, compileExclusions, fingerprintRequest } from './fingerprint.js';

// A recursive reference (fine for generated, shallow data): keys sorted as strings. Objects
// cannot hold that order themselves, since integer-like keys always come first.
const reference = (v: unknown): string =>
  Array.isArray(v)
    ? `[${v.map(reference).join(',')}]`
    : v !== null && typeof v === 'object'
      ? `{${Object.keys(v)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${reference((v as Record<string, unknown>)[k])}`)
          .join(',')}}`
      : JSON.stringify(v);

describe('canonicalJson', () => {
  it.each([
    ['sorted keys', { b: 1, a: 2 }, '{"a":2,"b":1}'],
    ['nested', { z: { y: 1, x: [{ b: 1, a: 0 }] }, a: null }, '{"a":null,"z":{"x":[{"a":0,"b":1}],"y":1}}'],
    ['undefined members skipped', { a: undefined, b: 1 }, '{"b":1}'],
    ['undefined in arrays becomes null', [undefined, 1], '[null,1]'],
    ['strings escaped', { 'k"': 'v\n' }, '{"k\\"":"v\\n"}'],
    ['dates via toJSON', { d: new Date(0) }, '{"d":"1970-01-01T00:00:00.000Z"}'],
    ['non-finite numbers as null', { n: Number.NaN }, '{"n":null}'],
    ['primitive', 42, '42'],
  ] as const)('%s', (_name, value, expected) => {
    expect(canonicalJson(value)).toBe(expected);
  });

  it.each([
    ['top-level field', ['sent_at'], { sent_at: 1, qty: 2 }, '{"qty":2}'],
    [
      'nested field',
      ['meta.trace'],
      { meta: { trace: 'x', keep: 1 }, trace: 2 },
      '{"meta":{"keep":1},"trace":2}',
    ],
    ['absent field', ['nope'], { a: 1 }, '{"a":1}'],
  ] as const)('excludes %s', (_name, fields, value, expected) => {
    expect(canonicalJson(value, compileExclusions(fields))).toBe(expected);
  });

  it('agrees with JSON.stringify on sorted data, whatever the shape (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(value)).toBe(reference(value));
      }),
    );
  });

  it.each([2_000, 100_000])('writes a body nested %i levels deep without overflowing the stack', (depth) => {
    const value = JSON.parse(`{"name":${'['.repeat(depth)}${']'.repeat(depth)}}`);
    expect(canonicalJson(value)).toBe(`{"name":${'['.repeat(depth)}${']'.repeat(depth)}}`);
  });

  it.each([1, 63, 64, 65, 130])(
    'a body of objects and arrays %i levels deep matches the reference',
    (depth) => {
      // Crosses the depth where the writer stops recursing and continues iteratively.
      let value: unknown = { z: 'end', a: [1, null] };
      for (let i = 0; i < depth; i += 1)
        value = i % 2 ? { y: value, b: [i, 'x'] } : [value, { d: i, c: true }];
      expect(canonicalJson(value)).toBe(reference(value));
    },
  );

  it('excludes a field below the depth where the writer turns iterative', () => {
    let value: unknown = { drop: 1, keep: 2 };
    for (let i = 0; i < 70; i += 1) value = { a: value, z: i };
    const path = `${'a.'.repeat(70)}drop`;
    let expected = '{"keep":2}';
    for (let i = 0; i < 70; i += 1) expected = `{"a":${expected},"z":${i}}`;
    expect(canonicalJson(value, compileExclusions([path]))).toBe(expected);
  });

  it.each([[''], ['a..b'], ['.a']])('rejects the exclusion path %j', (field) => {
    expect(() => compileExclusions([field])).toThrow(/not a dotted field path/);
  });
});

describe('fingerprintRequest', () => {
  const base = { method: 'POST', path: '/orders', query: 'a=1', body: { qty: 1, sku: 'x' } };
  const same = fingerprintRequest(base);

  it.each([
    ['reordered JSON keys', { ...base, body: { sku: 'x', qty: 1 } }, true],
    ['method in lower case', { ...base, method: 'post' }, true],
    ['different body', { ...base, body: { qty: 2, sku: 'x' } }, false],
    ['different query', { ...base, query: 'a=2' }, false],
    ['different path', { ...base, path: '/orders/' }, false],
    ['different method', { ...base, method: 'PATCH' }, false],
    ['no body', { ...base, body: undefined }, false],
  ] as const)('%s → same: %s', (_name, request, expected) => {
    expect(fingerprintRequest(request) === same).toBe(expected);
  });

  it('treats an absent body, null and an empty string alike, and hashes raw bytes as they are', () => {
    expect(canonicalBody(undefined)).toBe('');
    expect(canonicalBody(null)).toBe('');
    const empty = fingerprintRequest({ method: 'POST', path: '/x', body: '' });
    expect(fingerprintRequest({ method: 'POST', path: '/x' })).toBe(empty);
    expect(fingerprintRequest({ method: 'POST', path: '/x', body: Buffer.from('{"b":1,"a":2}') })).not.toBe(
      fingerprintRequest({ method: 'POST', path: '/x', body: { a: 2, b: 1 } }),
    );
  });

  it('ignores excluded fields', () => {
    const exclusions = compileExclusions(['sent_at']);
    expect(fingerprintRequest({ ...base, body: { ...base.body, sent_at: 1 } }, exclusions)).toBe(
      fingerprintRequest({ ...base, body: { ...base.body, sent_at: 2 } }, exclusions),
    );
  });
});
