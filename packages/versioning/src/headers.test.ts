import type { HttpError } from '@plumbline/errors';
import { coreOutcome, EXPRESS_VERSIONS, fromSupertest } from '@plumbline/test-utils';
import type { Express } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { buildApp, echo, IMF_FIXDATE, parseDeprecation, parseLinks } from '../test/support.js';
import { getApiVersion, versionedRouter, versioning } from './express.js';
import {
  createRequestVersioning,
  createVersionPolicy,
  formatDeprecation,
  formatHttpDate,
  resolveVersion,
  versionHeaders,
} from './index.js';

const DEPRECATED_AT = '2026-01-01T00:00:00Z';
const SUNSET_AT = '2026-12-31T23:59:59Z';
const BEFORE = Date.parse('2025-06-01T00:00:00Z');
const DURING = Date.parse('2026-06-01T12:00:00Z');
const AFTER = Date.parse('2027-02-01T00:00:00Z');

function lifecyclePolicy(now: number, enforceSunset = true) {
  return createVersionPolicy({
    strategy: 'path',
    now: () => now,
    enforceSunset,
    versions: [
      {
        version: '1',
        deprecatedAt: DEPRECATED_AT,
        sunsetAt: new Date(SUNSET_AT),
        successor: '2',
        links: {
          deprecation: 'https://docs.example.com/deprecations/v1',
          sunset: 'https://docs.example.com/sunset-policy',
        },
      },
      '2',
    ],
  });
}

describe('Deprecation and Sunset values parse back to the configured dates', () => {
  const headers = versionHeaders(lifecyclePolicy(DURING), '1', { path: '/v1/projects/7' });

  it('Deprecation is RFC 9745 @<unix seconds>', () => {
    expect(headers['Deprecation']).toMatch(/^@\d+$/);
    expect(parseDeprecation(headers['Deprecation'])! * 1000).toBe(Date.parse(DEPRECATED_AT));
  });

  it('Sunset is an RFC 9110 IMF-fixdate (RFC 8594)', () => {
    expect(headers['Sunset']).toMatch(IMF_FIXDATE);
    expect(headers['Sunset']).toBe('Thu, 31 Dec 2026 23:59:59 GMT');
    expect(Date.parse(headers['Sunset']!)).toBe(Date.parse(SUNSET_AT));
  });

  it('Link carries deprecation, sunset and successor-version', () => {
    expect(parseLinks(headers['Link'])).toEqual([
      { target: 'https://docs.example.com/deprecations/v1', rel: 'deprecation' },
      { target: 'https://docs.example.com/sunset-policy', rel: 'sunset' },
      { target: '/v2/projects/7', rel: 'successor-version' },
    ]);
  });

  it('the exact header set of a deprecated version', () => {
    expect(headers).toEqual({
      'API-Supported-Versions': '1, 2',
      'API-Deprecated-Versions': '1',
      Deprecation: '@1767225600',
      Sunset: 'Thu, 31 Dec 2026 23:59:59 GMT',
      Link: '<https://docs.example.com/deprecations/v1>; rel="deprecation", <https://docs.example.com/sunset-policy>; rel="sunset", </v2/projects/7>; rel="successor-version"',
    });
  });

  it('a current version carries only the version lists', () => {
    expect(versionHeaders(lifecyclePolicy(DURING), '2')).toEqual({
      'API-Supported-Versions': '1, 2',
      'API-Deprecated-Versions': '1',
    });
  });

  it('sub-second dates are truncated to whole seconds in both headers', () => {
    expect(formatDeprecation(Date.parse('2026-01-01T00:00:00.999Z'))).toBe('@1767225600');
    expect(formatHttpDate(Date.parse('2026-01-01T00:00:00.999Z'))).toBe('Thu, 01 Jan 2026 00:00:00 GMT');
  });
});

describe('Deprecation: true only when no date is set', () => {
  it.each([
    ['deprecated without a date', { version: '1', deprecated: true }, 'true'],
    ['deprecated with a date', { version: '1', deprecatedAt: '2020-01-01T00:00:00Z' }, '@1577836800'],
    [
      'deprecated: true and a date',
      { version: '1', deprecated: true, deprecatedAt: '2020-01-01T00:00:00Z' },
      '@1577836800',
    ],
    ['not deprecated', { version: '1' }, undefined],
    ['sunset without deprecation', { version: '1', sunsetAt: '2099-01-01T00:00:00Z' }, undefined],
  ])('%s → %s', (_name, definition, expected) => {
    const policy = createVersionPolicy({
      strategy: 'header',
      versions: [definition, '2'],
      defaultVersion: '2',
    });
    expect(versionHeaders(policy, '1')['Deprecation']).toBe(expected);
  });
});

