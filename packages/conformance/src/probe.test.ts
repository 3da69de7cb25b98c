import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compliantApp } from './__fixtures__/compliant-app.js';
import { listen, type Started } from './__fixtures__/listen.js';
import { goodOpenApi } from './__fixtures__/openapi.js';
import { wrongApp } from './__fixtures__/wrong-app.js';
import { ProbeConfigError, probe } from './probe.js';
import { PROBE_RULES } from './rules.js';
import type { Scorecard } from './scorecard.js';

const FAST = { requestsPerSecond: 1000, timeoutMs: 5_000 };
let good: Started;
let wrong: Started;
let apiKey = '';
let wrongCard: Scorecard;

beforeAll(async () => {
  const compliant = compliantApp();
  apiKey = compliant.apiKey;
  good = await listen(compliant.app);
  wrong = await listen(wrongApp('secret'));
  wrongCard = await probe({
    baseUrl: wrong.url,
    token: 'secret',
    collections: ['/api/v2/items'],
    allowWrites: true,
    ...FAST,
  });
});
afterAll(async () => {
  await good.close();
  await wrong.close();
});

const outcomes = (card: Scorecard) => Object.fromEntries(card.results.map((r) => [r.id, r.outcome]));

describe('probe: the compliant fixture (real Plumbline packages)', () => {
  it('scores 100% with writes, discovering collections from /openapi.json', async () => {
    const card = await probe({ baseUrl: good.url, apiKey, allowWrites: true, ...FAST });
    expect(outcomes(card)).toEqual(Object.fromEntries(PROBE_RULES.map((rule) => [rule.id, 'pass'])));
    expect(card).toMatchObject({ ok: true, percent: 100, failed: 0, skipped: 0 });
  });

  it('read-only by default: write rules are skipped with a note, nothing else fails', async () => {
    const card = await probe({ baseUrl: good.url, apiKey, ...FAST });
    for (const result of card.results) {
      if (PROBE_RULES.find((rule) => rule.id === result.id)?.writes) {
        expect(result.outcome).toBe('skip');
        expect(result.evidence).toEqual([{ note: 'not run: write probe; pass --allow-writes' }]);
      } else expect([result.id, result.outcome]).toEqual([result.id, 'pass']);
    }
    expect(card.ok).toBe(true);
  });

  it('probes given collections without a document, filling {project_id} from the parent collection', async () => {
    const card = await probe({
      baseUrl: good.url,
      apiKey,
      collections: ['/v2/projects/{project_id}/tasks'],
      ...FAST,
    });
    const pagination = card.results.find((r) => r.id === 'probe-pagination-links');
    expect(pagination?.outcome).toBe('pass');
    expect(pagination?.evidence[0]?.request).toMatch(/^GET \/v2\/projects\/1\/tasks\?/);
    expect(card.ok).toBe(true);
  });

  it('fails the version rule when the document marks a version deprecated that sends no Deprecation', async () => {
    const openapi = goodOpenApi() as { paths: Record<string, { get?: { deprecated?: boolean } }> };
    openapi.paths['/v2/projects']!.get!.deprecated = true;
    const card = await probe({ baseUrl: good.url, apiKey, openapi, collections: ['/v2/projects'], ...FAST });
    const version = card.results.find((r) => r.id === 'probe-version-headers');
    expect(version?.outcome).toBe('fail');
    expect(version?.evidence[0]?.note).toBe(
      'documented as deprecated but Deprecation is missing or malformed',
    );
  });

  it('shows the deprecated version headers it accepted', async () => {
    const card = await probe({
      baseUrl: good.url,
      apiKey,
      collections: ['/v1/projects'],
      openapi: goodOpenApi(),
      ...FAST,
    });
    const version = card.results.find((r) => r.id === 'probe-version-headers');
    expect(version?.outcome).toBe('pass');
    const accepted = version?.evidence.find((e) => e.note === 'deprecated version sends Deprecation');
    expect(accepted?.response).toMatch(/\ndeprecation: @1767225600\nsunset: Tue, 31 Dec 2030 23:59:59 GMT\n/);
  });
});

