// The framework-free JSON body reader: its decisions from the headers, its parse, and read() on a
// Fetch API Request. The four-framework table is test/json-body.test.ts.
import { isHttpError, toProblem } from '@plumbline/errors';
import { describe, expect, it } from 'vitest';
import { createJsonBodyReader, DEFAULT_JSON_BODY_LIMIT, type JsonBodyHeaders } from './index.js';

const NONE: JsonBodyHeaders = {
  contentType: undefined,
  contentLength: undefined,
  transferEncoding: undefined,
  contentEncoding: undefined,
};
const json = (extra: Partial<JsonBodyHeaders> = {}): JsonBodyHeaders => ({
  ...NONE,
  contentType: 'application/json',
  contentLength: '7',
  ...extra,
});

/** What a thrown error renders as: status and error_code, or 'ok: <value as JSON>'. */
function outcome(run: () => unknown): string {
  try {
    return `ok: ${JSON.stringify(run())}`;
  } catch (error) {
    if (!isHttpError(error)) throw error;
    return `${error.status} ${error.code}`;
  }
}

describe('createJsonBodyReader().start: what is read, from the headers alone', () => {
  const reader = createJsonBodyReader({ types: ['application/json', 'application/*+json'], limit: 10 });
  it.each([
    [
      'no Content-Length, no Transfer-Encoding: no body',
      { ...NONE, contentType: 'application/json' },
      'skip',
    ],
    ['Content-Length: 0 is an empty body, read', json({ contentLength: '0' }), 'read'],
    ['a Content-Length that is not a number: no body', json({ contentLength: 'x' }), 'skip'],
    ['chunked', json({ contentLength: undefined, transferEncoding: 'chunked' }), 'read'],
    ['no Content-Type', json({ contentType: undefined }), 'skip'],
    ['an empty Content-Type', json({ contentType: '' }), 'skip'],
    ['an unparseable Content-Type', json({ contentType: 'json' }), 'skip'],
    ['another type', json({ contentType: 'text/plain' }), 'skip'],
    ['a +json type', json({ contentType: 'application/problem+json' }), 'read'],
    ['a subtype type-is refuses (starts with +)', json({ contentType: 'application/+json' }), 'skip'],
    ['charset=utf-8', json({ contentType: 'application/json; charset=UTF-8' }), 'read'],
    ['an empty charset is UTF-8', json({ contentType: 'application/json; charset=' }), 'read'],
    [
      'charset=latin1',
      json({ contentType: 'application/json; charset=latin1' }),
      '415 unsupported_media_type',
    ],
    [
      'charset=utf-16',
      json({ contentType: 'application/json; charset=utf-16' }),
      '415 unsupported_media_type',
    ],
    ['Content-Encoding: gzip', json({ contentEncoding: 'gzip' }), '415 unsupported_media_type'],
    ['Content-Encoding: IDENTITY', json({ contentEncoding: 'IDENTITY' }), 'read'],
    ['an empty Content-Encoding is identity', json({ contentEncoding: '' }), 'read'],
    ['a declared length at the limit', json({ contentLength: '10' }), 'read'],
    ['a declared length over the limit', json({ contentLength: '11' }), '413 payload_too_large (drain)'],
  ] as const)('%s', (_name, headers, expected) => {
    const start = reader.start(headers);
    const seen =
      start.action === 'refuse'
        ? `${start.error.status} ${start.error.code}${start.drain ? ' (drain)' : ''}`
        : start.action;
    expect(seen).toBe(expected);
  });

  it('the 413 names the limit', () => {
    const start = reader.start(json({ contentLength: '11' }));
    expect(start.action === 'refuse' && toProblem(start.error).detail).toBe(
      'The request body must be at most 10 bytes.',
    );
  });
});

