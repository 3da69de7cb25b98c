import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { HttpError, serializeProblem, toHttpError, toProblem, toXml, wantsXml, xmlName } from './index.js';

describe('toHttpError', () => {
  it.each([
    ['a thrown string', 'boom', 500, 'internal_error'],
    ['null', null, 500, 'internal_error'],
    ['undefined', undefined, 500, 'internal_error'],
    ['a plain Error', new Error('SELECT * FROM secrets failed'), 500, 'internal_error'],
    ['status 999', { status: 999, message: 'weird' }, 500, 'internal_error'],
    ['status 200', { status: 200 }, 500, 'internal_error'],
    ['status "404" as a string', { status: '404' }, 500, 'internal_error'],
    [
      'http-errors 404',
      Object.assign(new Error('Not Found'), { status: 404, expose: true }),
      404,
      'not_found',
    ],
    ['statusCode 409', { statusCode: 409 }, 409, 'conflict'],
    ['status 418', { status: 418 }, 400, 'bad_request'],
    ['status 502', { status: 502 }, 500, 'internal_error'],
    ['body-parser parse failure', { type: 'entity.parse.failed', status: 400 }, 400, 'malformed_json'],
    [
      'body-parser too large',
      { type: 'entity.too.large', status: 413, limit: 1024 },
      413,
      'payload_too_large',
    ],
    ['body-parser bad charset', { type: 'charset.unsupported', status: 415 }, 415, 'unsupported_media_type'],
    [
      'body-parser bad encoding',
      { type: 'encoding.unsupported', status: 415 },
      415,
      'unsupported_media_type',
    ],
    ['body-parser aborted', { type: 'request.aborted', status: 400 }, 400, 'bad_request'],
  ])('%s → %i %s', (_name, thrown, status, code) => {
    const error = toHttpError(thrown);
    expect([error.status, error.code]).toEqual([status, code]);
  });

  it('keeps the original as cause and passes HttpError through', () => {
    const original = new Error('ECONNREFUSED 10.0.0.5:5432');
    expect(toHttpError(original).cause).toBe(original);
    const httpError = new HttpError('gone');
    expect(toHttpError(httpError)).toBe(httpError);
  });

  it('copies only well-formed string headers from foreign errors', () => {
    const error = toHttpError({ status: 405, headers: { Allow: 'GET', 'Bad Header': 'x', Num: 1 } });
    expect(error.headers).toEqual({ Allow: 'GET' });
  });
});

describe('toProblem', () => {
  it('builds every member of the problem body (docs/design.md#d-errors)', () => {
    const problem = toProblem(new HttpError('search_too_short', { params: { min: 3 } }), {
      instance: '/v1/projects',
      requestId: 'req-1',
      language: 'en',
    });
    expect(problem).toEqual({
      type: '/errors/search_too_short',
      title: 'Bad Request',
      status: 400,
      detail: 'Search text must be at least 3 characters.',
      instance: '/v1/projects',
      error_code: 'search_too_short',
      message: 'Search text must be at least 3 characters.',
      request_id: 'req-1',
    });
  });

  it('collects field errors with their location, code and localized detail', () => {
    const error = new HttpError('validation_failed', {
      params: { count: 3 },
      errors: [
        { parameter: 'sort', code: 'sort_field_not_allowed', params: { field: 'x', allowed: ['name'] } },
        { pointer: '/name', code: 'invalid_value', detail: 'Name must not be empty.' },
        { header: 'Idempotency-Key', code: 'idempotency_key_invalid' },
        { code: 'bad_request' },
      ],
    });
    expect(toProblem(error, { language: 'de', docsBaseUrl: 'https://docs.example/errors/' })).toEqual({
      type: 'https://docs.example/errors/validation_failed',
      title: 'Bad Request',
      status: 400,
      detail: 'Die Anfrage enthält 3 ungültige Werte.',
      error_code: 'validation_failed',
      message: 'Die Anfrage enthält 3 ungültige Werte.',
      errors: [
        {
          parameter: 'sort',
          error_code: 'sort_field_not_allowed',
          detail: 'Nach dem Feld „x“ kann nicht sortiert werden; erlaubt: name.',
        },
        { pointer: '/name', error_code: 'invalid_value', detail: 'Name must not be empty.' },
        {
          header: 'Idempotency-Key',
          error_code: 'idempotency_key_invalid',
          detail: 'Der Idempotenzschlüssel ist ungültig.',
        },
        { error_code: 'bad_request', detail: 'Die Anfrage ist fehlerhaft.' },
      ],
    });
  });

  it.each([
    [
      'an exposed 4xx detail is shown',
      new HttpError('conflict', { detail: 'Name "x" is taken.' }),
      'Name "x" is taken.',
    ],
    [
      'a 5xx detail is never shown',
      new HttpError('internal_error', { detail: 'relation "users" does not exist' }),
      'An unexpected error occurred.',
    ],
    [
      'a 4xx marked expose:false shows the generic message',
      new HttpError('bad_request', {
        detail: 'internal path /srv/app',
        params: { reason: 'x' },
        expose: false,
      }),
      'The request is malformed.',
    ],
    [
      'a 503 with params shows the generic message',
      new HttpError('service_unavailable', { params: { reason: 'redis down' } }),
      'The service is temporarily unavailable; retry later.',
    ],
  ])('%s', (_name, error, detail) => {
    const problem = toProblem(error);
    expect(problem.detail).toBe(detail);
    expect(problem.message).toBe(detail);
  });

  it('adds extensions but never lets them override standard members', () => {
    const problem = toProblem(
      new HttpError('not_acceptable', {
        extensions: { available: ['application/json'], status: 200, type: 'x' },
      }),
    );
    expect(problem['available']).toEqual(['application/json']);
    expect([problem.status, problem.type]).toEqual([406, '/errors/not_acceptable']);
  });

  it('hides extensions and field errors of errors that must not be exposed', () => {
    const problem = toProblem(
      new HttpError('internal_error', {
        extensions: { sql: 'SELECT 1' },
        errors: [{ code: 'x', detail: 'secret' }],
      }),
    );
    expect(problem).not.toHaveProperty('sql');
    expect(problem).not.toHaveProperty('errors');
  });
});

