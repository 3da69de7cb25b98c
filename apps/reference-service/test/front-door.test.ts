/**
 * The front door over real HTTP: `/` negotiated (JSON, XML, HTML), `/docs` served from our own
 * origin under its CSP, `/errors/<code>` as JSON or an HTML page in the caller's language, and the
 * XML representation shaped by the OpenAPI `xml` objects.
 */
import { randomUUID } from 'node:crypto';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCS_CSP } from '../src/pages/docs-ui.js';
import { PAGE_CSP } from '../src/pages/html-pages.js';
import { type RunningService, startService } from './harness.js';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('front door', () => {
  let svc: RunningService;
  let key: Record<string, string>;
  beforeAll(async () => {
    svc = await startService({ name: 'sqlite + memory', postgres: false, redis: false });
    key = { 'x-api-key': svc.credentials.apiKeys.readWrite };
  });
  afterAll(async () => {
    await svc?.stop();
  });

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${svc.url}${path}`, { headers, redirect: 'manual' });
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the assertions
  const json = async (res: Response): Promise<any> => res.json();

  describe('GET /', () => {
    it.each([
      ['no Accept', undefined, 'application/json; charset=utf-8'],
      ['*/*', '*/*', 'application/json; charset=utf-8'],
      ['application/json', 'application/json', 'application/json; charset=utf-8'],
      ['application/xml', 'application/xml', 'application/xml; charset=utf-8'],
      ['a browser', BROWSER_ACCEPT, 'text/html; charset=utf-8'],
    ])('Accept %s → %s', async (_name, accept, type) => {
      const res = await get('/', accept ? { accept } : {});
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(type);
      expect(res.headers.get('vary')).toMatch(/Accept/);
    });

    it('JSON: name, version, the versions with status and dates, links', async () => {
      const body = await (await get('/')).json();
      expect(body).toEqual({
        name: 'Plumbline reference service',
        version: '2.0.0',
        description: expect.any(String),
        versions: [
          {
            version: '1',
            status: 'deprecated',
            // The path strategy serves no request without a version: no default.
            default: false,
            href: '/v1',
            deprecated_at: '2026-06-01T00:00:00Z',
            sunset_at: '2027-06-30T00:00:00Z',
            successor: '2',
          },
          {
            version: '2',
            status: 'current',
            default: false,
            href: '/v2',
            deprecated_at: null,
            sunset_at: null,
            successor: null,
          },
          {
            version: '3',
            status: 'current',
            default: false,
            href: '/v3',
            deprecated_at: null,
            sunset_at: null,
            successor: null,
          },
        ],
        links: {
          self: '/',
          openapi: '/openapi.json',
          docs: '/docs',
          changelog: '/changelog',
          token: '/oauth/token',
          jwks: '/.well-known/jwks.json',
          health: '/health',
          ready: '/ready',
          metrics: '/metrics',
          errors: '/errors',
        },
      });
    });

    it('XML: <api> with wrapped <versions><version>, nulls as xsi:nil', async () => {
      const text = await (await get('/', { accept: 'application/xml' })).text();
      expect(text).toMatch(
        /^<\?xml version="1.0" encoding="UTF-8"\?><api xmlns:xsi="http:\/\/www.w3.org\/2001\/XMLSchema-instance"><name>Plumbline reference service<\/name>/,
      );
      expect(text).toContain(
        '<versions><version><version>1</version><status>deprecated</status><default>false</default><href>/v1</href><deprecated_at>2026-06-01T00:00:00Z</deprecated_at>',
      );
      expect(text).toContain(
        '<deprecated_at xsi:nil="true"/><sunset_at xsi:nil="true"/><successor xsi:nil="true"/></version></versions>',
      );
      expect(text).toContain('<links><self>/</self><openapi>/openapi.json</openapi><docs>/docs</docs>');
    });

    it('HTML: a page with the versions and links, under the page CSP, no script', async () => {
      const res = await get('/', { accept: BROWSER_ACCEPT });
      const html = await res.text();
      expect(res.headers.get('content-security-policy')).toBe(PAGE_CSP);
      expect(html).toContain('<title>Plumbline reference service</title>');
      expect(html).toContain('<td class="status deprecated">deprecated</td>');
      expect(html).toContain('<a href="/openapi.json">');
      expect(html).toContain('<a href="/changelog">Changelog</a>');
      expect(html).not.toContain('<script');
    });

    it.each(['POST', 'DELETE'])('%s / → 405 with Allow', async (method) => {
      const res = await fetch(`${svc.url}/`, { method });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    });

    it('Accept: text/csv → 406 problem', async () => {
      const res = await get('/', { accept: 'text/csv' });
      expect(res.status).toBe(406);
      expect((await json(res)).error_code).toBe('not_acceptable');
    });
  });

  describe('GET /docs', () => {
    it('the page loads Swagger UI from this origin only, under the docs CSP', async () => {
      const res = await get('/docs');
      const html = await res.text();
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('content-security-policy')).toBe(DOCS_CSP);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
      expect(sources).toEqual([
        '/docs/assets/favicon-32x32.png',
        '/docs/assets/swagger-ui.css',
        '/',
        '/changelog',
        '/docs',
        '/docs?version=1',
        '/docs?version=2',
        '/docs?version=3',
        '/docs/assets/swagger-ui-bundle.js',
        '/docs/init.js',
      ]);
      expect(html).not.toMatch(/<script>[^<]/);
    });

    it('init.js points at /openapi.json, disables the remote validator and fills in the read-only demo key', async () => {
      const script = await (await get('/docs/init.js')).text();
      expect(script).toContain('url: "/openapi.json"');
      expect(script).toContain('validatorUrl: null');
      expect(script).toContain(`preauthorizeApiKey("apiKey", "${svc.credentials.apiKeys.readOnly}")`);
      expect(script).not.toContain(svc.credentials.apiKeys.readWrite);
    });

    it.each([
      ['/docs/assets/swagger-ui-bundle.js', 200, 'text/javascript; charset=utf-8'],
      ['/docs/assets/swagger-ui.css', 200, 'text/css; charset=utf-8'],
      ['/docs/assets/favicon-32x32.png', 200, 'image/png'],
      ['/docs/assets/package.json', 404, 'application/problem+json; charset=utf-8'],
      ['/docs/assets/..%2Fpackage.json', 404, 'application/problem+json; charset=utf-8'],
      ['/docs/assets/index.html', 404, 'application/problem+json; charset=utf-8'],
    ])('%s → %i', async (path, status, type) => {
      const res = await get(path);
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toBe(type);
    });
  });

  describe('GET /errors/<code>', () => {
    it('JSON for programs, with the documentation link', async () => {
      const res = await get('/errors/not_found');
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await res.json()).toEqual({
        error_code: 'not_found',
        status: 404,
        title: 'Not Found',
        description: 'The requested resource does not exist.',
        type: '/errors/not_found',
        documentation: 'https://github.com/plumbline/plumbline/blob/main/docs/design.md#d-errors',
      });
    });

    it.each([
      ['en', 'The requested resource does not exist.', 'HTTP status'],
      ['de-DE,de;q=0.9', 'Die angeforderte Ressource existiert nicht.', 'HTTP-Status'],
    ])('HTML for browsers in %s', async (language, text, label) => {
      const res = await get('/errors/not_found', { accept: BROWSER_ACCEPT, 'accept-language': language });
      const html = await res.text();
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('content-security-policy')).toBe(PAGE_CSP);
      expect(html).toContain(text);
      expect(html).toContain(label);
      expect(html).toContain(
        'href="https://github.com/plumbline/plumbline/blob/main/docs/design.md#d-errors"',
      );
    });

    it('an unknown code is a 404 problem, and markup in the path is never echoed', async () => {
      const res = await get('/errors/%3Cscript%3Ealert(1)%3C%2Fscript%3E', { accept: BROWSER_ACCEPT });
      expect(res.status).toBe(404);
      expect(await res.text()).not.toContain('<script>');
    });
  });

  describe('XML a person would write', () => {
    const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@' });

    it('a collection is <projects><project>…</project>…<page>…</page><links>…</links></projects>', async () => {
      const res = await get('/v2/projects?sort=name&limit=2', { ...key, accept: 'application/xml' });
      const text = await res.text();
      expect(text).toMatch(
        /^<\?xml version="1.0" encoding="UTF-8"\?><projects xmlns:xsi="[^"]+"><project><id>/,
      );
      expect(text).toContain(
        '<name>Apollo</name><description>Moon landing programme</description><status>active</status><budget><amount>25400000</amount><currency>USD</currency></budget>',
      );
      expect(text).toContain(
        '<page><limit>2</limit><offset>0</offset><has_more>true</has_more><next_cursor>',
      );
      expect(text).toMatch(/<links><self>\/v2\/projects\?sort=name&amp;limit=2&amp;offset=0<\/self>/);
      const doc = parser.parse(text);
      expect(doc.projects.project.map((p: { name: string }) => p.name)).toEqual(['Apollo', 'Borealis']);
    });

    it('a member is <project>; a null is xsi:nil; v1 budget is a number', async () => {
      const list = await json(await get('/v1/projects?name=Delphi', key));
      const id = list.data[0].id;
      const text = await (await get(`/v1/projects/${id}`, { ...key, accept: 'application/xml' })).text();
      expect(text).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?><project xmlns:xsi="[^"]+"><id>/);
      expect(text).toContain('<budget xsi:nil="true"/>');
      const apollo = (await json(await get('/v1/projects?name=Apollo', key))).data[0].id;
      expect(
        await (await get(`/v1/projects/${apollo}`, { ...key, accept: 'application/xml' })).text(),
      ).toContain('<budget>25400000</budget>');
    });

    it('tasks and comments pages are <tasks><task> and <comments><comment>', async () => {
      const tasks = await (await get('/v2/tasks?limit=1', { ...key, accept: 'application/xml' })).text();
      expect(tasks).toMatch(/<tasks xmlns:xsi="[^"]+"><task><id>/);
      const task = (await json(await get('/v2/tasks?limit=1&sort=title', key))).data[0].id;
      const comments = await (
        await get(`/v2/tasks/${task}/comments`, { ...key, accept: 'application/xml' })
      ).text();
      expect(comments).toMatch(/<comments xmlns:xsi="[^"]+">(<comment>|<page>)/);
    });

    it('text is escaped and an empty page has no item elements', async () => {
      const created = await fetch(`${svc.url}/v2/projects`, {
        method: 'POST',
        headers: {
          ...key,
          'content-type': 'application/json',
          'idempotency-key': randomUUID(),
          accept: 'application/xml',
        },
        body: JSON.stringify({ name: 'R&D <lab> "x"', description: null }),
      });
      expect(created.status).toBe(201);
      const text = await created.text();
      expect(text).toContain('<name>R&amp;D &lt;lab&gt; "x"</name><description xsi:nil="true"/>');
      const empty = await (
        await get('/v2/projects?name=nothing-here', { ...key, accept: 'application/xml' })
      ).text();
      expect(empty).toMatch(/<projects xmlns:xsi="[^"]+"><page>/);
    });
  });
});
