import { coreOutcome } from '@plumbline/test-utils';
import { describe, expect, it } from 'vitest';
import {
  compareVersions,
  createVersionPolicy,
  fieldRenamed,
  parseVersion,
  resolveVersion,
  type VersionPolicyOptions,
  versionHeaders,
  versionMediaType,
  versions,
} from './index.js';

describe('createVersionPolicy rejects invalid policies at configuration time', () => {
  const rows: [string, unknown, RegExp][] = [
    [
      'unknown strategy',
      { strategy: 'cookie', versions: ['1'] },
      /strategy must be one of path, query, header, media-type/,
    ],
    ['no versions', { strategy: 'path', versions: [] }, /at least one version/],
    ['versions not an array', { strategy: 'path', versions: '1' }, /at least one version/],
    [
      'versions an object that is not versions()',
      { strategy: 'path', versions: { versions: ['1'] } },
      /at least one version/,
    ],
    [
      'versions() whose v1 sunsets before its deprecation',
      {
        strategy: 'path',
        versions: versions([
          { version: '1', deprecated: '2026-06-01T00:00:00Z', sunset: '2026-01-01T00:00:00Z' },
          { version: '2', changes: [fieldRenamed({ schema: 'S', from: 'a', to: 'b' })] },
        ]),
      },
      /version 1 has its sunset \(2026-01-01T00:00:00Z\) before its deprecation \(2026-06-01T00:00:00Z\)/,
    ],
    ['malformed version v1', { strategy: 'path', versions: ['v1'] }, /version "v1" must be/],
    ['malformed version 1.x', { strategy: 'path', versions: ['1.x'] }, /version "1.x" must be/],
    ['leading zero', { strategy: 'path', versions: ['01'] }, /version "01" must be/],
    ['entry without version', { strategy: 'path', versions: [{}] }, /every entry of versions/],
    [
      'duplicate version',
      { strategy: 'path', versions: ['1', '2', '1'] },
      /same version twice \("1" and "1"\)/,
    ],
    [
      '2 and 2.0 are duplicates',
      { strategy: 'header', versions: ['2', '2.0'] },
      /same version twice \("2" and "2.0"\)/,
    ],
    [
      'default not supported',
      { strategy: 'header', versions: ['1', '2'], defaultVersion: '3' },
      /defaultVersion "3" is not one of/,
    ],
    [
      'default with a sunset date',
      {
        strategy: 'header',
        versions: [{ version: '1', sunsetAt: '2030-01-01T00:00:00Z' }, '2'],
        defaultVersion: '1',
      },
      /defaultVersion "1" has a sunset date/,
    ],
    [
      'sunset before deprecation',
      {
        strategy: 'path',
        versions: [
          { version: '1', deprecatedAt: '2026-06-01T00:00:00Z', sunsetAt: '2026-01-01T00:00:00Z' },
          '2',
        ],
      },
      /sunset .* before its deprecation/,
    ],
    [
      'invalid date',
      { strategy: 'path', versions: [{ version: '1', sunsetAt: 'soon' }] },
      /1.sunsetAt is not a valid date/,
    ],
    [
      'deprecated: false with a date',
      { strategy: 'path', versions: [{ version: '1', deprecated: false, deprecatedAt: '2026-01-01' }] },
      /deprecatedAt but deprecated: false/,
    ],
    [
      'unknown successor',
      { strategy: 'path', versions: [{ version: '1', successor: '3' }, '2'] },
      /successor "3" .* not a supported/,
    ],
    ['own successor', { strategy: 'path', versions: [{ version: '1', successor: '1' }] }, /own successor/],
    [
      'link with a space',
      { strategy: 'path', versions: [{ version: '1', links: { deprecation: 'https://x/a b' } }] },
      /links.deprecation is not a usable URI/,
    ],
    [
      'link with an angle bracket',
      { strategy: 'path', versions: [{ version: '1', links: { sunset: 'https://x/>; rel="evil"' } }] },
      /links.sunset is not a usable URI/,
    ],
    [
      'header name with a space',
      { strategy: 'header', header: 'API Version', versions: ['1'] },
      /not a valid header name/,
    ],
    [
      'empty query parameter',
      { strategy: 'query', parameter: '', versions: ['1'] },
      /parameter must not be empty/,
    ],
    [
      'prefix without slash',
      { strategy: 'path', prefix: 'api', versions: ['1'] },
      /prefix must start with "\/"/,
    ],
    ['media type without vendor', { strategy: 'media-type', versions: ['1'] }, /vendor undefined must be/],
    [
      'vendor with a plus',
      { strategy: 'media-type', vendor: 'a+b', versions: ['1'] },
      /vendor "a\+b" must be/,
    ],
    [
      'empty suffixes',
      { strategy: 'media-type', vendor: 'a', suffixes: [], versions: ['1'] },
      /suffixes must be/,
    ],
  ];
  it.each(rows)('%s', (_name, options, message) => {
    expect(() => createVersionPolicy(options as VersionPolicyOptions)).toThrow(message);
  });
});

