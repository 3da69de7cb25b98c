import { describe, expect, it } from 'vitest';
import { combineHeader, createRequestVersioning, createVersionPolicy, versionTable } from './index.js';

describe('createRequestVersioning()', () => {
  const policy = createVersionPolicy({
    strategy: 'header',
    versions: [{ version: '1', deprecated: true }, '2'],
  });
  const resolve = createRequestVersioning(policy, { neutralPaths: ['/health', /^\/errors\//] });

  it.each([
    ['/health', {}, 'neutral', { 'API-Supported-Versions': '1, 2', 'API-Deprecated-Versions': '1' }],
    ['/HEALTH/live', {}, 'neutral', { 'API-Supported-Versions': '1, 2', 'API-Deprecated-Versions': '1' }],
    [
      '/projects',
      { 'x-api-version': '1' },
      'resolved',
      {
        'API-Supported-Versions': '1, 2',
        'API-Deprecated-Versions': '1',
        Deprecation: 'true',
        Vary: 'X-API-Version',
      },
    ],
    [
      '/projects',
      { 'x-api-version': 'nine' },
      'error',
      { 'API-Supported-Versions': '1, 2', 'API-Deprecated-Versions': '1', Vary: 'X-API-Version' },
    ],
  ] as const)('%s %j is %s with exactly these headers', (path, headers, kind, expected) => {
    const outcome = resolve({ path, headers });
    expect(outcome.kind).toBe(kind);
    expect(outcome.headers).toEqual(expected);
  });

  it('the path strategy derives the successor link below the base path', () => {
    const pathPolicy = createVersionPolicy({
      strategy: 'path',
      versions: [{ version: '1', deprecated: true, successor: '2' }, '2'],
    });
    const outcome = createRequestVersioning(pathPolicy)({ path: '/v1/x', basePath: '/api' });
    expect(outcome.headers['Link']).toBe('</api/v2/x>; rel="successor-version"');
  });
});

describe('combineHeader()', () => {
  it.each([
    ['Vary', undefined, 'Accept', 'Accept'],
    ['Vary', 'Origin', 'Accept', 'Origin, Accept'],
    ['vary', 'accept', 'Accept', 'accept'],
    ['Vary', '*', 'Accept', '*'],
    ['Link', '<a>; rel="next"', '<b>; rel="deprecation"', '<a>; rel="next", <b>; rel="deprecation"'],
    ['Sunset', 'old', 'new', 'new'],
    ['Deprecation', '', 'true', 'true'],
  ])('%s: %j + %j → %j', (name, existing, value, combined) => {
    expect(combineHeader(name, existing, value)).toBe(combined);
  });
});

describe('versionTable()', () => {
  const policy = createVersionPolicy({ strategy: 'path', versions: ['1', '2'] });
  const handler = () => {};
  it('maps every supported version', () => {
    expect([...versionTable(policy, { '1': handler, '2': handler }).keys()]).toEqual(['1', '2']);
  });
  it.each([
    [{ '1': handler }, /no router for 2/],
    [{ '1': handler, '2': handler, '3': handler }, /"3", which is not a supported version/],
    [{ '1': handler, '2': 'nope' }, /"2" is not a function/],
  ])('rejects %j', (handlers, message) => {
    expect(() => versionTable(policy, handlers as Record<string, () => void>)).toThrow(message);
  });
});
