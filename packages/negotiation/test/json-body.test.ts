// JSON request bodies: the same raw requests to express.json (strict, inflate: false) on Express 5 and
// Express 4, to jsonBodyParser on Fastify and to jsonBody on Hono, each behind requireContentType and
// the framework's @plumbline/errors handler. Every framework must answer as Express 5 does (status,
// the compared headers, body), and as the row says.
import { describeAdapters, FRAMEWORKS, type Framework, type Outcome } from '@plumbline/test-utils';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COMPARED_HEADERS, exchange, portOf, type RawBodyRequest, SMALL_LIMIT } from './json-body-apps.js';

const JSON_TYPE = { 'Content-Type': 'application/json' };
const bytes = (...parts: (string | number[])[]): Uint8Array =>
  Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : Buffer.from(part))));

interface Row extends RawBodyRequest {
  readonly name: string;
  readonly status: number;
  /** A 2xx: what the handler received (the JSON text of the value; absent: no body read). */
  readonly value?: string;
  /** A 4xx: the problem's error_code and the members it must have. */
  readonly problem?: Readonly<Record<string, unknown>>;
  readonly headers?: Readonly<Record<string, string>>;
  readonly expectHeaders?: Readonly<Record<string, string>>;
}

const post = (body: string | Uint8Array, headers: Record<string, string> = JSON_TYPE) => ({
  method: 'POST' as const,
  path: '/echo',
  headers,
  body,
});
const malformed = { problem: { error_code: 'malformed_json', status: 400 } };
const ACCEPT_POST_JSON = { 'accept-post': 'application/json' };
const DEEP = 100_000;