describe('policy shape', () => {
  it('sorts versions numerically and picks the newest stable default', () => {
    const policy = createVersionPolicy({
      strategy: 'header',
      versions: ['10', '2.1', { version: '11', deprecated: true }, '2', '9'],
    });
    expect(policy.versions).toEqual(['2', '2.1', '9', '10', '11']);
    expect(policy.defaultVersion).toBe('10');
    expect(policy.vary).toBe('X-API-Version');
    expect(Object.isFrozen(policy)).toBe(true);
  });

  it('takes the versions and their lifecycle from versions(): the default skips the deprecated one', () => {
    const policy = createVersionPolicy({
      strategy: 'date',
      versions: versions([
        { version: '2025-01-15', deprecated: true },
        { version: '2026-11-01', changes: [fieldRenamed({ schema: 'S', from: 'a', to: 'b' })] },
        {
          version: '2027-03-01',
          sunset: '2028-01-01T00:00:00Z',
          changes: [fieldRenamed({ schema: 'S', from: 'b', to: 'c' })],
        },
      ]),
    });
    expect([policy.versions, policy.defaultVersion]).toEqual([
      ['2025-01-15', '2026-11-01', '2027-03-01'],
      '2026-11-01',
    ]);
  });

  it('falls back to the newest version when every version is deprecated', () => {
    const policy = createVersionPolicy({
      strategy: 'query',
      versions: [
        { version: '1', deprecated: true },
        { version: '2', deprecated: true },
      ],
    });
    expect(policy.defaultVersion).toBe('2');
  });

  it.each([
    ['path', undefined],
    ['query', undefined],
    ['header', 'Api-Version'],
    ['media-type', 'Accept'],
  ] as const)('%s strategy varies on %s', (strategy, vary) => {
    const policy = createVersionPolicy({
      strategy,
      vendor: 'acme',
      header: 'Api-Version',
      versions: ['1'],
    } as VersionPolicyOptions);
    expect(policy.vary).toBe(vary);
  });

  it('refuses a policy object it did not create', () => {
    const fake = { strategy: 'path', versions: ['1'], defaultVersion: '1', vary: undefined } as const;
    expect(() => resolveVersion(fake, { path: '/v1' })).toThrow(/created by createVersionPolicy/);
  });
});

describe('version spellings', () => {
  it.each([
    ['2', { major: 2, minor: undefined }],
    ['0', { major: 0, minor: undefined }],
    ['2.10', { major: 2, minor: 10 }],
    ['v2', undefined],
    ['2.', undefined],
    ['2.x', undefined],
    ['02', undefined],
    ['2.01', undefined],
    ['-1', undefined],
    ['', undefined],
    ['1234567890', undefined],
  ])('parseVersion(%j)', (text, expected) => {
    expect(parseVersion(text)).toEqual(expected);
  });

  it('orders 2 < 2.1 < 10', () => {
    const sorted = ['10', '2.1', '2'].map((v) => parseVersion(v)!).sort(compareVersions);
    expect(sorted).toEqual([
      { major: 2, minor: undefined },
      { major: 2, minor: 1 },
      { major: 10, minor: undefined },
    ]);
  });

  it.each([
    ['1', '1.1'],
    ['1.0', '1.0'],
    ['1.1', '1.1'],
  ])(
    'a bare major selects the newest minor when the major itself is not listed: %s → %s',
    (requested, version) => {
      const policy = createVersionPolicy({ strategy: 'header', versions: ['1.0', '1.1', '2'] });
      expect(resolveVersion(policy, { headers: { 'x-api-version': requested } }).version).toBe(version);
    },
  );

  it('a listed bare major wins over its minors', () => {
    const policy = createVersionPolicy({ strategy: 'header', versions: ['1', '1.1'] });
    expect(resolveVersion(policy, { headers: { 'x-api-version': '1' } }).version).toBe('1');
  });
});

