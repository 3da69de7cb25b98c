import { STATUS_CODES } from 'node:http';
import { describe, expect, it } from 'vitest';
import {
  BUILTIN_MESSAGES,
  codeForStatus,
  createMessageCatalogue,
  defaultCatalogue,
  ERROR_CODES,
  ERROR_STATUS,
  HttpError,
  httpErrors,
  isHttpError,
} from './index.js';

describe('catalogue', () => {
  it('covers every code of the catalogue (docs/design.md#d-errors) with its status', () => {
    expect(ERROR_STATUS).toMatchObject({
      bad_request: 400,
      validation_failed: 400,
      malformed_json: 400,
      unknown_parameter: 400,
      invalid_cursor: 400,
      credentials_in_query: 400,
      idempotency_key_missing: 400,
      unauthorized: 401,
      invalid_token: 401,
      insufficient_scope: 403,
      https_required: 403,
      csrf_rejected: 403,
      not_found: 404,
      method_not_allowed: 405,
      not_acceptable: 406,
      idempotency_key_in_use: 409,
      gone: 410,
      api_version_sunset: 410,
      precondition_failed: 412,
      payload_too_large: 413,
      malformed_request: 400,
      request_timeout: 408,
      headers_too_large: 431,
      unsupported_media_type: 415,
      idempotency_key_reused: 422,
      precondition_required: 428,
      rate_limited: 429,
      internal_error: 500,
      service_unavailable: 503,
      gateway_timeout: 504,
    });
    expect(ERROR_CODES).toHaveLength(51);
  });

  it.each(ERROR_CODES)('%s has an English and a German message, the last needing no params', (code) => {
    for (const language of ['en', 'de'] as const) {
      const templates = BUILTIN_MESSAGES[language][code];
      expect(templates?.length).toBeGreaterThan(0);
      expect(templates?.at(-1)).not.toMatch(/\{[a-z_]+\}/);
    }
    expect(BUILTIN_MESSAGES.de[code]).not.toEqual(BUILTIN_MESSAGES.en[code]);
  });

  it.each(ERROR_CODES)('httpErrors factory for %s builds that code with its status', (code) => {
    const factory = code.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase()) as keyof typeof httpErrors;
    const error = httpErrors[factory]();
    expect(error).toBeInstanceOf(HttpError);
    expect(error.code).toBe(code);
    expect(error.status).toBe(ERROR_STATUS[code]);
    expect(isHttpError(error)).toBe(true);
  });

  it.each([
    [400, 'bad_request'],
    [401, 'unauthorized'],
    [403, 'forbidden'],
    [404, 'not_found'],
    [405, 'method_not_allowed'],
    [406, 'not_acceptable'],
    [409, 'conflict'],
    [410, 'gone'],
    [413, 'payload_too_large'],
    [408, 'request_timeout'],
    [431, 'headers_too_large'],
    [412, 'precondition_failed'],
    [415, 'unsupported_media_type'],
    [418, 'bad_request'],
    [428, 'precondition_required'],
    [429, 'rate_limited'],
    [500, 'internal_error'],
    [502, 'internal_error'],
    [503, 'service_unavailable'],
    [504, 'gateway_timeout'],
  ] as const)('codeForStatus(%i) is %s', (status, code) => {
    expect(codeForStatus(status)).toBe(code);
  });
});

describe('HttpError', () => {
  it.each([[399], [600], [200], [Number.NaN], [404.5]])('rejects status %s', (status) => {
    expect(() => new HttpError('teapot', { status })).toThrow(RangeError);
  });

  it('accepts a service code with its own status', () => {
    const error = new HttpError('quota_exceeded', { status: 429 });
    expect([error.status, error.code, error.expose]).toEqual([429, 'quota_exceeded', true]);
  });

  it('does not expose 5xx details by default', () => {
    expect(new HttpError('internal_error', { detail: 'db password wrong' }).expose).toBe(false);
    expect(new HttpError('not_found').expose).toBe(true);
  });

  it('is recognised across copies of the package by its brand', () => {
    const foreign = Object.create({ [Symbol.for('@plumbline/errors.HttpError')]: true });
    expect(isHttpError(foreign)).toBe(true);
    expect(isHttpError({ status: 404 })).toBe(false);
    expect(isHttpError(null)).toBe(false);
  });
});

