import { EXPRESS_VERSIONS, fromSupertest } from '@plumbline/test-utils';
import type { Express, RequestHandler } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { buildApp, type ExpressFactory, echo, parseLinks } from '../test/support.js';
import { getApiVersion, getResolvedVersion, versionedRouter, versioning } from './express.js';
import { createVersionPolicy, type VersionPolicyOptions } from './index.js';

const VENDOR_V1 = 'application/vnd.plumbline.v1+json';

function versionRouter(express: ExpressFactory, label: string): RequestHandler {
  return express.Router().get('/projects', (req, res) => {
    res.json({
      router: label,
      version: getApiVersion(req),
      baseUrl: req.baseUrl,
      path: req.path,
      originalUrl: req.originalUrl,
    });
  });
}

function neutralRouter(express: ExpressFactory): RequestHandler {
  return express.Router().get('/health', (req, res) => {
    res.json({ ok: true, version: getApiVersion(req) ?? null });
  });
}

const base = { versions: [{ version: '1', deprecated: true, successor: '2' }, '2'] } as const;

describe.each(EXPRESS_VERSIONS)('versionedRouter through %s', (_name, express) => {
  function appFor(options: VersionPolicyOptions, mountAt?: string): Express {
    const policy = createVersionPolicy(options);
    const routers = { '1': versionRouter(express, 'one'), '2': versionRouter(express, 'two') };
    const handler = versionedRouter(policy, routers, { neutral: neutralRouter(express) });
    return buildApp(express, (app) => (mountAt === undefined ? app.use(handler) : app.use(mountAt, handler)));
  }

  const path = appFor({ ...base, strategy: 'path' });
  const mountedPath = appFor({ ...base, strategy: 'path' }, '/api');
  const query = appFor({ ...base, strategy: 'query' });
  const header = appFor({ ...base, strategy: 'header' });
  const media = appFor({ ...base, strategy: 'media-type', vendor: 'plumbline' });

  it.each([
    ['path /v1', path, '/v1/projects', {}, { router: 'one', baseUrl: '/v1', originalUrl: '/v1/projects' }],
    [
      'path /v2 with a query',
      path,
      '/v2/projects?limit=5',
      {},
      { router: 'two', baseUrl: '/v2', originalUrl: '/v2/projects?limit=5' },
    ],
    [
      'path under app.use("/api")',
      mountedPath,
      '/api/v1/projects',
      {},
      { router: 'one', baseUrl: '/api/v1' },
    ],
    ['query version=1', query, '/projects?version=1', {}, { router: 'one', baseUrl: '' }],
    ['query default', query, '/projects', {}, { router: 'two' }],
    ['header 1', header, '/projects', { 'X-API-Version': '1' }, { router: 'one' }],
    ['header default', header, '/projects', {}, { router: 'two' }],
    ['media type v1', media, '/projects', { Accept: VENDOR_V1 }, { router: 'one' }],
    ['media type default', media, '/projects', { Accept: 'application/json' }, { router: 'two' }],
  ])('%s is dispatched to its router', async (_label, app, url, headers, expected) => {
    const outcome = fromSupertest(await request(app).get(url).set(headers));
    expect(outcome.status).toBe(200);
    expect(outcome.body).toMatchObject({ ...expected, path: '/projects' });
    expect(outcome.headers['api-supported-versions']).toBe('1, 2');
  });

  it('derives the successor link from the mounted path', async () => {
    const outcome = fromSupertest(await request(mountedPath).get('/api/v1/projects'));
    expect(parseLinks(outcome.headers['link'])).toEqual([
      { target: '/api/v2/projects', rel: 'successor-version' },
    ]);
    expect(outcome.headers['deprecation']).toBe('true');
  });

  it.each([
    ['path', path, {}],
    ['query, with a malformed version', query, {}],
    ['header, with a malformed version', header, { 'X-API-Version': 'garbage' }],
    ['media type, with an unknown version', media, { Accept: 'application/vnd.plumbline.v9+json' }],
  ])('neutral routes answer whatever the version says (%s)', async (_label, app, headers) => {
    const outcome = fromSupertest(await request(app).get('/health?version=garbage').set(headers));
    expect(outcome.status).toBe(200);
    expect(outcome.body).toEqual({ ok: true, version: null });
    expect(outcome.headers['api-supported-versions']).toBe('1, 2');
    expect(outcome.headers['api-deprecated-versions']).toBe('1');
    expect(outcome.headers['deprecation']).toBeUndefined();
    expect(outcome.headers['vary']).toBeUndefined();
  });

  it.each([
    ['a route the version router lacks', path, '/v2/nothing', {}, 404, 'not_found'],
    ['an unversioned path', path, '/projects', {}, 404, 'not_found'],
    ['an unknown path version', path, '/v3/projects', {}, 404, 'unsupported_api_version'],
    ['an unknown query version', query, '/projects?version=3', {}, 400, 'unsupported_api_version'],
    [
      'an unknown header version',
      header,
      '/projects',
      { 'X-API-Version': '3' },
      400,
      'unsupported_api_version',
    ],
    [
      'an unknown media-type version',
      media,
      '/projects',
      { Accept: 'application/vnd.plumbline.v3+json' },
      406,
      'unsupported_api_version',
    ],
  ])('%s gets the right error', async (_label, app, url, headers, status, code) => {
    const outcome = fromSupertest(await request(app).get(url).set(headers));
    expect(outcome.status).toBe(status);
    expect((outcome.body as Record<string, unknown>)['error_code']).toBe(code);
    expect(outcome.headers['api-supported-versions']).toBe('1, 2');
  });

  it('works without neutral routes', async () => {
    const policy = createVersionPolicy({ ...base, strategy: 'header' });
    const app = buildApp(express, (a) => a.use(versionedRouter(policy, { '1': echo, '2': echo })));
    const outcome = fromSupertest(await request(app).get('/anything').set('X-API-Version', '1'));
    expect(outcome.body).toMatchObject({ version: '1' });
  });

  it('an error passed on by a neutral route reaches the error handler', async () => {
    const policy = createVersionPolicy({ ...base, strategy: 'path' });
    const failing: RequestHandler = (_req, _res, next) => next(new Error('neutral failed'));
    const app = buildApp(express, (a) =>
      a.use(versionedRouter(policy, { '1': echo, '2': echo }, { neutral: failing })),
    );
    const outcome = fromSupertest(await request(app).get('/v1/projects'));
    expect(outcome.status).toBe(500);
    expect(outcome.headers['api-supported-versions']).toBe('1, 2');
  });

  it('versioning() in front of versionedRouter resolves once and does not repeat Link', async () => {
    const policy = createVersionPolicy({
      strategy: 'header',
      versions: [
        { version: '1', deprecated: true, links: { deprecation: 'https://docs.example.com/v1' } },
        '2',
      ],
    });
    const app = buildApp(express, (a) =>
      a.use(versioning(policy), versionedRouter(policy, { '1': echo, '2': echo })),
    );
    const outcome = fromSupertest(await request(app).get('/x').set('X-API-Version', '1'));
    expect(outcome.body).toMatchObject({ version: '1' });
    expect(outcome.headers['link']).toBe('<https://docs.example.com/v1>; rel="deprecation"');
  });
});

