/**
 * VERSIONING_STRATEGY end to end: the Tour's main requests (list, next page, create, get, v1's
 * deprecation headers, 404, unknown version, no version) under each of the four strategies, with
 * the exact status and headers, including every link the service writes.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, helpText, loadConfig, type VersioningStrategy } from '../src/service/config.js';
import { type RunningService, startService } from './harness.js';

/** How one strategy carries a version in a request, and what the service answers for it. */
interface Shape {
  readonly strategy: VersioningStrategy;
  /** The request for `path` (`/projects`) in `version` (none: no version named). */
  request(version: string | undefined, path: string): { path: string; headers: Record<string, string> };
  /** A link to `path` as v2 writes it. */
  link(path: string): string;
  /** The self link of the first v2 page for a request with `?limit=1`. */
  readonly pageSelf: string;
  readonly vary: string;
  /** Content-Type of a v2 JSON response the client asked for in the strategy's way. */
  readonly contentType: string;
  readonly successor: string;
  readonly unknown: { readonly status: number; readonly code: string };
  /** Status and error code of a request naming no version: the default (v2), or 404 under the path strategy. */
  readonly missing: readonly [number, string | undefined];
}

const withQuery = (path: string, query: string) => `${path}${path.includes('?') ? '&' : '?'}${query}`;

const SHAPES: readonly Shape[] = [
  {
    strategy: 'path',
    request: (version, path) => ({ path: version === undefined ? path : `/v${version}${path}`, headers: {} }),
    link: (path) => `/v2${path}`,
    pageSelf: '/v2/projects?sort=-created_at&limit=1&offset=0',
    vary: 'Accept, Accept-Language',
    contentType: 'application/json; charset=utf-8',
    successor: '</v2/projects>; rel="successor-version"',
    unknown: { status: 404, code: 'unsupported_api_version' },
    missing: [404, 'not_found'],
  },
  {
    strategy: 'query',
    request: (version, path) => ({
      path: version === undefined ? path : withQuery(path, `version=${version}`),
      headers: {},
    }),
    link: (path) => `${path}?version=2`,
    pageSelf: '/projects?sort=-created_at&limit=1&offset=0&version=2',
    vary: 'Accept, Accept-Language',
    contentType: 'application/json; charset=utf-8',
    successor: '</projects?version=2>; rel="successor-version"',
    unknown: { status: 400, code: 'unsupported_api_version' },
    missing: [200, undefined],
  },
  {
    strategy: 'header',
    request: (version, path) => ({
      path,
      headers: version === undefined ? {} : { 'x-api-version': version === '2' ? '2.0' : version },
    }),
    link: (path) => path,
    pageSelf: '/projects?sort=-created_at&limit=1&offset=0',
    vary: 'X-API-Version, Accept, Accept-Language',
    contentType: 'application/json; charset=utf-8',
    successor: '</projects>; rel="successor-version"',
    unknown: { status: 400, code: 'unsupported_api_version' },
    missing: [200, undefined],
  },
  {
    strategy: 'media-type',
    request: (version, path) => ({
      path,
      headers: version === undefined ? {} : { accept: `application/vnd.plumbline.v${version}+json` },
    }),
    link: (path) => path,
    pageSelf: '/projects?sort=-created_at&limit=1&offset=0',
    vary: 'Accept, Accept-Language',
    contentType: 'application/vnd.plumbline.v2+json; charset=utf-8',
    successor: '</projects>; rel="successor-version"; type="application/vnd.plumbline.v2+json"',
    unknown: { status: 406, code: 'unsupported_api_version' },
    missing: [200, undefined],
  },
];

const DEPRECATION_LINKS = '</docs/deprecations/v1>; rel="deprecation", </docs/sunset-policy>; rel="sunset"';

