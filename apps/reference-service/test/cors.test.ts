/**
 * CORS_ORIGINS: which values it takes and what a wrong one says; then, on the framework of this test
 * project (vitest.config.ts runs this suite once per framework), what a browser app on an allowed
 * origin gets: preflights that allow the path's own methods and the conventions' request headers,
 * and every answer (a problem response included) readable, with the conventions' headers exposed.
 * Another origin gets no CORS headers and is otherwise served as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, helpText, loadConfig } from '../src/service/config.js';
import { methodsOfPaths } from '../src/service/cors.js';
import { type RunningService, startService } from './harness.js';

const APP = 'https://app.example.com';
const EVIL = 'https://app.example.com.evil.example';

describe('CORS_ORIGINS configuration', () => {
  it.each([
    [{}, undefined],
    [{ CORS_ORIGINS: '' }, undefined],
    [{ CORS_ORIGINS: APP }, [APP]],
    [{ CORS_ORIGINS: ` ${APP} , http://localhost:5173` }, [APP, 'http://localhost:5173']],
    [{ CORS_ORIGINS: '*' }, ['*']],
  ])('%j → %j', (env, origins) => {
    expect(loadConfig(env).corsOrigins).toEqual(origins);
  });

  it.each([
    // What browsers send has no trailing slash, no path, lower case: a typo stops the service.
    [`${APP}/`, /^CORS_ORIGINS: .*https:\/\/app\.example\.com\/.*did you mean "https:\/\/app\.example\.com"/],
    ['https://APP.example.com', /^CORS_ORIGINS: .*did you mean "https:\/\/app\.example\.com"/],
    [`${APP},`, /^CORS_ORIGINS: /],
    [`*,${APP}`, /^CORS_ORIGINS: /],
    ['app.example.com', /^CORS_ORIGINS: /],
  ])('%j is refused: %s', (value, message) => {
    expect(() => loadConfig({ CORS_ORIGINS: value })).toThrow(ConfigError);
    expect(() => loadConfig({ CORS_ORIGINS: value })).toThrow(message);
  });

  it('--help describes it', () => {
    expect(helpText()).toMatch(
      /CORS_ORIGINS +origins whose browser apps may call the API .*\(default: \(unset: no CORS headers\)\)/,
    );
  });
});

describe('methodsOfPaths: the methods a preflight allows, from the document', () => {
  const methods = methodsOfPaths({
    '/v2/projects': { get: {}, post: {}, parameters: [] },
    '/v2/projects/{id}': { get: {}, patch: {}, delete: {} },
    '/v2/projects/search': { post: {} },
    '/v2/projects/{id}/tasks/{taskId}': { get: {}, put: {} },
  });
  it.each([
    ['/v2/projects', ['GET', 'POST', 'HEAD']],
    ['/v2/projects/7', ['GET', 'PATCH', 'DELETE', 'HEAD']],
    ['/v2/projects/search', ['POST']],
    ['/v2/projects/7/tasks/9', ['GET', 'PUT', 'HEAD']],
    ['/v2/projects/7/', undefined],
    ['/v2/projects/7/tasks', undefined],
    ['/v2/unknown', undefined],
    ['/v2/projects.json', undefined],
  ])('%s → %j', (path, expected) => {
    expect(methods(path)).toEqual(expected);
  });
});

const sqlite = { name: 'sqlite', postgres: false, redis: false };
const ALLOW_HEADERS =
  'Authorization, Content-Type, Idempotency-Key, If-Match, If-None-Match, X-API-Key, X-Request-Id, Accept-Language';
const EXPOSE_HEADERS =
  'Link, ETag, Location, RateLimit, RateLimit-Policy, Retry-After, Deprecation, Sunset, Content-Language, X-Request-Id, Idempotency-Key, Idempotent-Replayed, API-Supported-Versions, API-Deprecated-Versions, Accept-Post, Accept-Patch';

/** The CORS headers of an answer, and Vary. */
function corsHeaders(res: Response): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const [name, value] of res.headers) {
    if (name.startsWith('access-control-') || name === 'vary') picked[name] = value;
  }
  return picked;
}

async function preflight(
  svc: RunningService,
  path: string,
  origin: string,
  method: string,
  headers?: string,
): Promise<[number, Record<string, string>]> {
  const res = await fetch(`${svc.url}${path}`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': method,
      ...(headers === undefined ? {} : { 'access-control-request-headers': headers }),
    },
  });
  await res.arrayBuffer();
  return [res.status, corsHeaders(res)];
}

