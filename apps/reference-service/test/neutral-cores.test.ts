/**
 * The framework-neutral cores the Express, Fastify and Hono wirings share (issue #21): plain values
 * in, plain values out. The rate limiter is checked against express-rate-limit 8 itself, which
 * the Express wiring used before: the same key and count must give the same header bytes.
 */
import { HttpError } from '@plumbline/errors';
import { MemoryStore, rateLimit } from 'express-rate-limit';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { errorCatalogue, errorCodeDocument, TEXT_PAGES } from '../src/docs.js';
import { createDocsUi, DOCS_HEADERS } from '../src/docs-ui.js';
import {
  addressKey,
  checkQueryLength,
  createLimiter,
  MAX_QUERY_BYTES,
  principalKey,
  rateLimitedError,
} from '../src/limits.js';
import { serverWideOptionsReply } from '../src/request-target.js';
import { unversionedRoute } from '../src/unversioned.js';

/** The headers express-rate-limit sets for `hits` requests of `key` (draft-8, limit `limit`). */
async function libraryHeaders(key: string, limit: number, hits: number): Promise<Record<string, string>> {
  const middleware = rateLimit({
    windowMs: 60_000,
    limit,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    validate: false,
    store: new MemoryStore(),
    keyGenerator: () => key,
    handler: (_req, _res, next) => next(),
  });
  let headers: Record<string, string> = {};
  for (let i = 0; i < hits; i++) {
    headers = {};
    const res = {
      headersSent: false,
      statusCode: 200,
      setHeader: (name: string, value: string) => {
        headers[name] = value;
      },
      append: (name: string, value: string) => {
        headers[name] = value;
      },
      once: () => undefined,
    };
    await new Promise<void>((resolve) => {
      void middleware({ ip: '203.0.113.7' } as never, res as never, () => resolve());
    });
  }
  return headers;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('createLimiter', () => {
  it.each([
    ['client:demo', 5, 1],
    ['client:demo', 5, 5],
    ['ip:203.0.113.7', 5, 6],
    ['ip:2001:db8::/56', 60, 61],
  ])('key %s, limit %i, hit %i times: the bytes express-rate-limit sent', async (key, limit, hits) => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse('2026-11-25T12:00:00Z') });
    const expected = await libraryHeaders(key, limit, hits);
    const limiter = createLimiter({ limit, headers: true });
    let decision = await limiter.consume(key);
    for (let i = 1; i < hits; i++) decision = await limiter.consume(key);
    expect(decision?.headers).toEqual(expected);
    expect(decision?.exceeded).toBe(hits > limit);
  });

  it.each([
    [200, 0],
    [399, 0],
    [400, 1],
    [503, 1],
  ])('the failure limiter keeps a response with status %i counted %i time(s)', async (status, counted) => {
    const store = new MemoryStore();
    const limiter = createLimiter({ limit: 5, headers: false, skipSuccessful: true, store });
    const decision = await limiter.consume('ip:203.0.113.7');
    expect(decision?.headers).toEqual({});
    await decision?.settle(status);
    await decision?.settle(status);
    expect((await store.get('ip:203.0.113.7'))?.totalHits ?? 0).toBe(counted);
  });

  it('a request passes unlimited, without headers, when the store fails', async () => {
    const failing = new MemoryStore();
    failing.increment = () => Promise.reject(new Error('down'));
    expect(await createLimiter({ limit: 1, headers: true, store: failing }).consume('k')).toBeUndefined();
  });
});

describe('limit decisions', () => {
  it.each([
    [undefined, 'ip:'],
    ['203.0.113.7', 'ip:203.0.113.7'],
  ])('addressKey(%s) is %s', (ip, key) => {
    expect(addressKey(ip)).toBe(key);
  });

  it.each([
    ['demo', '203.0.113.7', 'client:demo'],
    [undefined, '203.0.113.7', 'ip:203.0.113.7'],
  ])('principalKey(%s, %s) is %s', (clientId, ip, key) => {
    expect(principalKey(clientId, ip)).toBe(key);
  });

  it.each([
    [new Date(61_500), 0, '62'],
    [new Date(100), 0, '1'],
    [undefined, 0, '60'],
  ])('rateLimitedError(%s, %i) has Retry-After %s', (reset, now, retryAfter) => {
    const error = rateLimitedError(reset, now);
    expect(error.code).toBe('rate_limited');
    expect(error.headers['Retry-After']).toBe(retryAfter);
  });

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

  it.each([
    ['/health', 'GET', 'pass'],
    ['/health', 'OPTIONS', 204],
    ['/health', 'DELETE', 405],
    ['/errors/not_found', 'POST', 405],
    ['/v2/projects', 'GET', 'none'],
  ])('unversionedRoute(%s) answers %s with %s', (path, method, answer) => {
    const route = unversionedRoute(path);
    if (answer === 'none') {
      expect(route).toBeUndefined();
      return;
    }
    if (answer === 405) {
      expect(() => route?.methodAnswer(method)).toThrow(expect.objectContaining({ status: 405 }));
      return;
    }
    const reply = route?.methodAnswer(method);
    if (answer === 'pass') expect(reply).toBeUndefined();
    else expect(reply).toMatchObject({ status: 204, headers: { Allow: expect.stringContaining('GET') } });
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
    for (const reply of [ui.page, ui.init, ui.asset('swagger-ui.css')]) {
      expect(reply.headers).toMatchObject(DOCS_HEADERS);
    }
    expect(String(ui.init.body)).toContain('"plk_demo"');
    expect(ui.page.headers['Cache-Control']).toBe('no-store');
    expect(() => ui.asset('../package.json')).toThrow(HttpError);
  });
});