describe('the lifecycle over time', () => {
  it('before the deprecation date: Deprecation announces the future date, 1 is not listed as deprecated yet', () => {
    const headers = versionHeaders(lifecyclePolicy(BEFORE), '1');
    expect(headers['Deprecation']).toBe('@1767225600');
    expect(headers['API-Deprecated-Versions']).toBeUndefined();
    expect(headers['API-Supported-Versions']).toBe('1, 2');
  });

  it('at the deprecation instant 1 is listed as deprecated', () => {
    expect(versionHeaders(lifecyclePolicy(Date.parse(DEPRECATED_AT)), '2')['API-Deprecated-Versions']).toBe(
      '1',
    );
  });

  it('after the sunset: 410 api_version_sunset with the sunset headers, and 1 is no longer supported', async () => {
    const policy = lifecyclePolicy(AFTER);
    const outcome = await coreOutcome(() => resolveVersion(policy, { path: '/v1/projects' }));
    expect(outcome.status).toBe(410);
    expect(outcome.body).toMatchObject({
      error_code: 'api_version_sunset',
      detail: 'API version 1 was retired on Thu, 31 Dec 2026 23:59:59 GMT.',
    });
    expect(outcome.headers).toEqual({
      'api-supported-versions': '2',
      deprecation: '@1767225600',
      sunset: 'Thu, 31 Dec 2026 23:59:59 GMT',
      link: '<https://docs.example.com/deprecations/v1>; rel="deprecation", <https://docs.example.com/sunset-policy>; rel="sunset", </v2/projects>; rel="successor-version"',
    });
    expect(resolveVersion(policy, { path: '/v2/projects' }).version).toBe('2');
  });

  // The README promises the successor-version link on every response of a deprecated version:
  // the 410 after the sunset is one of them, and the one that needs it most.
  it.each([
    ['a collection', '/v1/projects', undefined, '</v2/projects>; rel="successor-version"'],
    ['a member', '/v1/projects/7', undefined, '</v2/projects/7>; rel="successor-version"'],
    ['the version root', '/v1', undefined, '</v2>; rel="successor-version"'],
    ['below a base path', '/v1/tasks', '/api', '</api/v2/tasks>; rel="successor-version"'],
  ])('the 410 for %s keeps the successor-version link', (_label, path, basePath, successor) => {
    const outcome = createRequestVersioning(lifecyclePolicy(AFTER))({
      path,
      ...(basePath === undefined ? {} : { basePath }),
    });
    expect(outcome.kind).toBe('error');
    const error = (outcome as { error: HttpError }).error;
    expect(error.status).toBe(410);
    expect(error.headers['Link']).toBe(
      `<https://docs.example.com/deprecations/v1>; rel="deprecation", <https://docs.example.com/sunset-policy>; rel="sunset", ${successor}`,
    );
  });

  // The derived link repeats the request path, which the client chooses: past 2048 characters
  // there is none, so no response header grows with the path (a 404 for /v1/<16 KiB> included).
  it.each([
    ['path', `/v1/${'a'.repeat(2044)}`, `</v2/${'a'.repeat(2044)}>; rel="successor-version"`],
    ['path', `/v1/${'a'.repeat(2045)}`, undefined],
    ['query', `/${'a'.repeat(2047)}`, `</${'a'.repeat(2047)}?version=2>; rel="successor-version"`],
    ['query', `/${'a'.repeat(2048)}`, undefined],
    ['header', `/${'a'.repeat(2047)}`, `</${'a'.repeat(2047)}>; rel="successor-version"`],
    ['header', `/${'a'.repeat(16_000)}`, undefined],
  ] as const)(
    '%s strategy, case %#: a derived link only from a path of at most 2048 characters',
    (strategy, path, link) => {
      const policy = createVersionPolicy({
        strategy,
        versions: [{ version: '1', deprecated: true, successor: '2' }, '2'],
      });
      const headers = versionHeaders(policy, '1', { path });
      expect(headers['Link']).toBe(link);
    },
  );

  it('the 410 under the header strategy keeps a configured successor link', () => {
    const policy = createVersionPolicy({
      strategy: 'header',
      now: () => AFTER,
      versions: [
        { version: '1', sunsetAt: SUNSET_AT, links: { successor: 'https://docs.example.com/v2' } },
        '2',
      ],
    });
    const outcome = createRequestVersioning(policy)({ path: '/projects', headers: { 'x-api-version': '1' } });
    expect((outcome as { error: HttpError }).error.headers['Link']).toBe(
      '<https://docs.example.com/v2>; rel="successor-version"',
    );
  });

  it('exactly at the sunset instant the version is retired', async () => {
    const outcome = await coreOutcome(() =>
      resolveVersion(lifecyclePolicy(Date.parse(SUNSET_AT)), { path: '/v1' }),
    );
    expect(outcome.status).toBe(410);
  });

  it('with enforceSunset: false a version past its sunset is still served and listed', () => {
    const policy = lifecyclePolicy(AFTER, false);
    expect(resolveVersion(policy, { path: '/v1/projects' }).version).toBe('1');
    expect(versionHeaders(policy, '1')['API-Supported-Versions']).toBe('1, 2');
    expect(versionHeaders(policy, '1')['Sunset']).toBe('Thu, 31 Dec 2026 23:59:59 GMT');
  });

  it('an explicit successor link is used as given', () => {
    const policy = createVersionPolicy({
      strategy: 'header',
      versions: [
        {
          version: '1',
          deprecated: true,
          successor: '2',
          links: { successor: 'https://docs.example.com/v2' },
        },
        '2',
      ],
    });
    expect(parseLinks(versionHeaders(policy, '1')['Link'])).toEqual([
      { target: 'https://docs.example.com/v2', rel: 'successor-version' },
    ]);
  });

  it.each([
    ['query', '/projects/7?limit=5', '</projects/7?version=2>; rel="successor-version"'],
    ['header', '/projects/7', '</projects/7>; rel="successor-version"'],
    [
      'media-type',
      '/projects/7',
      '</projects/7>; rel="successor-version"; type="application/vnd.acme.v2+json"',
    ],
  ] as const)('the %s strategy derives the successor link from the path: %s', (strategy, path, link) => {
    const versions = [{ version: '1', deprecated: true, successor: '2' }, '2'];
    const policy = createVersionPolicy(
      strategy === 'media-type' ? { strategy, vendor: 'acme', versions } : { strategy, versions },
    );
    expect(versionHeaders(policy, '1', { path })['Link']).toBe(link);
    expect(versionHeaders(policy, '1', { path, basePath: '/api' })['Link']).toBe(
      link.replace('</', '</api/'),
    );
  });

  it('no successor link is derived for a path that cannot go into a header', () => {
    const policy = lifecyclePolicy(DURING);
    expect(
      parseLinks(versionHeaders(policy, '1', { path: '/v1/a"b' })['Link']).map((link) => link.rel),
    ).toEqual(['deprecation', 'sunset']);
  });
});