describe('VERSIONING_STRATEGY setting', () => {
  it.each([
    [undefined, 'path'],
    ['path', 'path'],
    ['query', 'query'],
    [' header ', 'header'],
    ['media-type', 'media-type'],
  ] as const)('%o → %s', (value, strategy) => {
    expect(loadConfig(value === undefined ? {} : { VERSIONING_STRATEGY: value }).versioningStrategy).toBe(
      strategy,
    );
  });

  it.each(['Path', 'mediatype', 'accept', 'url'])(
    '%s stops the start with a message naming the variable',
    (value) => {
      expect(() => loadConfig({ VERSIONING_STRATEGY: value })).toThrow(
        new ConfigError(`VERSIONING_STRATEGY must be one of path, query, header, media-type, got "${value}"`),
      );
    },
  );

  it('--help lists it with its default and values', () => {
    expect(helpText()).toMatch(
      /VERSIONING_STRATEGY +where clients name the API version: path \(\/v2\/projects\) \| query .* \| header .* \| media-type .*\(default: path\)/,
    );
  });
});

describe.each(SHAPES)('VERSIONING_STRATEGY=$strategy', (shape) => {
  let svc: RunningService;
  let auth: Record<string, string>;

  async function call(
    method: string,
    version: string | undefined,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
    const request = shape.request(version, path);
    const headers: Record<string, string> = { ...auth, ...request.headers };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['idempotency-key'] = randomUUID();
    }
    const res = await fetch(`${svc.url}${request.path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
  }

  /** GET of a link the service wrote, sending only what the strategy sends besides the URL. */
  async function follow(link: string, version: string) {
    const res = await fetch(`${svc.url}${link}`, {
      headers: { ...auth, ...shape.request(version, '').headers },
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
  }

  beforeAll(async () => {
    svc = await startService(
      { name: 'sqlite + memory', postgres: false, redis: false },
      { VERSIONING_STRATEGY: shape.strategy },
    );
    auth = { 'x-api-key': svc.credentials.apiKeys.readWrite };
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('the API index links each version in the strategy shape', async () => {
    const res = await fetch(`${svc.url}/`, { headers: { accept: 'application/json' } });
    const versions = ((await res.json()) as { versions: { version: string; href: string }[] }).versions;
    const expected =
      shape.strategy === 'path'
        ? ['/v1', '/v2', '/v3']
        : ['1', '2', '3'].map((v) => (shape.strategy === 'query' ? `/projects?version=${v}` : '/projects'));
    expect([res.status, versions.map((v) => v.href)]).toEqual([200, expected]);
  });

  it('create: 201 with the Location in the strategy shape, and the member there', async () => {
    const created = await call('POST', '2', '/projects', {
      name: `Strategy ${randomUUID()}`,
      budget: { amount: 10, currency: 'EUR' },
    });
    const id = created.body['id'] as string;
    expect([created.status, created.headers.get('location')]).toEqual([201, shape.link(`/projects/${id}`)]);
    expect(created.headers.get('content-type')).toBe(shape.contentType);
    expect(created.headers.get('vary')).toBe(shape.vary);
    const fetched = await follow(created.headers.get('location')!, '2');
    expect([fetched.status, fetched.body]).toEqual([200, created.body]);
  });

  it('list: the page links carry the version the strategy way, and the next link serves the next page', async () => {
    await call('POST', '2', '/projects', { name: `Strategy ${randomUUID()}` });
    const first = await call('GET', '2', '/projects?limit=1');
    expect(first.status).toBe(200);
    const links = first.body['links'] as Record<string, string>;
    const next = shape.pageSelf.replace('offset=0', 'offset=1');
    expect(links).toEqual({ self: shape.pageSelf, first: shape.pageSelf, next });
    expect(first.headers.get('link')).toBe(
      `<${shape.pageSelf}>; rel="self", <${shape.pageSelf}>; rel="first", <${next}>; rel="next"`,
    );
    // A collection also varies on Prefer (count=exact adds a total).
    expect([first.headers.get('vary'), first.headers.get('content-type')]).toEqual([
      `${shape.vary}, Prefer`,
      shape.contentType,
    ]);
    const second = await follow(next, '2');
    const body = second.body as { links: Record<string, string>; data: unknown[] };
    expect([second.status, body.data.length, body.links['self']]).toEqual([200, 1, next]);
  });

  it('cursor pagination in v1: the next link carries the cursor and the version', async () => {
    const first = await call('GET', '1', '/projects?limit=1');
    const cursor = (first.body['page'] as { next_cursor: string }).next_cursor;
    const page = await call('GET', '1', `/projects?limit=1&cursor=${cursor}`);
    const nextCursor = (page.body['page'] as { next_cursor: string }).next_cursor;
    const base = shape.strategy === 'path' ? '/v1/projects' : '/projects';
    const version = shape.strategy === 'query' ? '&version=1' : '';
    expect([page.status, (page.body['links'] as Record<string, string>)['next']]).toEqual([
      200,
      `${base}?sort=-created_at&limit=1&cursor=${nextCursor}${version}`,
    ]);
    const followed = await follow(`${base}?sort=-created_at&limit=1&cursor=${nextCursor}${version}`, '1');
    expect([followed.status, followed.headers.get('deprecation')]).toEqual([200, '@1780272000']);
  });

  it('v1: Deprecation, Sunset and the successor-version link in the strategy shape', async () => {
    const created = await call('POST', '2', '/projects', {
      name: `Strategy ${randomUUID()}`,
      budget: { amount: 5, currency: 'EUR' },
    });
    const id = created.body['id'] as string;
    const v1 = await call('GET', '1', `/projects/${id}`);
    expect([v1.status, v1.body['budget']]).toEqual([200, 5]);
    expect({
      deprecation: v1.headers.get('deprecation'),
      sunset: v1.headers.get('sunset'),
      link: v1.headers.get('link'),
      supported: v1.headers.get('api-supported-versions'),
      deprecated: v1.headers.get('api-deprecated-versions'),
      vary: v1.headers.get('vary'),
      type: v1.headers.get('content-type'),
    }).toEqual({
      deprecation: '@1780272000',
      sunset: 'Wed, 30 Jun 2027 00:00:00 GMT',
      link: `${DEPRECATION_LINKS}, ${shape.successor.replace('/projects', `/projects/${id}`)}`,
      supported: '1, 2, 3',
      deprecated: '1',
      vary: shape.vary,
      type: shape.contentType.replace('v2', 'v1'),
    });
    const v2 = await call('GET', '2', `/projects/${id}`);
    expect([
      v2.body['budget'],
      v2.headers.get('deprecation'),
      v2.headers.get('sunset'),
      v2.headers.get('link'),
    ]).toEqual([{ amount: 5, currency: 'EUR' }, null, null, null]);
  });

  it('404 for a member that does not exist, with the version headers', async () => {
    const missing = await call('GET', '2', `/projects/${randomUUID()}`);
    expect([missing.status, missing.body['error_code'], missing.headers.get('content-type')]).toEqual([
      404,
      'not_found',
      'application/problem+json; charset=utf-8',
    ]);
    expect(missing.headers.get('api-supported-versions')).toBe('1, 2, 3');
  });

  it('an unknown version is refused the strategy way; problems stay application/problem+json', async () => {
    const unknown = await call('GET', '9', '/projects');
    expect([unknown.status, unknown.body['error_code'], unknown.headers.get('content-type')]).toEqual([
      shape.unknown.status,
      shape.unknown.code,
      'application/problem+json; charset=utf-8',
    ]);
    expect(unknown.headers.get('api-supported-versions')).toBe('1, 2, 3');
  });

  it('no version: the default (v2) where the rulebook allows one, else 404', async () => {
    const none = await call('GET', undefined, '/projects');
    expect([none.status, none.body['error_code']]).toEqual(shape.missing);
    if (none.status === 200) {
      expect((none.body['links'] as Record<string, string>)['self']).toBe(
        shape.pageSelf.replace('limit=1', 'limit=20'),
      );
      expect([none.headers.get('content-type'), none.headers.get('deprecation')]).toEqual([
        shape.contentType,
        null,
      ]);
    }
  });
});