describe('other request shapes', () => {
  it('reads the query from URLSearchParams and a leading ?', () => {
    const policy = createVersionPolicy({ strategy: 'query', parameter: 'api-version', versions: ['1', '2'] });
    expect(resolveVersion(policy, { query: new URLSearchParams({ 'api-version': '1' }) }).version).toBe('1');
    expect(resolveVersion(policy, { query: '?api-version=1' }).version).toBe('1');
    expect(resolveVersion(policy, {}).version).toBe('2');
  });

  it('reads header arrays as several lines', () => {
    const policy = createVersionPolicy({ strategy: 'header', versions: ['1', '2'] });
    expect(() => resolveVersion(policy, { headers: { 'x-api-version': ['1', '2'] } })).toThrow(
      'ambiguous_api_version',
    );
  });

  it('a path given with its query still reads the version from the path', () => {
    const policy = createVersionPolicy({ strategy: 'path', versions: ['1', '2'] });
    expect(resolveVersion(policy, { path: '/v1?version=2' }).version).toBe('1');
    expect(resolveVersion(policy, { path: '/v2#v1' }).version).toBe('2');
  });

  it('a 406 lists the vendor media types that can be served', async () => {
    const policy = createVersionPolicy({
      strategy: 'media-type',
      vendor: 'acme',
      suffixes: ['json', 'xml'],
      versions: ['1', '2'],
    });
    const outcome = await coreOutcome(() =>
      resolveVersion(policy, { headers: { accept: 'application/vnd.acme.v3+json' } }),
    );
    expect(outcome.status).toBe(406);
    expect(outcome.body).toMatchObject({
      error_code: 'unsupported_api_version',
      detail: 'API version "3" is not supported; supported: 1, 2.',
      available: [
        'application/vnd.acme.v1+json',
        'application/vnd.acme.v1+xml',
        'application/vnd.acme.v2+json',
        'application/vnd.acme.v2+xml',
      ],
    });
  });

  it('a path policy given no path answers 404', () => {
    const policy = createVersionPolicy({ strategy: 'path', versions: ['1'] });
    expect(() => resolveVersion(policy, {})).toThrow('not_found');
  });

  it('cuts an Accept header longer than 1 KiB at a member boundary', () => {
    const policy = createVersionPolicy({
      strategy: 'media-type',
      vendor: 'acme',
      versions: ['1', '2'],
      defaultVersion: '2',
    });
    const filler = Array.from({ length: 80 }, (_, i) => `text/x-filler-${i}`).join(',');
    expect(filler.length).toBeGreaterThan(1024);
    const late = `${filler},application/vnd.acme.v1+json`;
    expect(resolveVersion(policy, { headers: { accept: late } }).version).toBe('2');
    const early = `application/vnd.acme.v1+json,${filler}`;
    expect(resolveVersion(policy, { headers: { accept: early } }).version).toBe('1');
  });

  it('answers the same Accept the same way when cached', () => {
    const policy = createVersionPolicy({ strategy: 'media-type', vendor: 'acme', versions: ['1', '2'] });
    for (let i = 0; i < 600; i++) {
      expect(
        resolveVersion(policy, { headers: { accept: `application/vnd.acme.v1+json;n=${i % 300}` } }).version,
      ).toBe('1');
    }
  });
});

describe('versionMediaType', () => {
  const policy = createVersionPolicy({
    strategy: 'media-type',
    vendor: 'Plumbline',
    suffixes: ['json', 'xml'],
    versions: ['1', '2.1'],
  });
  it.each([
    ['1', undefined, 'application/vnd.plumbline.v1+json'],
    ['2.1', 'xml', 'application/vnd.plumbline.v2.1+xml'],
    ['2', undefined, 'application/vnd.plumbline.v2.1+json'],
  ])('%s %s → %s', (version, suffix, expected) => {
    expect(versionMediaType(policy, version, suffix)).toBe(expected);
  });
  it('throws for an unknown version, an unknown suffix or another strategy', () => {
    expect(() => versionMediaType(policy, '3')).toThrow(/not in the policy/);
    expect(() => versionMediaType(policy, '1', 'cbor')).toThrow(/suffix "cbor"/);
    expect(() => versionMediaType(createVersionPolicy({ strategy: 'path', versions: ['1'] }), '1')).toThrow(
      /media-type/,
    );
  });
});

describe('versionHeaders', () => {
  it('throws for a version the policy does not have', () => {
    const policy = createVersionPolicy({ strategy: 'path', versions: ['1'] });
    expect(() => versionHeaders(policy, '2')).toThrow(/version "2" is not in the policy/);
  });
});