describe.each(EXPRESS_VERSIONS)('headers through %s', (_name, express) => {
  function app(now: number): Express {
    const policy = lifecyclePolicy(now);
    const router = () =>
      express
        .Router()
        .get('/ok', (req, res) => {
          res.json({ version: getApiVersion(req) });
        })
        .get('/boom', () => {
          throw new Error('database down');
        });
    const neutral = express.Router().get('/health', (_req, res) => {
      res.json({ ok: true });
    });
    return buildApp(express, (a) =>
      a.use(versionedRouter(policy, { '1': router(), '2': router() }, { neutral })),
    );
  }
  const during = app(DURING);
  const after = app(AFTER);

  const DEPRECATED_V1 = {
    'api-supported-versions': '1, 2',
    'api-deprecated-versions': '1',
    deprecation: '@1767225600',
    sunset: 'Thu, 31 Dec 2026 23:59:59 GMT',
    link: '<https://docs.example.com/deprecations/v1>; rel="deprecation", <https://docs.example.com/sunset-policy>; rel="sunset", </v2/boom>; rel="successor-version"',
  };

  it.each([
    ['2xx on v2', '/v2/ok', 200, undefined],
    ['404 route missing in v2', '/v2/missing', 404, 'not_found'],
    ['404 unknown version', '/v9/ok', 404, 'unsupported_api_version'],
    ['400 malformed version', '/v2.x/ok', 400, 'invalid_api_version'],
    ['404 unversioned path', '/ok', 404, 'not_found'],
    ['500 thrown in v2', '/v2/boom', 500, 'internal_error'],
    ['2xx on a neutral route', '/health', 200, undefined],
  ])('%s carries API-Supported-Versions', async (_label, path, status, code) => {
    const outcome = fromSupertest(await request(during).get(path));
    expect(outcome.status).toBe(status);
    if (code !== undefined) expect((outcome.body as Record<string, unknown>)['error_code']).toBe(code);
    expect(outcome.headers['api-supported-versions']).toBe('1, 2');
    expect(outcome.headers['api-deprecated-versions']).toBe('1');
    expect(outcome.headers['deprecation']).toBeUndefined();
    expect(outcome.headers['sunset']).toBeUndefined();
  });

  it('a 500 in a deprecated version keeps every deprecation header', async () => {
    const outcome = fromSupertest(await request(during).get('/v1/boom'));
    expect(outcome.status).toBe(500);
    expect(outcome.headers).toMatchObject(DEPRECATED_V1);
  });

  it('a 2xx in a deprecated version carries them too', async () => {
    const outcome = fromSupertest(await request(during).get('/v1/ok'));
    expect(outcome.status).toBe(200);
    expect(outcome.body).toEqual({ version: '1' });
    expect(outcome.headers).toMatchObject({
      ...DEPRECATED_V1,
      link: DEPRECATED_V1.link.replace('/v2/boom', '/v2/ok'),
    });
  });

  it('after the sunset: 410 with Sunset, and 2 is the only supported version', async () => {
    const outcome = fromSupertest(await request(after).get('/v1/ok'));
    expect(outcome.status).toBe(410);
    expect((outcome.body as Record<string, unknown>)['error_code']).toBe('api_version_sunset');
    expect(outcome.headers['api-supported-versions']).toBe('2');
    expect(outcome.headers['api-deprecated-versions']).toBeUndefined();
    expect(outcome.headers['sunset']).toBe('Thu, 31 Dec 2026 23:59:59 GMT');
    expect(outcome.headers['deprecation']).toBe('@1767225600');
    expect(outcome.headers['link']).toBe(DEPRECATED_V1.link.replace('/v2/boom', '/v2/ok'));
    const v2 = fromSupertest(await request(after).get('/v2/ok'));
    expect(v2.status).toBe(200);
    expect(v2.headers['api-supported-versions']).toBe('2');
  });

  it('Vary and Link set by earlier middleware are kept, not replaced', async () => {
    const policy = createVersionPolicy({
      strategy: 'header',
      versions: [
        { version: '1', deprecated: true, links: { deprecation: 'https://docs.example.com/v1' } },
        '2',
      ],
    });
    const withOthers = buildApp(express, (a) => {
      a.use((_req, res, next) => {
        res.setHeader('Vary', 'Origin');
        res.setHeader('Link', '</projects?page=2>; rel="next"');
        next();
      });
      a.use(versioning(policy), echo);
    });
    const ok = fromSupertest(await request(withOthers).get('/projects').set('X-API-Version', '1'));
    expect(ok.headers['vary']).toBe('Origin, X-API-Version');
    expect(parseLinks(ok.headers['link'])).toEqual([
      { target: '/projects?page=2', rel: 'next' },
      { target: 'https://docs.example.com/v1', rel: 'deprecation' },
    ]);
    const failed = fromSupertest(await request(withOthers).get('/projects').set('X-API-Version', 'x'));
    expect(failed.status).toBe(400);
    expect(failed.headers['vary']).toBe('Origin, X-API-Version, Accept, Accept-Language');
  });

  it('a 410 under the header strategy keeps Vary from other middleware', async () => {
    const policy = createVersionPolicy({
      strategy: 'header',
      now: () => AFTER,
      versions: [{ version: '1', deprecatedAt: DEPRECATED_AT, sunsetAt: SUNSET_AT }, '2'],
    });
    const retired = buildApp(express, (a) => {
      a.use((_req, res, next) => {
        res.setHeader('Vary', 'Origin');
        next();
      });
      a.use(versioning(policy), echo);
    });
    const outcome = fromSupertest(await request(retired).get('/x').set('X-API-Version', '1'));
    expect(outcome.status).toBe(410);
    expect(outcome.headers['vary']).toBe('Origin, X-API-Version, Accept, Accept-Language');
  });
});
