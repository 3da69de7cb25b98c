/**
 * The version-neutral routes keep the contract of every resource (issue 24 item 10): Accept is
 * negotiated (406 problem, Vary), another method is 405 with Allow, OPTIONS is 204 with Allow.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, startService } from './harness.js';

const ROUTES = [
  ['/health', 'application/json; charset=utf-8'],
  ['/ready', 'application/json; charset=utf-8'],
  ['/openapi.json', 'application/json; charset=utf-8'],
  ['/.well-known/jwks.json', 'application/json; charset=utf-8'],
  ['/errors', 'application/json; charset=utf-8'],
  ['/errors/not_found', 'application/json; charset=utf-8'],
  ['/metrics', expect.stringMatching(/^text\/plain/)],
  ['/docs', 'text/html; charset=utf-8'],
  ['/docs/deprecations/v1', 'text/plain; charset=utf-8'],
  ['/docs/sunset-policy', 'text/plain; charset=utf-8'],
  ['/docs/changelog', 'application/json; charset=utf-8'],
  ['/', 'application/json; charset=utf-8'],
] as const;

describe('unversioned routes', () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService({ name: 'sqlite + memory', postgres: false, redis: false });
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it.each(ROUTES)('GET %s without Accept → 200 %s', async (path, type) => {
    const res = await fetch(`${svc.url}${path}`);
    expect([res.status, res.headers.get('content-type')]).toEqual([200, type]);
    expect(res.headers.get('vary')).toMatch(/Accept/);
  });

  it.each(ROUTES)('GET %s with Accept: image/png → 406 problem', async (path) => {
    const res = await fetch(`${svc.url}${path}`, { headers: { accept: 'image/png' } });
    expect([res.status, res.headers.get('content-type')]).toEqual([
      406,
      'application/problem+json; charset=utf-8',
    ]);
    expect(res.headers.get('vary')).toBe('Accept, Accept-Language');
    expect(((await res.json()) as { error_code: string }).error_code).toBe('not_acceptable');
  });

  it.each(ROUTES)('POST %s → 405 with Allow', async (path) => {
    const res = await fetch(`${svc.url}${path}`, { method: 'POST' });
    expect([res.status, res.headers.get('allow')]).toEqual([405, 'GET, HEAD, OPTIONS']);
    expect(((await res.json()) as { error_code: string }).error_code).toBe('method_not_allowed');
  });

  it.each(ROUTES)('OPTIONS %s → 204 with Allow', async (path) => {
    const res = await fetch(`${svc.url}${path}`, { method: 'OPTIONS' });
    expect([res.status, res.headers.get('allow'), await res.text()]).toEqual([204, 'GET, HEAD, OPTIONS', '']);
  });

  it.each([
    '/health',
    '/ready',
    '/.well-known/jwks.json',
    '/errors/{error_code}',
    '/docs',
    '/metrics',
    '/docs/changelog',
    '/',
  ])('the document declares the 406 of GET %s', async (path) => {
    const doc = (await (await fetch(`${svc.url}/openapi.json`)).json()) as {
      paths: Record<string, { get: { responses: Record<string, unknown> } }>;
    };
    expect(doc.paths[path]?.get.responses['406']).toEqual({ $ref: '#/components/responses/Error406' });
  });

  it("GET /docs/changelog lists the declared change and v1's lifecycle: JSON by default, Markdown for Accept: text/markdown", async () => {
    const json = await fetch(`${svc.url}/docs/changelog`);
    expect(await json.json()).toEqual({
      data: [
        {
          version: '2',
          changes: [
            {
              kind: 'custom',
              description:
                'Project.budget is now { amount, currency }; v1 shows and writes the bare amount, in the stored currency (EUR for a new budget).',
              affects: ['Project'],
            },
          ],
        },
        {
          version: '1',
          deprecated: '2026-06-01T00:00:00.000Z',
          sunset: '2027-06-30T00:00:00.000Z',
          links: { deprecation: '/docs/deprecations/v1', sunset: '/docs/sunset-policy' },
          successor: '2',
          changes: [],
        },
      ],
    });
    const markdown = await fetch(`${svc.url}/docs/changelog`, { headers: { accept: 'text/markdown' } });
    expect(markdown.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(await markdown.text()).toBe(
      [
        '## 2',
        '',
        '- Project.budget is now { amount, currency }; v1 shows and writes the bare amount, in the stored currency (EUR for a new budget). (Project)',
        '',
        '## 1',
        '',
        '- Deprecated since 2026-06-01T00:00:00.000Z; successor: 2 ([/docs/deprecations/v1](/docs/deprecations/v1))',
        '- Sunset on 2027-06-30T00:00:00.000Z ([/docs/sunset-policy](/docs/sunset-policy))',
        '',
      ].join('\n'),
    );
  });

  it('HEAD /health → 200 without a body', async () => {
    const res = await fetch(`${svc.url}/health`, { method: 'HEAD' });
    expect([res.status, await res.text()]).toEqual([200, '']);
  });
});