describe('message catalogue', () => {
  it.each([
    [
      'sort_field_not_allowed',
      { field: 'secret', allowed: ['name', 'created_at'] },
      'en',
      'Sort field "secret" is not allowed; allowed: name, created_at.',
    ],
    ['sort_field_not_allowed', { field: 'secret' }, 'en', 'Sort field "secret" is not allowed.'],
    ['sort_field_not_allowed', {}, 'en', 'The sort field is not allowed.'],
    ['sort_field_not_allowed', { field: 'x', allowed: [] }, 'en', 'Sort field "x" is not allowed.'],
    ['search_too_short', { min: 3 }, 'de', 'Der Suchtext muss mindestens 3 Zeichen lang sein.'],
    ['search_too_short', { min: 1 }, 'en', 'Search text must be at least 1 character.'],
    ['search_too_short', { min: 3 }, 'en', 'Search text must be at least 3 characters.'],
    ['search_too_long', { max: 1 }, 'en', 'Search text must be at most 1 character.'],
    ['validation_failed', { count: 1 }, 'en', 'The request has 1 invalid value.'],
    ['validation_failed', { count: 2 }, 'en', 'The request has 2 invalid values.'],
    ['validation_failed', { count: 0 }, 'en', 'The request has 0 invalid values.'],
    ['validation_failed', { count: 1 }, 'de', 'Die Anfrage enthält 1 ungültigen Wert.'],
    ['validation_failed', { count: 3 }, 'de', 'Die Anfrage enthält 3 ungültige Werte.'],
    ['validation_failed', {}, 'en', 'The request failed validation.'],
    ['not_found', undefined, 'fr', 'The requested resource does not exist.'],
    ['not_found', undefined, 'DE', 'Die angeforderte Ressource existiert nicht.'],
    [
      'invalid_value',
      { parameter: 'a\r\nX-Injected: 1', expected: 'an integer' },
      'en',
      'Parameter "aX-Injected: 1" must be an integer.',
    ],
    // A problem in a request body names the body field (`member`), one in a query string its parameter.
    [
      'unknown_parameter',
      { member: 'filter.colour', allowed: ['status'] },
      'en',
      'Field "filter.colour" is not supported; supported: status.',
    ],
    [
      'unknown_parameter',
      { member: 'filter.colour', allowed: ['status'] },
      'de',
      'Das Feld „filter.colour“ wird nicht unterstützt; unterstützt: status.',
    ],
    [
      'unknown_parameter',
      { parameter: 'colour', allowed: ['status'] },
      'en',
      'Query parameter "colour" is not supported; supported: status.',
    ],
    [
      'duplicate_parameter',
      { member: 'filter.status' },
      'en',
      'Field "filter.status" takes one value, not a list.',
    ],
    [
      'duplicate_parameter',
      { member: 'filter.status' },
      'de',
      'Das Feld „filter.status“ erlaubt nur einen Wert, keine Liste.',
    ],
    [
      'invalid_value',
      { member: 'filter.age', expected: 'an integer', value: 'x' },
      'en',
      'Field "filter.age" must be an integer; got "x".',
    ],
    [
      'invalid_value',
      { member: 'filter.age', expected: 'an integer' },
      'de',
      'Das Feld „filter.age“ muss an integer sein.',
    ],
    ['invalid_value', { expected: 'a JSON object' }, 'en', 'The request body must be a JSON object.'],
    ['invalid_value', { expected: 'a JSON object' }, 'de', 'Der Anfragetext muss a JSON object sein.'],
    [
      'invalid_pagination',
      { member: 'limit', expected: 'an integer' },
      'en',
      'Field "limit" must be an integer.',
    ],
    ['limit_too_large', { member: 'limit', max: 100 }, 'de', 'Das Feld „limit“ darf höchstens 100 sein.'],
    [
      'conflicting_pagination',
      { members: ['offset', 'page'] },
      'en',
      'Pagination fields offset, page cannot be combined.',
    ],
    [
      'conflicting_pagination',
      { members: ['offset', 'page'] },
      'de',
      'Die Seitenfelder offset, page können nicht kombiniert werden.',
    ],
    ['query_too_long', { max: 2048 }, 'en', 'The query string must be at most 2048 bytes.'],
    [
      'query_too_long',
      { max: 2048, body_length: 2050 },
      'en',
      'The search body is 2050 bytes long as a query string; at most 2048 are allowed.',
    ],
    [
      'query_too_long',
      { max: 2048, body_length: 2050 },
      'de',
      'Die Suche im Anfragetext ist als Abfragezeichenkette 2050 Bytes lang; erlaubt sind höchstens 2048.',
    ],
    ['no_such_code', undefined, 'en', 'Internal Server Error.'],
  ] as const)('%s %j in %s', (code, params, language, text) => {
    expect(defaultCatalogue.format(code, params, language)).toBe(text);
  });

  it('cuts long interpolated values', () => {
    const text = defaultCatalogue.format('unknown_parameter', { parameter: 'x'.repeat(500) }, 'en');
    expect(text.length).toBeLessThan(200);
  });

  it('lets a service add codes and languages', () => {
    const catalogue = createMessageCatalogue({
      messages: {
        en: { quota_exceeded: ['Quota of {quota} reached.', 'Quota reached.'] },
        fr: { not_found: ["La ressource demandée n'existe pas."] },
      },
    });
    expect(catalogue.languages).toEqual(['en', 'de', 'fr']);
    expect(catalogue.format('quota_exceeded', { quota: 10 }, 'fr')).toBe('Quota of 10 reached.');
    expect(catalogue.format('not_found', undefined, 'fr')).toBe("La ressource demandée n'existe pas.");
    expect(catalogue.format('gone', undefined, 'fr')).toBe('The resource was permanently removed.');
  });

  it('rejects a fallback language without messages and empty template lists', () => {
    expect(() => createMessageCatalogue({ fallbackLanguage: 'fr' })).toThrow(/no messages/);
    expect(() => createMessageCatalogue({ messages: { en: { x: [] } } })).toThrow(/non-empty/);
  });

  it('uses status reason phrases Node knows for every catalogue status', () => {
    for (const status of Object.values(ERROR_STATUS)) expect(STATUS_CODES[status]).toBeTruthy();
  });
});