const ROWS: readonly Row[] = [
  {
    name: 'an object',
    ...post('{"name":"Dam","n":[1,2.5,-0]}'),
    status: 200,
    value: '{"name":"Dam","n":[1,2.5,0]}',
  },
  { name: 'an array', ...post('[1,"two",{"x":null}]'), status: 200, value: '[1,"two",{"x":null}]' },
  { name: 'a top-level string', ...post('"delta"'), status: 400, ...malformed },
  { name: 'a top-level number', ...post('42'), status: 400, ...malformed },
  { name: 'top-level null', ...post('null'), status: 400, ...malformed },
  { name: 'top-level true', ...post('true'), status: 400, ...malformed },
  { name: 'JSON whitespace before the object', ...post(' \t\r\n{"a":1}'), status: 200, value: '{"a":1}' },
  {
    name: 'whitespace that is not JSON whitespace (U+00A0)',
    ...post('\u00a0{"a":1}'),
    status: 400,
    ...malformed,
  },
  { name: 'whitespace only', ...post(' \n '), status: 400, ...malformed },
  { name: 'a byte order mark', ...post('\ufeff{"a":1}'), status: 200, value: '{"a":1}' },
  { name: 'two byte order marks', ...post('\ufeff\ufeff{"a":1}'), status: 400, ...malformed },
  { name: 'a byte order mark alone is an empty body', ...post('\ufeff'), status: 200, value: '{}' },
  { name: 'trailing whitespace', ...post('{"a":1} \r\n'), status: 200, value: '{"a":1}' },
  { name: 'trailing garbage', ...post('{"a":1}x'), status: 400, ...malformed },
  { name: 'two values', ...post('{"a":1}{"b":2}'), status: 400, ...malformed },
  { name: 'truncated JSON', ...post('{"a":[1,'), status: 400, ...malformed },
  { name: 'a single quote string', ...post("{'a':1}"), status: 400, ...malformed },
  { name: 'an empty body with Content-Length: 0', ...post(''), status: 200, value: '{}' },
  {
    name: 'an empty chunked body',
    method: 'POST',
    path: '/echo',
    headers: JSON_TYPE,
    chunks: [],
    status: 200,
    value: '{}',
  },
  {
    name: 'no body at all (no Content-Length, no Transfer-Encoding)',
    method: 'POST',
    path: '/echo',
    headers: JSON_TYPE,
    status: 200,
  },
  { name: 'no body and no Content-Type', method: 'POST', path: '/echo', status: 200 },
  {
    name: 'invalid UTF-8 is read as U+FFFD',
    ...post(bytes('{"a":"', [0xff, 0xfe], '"}')),
    status: 200,
    value: '{"a":"\ufffd\ufffd"}',
  },
  {
    name: 'a truncated UTF-8 sequence',
    ...post(bytes('{"a":"', [0xe2, 0x82], '","b":"', [0xf0, 0x9f, 0x98], '"}')),
    status: 200,
    value: '{"a":"\ufffd","b":"\ufffd"}',
  },
  {
    name: 'an overlong and a surrogate encoding',
    ...post(bytes('{"a":"', [0xc0, 0xaf], '","b":"', [0xed, 0xa0, 0x80], '"}')),
    status: 200,
    value: '{"a":"\ufffd\ufffd","b":"\ufffd\ufffd\ufffd"}',
  },
  { name: 'UTF-8 in four bytes', ...post('{"a":"😀 é"}'), status: 200, value: '{"a":"😀 é"}' },
  {
    name: 'charset=latin1 (requireContentType)',
    ...post('{"a":1}', { 'Content-Type': 'application/json; charset=latin1' }),
    status: 415,
    problem: {
      error_code: 'unsupported_media_type',
      detail:
        'Content type "application/json; charset=latin1" is not supported; supported: application/json.',
    },
    expectHeaders: ACCEPT_POST_JSON,
  },
  {
    name: 'charset=utf-16 (requireContentType)',
    ...post(Buffer.from('{"a":1}', 'utf16le'), { 'Content-Type': 'application/json; charset=utf-16' }),
    status: 415,
    problem: { error_code: 'unsupported_media_type' },
    expectHeaders: ACCEPT_POST_JSON,
  },
  {
    name: 'charset=UTF-8, quoted',
    ...post('{"a":1}', { 'Content-Type': 'application/json; charset="UTF-8"' }),
    status: 200,
    value: '{"a":1}',
  },
  {
    name: 'a type in other case, with parameters',
    ...post('{"a":1}', { 'Content-Type': 'Application/JSON; profile=x; charset=utf-8' }),
    status: 200,
    value: '{"a":1}',
  },
  {
    name: 'a content coding',
    ...post('{"a":1}', { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }),
    status: 415,
    problem: { error_code: 'unsupported_media_type' },
  },
  {
    name: 'Content-Encoding: identity',
    ...post('{"a":1}', { 'Content-Type': 'application/json', 'Content-Encoding': 'identity' }),
    status: 200,
    value: '{"a":1}',
  },
  {
    name: 'a body exactly at the limit',
    method: 'POST',
    path: '/small',
    headers: JSON_TYPE,
    body: `{"a":"${'x'.repeat(SMALL_LIMIT - 8)}"}`,
    status: 200,
    value: `{"a":"${'x'.repeat(SMALL_LIMIT - 8)}"}`,
  },
  {
    name: 'a body one byte over the limit',
    method: 'POST',
    path: '/small',
    headers: JSON_TYPE,
    body: `{"a":"${'x'.repeat(SMALL_LIMIT - 7)}"}`,
    status: 413,
    problem: {
      error_code: 'payload_too_large',
      detail: `The request body must be at most ${SMALL_LIMIT} bytes.`,
    },
  },
  {
    name: 'a chunked body at the limit',
    method: 'POST',
    path: '/small',
    headers: JSON_TYPE,
    chunks: ['{"a":"', 'x'.repeat(SMALL_LIMIT - 8), '"}'],
    status: 200,
    value: `{"a":"${'x'.repeat(SMALL_LIMIT - 8)}"}`,
  },
  {
    name: 'a chunked body over the limit',
    method: 'POST',
    path: '/small',
    headers: JSON_TYPE,
    chunks: ['{"a":"', 'x'.repeat(40), 'x'.repeat(40), 'x'.repeat(4000), '"}'],
    status: 413,
    problem: {
      error_code: 'payload_too_large',
      detail: `The request body must be at most ${SMALL_LIMIT} bytes.`,
    },
  },
  {
    name: 'a malformed body over the limit is 413, not 400',
    method: 'POST',
    path: '/small',
    headers: JSON_TYPE,
    body: 'x'.repeat(SMALL_LIMIT + 1),
    status: 413,
    problem: { error_code: 'payload_too_large' },
  },
  {
    name: 'a wrong Content-Type',
    ...post('{"a":1}', { 'Content-Type': 'text/plain' }),
    status: 415,
    problem: {
      error_code: 'unsupported_media_type',
      detail: 'Content type "text/plain" is not supported; supported: application/json.',
    },
    expectHeaders: ACCEPT_POST_JSON,
  },
  {
    name: 'no Content-Type',
    ...post('{"a":1}', {}),
    status: 415,
    problem: { error_code: 'unsupported_media_type' },
    expectHeaders: ACCEPT_POST_JSON,
  },
  {
    name: 'merge-patch on the PATCH route',
    method: 'PATCH',
    path: '/patch',
    headers: { 'Content-Type': 'application/merge-patch+json' },
    body: '{"name":null}',
    status: 200,
    value: '{"name":null}',
  },
  {
    name: 'application/json on the PATCH route',
    method: 'PATCH',
    path: '/patch',
    headers: JSON_TYPE,
    body: '{"name":"x"}',
    status: 200,
    value: '{"name":"x"}',
  },
  {
    name: 'text/plain on the PATCH route: Accept-Patch',
    method: 'PATCH',
    path: '/patch',
    headers: { 'Content-Type': 'text/plain' },
    body: 'x',
    status: 415,
    problem: { error_code: 'unsupported_media_type' },
    expectHeaders: { 'accept-patch': 'application/merge-patch+json, application/json' },
  },
  {
    name: 'merge-patch where only application/json is taken',
    ...post('{"a":1}', { 'Content-Type': 'application/merge-patch+json' }),
    status: 415,
    problem: { error_code: 'unsupported_media_type' },
    expectHeaders: ACCEPT_POST_JSON,
  },
  {
    name: 'a +json type on an application/*+json route',
    method: 'POST',
    path: '/suffix',
    headers: { 'Content-Type': 'application/vnd.plumbline.v2+json' },
    body: '{"a":1}',
    status: 200,
    value: '{"a":1}',
  },
  {
    name: 'application/json on an application/*+json route',
    method: 'POST',
    path: '/suffix',
    headers: JSON_TYPE,
    body: '{"a":1}',
    status: 415,
    problem: { error_code: 'unsupported_media_type' },
    expectHeaders: { 'accept-post': 'application/*+json' },
  },
  { name: 'duplicate keys: the last wins', ...post('{"a":1,"a":2}'), status: 200, value: '{"a":2}' },
  {
    name: 'a __proto__ member is an own property and pollutes nothing',
    ...post('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}'),
    status: 200,
    value: '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}',
  },
  {
    name: 'very deep nesting',
    ...post(`${'['.repeat(DEEP)}${']'.repeat(DEEP)}`),
    status: 200,
    value: `depth ${DEEP}`,
  },
  { name: 'very deep nesting, truncated', ...post('['.repeat(DEEP)), status: 400, ...malformed },
  // The body reader alone (no requireContentType): what express.json itself answers.
  {
    name: 'unguarded: another type is not read',
    method: 'POST',
    path: '/open',
    headers: { 'Content-Type': 'text/plain' },
    body: 'not json',
    status: 200,
  },
  {
    name: 'unguarded: no Content-Type is not read',
    method: 'POST',
    path: '/open',
    body: '{"a":1}',
    status: 200,
  },
  {
    name: 'unguarded: charset=latin1 is 415 without parameters',
    method: 'POST',
    path: '/open',
    headers: { 'Content-Type': 'application/json; charset=latin1' },
    body: '{"a":1}',
    status: 415,
    problem: {
      error_code: 'unsupported_media_type',
      detail: 'The request body media type is not supported.',
    },
  },
  {
    name: 'unguarded: a content coding',
    method: 'POST',
    path: '/open',
    headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'br' },
    body: '{"a":1}',
    status: 415,
    problem: { error_code: 'unsupported_media_type' },
  },
];