describe('serializeProblem', () => {
  const problem = toProblem(
    new HttpError('validation_failed', {
      errors: [
        { parameter: 'a', code: 'invalid_value', detail: 'x < y & "z"\u0001' },
        { pointer: '/b', code: 'invalid_value', detail: ']]> <!-- -->' },
      ],
      extensions: { 'weird key!': 1, '9lives': true, nested: { deep: [1, null] } },
    }),
    { instance: '/a?b=<c>', requestId: 'r' },
  );

  it('writes JSON by default', () => {
    const { body, contentType } = serializeProblem(problem);
    expect(contentType).toBe('application/problem+json; charset=utf-8');
    expect(JSON.parse(body)).toEqual(problem);
  });

  it.each(['application/xml', 'application/problem+xml', 'text/xml', 'application/vnd.x+xml; charset=utf-8'])(
    'writes well-formed RFC 9457 XML for %s',
    (mediaType) => {
      const { body, contentType } = serializeProblem(problem, mediaType);
      expect(contentType).toBe('application/problem+xml; charset=utf-8');
      expect(XMLValidator.validate(body)).toBe(true);
      const parsed = new XMLParser({ ignoreAttributes: false, isArray: (name) => name === 'i' }).parse(body);
      expect(parsed.problem['@_xmlns']).toBe('urn:ietf:rfc:7807');
      expect(parsed.problem.status).toBe(400);
      expect(parsed.problem.error_code).toBe('validation_failed');
      expect(parsed.problem.instance).toBe('/a?b=<c>');
      expect(parsed.problem.errors.i).toHaveLength(2);
      expect(parsed.problem.errors.i[0].detail).toBe('x < y & "z"');
      expect(parsed.problem.errors.i[1].detail).toBe(']]> <!-- -->');
      expect(parsed.problem.weird_key_).toBe(1);
      expect(parsed.problem._9lives).toBe(true);
    },
  );

  it.each([
    ['application/json', false],
    ['application/problem+json', false],
    ['application/xml', true],
    ['TEXT/XML', true],
    ['application/atom+xml', true],
    ['', false],
  ])('wantsXml(%j) is %s', (type, expected) => {
    expect(wantsXml(type)).toBe(expected);
  });

  it.each([
    ['error_code', 'error_code'],
    ['1st', '_1st'],
    ['xmlThing', '_xmlThing'],
    ['a b', 'a_b'],
    ['<tag>', '_tag_'],
  ])('xmlName(%j) is %j', (key, name) => {
    expect(xmlName(key)).toBe(name);
  });

  it('renders scalars, null and dates', () => {
    expect(toXml({ a: null, d: new Date(0), n: 1.5 }, { root: 'r' })).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><r><a/><d>1970-01-01T00:00:00.000Z</d><n>1.5</n></r>',
    );
  });
});