describe.each(EXPRESS_VERSIONS)(
  'versioning() then versionedRouter on one request through %s',
  (_name, express) => {
    // The policy's clock runs once per resolution: the count says how often the request was resolved.
    function counted(options: VersionPolicyOptions): {
      policy: ReturnType<typeof createVersionPolicy>;
      calls: () => number;
    } {
      let calls = 0;
      const policy = createVersionPolicy({
        ...options,
        now: () => {
          calls++;
          return Date.UTC(2026, 0, 1);
        },
      });
      return { policy, calls: () => calls };
    }

    type Mount = 'same policy' | 'another policy' | 'router mounted at /v1';
    it.each<
      [Mount, string, Record<string, string>, { router: string; version: string; baseUrl: string }, number]
    >([
      // Same policy, same place: the router reuses what versioning() resolved (one resolution).
      ['same policy', '/v1/projects', {}, { router: 'one', version: '1', baseUrl: '/v1' }, 1],
      ['same policy', '/v2/projects', {}, { router: 'two', version: '2', baseUrl: '/v2' }, 1],
      // Another policy (query strategy) decides for itself: ?version=2 wins over the path's v1.
      ['another policy', '/v1/projects?version=2', {}, { router: 'two', version: '2', baseUrl: '' }, 2],
      // Mounted below /v1, the router sees /v2/projects: its own resolution, not the app-level v1.
      ['router mounted at /v1', '/v1/v2/projects', {}, { router: 'two', version: '2', baseUrl: '/v1/v2' }, 2],
    ])('%s: %s', async (mount, url, headers, expected, resolutions) => {
      const path = counted({ strategy: 'path', versions: ['1', '2'] });
      const query = counted({ strategy: 'query', versions: ['1', '2'], defaultVersion: '1' });
      const answer =
        (router: string): RequestHandler =>
        (req, res) => {
          res.json({ router, version: getApiVersion(req), baseUrl: req.baseUrl });
        };
      const routers = { '1': answer('one'), '2': answer('two') };
      const app = buildApp(express, (a) => {
        a.use(versioning(path.policy));
        if (mount === 'same policy') a.use(versionedRouter(path.policy, routers));
        else if (mount === 'another policy') a.use(versionedRouter(query.policy, routers));
        else a.use('/v1', versionedRouter(path.policy, routers));
      });
      const outcome = fromSupertest(await request(app).get(url).set(headers));
      expect(outcome.status).toBe(200);
      expect(outcome.body).toMatchObject(expected);
      expect(outcome.headers['api-supported-versions']).toBe('1, 2');
      expect(path.calls() + query.calls()).toBe(resolutions);
    });
  },
);

