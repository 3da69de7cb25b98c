import { describe, expect, it, vi } from 'vitest';
import {
  createMethodGuard,
  createProblemRenderer,
  createRequestIdSource,
  HttpError,
  mergeVary,
  problemMediaType,
  renderProblem,
  serializeProblem,
  toHttpError,
  toProblem,
} from './index.js';

describe('serializeProblem and the handlers agree on a raw Accept', () => {
  const problem = toProblem(new HttpError('not_found'), { instance: '/x' });
  it.each([
    ['application/xml;q=0.5, application/json', 'json'],
    ['application/json;q=0.1, text/xml', 'xml'],
    ['application/xml', 'xml'],
    ['application/xml; charset=utf-8', 'xml'],
    ['text/html, application/xhtml+xml, application/xml;q=0.9, */*;q=0.8', 'xml'],
    ['text/html, */*;q=0.1', 'json'],
    ['application/json;q=0, */*', 'json'],
    ['text/*', 'xml'],
    ['application/*', 'json'],
    ['application/vnd.acme+xml', 'xml'],
    ['application/vnd.acme+json', 'json'],
    ['image/png', 'json'],
    ['', 'json'],
    [',,;;q=', 'json'],
  ])('%j → %s', (accept, kind) => {
    const type = `application/problem+${kind}; charset=utf-8`;
    expect(serializeProblem(problem, accept).contentType).toBe(type);
    expect(renderProblem(new HttpError('not_found'), { accept }).headers['Content-Type']).toBe(type);
    expect(problemMediaType(accept)).toBe(`application/problem+${kind}`);
  });
});

describe('renderProblem', () => {
  it('renders the complete response, exactly', () => {
    const rendered = renderProblem(new HttpError('not_found'), {
      accept: 'application/json',
      acceptLanguage: 'de-DE',
      instance: '/v1/projects/7?token=secret',
      requestId: 'abc',
    });
    expect(rendered.status).toBe(404);
    expect(rendered.headers).toEqual({
      Vary: 'Accept, Accept-Language',
      'Content-Type': 'application/problem+json; charset=utf-8',
      'Content-Language': 'de',
      'X-Content-Type-Options': 'nosniff',
    });
    expect(rendered.body).toBe(
      '{"type":"/errors/not_found","title":"Not Found","status":404,' +
        '"detail":"Die angeforderte Ressource existiert nicht.","instance":"/v1/projects/7",' +
        '"error_code":"not_found","message":"Die angeforderte Ressource existiert nicht.","request_id":"abc"}',
    );
    expect(rendered.removeHeaders).toContain('etag');
  });

  it.each([
    [401, 'unauthorized', {}, { 'WWW-Authenticate': 'Bearer realm="plumbline"' }],
    [401, 'invalid_token', { 'www-authenticate': 'Basic' }, {}],
    [429, 'rate_limited', {}, { 'Retry-After': '1' }],
    [503, 'service_unavailable', { 'retry-after': '30' }, {}],
  ] as const)('%i %s: defaults only where the response has none', (_status, code, existing, added) => {
    const rendered = renderProblem(new HttpError(code), {
      responseHeader: (name) => (existing as Record<string, string>)[name],
    });
    for (const name of ['WWW-Authenticate', 'Retry-After']) {
      expect(rendered.headers[name]).toBe((added as Record<string, string>)[name]);
    }
  });

  it('merges Vary with the response, and takes an error Vary as the base', () => {
    const withVary = (vary: string | string[] | undefined, error = new HttpError('not_found')) =>
      renderProblem(error, { responseHeader: (name) => (name === 'vary' ? vary : undefined) }).headers[
        'Vary'
      ];
    expect(withVary('Origin')).toBe('Origin, Accept, Accept-Language');
    expect(withVary(['Origin', 'accept'])).toBe('Origin, accept, Accept-Language');
    expect(withVary('*')).toBe('*');
    expect(withVary('Origin', new HttpError('not_found', { headers: { Vary: 'X-API-Version' } }))).toBe(
      'X-API-Version, Accept, Accept-Language',
    );
  });

  it('uses configured options', () => {
    const render = createProblemRenderer({
      docsBaseUrl: 'https://api.example.com/errors/',
      languages: ['en'],
      authenticateChallenge: 'ApiKey',
      retryAfterSeconds: 5,
    });
    const rendered = render(new HttpError('unauthorized'), { acceptLanguage: 'de' });
    expect(JSON.parse(rendered.body).type).toBe('https://api.example.com/errors/unauthorized');
    expect(rendered.headers['Content-Language']).toBe('en');
    expect(rendered.headers['WWW-Authenticate']).toBe('ApiKey');
    expect(render(new HttpError('rate_limited')).headers['Retry-After']).toBe('5');
  });
});

describe('mergeVary', () => {
  it.each([
    [undefined, 'Accept', 'Accept'],
    ['', 'Accept, Accept-Language', 'Accept, Accept-Language'],
    ['Origin', 'Accept', 'Origin, Accept'],
    ['accept', 'Accept', 'accept'],
    ['Accept-Language, Accept', 'Accept, Accept-Language', 'Accept-Language, Accept'],
    ['*', 'Accept', '*'],
    ['Origin', '*', '*'],
    ['Origin,, ', ' ,Accept', 'Origin, Accept'],
  ])('%j + %j → %j', (existing, names, merged) => {
    expect(mergeVary(existing, names)).toBe(merged);
  });
});