// Express 5 is the reference: each row is sent there once, then compared with every framework.
const references = new Map<string, Promise<Outcome>>();
const sendTo = async (framework: Framework, row: RawBodyRequest) => exchange(await portOf(framework), row);
const reference = (row: Row) => {
  let outcome = references.get(row.name);
  if (outcome === undefined) {
    outcome = sendTo('express5', row);
    references.set(row.name, outcome);
  }
  return outcome;
};

describeAdapters(
  'JSON bodies: express.json, jsonBodyParser and jsonBody answer alike',
  ROWS,
  Object.fromEntries(FRAMEWORKS.map((framework) => [framework, (row: Row) => sendTo(framework, row)])),
  async (outcome, row) => {
    expect(outcome.status, JSON.stringify(outcome.body)).toBe(row.status);
    if (row.status === 200) {
      const seen = outcome.body as { present: boolean; json?: string; plain?: boolean; polluted: boolean };
      expect(seen.polluted).toBe(false);
      if (row.value === undefined) expect(seen.present).toBe(false);
      else expect([seen.present, seen.json, seen.plain]).toEqual([true, row.value, true]);
    } else {
      expect(outcome.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(outcome.body).toMatchObject({ status: row.status, ...row.problem });
    }
    for (const [name, value] of Object.entries(row.expectHeaders ?? {}))
      expect(outcome.headers[name]).toBe(value);
    const express5 = await reference(row);
    expect(outcome).toEqual(express5);
    for (const name of COMPARED_HEADERS) expect(outcome.headers[name], name).toBe(express5.headers[name]);
  },
);

describe('JSON bodies: any text, the same answer on every framework', () => {
  // JSON texts of any value (a top-level primitive too), with and without whitespace, a byte order
  // mark or something after them, and any text at all.
  const texts = fc.oneof(
    fc
      .tuple(
        fc.constantFrom('', ' ', '\t\r\n', '\ufeff', '\u00a0'),
        fc.json({ maxDepth: 4 }),
        fc.constantFrom('', ' \n', 'x', ',', '}'),
      )
      .map(([before, json, after]) => `${before}${json}${after}`),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.string({
      unit: fc.constantFrom('{', '}', '[', ']', '"', ':', ',', '1', 'a', ' ', '\\', 'e', '-'),
      maxLength: 30,
    }),
  );

  it('accepts with the same value, or refuses with the same code', async () => {
    await fc.assert(
      fc.asyncProperty(texts, fc.boolean(), async (text, chunked) => {
        const request: RawBodyRequest = chunked
          ? { method: 'POST', path: '/echo', headers: JSON_TYPE, chunks: [text.slice(0, 3), text.slice(3)] }
          : { method: 'POST', path: '/echo', headers: JSON_TYPE, body: text };
        const [express5, ...others] = await Promise.all(FRAMEWORKS.map((f) => sendTo(f, request)));
        let parsed: unknown;
        let strict = false;
        try {
          const body = text.startsWith('\ufeff') ? text.slice(1) : text;
          parsed = body === '' ? {} : JSON.parse(body);
          strict = body === '' || /^[ \t\n\r]*[[{]/.test(body);
        } catch {}
        expect(express5!.status).toBe(strict ? 200 : 400);
        if (strict) expect((express5!.body as { json: string }).json).toBe(JSON.stringify(parsed));
        else expect((express5!.body as { error_code: string }).error_code).toBe('malformed_json');
        for (const outcome of others) expect(outcome).toEqual(express5);
      }),
      { numRuns: 150 },
    );
  });
});