describe('CORS_ORIGINS=https://app.example.com (path versioning)', () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService(sqlite, { CORS_ORIGINS: APP });
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('a preflight of PATCH with If-Match: 204, the path’s methods, the conventions’ request headers', async () => {
    expect(await preflight(svc, '/v2/projects/1', APP, 'PATCH', 'if-match,content-type')).toEqual([
      204,
      {
        'access-control-allow-origin': APP,
        'access-control-allow-methods': 'GET, HEAD, PUT, PATCH, DELETE',
        'access-control-allow-headers': ALLOW_HEADERS,
        'access-control-max-age': '600',
        vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
      },
    ]);
  });

  it('a preflight of a method the path does not take leaves it out (the browser then refuses)', async () => {
    const [status, headers] = await preflight(svc, '/v2/projects', APP, 'DELETE');
    expect([status, headers['access-control-allow-methods'], headers['access-control-max-age']]).toEqual([
      204,
      'GET, HEAD, POST',
      undefined,
    ]);
  });

  it('a preflight from another origin gets no CORS headers', async () => {
    expect(await preflight(svc, '/v2/projects/1', EVIL, 'PATCH', 'if-match')).toEqual([
      204,
      { vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers' },
    ]);
  });

  it('a 401 problem response is readable by the app', async () => {
    const res = await fetch(`${svc.url}/v2/projects`, { headers: { origin: APP } });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json\b/);
    expect(await res.json()).toMatchObject({ status: 401 });
    const headers = corsHeaders(res);
    expect([
      headers['access-control-allow-origin'],
      headers['access-control-expose-headers'],
      headers['vary']?.split(/,\s*/).includes('Origin'),
    ]).toEqual([APP, EXPOSE_HEADERS, true]);
  });

  it('a page of a collection: readable, with Link and the rate limit exposed', async () => {
    const res = await fetch(`${svc.url}/v2/projects?limit=1`, {
      headers: { origin: APP, 'x-api-key': svc.credentials.apiKeys.readWrite },
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    expect(res.headers.get('link')).toContain('rel="next"');
    expect([
      res.headers.get('access-control-allow-origin'),
      res.headers.get('access-control-expose-headers'),
    ]).toEqual([APP, EXPOSE_HEADERS]);
  });

  it('another origin is served as before, without CORS headers', async () => {
    const res = await fetch(`${svc.url}/v2/projects?limit=1`, {
      headers: { origin: EVIL, 'x-api-key': svc.credentials.apiKeys.readWrite },
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    expect([
      res.headers.get('access-control-allow-origin'),
      res.headers.get('access-control-expose-headers'),
    ]).toEqual([null, null]);
  });

  it('a plain OPTIONS without credentials (not a preflight) is the API’s 401, readable by the app', async () => {
    const res = await fetch(`${svc.url}/v2/projects`, { method: 'OPTIONS', headers: { origin: APP } });
    await res.arrayBuffer();
    expect([res.status, res.headers.get('access-control-allow-origin')]).toEqual([401, APP]);
  });

  it('an authenticated plain OPTIONS still answers with the path’s Allow', async () => {
    const res = await fetch(`${svc.url}/v2/projects`, {
      method: 'OPTIONS',
      headers: { origin: APP, 'x-api-key': svc.credentials.apiKeys.readWrite },
    });
    await res.arrayBuffer();
    expect([res.status, res.headers.get('allow'), res.headers.get('access-control-allow-origin')]).toEqual([
      204,
      'GET, POST, HEAD, OPTIONS',
      APP,
    ]);
  });
});

describe('CORS_ORIGINS with VERSIONING_STRATEGY=header: the version header may be sent and read', () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService(sqlite, { CORS_ORIGINS: APP, VERSIONING_STRATEGY: 'header' });
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('preflight allows X-API-Version; answers expose it', async () => {
    const [, headers] = await preflight(svc, '/projects', APP, 'GET', 'x-api-version');
    expect(headers['access-control-allow-headers']).toBe(`${ALLOW_HEADERS}, X-API-Version`);
    const res = await fetch(`${svc.url}/projects`, { headers: { origin: APP, 'x-api-version': '1' } });
    await res.arrayBuffer();
    expect(res.headers.get('access-control-expose-headers')).toBe(`${EXPOSE_HEADERS}, X-API-Version`);
  });
});

describe('no CORS_ORIGINS: no CORS headers at all', () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService(sqlite);
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('neither on a preflight (the API’s own 401: no credentials) nor on an answer', async () => {
    const [status, headers] = await preflight(svc, '/v2/projects/1', APP, 'PATCH', 'if-match');
    expect([status, headers['access-control-allow-origin']]).toEqual([401, undefined]);
    const res = await fetch(`${svc.url}/v2/projects`, { headers: { origin: APP } });
    await res.arrayBuffer();
    expect(Object.keys(corsHeaders(res)).filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });
});
