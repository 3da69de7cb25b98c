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
  ['/changelog', 'application/json; charset=utf-8'],
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
    '/changelog',
    '/docs/changelog',
    '/',
  ])('the document declares the 406 of GET %s', async (path) => {
    const doc = (await (await fetch(`${svc.url}/openapi.json`)).json()) as {
      paths: Record<string, { get: { responses: Record<string, unknown> } }>;
    };
    expect(doc.paths[path]?.get.responses['406']).toEqual({ $ref: '#/components/responses/Error406' });
  });

  const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
  const BUDGET = {
    en: 'Project.budget is now { amount, currency }; v1 shows and writes the bare amount, in the stored currency (EUR for a new budget).',
    de: 'Project.budget ist jetzt { amount, currency }; v1 zeigt und schreibt den bloßen Betrag, in der gespeicherten Währung (EUR für ein neues Budget).',
  };
  const SUMMARY = {
    en: 'Project.description is now Project.summary (also in fields=); v1 and v2 keep description.',
    de: 'Project.description heißt jetzt Project.summary (auch in fields=); v1 und v2 behalten description.',
  };
  const json = (language: 'en' | 'de') => ({
    data: [
      {
        version: '3',
        changes: [{ kind: 'field-renamed', description: SUMMARY[language], affects: ['Project'] }],
      },
      { version: '2', changes: [{ kind: 'custom', description: BUDGET[language], affects: ['Project'] }] },
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
  const markdown = (language: 'en' | 'de') =>
    [
      '## 3',
      '',
      `- ${SUMMARY[language]} (Project)`,
      '',
      '## 2',
      '',
      `- ${BUDGET[language]} (Project)`,
      '',
      '## 1',
      '',
      language === 'de'
        ? '- Veraltet seit 2026-06-01T00:00:00.000Z; Nachfolger: 2 ([/docs/deprecations/v1](/docs/deprecations/v1))'
        : '- Deprecated since 2026-06-01T00:00:00.000Z; successor: 2 ([/docs/deprecations/v1](/docs/deprecations/v1))',
      language === 'de'
        ? '- Abschaltung am 2027-06-30T00:00:00.000Z ([/docs/sunset-policy](/docs/sunset-policy))'
        : '- Sunset on 2027-06-30T00:00:00.000Z ([/docs/sunset-policy](/docs/sunset-policy))',
      '',
    ].join('\n');
  const html = (language: 'en' | 'de') => {
    const de = language === 'de';
    const title = de ? 'API-Änderungsprotokoll' : 'API changelog';
    return `<!doctype html>
<html lang="${language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="stylesheet" href="/assets/site.css">
</head>
<body>
<main>
<h1>${title}</h1>
<p>${
      de
        ? 'Was sich zwischen den API-Versionen geändert hat, neueste zuerst. Ältere Versionen funktionieren über die deklarierten Änderungen weiter, bis zu ihrem Sunset.'
        : 'What changed between the API versions, newest first. Older versions keep working through the declared changes until their sunset.'
    }</p>
<section id="v3">
<h2>v3</h2>
<h3>${de ? 'Änderungen' : 'Changes'}</h3>
<ul><li>${SUMMARY[language]} <small>(${de ? 'betrifft' : 'affects'} Project)</small></li></ul>
</section>
<section id="v2">
<h2>v2</h2>
<h3>${de ? 'Änderungen' : 'Changes'}</h3>
<ul><li>${BUDGET[language]} <small>(${de ? 'betrifft' : 'affects'} Project)</small></li></ul>
</section>
<section id="v1">
<h2>v1</h2>
<ul><li class="deprecated">${de ? 'Veraltet seit' : 'Deprecated since'} <time>2026-06-01T00:00:00.000Z</time> (<a href="/docs/deprecations/v1">${de ? 'Hinweis' : 'notice'}</a>)</li><li class="sunset">Sunset: <time>2027-06-30T00:00:00.000Z</time> (<a href="/docs/sunset-policy">${de ? 'Richtlinie' : 'policy'}</a>)</li><li>${de ? 'Nachfolger' : 'Successor'}: v2</li></ul>
<h3>${de ? 'Änderungen' : 'Changes'}</h3>
<p>${de ? 'Keine Änderungen: die erste Version.' : 'No changes: the first version.'}</p>
</section>
<p><a href="/">${de ? 'Startseite' : 'Home'}</a> · <a href="/docs">${de ? 'API-Referenz' : 'API reference'}</a></p>
</main>
</body>
</html>
`;
  };
  const PAGE_CSP =
    "default-src 'none'; style-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

  describe.each(['/changelog', '/docs/changelog'])(
    "GET %s: the declared changes and v1's lifecycle",
    (path) => {
      it.each([
        ['no Accept', {}, 'application/json; charset=utf-8', 'en', json('en')],
        [
          'JSON in German',
          { 'accept-language': 'de-DE,de;q=0.9' },
          'application/json; charset=utf-8',
          'de',
          json('de'),
        ],
        [
          'JSON, an unknown language → English',
          { 'accept-language': 'fr' },
          'application/json; charset=utf-8',
          'en',
          json('en'),
        ],
        ['Markdown', { accept: 'text/markdown' }, 'text/markdown; charset=utf-8', 'en', markdown('en')],
        [
          'Markdown in German',
          { accept: 'text/markdown', 'accept-language': 'de' },
          'text/markdown; charset=utf-8',
          'de',
          markdown('de'),
        ],
        ['a browser', { accept: BROWSER }, 'text/html; charset=utf-8', 'en', html('en')],
        [
          'a German browser',
          { accept: BROWSER, 'accept-language': 'de' },
          'text/html; charset=utf-8',
          'de',
          html('de'),
        ],
      ])('%s', async (_name, headers: Record<string, string>, type, language, body) => {
        const res = await fetch(`${svc.url}${path}`, { headers });
        expect([res.status, res.headers.get('content-type'), res.headers.get('content-language')]).toEqual([
          200,
          type,
          language,
        ]);
        expect(res.headers.get('vary')).toBe('Accept, Accept-Language');
        expect(res.headers.get('content-security-policy')).toBe(PAGE_CSP);
        expect(typeof body === 'string' ? await res.text() : await res.json()).toEqual(body);
      });
    },
  );

  it('HEAD /health → 200 without a body', async () => {
    const res = await fetch(`${svc.url}/health`, { method: 'HEAD' });
    expect([res.status, await res.text()]).toEqual([200, '']);
  });
});