describe('createJsonBodyReader().parse: the bytes as express.json reads them', () => {
  const reader = createJsonBodyReader();
  const none = createJsonBodyReader({ emptyBody: 'none' });
  const utf8 = (text: string) => new TextEncoder().encode(text);
  it.each([
    ['an object', '{"a":[1,2]}', 'ok: {"a":[1,2]}'],
    ['an array after JSON whitespace', ' \t\r\n[true]', 'ok: [true]'],
    ['a string', '"a"', '400 malformed_json'],
    ['a number', '1', '400 malformed_json'],
    ['null', 'null', '400 malformed_json'],
    ['a form feed before the object', '\f{}', '400 malformed_json'],
    ['whitespace only', '  ', '400 malformed_json'],
    ['an empty body', '', 'ok: {}'],
    ['a byte order mark alone', '\ufeff', 'ok: {}'],
    ['a byte order mark, then an object', '\ufeff{"a":1}', 'ok: {"a":1}'],
    ['trailing garbage', '[1]]', '400 malformed_json'],
  ])('%s', (_name, text, expected) => {
    expect(outcome(() => reader.parse(utf8(text)))).toBe(expected);
  });

  it("emptyBody: 'none' reads an empty body (or a byte order mark alone) as no body", () => {
    expect(none.parse(new Uint8Array())).toBeUndefined();
    expect(none.parse(utf8('\ufeff'))).toBeUndefined();
    expect(none.parse(utf8('{}'))).toEqual({});
  });

  it('a __proto__ member is an own property; the prototype is untouched', () => {
    const value = reader.parse(utf8('{"__proto__":{"polluted":1}}')) as object;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('invalid UTF-8 is U+FFFD', () => {
    expect(reader.parse(new Uint8Array([0x5b, 0x22, 0xff, 0x22, 0x5d]))).toEqual(['\ufffd']);
  });
});

describe('createJsonBodyReader().read: a Fetch API Request', () => {
  const reader = createJsonBodyReader({ limit: 8 });
  const streamOf = (...chunks: string[]) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
        controller.close();
      },
    });
  const request = (body: string | ReadableStream<Uint8Array> | null, headers: Record<string, string>) =>
    new Request('http://x/', {
      method: 'POST',
      body,
      headers,
      ...(body ? { duplex: 'half' } : {}),
    } as RequestInit);
  const result = async (req: Request) => {
    try {
      const read = await reader.read(req);
      return read.read ? `ok: ${JSON.stringify(read.value)} (${read.bytes.byteLength} bytes)` : 'not read';
    } catch (error) {
      if (!isHttpError(error)) throw error;
      return `${error.status} ${error.code}`;
    }
  };

  it.each([
    [
      'with Content-Length',
      () => request('[1,2]', { 'content-type': 'application/json', 'content-length': '5' }),
      'ok: [1,2] (5 bytes)',
    ],
    [
      'chunked, counted as it arrives, at the limit',
      () =>
        request(streamOf('[1,', '22,', '3]'), {
          'content-type': 'application/json',
          'transfer-encoding': 'chunked',
        }),
      'ok: [1,22,3] (8 bytes)',
    ],
    [
      'chunked, over the limit',
      () =>
        request(streamOf('[1,', '22,', '33]'), {
          'content-type': 'application/json',
          'transfer-encoding': 'chunked',
        }),
      '413 payload_too_large',
    ],
    [
      'a declared length over the limit',
      () => request('[1,2,3,4,5]', { 'content-type': 'application/json', 'content-length': '11' }),
      '413 payload_too_large',
    ],
    [
      'another type',
      () => request('[1]', { 'content-type': 'text/plain', 'content-length': '3' }),
      'not read',
    ],
    [
      'no body',
      () => request(null, { 'content-type': 'application/json', 'content-length': '0' }),
      'not read',
    ],
    [
      'malformed',
      () => request('[1,', { 'content-type': 'application/json', 'content-length': '3' }),
      '400 malformed_json',
    ],
  ] as const)('%s', async (_name, make, expected) => {
    expect(await result(make())).toBe(expected);
  });

  it('a body that fails mid-stream is 400 bad_request', async () => {
    const failing = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.error(new Error('aborted'));
      },
    });
    expect(
      await result(request(failing, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' })),
    ).toBe('400 bad_request');
  });
});

describe('createJsonBodyReader: options', () => {
  it('defaults to application/json and 1 MiB', () => {
    const reader = createJsonBodyReader();
    expect([reader.limit, DEFAULT_JSON_BODY_LIMIT]).toEqual([1_048_576, 1_048_576]);
    expect(reader.start(json({ contentType: 'application/merge-patch+json' })).action).toBe('skip');
  });

  it.each([[-1], [1.5], [Number.NaN], ['1mb' as unknown as number]])(
    'refuses the limit %s at start-up',
    (limit) => {
      expect(() => createJsonBodyReader({ limit })).toThrow(TypeError);
    },
  );

  it.each([[[]], [['json']], [['*/json']]])('refuses the types %j at start-up', (types) => {
    expect(() => createJsonBodyReader({ types })).toThrow(TypeError);
  });
});