describe.each(EXPRESS_VERSIONS)('versioning() through %s', (_name, express) => {
  const policy = createVersionPolicy({ ...base, strategy: 'header' });
  const app = buildApp(express, (a) => {
    a.use(versioning(policy, { neutralPaths: ['/health', '/.well-known/', /^\/errors\/[a-z_]+$/] }));
    a.use(echo);
  });

  it.each([
    ['/health', 'neutral'],
    ['/HEALTH', 'neutral'],
    ['/health/live', 'neutral'],
    ['/.well-known/jwks.json', 'neutral'],
    ['/errors/not_found', 'neutral'],
    ['/healthz', 'resolved'],
    ['/errors/Not-Found', 'resolved'],
    ['/projects', 'resolved'],
  ])('%s is %s', async (path, kind) => {
    const outcome = fromSupertest(await request(app).get(path).set('X-API-Version', '1'));
    expect(outcome.status).toBe(200);
    expect((outcome.body as Record<string, unknown>)['version']).toBe(kind === 'neutral' ? undefined : '1');
    expect(outcome.headers['api-supported-versions']).toBe('1, 2');
    expect(outcome.headers['deprecation']).toBe(kind === 'neutral' ? undefined : 'true');
  });

  it('the path strategy passes unversioned paths on as neutral', async () => {
    const pathPolicy = createVersionPolicy({ ...base, strategy: 'path' });
    const pathApp = buildApp(express, (a) => {
      a.use(versioning(pathPolicy));
      a.get('/health', (req, res) => {
        res.json({ resolved: getResolvedVersion(req) ?? null });
      });
      a.use('/v1', echo);
    });
    const health = fromSupertest(await request(pathApp).get('/health'));
    expect(health.body).toEqual({ resolved: null });
    expect(health.headers['api-supported-versions']).toBe('1, 2');
    const v1 = fromSupertest(await request(pathApp).get('/v1/projects'));
    expect(v1.body).toMatchObject({ version: '1', requested: '1', defaulted: false, baseUrl: '/v1' });
    const v9 = fromSupertest(await request(pathApp).get('/v9/projects'));
    expect(v9.status).toBe(404);
    expect((v9.body as Record<string, unknown>)['error_code']).toBe('unsupported_api_version');
  });
});

describe('versionedRouter configuration', () => {
  const policy = createVersionPolicy({ strategy: 'path', versions: ['1', '2'] });
  it.each([
    ['a missing router', { '1': echo }, /no router for 2/],
    [
      'an unknown version',
      { '1': echo, '2': echo, '3': echo },
      /router for "3", which is not a supported version/,
    ],
    ['another spelling', { '1': echo, '2.0': echo }, /router for "2.0"/],
    [
      'a router that is not a function',
      { '1': echo, '2': {} as RequestHandler },
      /router for "2" is not a function/,
    ],
  ])('throws for %s', (_label, routers, message) => {
    expect(() => versionedRouter(policy, routers)).toThrow(message);
  });
});
