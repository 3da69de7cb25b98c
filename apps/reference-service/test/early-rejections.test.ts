/**
 * Responses refused before versioning runs (issue 24 items 2, 6 and 8): the 400 `query_too_long`,
 * the per-IP 429 sent before authentication and the 410 after v1's sunset carry the version headers
 * every other response of that version carries.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RunningService, startService } from './harness.js';

const MEMORY = { name: 'sqlite + memory', postgres: false, redis: false };
const V1_LINKS =
  '</docs/deprecations/v1>; rel="deprecation", </docs/sunset-policy>; rel="sunset", </v2/projects>; rel="successor-version"';

function versionHeaders(res: Response) {
  return {
    status: res.status,
    supported: res.headers.get('api-supported-versions'),
    deprecated: res.headers.get('api-deprecated-versions'),
    deprecation: res.headers.get('deprecation'),
    sunset: res.headers.get('sunset'),
    link: res.headers.get('link'),
  };
}

const V1 = {
  supported: '1, 2, 3',
  deprecated: '1',
  deprecation: '@1780272000',
  sunset: 'Wed, 30 Jun 2027 00:00:00 GMT',
  link: V1_LINKS,
};
const V2 = { supported: '1, 2, 3', deprecated: '1', deprecation: null, sunset: null, link: null };

describe('early rejections carry the version headers', () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService(MEMORY, { RATE_LIMIT_PER_MINUTE: '2' });
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it.each([
    ['/v1/projects', V1],
    ['/v2/projects', V2],
  ])('400 query_too_long on %s', async (path, expected) => {
    const res = await fetch(`${svc.url}${path}?q=${'a'.repeat(5000)}`);
    const body = (await res.json()) as { error_code: string };
    expect(body.error_code).toBe('query_too_long');
    expect(versionHeaders(res)).toEqual({ status: 400, ...expected });
  });

  it('the per-IP 429 before authentication, on v1', async () => {
    const headers = { 'x-forwarded-for': '198.51.100.7' };
    let res = await fetch(`${svc.url}/v1/projects`, { headers });
    for (let i = 0; i < 3 && res.status !== 429; i += 1)
      res = await fetch(`${svc.url}/v1/projects`, { headers });
    expect(((await res.json()) as { error_code: string }).error_code).toBe('rate_limited');
    expect(versionHeaders(res)).toEqual({ status: 429, ...V1 });
  });
});

describe('after v1 sunset', () => {
  let svc: RunningService;
  beforeAll(async () => {
    // The version policy reads the clock it was built with: build the app after moving the clock.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2027-07-01T00:00:00Z'));
    vi.resetModules();
    const harness = await import('./harness.js');
    svc = await harness.startService(MEMORY);
  });
  afterAll(async () => {
    await svc?.stop();
    vi.useRealTimers();
  });

  it('410 api_version_sunset keeps Deprecation, Sunset and the successor-version link', async () => {
    const res = await fetch(`${svc.url}/v1/projects`);
    expect(((await res.json()) as { error_code: string }).error_code).toBe('api_version_sunset');
    expect(versionHeaders(res)).toEqual({
      status: 410,
      supported: '2, 3',
      deprecated: null,
      deprecation: V1.deprecation,
      sunset: V1.sunset,
      link: V1_LINKS,
    });
  });
});