describe('probe: the deliberately wrong fixture', () => {
  it('fails the run', () => {
    expect(wrongCard).toMatchObject({ ok: false, passed: 1, failed: 17, skipped: 1 });
  });

  it.each([
    ['probe-auth-401', 'expected 401 with WWW-Authenticate', 'GET /api/v2/items', 'HTTP 403'],
    [
      'probe-not-acceptable-406',
      'expected 406 for Accept: application/x-plumbline-unservable',
      'GET /api/v2/items',
      'HTTP 200',
    ],
    ['probe-vary', 'Vary does not name Accept', 'GET /api/v2/items', 'vary: (absent)'],
    ['probe-unsupported-media-415', 'expected 415', 'POST /api/v2/items', 'HTTP 200'],
    [
      'probe-sort-unknown-400',
      'an unknown sort field was accepted with 200; expected 400',
      'GET /api/v2/items?sort=plumbline_no_such_field',
      '{"error":"cannot sort by plumbline_no_such_field","data":[]}',
    ],
    [
      'probe-limit-over-max-400',
      'a page size of 100000 was accepted with 200; expected 400',
      'GET /api/v2/items?limit=100000',
      'HTTP 200',
    ],
    [
      'probe-search-too-short-400',
      'a one-character search was accepted with 200; expected 400',
      'GET /api/v2/items?q=a',
      'HTTP 200',
    ],
    ['probe-default-page-bounded', '156 items (more than 100)', 'GET /api/v2/items', 'link: (absent)'],
    [
      'probe-pagination-links',
      '156 items exist but a page of 1 has no next link',
      'GET /api/v2/items?limit=1',
      'link: (absent)',
    ],
    [
      'probe-error-body',
      '403 body lacks error_code and message',
      'GET /api/v2/items',
      '{"error":"not allowed"}',
    ],
    [
      'probe-no-200-errors',
      '200 with member "error"',
      'GET /api/v2/items?sort=plumbline_no_such_field',
      'HTTP 200',
    ],
    ['probe-no-stack-traces', 'the body holds a JavaScript stack frame', 'GET /api/v2/items/', 'HTTP 500'],
    ['probe-not-found-404', 'expected 404 for an id that never existed', 'GET /api/v2/items/', 'HTTP 500'],
    [
      'probe-create-201-location',
      'expected 201 with a Location header',
      'POST /api/v2/items',
      'location: (absent)',
    ],
    [
      'probe-idempotent-replay',
      'the retry differs from the first result: a different body',
      'POST /api/v2/items',
      'HTTP 200',
    ],
    [
      'probe-idempotency-key-reuse-422',
      'expected 422 for a reused key with another body',
      'POST /api/v2/items',
      'HTTP 200',
    ],
    ['probe-version-headers', 'expected 4xx for an unknown version', 'GET /api/v9999/items', 'HTTP 200'],
  ])('%s fails with evidence: %s', (rule, note, request, response) => {
    const result = wrongCard.results.find((r) => r.id === rule);
    expect(result?.outcome).toBe('fail');
    const evidence = result?.evidence.find((e) => e.note === note);
    expect(evidence?.request?.startsWith(request)).toBe(true);
    expect(evidence?.response).toContain(response);
  });

  it('never shows the bearer token in evidence', () => {
    expect(JSON.stringify(wrongCard)).not.toContain('secret');
  });

  it('skips what it cannot check and says why', () => {
    expect(wrongCard.results.find((r) => r.id === 'probe-gone-410')?.evidence[0]?.note).toBe(
      'could not create a resource to delete',
    );
  });
});

describe('probe: bounds and configuration', () => {
  it('stops at the request budget and says so', async () => {
    const card = await probe({ baseUrl: good.url, apiKey, maxRequests: 3, ...FAST });
    expect(card.requests).toBe(3);
    const skipped = card.results.filter((r) => r.outcome === 'skip' && !r.id.includes('410'));
    expect(skipped.map((r) => r.evidence[0]?.note)).toContain(
      'request budget of 3 exhausted; raise --max-requests',
    );
  });

  it('refuses a next link to another host and reports it', async () => {
    const app = express();
    app.get('/v1/things/:id', (_req, res) => {
      res.status(400).json({ error_code: 'invalid_value', message: 'The id must be an integer.' });
    });
    app.get('/v1/things', (_req, res) => {
      res.setHeader('Vary', 'Accept');
      res.setHeader('Link', '<http://example.com/v1/things?offset=1>; rel="next"');
      res.json({ data: [{ id: 1 }], page: { has_more: true } });
    });
    const other = await listen(app);
    try {
      const card = await probe({ baseUrl: other.url, collections: ['/v1/things'], ...FAST });
      const result = card.results.find((r) => r.id === 'probe-pagination-links');
      expect(result?.outcome).toBe('fail');
      expect(result?.evidence[0]?.note).toBe(
        `next link http://example.com/v1/things?offset=1 leaves ${other.url}`,
      );
      expect(card.results.find((r) => r.id === 'probe-not-found-404')?.evidence[0]?.note).toBe(
        'the probe id format was refused; document the id as integer or uuid',
      );
      expect(card.results.find((r) => r.id === 'probe-auth-401')?.evidence[0]?.note).toBe(
        'the API answers without credentials; pass --token or --api-key if it should not',
      );
    } finally {
      await other.close();
    }
  });

  it('uses page and size for a collection documented that way', async () => {
    const openapi = {
      openapi: '3.1.0',
      paths: {
        '/v2/projects': {
          get: { parameters: ['page', 'size'].map((name) => ({ name, in: 'query' })), responses: {} },
        },
      },
    };
    const card = await probe({ baseUrl: good.url, apiKey, openapi, ...FAST });
    const limit = card.results.find((r) => r.id === 'probe-limit-over-max-400');
    expect(limit?.evidence[0]?.request?.split('\n')[0]).toBe('GET /v2/projects?page=1&size=100000');
  });

  it.each([
    [{ token: 't', apiKey: 'k' }, 'pass either a token or an API key, not both'],
    [{ collections: ['v2/projects'] }, 'collection must be a path: v2/projects'],
    [{ openapi: { openapi: '3.1.0', paths: {} } }, 'the OpenAPI document describes no paginated collection'],
  ])('configuration error %j', async (options, message) => {
    await expect(probe({ baseUrl: good.url, ...FAST, ...options })).rejects.toThrow(
      new ProbeConfigError(message),
    );
  });

  it('needs a document or collections', async () => {
    await expect(probe({ baseUrl: wrong.url, ...FAST })).rejects.toThrow(
      'no collections to probe: /openapi.json answered 404; pass --openapi or --collection',
    );
  });

  it('rejects a base URL that is not http(s)', async () => {
    await expect(probe({ baseUrl: 'file:///etc/passwd' })).rejects.toBeInstanceOf(ProbeConfigError);
  });
});