describe('createMethodGuard', () => {
  it.each([
    [['GET'], {}, 'DELETE', 405, 'GET, HEAD, OPTIONS'],
    [['get', 'post'], {}, 'OPTIONS', 204, 'GET, POST, HEAD, OPTIONS'],
    [['POST'], { handleOptions: false }, 'OPTIONS', 405, 'POST'],
    [['PUT'], {}, 'options', 204, 'PUT, OPTIONS'],
  ] as const)('%j %j: %s → %i, Allow %s', (allowed, options, method, status, allow) => {
    const guard = createMethodGuard(allowed, options);
    const answer = guard.answer(method);
    expect(guard.allow).toBe(allow);
    expect(answer.status).toBe(status);
    expect(answer.headers['Allow']).toBe(allow);
  });
});

describe('createRequestIdSource', () => {
  const ids = createRequestIdSource({ generate: () => 'fresh' });
  it.each([
    ['abc-123', 'abc-123'],
    ['a/b=c+d@e:f.g_h', 'a/b=c+d@e:f.g_h'],
    ['has space', 'fresh'],
    ['<script>', 'fresh'],
    ['x'.repeat(129), 'fresh'],
    ['', 'fresh'],
    [undefined, 'fresh'],
    [['a', 'b'], 'fresh'],
    ['id\r\nSet-Cookie: x', 'fresh'],
  ])('%j → %j', (incoming, id) => {
    expect(ids.idFor(incoming)).toBe(id);
  });

  it('never trusts incoming ids when told not to, and generates UUIDs by default', () => {
    expect(createRequestIdSource({ trustIncoming: false, generate: () => 'n' }).idFor('abc')).toBe('n');
    expect(createRequestIdSource().idFor(undefined)).toMatch(/^[0-9a-f-]{36}$/);
    expect(createRequestIdSource({ header: 'X-Correlation-Id' }).lowerHeader).toBe('x-correlation-id');
  });
});

describe('default request ids', () => {
  const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
  // A fresh module each time: the ids are drawn 64 at a time, and the batch is module state.
  async function freshSource(fill?: (bytes: Uint8Array) => void) {
    vi.resetModules();
    const calls: number[] = [];
    const real = globalThis.crypto.getRandomValues.bind(globalThis.crypto);
    const spy = vi.spyOn(globalThis.crypto, 'getRandomValues').mockImplementation(((bytes: Uint8Array) => {
      calls.push(bytes.length);
      if (fill) fill(bytes);
      else real(bytes);
      return bytes;
    }) as typeof crypto.getRandomValues);
    const { createRequestIdSource: create } = await import('./headers.js');
    return { source: create(), calls, restore: () => spy.mockRestore() };
  }

  it.each([
    [0, '00010203-0405-4607-8809-0a0b0c0d0e0f'],
    [1, '10111213-1415-4617-9819-1a1b1c1d1e1f'],
    [15, 'f0f1f2f3-f4f5-46f7-b8f9-fafbfcfdfeff'],
    [16, '00010203-0405-4607-8809-0a0b0c0d0e0f'],
  ])('id %i is the UUID of its own 16 random bytes', async (index, expected) => {
    const { source, restore } = await freshSource((bytes) => {
      for (let i = 0; i < bytes.length; i++) bytes[i] = i % 256;
    });
    try {
      const ids = Array.from({ length: index + 1 }, () => source.idFor(undefined));
      expect(ids[index]).toBe(expected);
    } finally {
      restore();
    }
  });

  it.each([
    [1, [1024]],
    [64, [1024]],
    [65, [1024, 1024]],
    [200, [1024, 1024, 1024, 1024]],
  ])('%i ids draw random bytes %j', async (count, draws) => {
    const { source, calls, restore } = await freshSource();
    try {
      const ids = Array.from({ length: count }, () => source.idFor(undefined));
      expect(calls).toEqual(draws);
      expect(new Set(ids).size).toBe(count);
      for (const id of ids) expect(id).toMatch(UUID_V4);
    } finally {
      restore();
    }
  });
});

describe("toHttpError maps Fastify's own errors", () => {
  it.each([
    ['FST_ERR_CTP_INVALID_JSON_BODY', 400, 'malformed_json'],
    ['FST_ERR_CTP_EMPTY_JSON_BODY', 400, 'malformed_json'],
    ['FST_ERR_CTP_BODY_TOO_LARGE', 413, 'payload_too_large'],
    ['FST_ERR_CTP_INVALID_MEDIA_TYPE', 415, 'unsupported_media_type'],
    ['FST_ERR_BAD_URL', 400, 'bad_request'],
    ['FST_ERR_NOT_FOUND', 404, 'not_found'],
    ['ECONNREFUSED', 500, 'internal_error'],
  ])('%s → %i %s', (code, status, errorCode) => {
    const error = toHttpError(Object.assign(new Error('x'), { code }));
    expect([error.status, error.code]).toEqual([status, errorCode]);
  });

  it('schema validation becomes validation_failed with every failure located', () => {
    const thrown = (validationContext: string) =>
      Object.assign(new Error('body/name must be string'), {
        code: 'FST_ERR_VALIDATION',
        statusCode: 400,
        validationContext,
        validation: [
          { instancePath: '/name', message: 'must be string', params: {} },
          {
            instancePath: '',
            message: "must have required property 'owner'",
            params: { missingProperty: 'owner' },
          },
        ],
      });
    expect(toProblem(thrown('body')).errors).toEqual([
      { pointer: '#/name', error_code: 'invalid_value', detail: 'must be string' },
      { pointer: '#/owner', error_code: 'invalid_value', detail: "must have required property 'owner'" },
    ]);
    expect(toProblem(thrown('querystring')).errors?.map((e) => e.parameter)).toEqual(['name', 'owner']);
    expect(toProblem(thrown('headers')).errors?.map((e) => e.header)).toEqual(['name', 'owner']);
  });
});
