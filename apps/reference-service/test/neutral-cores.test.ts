/**
 * The framework-neutral cores the Express, Fastify and Hono wirings share (issue #21): plain values
 * in, plain values out. The rate limiter, its keys and its headers (compared byte for byte with
 * express-rate-limit 8, which the Express wiring used before) are tested in @plumbline/rate-limit.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { HttpError } from '@plumbline/errors';
import { createNegotiator } from '@plumbline/negotiation';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ERROR_PAGE_NEGOTIATION, errorCatalogue, errorCodeDocument, TEXT_PAGES } from '../src/pages/docs.js';
import { createDocsUi, DOCS_CSP } from '../src/pages/docs-ui.js';
import { frontDoorBody, frontDoorNegotiation } from '../src/pages/front-door.js';
import { PAGE_HEADERS, SITE_CSS_REPLY } from '../src/pages/html-pages.js';
import { unversionedNegotiation } from '../src/pages/unversioned.js';
import type { AppContext } from '../src/service/context.js';
import { checkQueryLength, MAX_QUERY_BYTES } from '../src/service/limits.js';
import { createAccessLogger, createLogger } from '../src/service/logging.js';
import { createMetrics } from '../src/service/metrics.js';
import { serverWideOptionsReply } from '../src/service/request-target.js';
import { apiStrategy } from '../src/service/versioning.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('limit decisions', () => {
  it.each([
    ['/v2/projects', false],
    [`/v2/projects?${'q'.repeat(MAX_QUERY_BYTES)}`, false],
    [`/v2/projects?${'q'.repeat(MAX_QUERY_BYTES + 1)}`, true],
  ])('checkQueryLength(%s) refuses: %s', (url, refused) => {
    if (refused) expect(() => checkQueryLength(url)).toThrow(HttpError);
    else expect(() => checkQueryLength(url)).not.toThrow();
  });
});

describe('plain replies', () => {
  it.each([
    ['OPTIONS', '*', 204],
    ['GET', '*', undefined],
    ['OPTIONS', '/health', undefined],
  ])('serverWideOptionsReply(%s, %s) answers %s', (method, target, status) => {
    expect(serverWideOptionsReply(method, target)?.status).toBe(status);
  });

  // What a neutral route's 405 and OPTIONS answers are is checked over HTTP on every framework
  // (test/unversioned.test.ts); here, which routes negotiate which types.
  it.each([
    ['/health', ['application/json']],
    ['/metrics', ['text/plain']],
    ['/docs', ['text/html']],
    ['/docs/init.js', undefined],
    ['/errors/:code', undefined],
    ['/v2/projects', undefined],
  ])('unversionedNegotiation(%s) offers %s', (path, types) => {
    expect(unversionedNegotiation(path)?.types).toEqual(types);
  });

  it.each([
    ['de-CH, en;q=0.5', 'de'],
    [undefined, 'en'],
  ])('errorCatalogue(%s) is in %s', (acceptLanguage, language) => {
    const catalogue = errorCatalogue(acceptLanguage);
    expect(catalogue.language).toBe(language);
    expect(catalogue.body.data.map((doc) => doc.error_code)).toContain('rate_limited');
  });

  it.each([
    ['rate_limited', 429],
    ['no_such_code', 404],
    [['not_found'], 404],
  ])('errorCodeDocument(%j) gives %i', (code, status) => {
    if (status === 404) expect(() => errorCodeDocument(code, undefined)).toThrow(HttpError);
    else expect(errorCodeDocument(code, undefined).status).toBe(status);
  });

  it.each(Object.entries(TEXT_PAGES))('%s is plain text', (_path, reply) => {
    expect(reply.headers['Content-Type']).toBe('text/plain; charset=utf-8');
    expect(String(reply.body)).toMatch(/Sunset/);
  });

  it('the /docs answers carry the docs headers; an unknown asset is 404', () => {
    const ui = createDocsUi({ title: 'T', demoApiKey: 'plk_demo' });
    const headers = {
      'Content-Security-Policy': DOCS_CSP,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
    };
    expect(ui.headers).toEqual(headers);
    for (const reply of [ui.page, ui.init, ui.asset('swagger-ui.css')]) {
      expect(reply.headers).toMatchObject(headers);
    }
    // Without the code flow there is no redirect page.
    expect(() => ui.asset('oauth2-redirect.html')).toThrow(HttpError);
    expect(String(ui.init.body)).toContain('"plk_demo"');
    expect(ui.page.headers['Cache-Control']).toBe('no-store');
    expect(() => ui.asset('../package.json')).toThrow(HttpError);
  });
});

describe('negotiated pages', () => {
  const openapi = { info: { title: 'Plumbline reference service', version: '1.2.3' } };

  it.each([
    ['application/json', 'application/json', '"status":"deprecated"'],
    ['text/html', 'text/html', '<td class="status current">current</td>'],
  ])('GET / for Accept %s is %s', (accept, type, fragment) => {
    const negotiator = createNegotiator(frontDoorNegotiation(openapi));
    const negotiation = negotiator.negotiate({ accept, acceptLanguage: 'en' });
    if (!negotiation.ok) throw negotiation.error;
    const body = frontDoorBody(openapi, apiStrategy('path'), Date.parse('2026-11-25T00:00:00Z'));
    const representation = negotiator.serialize(negotiation, body);
    expect(representation.contentType).toMatch(new RegExp(`^${type}`));
    expect(String(representation.body)).toContain(fragment);
  });

  // Only a strategy that serves a request without a version has a default: v2 (DEFAULT_VERSION).
  it.each([
    ['path', ['/v1', '/v2', '/v3'], [false, false, false]],
    ['query', ['/projects?version=1', '/projects?version=2', '/projects?version=3'], [false, true, false]],
    ['header', ['/projects', '/projects', '/projects'], [false, true, false]],
    ['media-type', ['/projects', '/projects', '/projects'], [false, true, false]],
  ] as const)(
    'GET / under the %s strategy: where each version starts, which is the default',
    (strategy, hrefs, defaults) => {
      const body = frontDoorBody(openapi, apiStrategy(strategy), Date.parse('2026-11-25T00:00:00Z'));
      const versions = body['versions'] as { version: string; href: string; default: boolean }[];
      expect(versions.map((v) => [v.version, v.href, v.default])).toEqual(
        ['1', '2', '3'].map((version, i) => [version, hrefs[i], defaults[i]]),
      );
    },
  );

  it('the HTML page marks the default version', () => {
    const negotiator = createNegotiator(frontDoorNegotiation(openapi));
    const negotiation = negotiator.negotiate({ accept: 'text/html', acceptLanguage: 'en' });
    if (!negotiation.ok) throw negotiation.error;
    const body = frontDoorBody(openapi, apiStrategy('header'), Date.parse('2026-11-25T00:00:00Z'));
    const html = String(negotiator.serialize(negotiation, body).body);
    expect(html.match(/<td class="default">[^<]*<\/td>/g)).toEqual([
      '<td class="default"></td>',
      '<td class="default">default</td>',
      '<td class="default"></td>',
    ]);
  });

  it.each([
    ['text/html', 'de', '<dt>HTTP-Status</dt>'],
    ['application/json', 'en', '"error_code":"gone"'],
  ])('an error code page for %s in %s', (accept, language, fragment) => {
    const negotiator = createNegotiator(ERROR_PAGE_NEGOTIATION);
    const negotiation = negotiator.negotiate({ accept, acceptLanguage: language });
    if (!negotiation.ok) throw negotiation.error;
    const body = String(negotiator.serialize(negotiation, errorCodeDocument('gone', language)).body);
    expect(body).toContain(fragment);
  });

  it('HTML pages and their stylesheet carry the page headers', () => {
    expect(PAGE_HEADERS['Content-Security-Policy']).toContain("default-src 'none'");
    expect(SITE_CSS_REPLY.headers['Content-Type']).toBe('text/css; charset=utf-8');
    expect(String(SITE_CSS_REPLY.body)).toContain('.deprecated');
  });
});

describe('createAccessLogger', () => {
  it('logs one line per request from the raw Node objects (a 503 at warn), with the id the wiring gives', async () => {
    const lines: Record<string, unknown>[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
        done();
      },
    });
    const log = createAccessLogger(createLogger({ level: 'info', destination }), () => 'req-1');
    const server = createServer((req, res) => {
      log(req, res);
      res.statusCode = 503;
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      await fetch(`http://127.0.0.1:${port}/v2/projects?api_key=plk_secret`, {
        headers: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
      });
      await vi.waitFor(() => expect(lines).toHaveLength(1));
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(lines[0]).toMatchObject({
      level: 40,
      msg: 'request errored',
      request_id: 'req-1',
      trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
      req: { url: '/v2/projects?api_key=[REDACTED]' },
    });
  });
});

describe('createAccessLogger, a completed request', () => {
  it('masks every secret name among the headers and query parameters as it builds the line', async () => {
    const raw: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        raw.push(String(chunk));
        done();
      },
    });
    const log = createAccessLogger(createLogger({ level: 'info', destination }), () => 'req-2');
    const server = createServer((req, res) => {
      log(req, res);
      res.setHeader('set-cookie', 'session=s3cr3t-cookie');
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      await fetch(`http://127.0.0.1:${port}/v2/projects?password=p4ss-word&limit=2&client_secret=cl1ent`, {
        headers: { token: 't0ken-header', 'x-api-key': 'plk_k3y', authorization: 'Bearer b3arer' },
      });
      await vi.waitFor(() => expect(raw).toHaveLength(1));
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    for (const secret of ['p4ss-word', 'cl1ent', 't0ken-header', 'plk_k3y', 'b3arer', 's3cr3t-cookie'])
      expect(raw[0]).not.toContain(secret);
    const line = JSON.parse(raw[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({
      level: 30,
      msg: 'request completed',
      request_id: 'req-2',
      req: {
        method: 'GET',
        url: '/v2/projects?password=[REDACTED]&limit=2&client_secret=[REDACTED]',
        headers: { token: '[REDACTED]', 'x-api-key': '[REDACTED]', authorization: '[REDACTED]' },
      },
      res: { statusCode: 200, headers: { 'set-cookie': '[REDACTED]' } },
    });
  });
});

describe('createMetrics track', () => {
  it('reads Idempotent-Replayed through the getter it is given: writeHead headers are not in getHeader()', async () => {
    const metrics = createMetrics({ db: {}, redis: undefined } as unknown as AppContext, ['/v2/projects']);
    const server = createServer((req, res) => {
      let sent: Record<string, string> = {};
      metrics.track(req, res, '/v2/projects', (name) => sent[name]);
      sent = { 'idempotent-replayed': 'true' };
      res.writeHead(201, { 'Idempotent-Replayed': 'true' });
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      await fetch(`http://127.0.0.1:${port}/v2/projects`, {
        method: 'POST',
        headers: { 'idempotency-key': 'k1' },
      });
      await vi.waitFor(async () =>
        expect((await metrics.render()).body).toContain(
          'plumbline_idempotency_outcomes_total{outcome="replayed"} 1',
        ),
      );
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
