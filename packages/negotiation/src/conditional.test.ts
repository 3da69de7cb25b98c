import { createHash, hash as nodeHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { digestTag } from './entity-tag.js';
import {
  evaluatePreconditions,
  isNotModified,
  isNotModifiedResponse,
  type NotModifiedInput,
  type PreconditionInput,
  parseEntityTags,
  parseHttpDate,
} from './index.js';

const strong = (opaque: string) => ({ weak: false, opaque: `"${opaque}"` });
const weak = (opaque: string) => ({ weak: true, opaque: `"${opaque}"` });

describe('parseEntityTags', () => {
  it.each([
    ['*', { any: true, tags: [] }],
    ['  *\t', { any: true, tags: [] }],
    ['"a"', { any: false, tags: [strong('a')] }],
    ['W/"a"', { any: false, tags: [weak('a')] }],
    ['"a", W/"b" ,"c"', { any: false, tags: [strong('a'), weak('b'), strong('c')] }],
    ['"a",,, ,"b"', { any: false, tags: [strong('a'), strong('b')] }],
    ['"a,b"', { any: false, tags: [strong('a,b')] }],
    ['""', { any: false, tags: [strong('')] }],
    ['wrong', { any: false, tags: [] }],
    ['w/"a"', { any: false, tags: [] }],
    ['"a" "b"', { any: false, tags: [] }],
    ['"unterminated', { any: false, tags: [] }],
    ['"a b"', { any: false, tags: [] }],
    ['*, "a"', { any: false, tags: [strong('a')] }],
    ['garbage, "ok"', { any: false, tags: [strong('ok')] }],
    ['', { any: false, tags: [] }],
    ['"\u00e9"', { any: false, tags: [strong('\u00e9')] }],
  ])('%j → %j', (value, expected) => {
    expect(parseEntityTags(value)).toEqual(expected);
  });

  const opaque = fc
    .array(
      fc.integer({ min: 0x21, max: 0xff }).filter((c) => c !== 0x22 && c !== 0x7f),
      { maxLength: 12 },
    )
    .map((codes) => `"${String.fromCharCode(...codes)}"`);
  const tag = fc.record({ weak: fc.boolean(), opaque });
  const ows = fc.constantFrom('', ' ', '\t', '  ');

  it('reads back every list of entity-tags, whatever the whitespace and empty members', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(tag, ows, ows, fc.boolean()), { minLength: 1, maxLength: 8 }),
        (items) => {
          const value = items
            .map(
              ([t, before, after, empty]) =>
                `${before}${t.weak ? 'W/' : ''}${t.opaque}${after}${empty ? ',' : ''}`,
            )
            .join(',');
          expect(parseEntityTags(value)).toEqual({ any: false, tags: items.map(([t]) => t) });
        },
      ),
    );
  });

  it('never throws and returns only well-formed tags, for any string', () => {
    fc.assert(
      // An alphabet of the characters that matter to the grammar, plus a few that are never valid.
      fc.property(
        fc.string({ unit: fc.constantFrom(...'"W/w ,*\tab\u00e9\u007f\u0000'), maxLength: 40 }),
        (value) => {
          const { tags } = parseEntityTags(value);
          return tags.every((t) => /^"[^" \t\u007f]*"$/u.test(t.opaque) && !t.opaque.includes('\u0000'));
        },
      ),
    );
  });
});

describe('parseHttpDate', () => {
  const NOW = Date.UTC(2026, 10, 23);
  it.each([
    ['Sun, 06 Nov 1994 08:49:37 GMT', Date.UTC(1994, 10, 6, 8, 49, 37)],
    ['Sunday, 06-Nov-94 08:49:37 GMT', Date.UTC(1994, 10, 6, 8, 49, 37)],
    ['Sun Nov  6 08:49:37 1994', Date.UTC(1994, 10, 6, 8, 49, 37)],
    ['Thursday, 01-Jan-70 00:00:00 GMT', Date.UTC(2070, 0, 1)],
    ['Saturday, 01-Jan-77 00:00:00 GMT', Date.UTC(1977, 0, 1)],
    ['Sat, 01 Jan 2000 00:00:00 GMT', Date.UTC(2000, 0, 1)],
    ['Mon, 31 Feb 2026 00:00:00 GMT', undefined],
    ['Mon, 01 Jan 2026 24:00:00 GMT', undefined],
    ['Sun, 06 Nov 1994 08:49:37 UTC', undefined],
    ['Sun, 6 Nov 1994 08:49:37 GMT', undefined],
    ['2026-01-01T00:00:00Z', undefined],
    ['yesterday', undefined],
    ['Sun, 06 Nov 1994 08:49:37 GMT, Mon, 07 Nov 1994 08:49:37 GMT', undefined],
    ['', undefined],
  ])('%j → %s', (value, expected) => {
    expect(parseHttpDate(value, NOW)).toBe(expected);
  });

  it('reads what Date#toUTCString writes, to the second', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 253402300799 }), (seconds) => {
        expect(parseHttpDate(new Date(seconds * 1000).toUTCString())).toBe(seconds * 1000);
      }),
    );
  });
});

describe('evaluatePreconditions (RFC 9110 section 13.2.2)', () => {
  const T = Date.UTC(2026, 0, 2, 3, 4, 5);
  const BEFORE = 'Fri, 02 Jan 2026 03:04:04 GMT';
  const AT = 'Fri, 02 Jan 2026 03:04:05 GMT';
  const AFTER = 'Fri, 02 Jan 2026 03:04:06 GMT';
  const existing = { etag: '"v2"', lastModified: T + 999 };
  type Row = [
    string,
    Omit<PreconditionInput, 'current'> & { current?: PreconditionInput['current'] | 'missing' },
    string,
  ];
  const rows: Row[] = [
    ['no preconditions', { method: 'PUT' }, 'proceed:false'],
    ['If-Match equal', { method: 'PUT', ifMatch: '"v2"' }, 'proceed:true'],
    ['If-Match in a list', { method: 'PATCH', ifMatch: '"v1" , "v2"' }, 'proceed:true'],
    ['If-Match different', { method: 'PUT', ifMatch: '"wrong"' }, '412:If-Match'],
    ['If-Match weak (strong comparison)', { method: 'PUT', ifMatch: 'W/"v2"' }, '412:If-Match'],
    ['If-Match malformed', { method: 'DELETE', ifMatch: 'v2' }, '412:If-Match'],
    ['If-Match * existing', { method: 'PUT', ifMatch: '*' }, 'proceed:true'],
    ['If-Match * missing', { method: 'PUT', ifMatch: '*', current: 'missing' }, '412:If-Match'],
    ['If-Match tag missing', { method: 'PUT', ifMatch: '"v2"', current: 'missing' }, '412:If-Match'],
    [
      'If-Match vs weak current',
      { method: 'PUT', ifMatch: '"v2"', current: { etag: 'W/"v2"' } },
      '412:If-Match',
    ],
    ['If-None-Match * existing PUT', { method: 'PUT', ifNoneMatch: '*' }, '412:If-None-Match'],
    ['If-None-Match * missing PUT', { method: 'PUT', ifNoneMatch: '*', current: 'missing' }, 'proceed:true'],
    ['If-None-Match weak match GET', { method: 'GET', ifNoneMatch: 'W/"v2"' }, '304'],
    ['If-None-Match list match HEAD', { method: 'HEAD', ifNoneMatch: '"x", "v2"' }, '304'],
    ['If-None-Match other GET', { method: 'GET', ifNoneMatch: '"v1"' }, 'proceed:true'],
    ['If-None-Match malformed GET', { method: 'GET', ifNoneMatch: 'v2' }, 'proceed:true'],
    ['If-None-Match tag PUT match', { method: 'PUT', ifNoneMatch: '"v2"' }, '412:If-None-Match'],
    ['If-Unmodified-Since later', { method: 'PUT', ifUnmodifiedSince: AFTER }, 'proceed:true'],
    ['If-Unmodified-Since same second', { method: 'PUT', ifUnmodifiedSince: AT }, 'proceed:true'],
    ['If-Unmodified-Since earlier', { method: 'PUT', ifUnmodifiedSince: BEFORE }, '412:If-Unmodified-Since'],
    ['If-Unmodified-Since invalid', { method: 'PUT', ifUnmodifiedSince: 'soon' }, 'proceed:false'],
    [
      'If-Unmodified-Since no Last-Modified',
      { method: 'PUT', ifUnmodifiedSince: BEFORE, current: { etag: '"v2"' } },
      'proceed:false',
    ],
    [
      'If-Match wins over If-Unmodified-Since',
      { method: 'PUT', ifMatch: '"v2"', ifUnmodifiedSince: BEFORE },
      'proceed:true',
    ],
    [
      'If-Match fails before If-Unmodified-Since',
      { method: 'PUT', ifMatch: '"x"', ifUnmodifiedSince: AFTER },
      '412:If-Match',
    ],
    ['If-Modified-Since not modified', { method: 'GET', ifModifiedSince: AT }, '304'],
    ['If-Modified-Since modified', { method: 'GET', ifModifiedSince: BEFORE }, 'proceed:false'],
    ['If-Modified-Since on PUT ignored', { method: 'PUT', ifModifiedSince: AFTER }, 'proceed:false'],
    [
      'If-None-Match wins over If-Modified-Since',
      { method: 'GET', ifNoneMatch: '"v1"', ifModifiedSince: AFTER },
      'proceed:true',
    ],
    ['428: required, none sent', { method: 'PUT', requirePrecondition: true }, '428'],
    [
      '428: required, only If-None-Match',
      { method: 'PATCH', ifNoneMatch: '"v1"', requirePrecondition: true },
      '428',
    ],
    [
      '428: required, invalid date',
      { method: 'DELETE', ifUnmodifiedSince: 'x', requirePrecondition: true },
      '428',
    ],
    [
      'required, If-Match sent',
      { method: 'PUT', ifMatch: '"v2"', requirePrecondition: true },
      'proceed:true',
    ],
    [
      'required, If-Unmodified-Since sent',
      { method: 'PUT', ifUnmodifiedSince: AFTER, requirePrecondition: true },
      'proceed:true',
    ],
    ['required, GET', { method: 'GET', requirePrecondition: true }, 'proceed:false'],
    [
      'required, PUT creates',
      { method: 'put', requirePrecondition: true, current: 'missing' },
      'proceed:false',
    ],
  ];

  it.each(rows)('%s → %s', (_label, { current, ...input }, expected) => {
    const result = evaluatePreconditions({
      ...input,
      current: current === 'missing' ? undefined : (current ?? existing),
    });
    const summary =
      result.outcome === 'proceed'
        ? `proceed:${result.conditional}`
        : result.outcome === 'not-modified'
          ? String(result.status)
          : result.status === 412
            ? `412:${result.error.params['header']}`
            : '428';
    expect(summary).toBe(expected);
    if (result.outcome === 'failed') {
      expect(result.error.code).toBe(result.status === 412 ? 'precondition_failed' : 'precondition_required');
    }
  });

  it('a 304 carries the current ETag and Last-Modified (to the second)', () => {
    expect(evaluatePreconditions({ method: 'GET', ifNoneMatch: '"v2"', current: existing })).toEqual({
      outcome: 'not-modified',
      status: 304,
      headers: { ETag: '"v2"', 'Last-Modified': AT },
    });
  });
});

describe('isNotModified (what represent asks before sending)', () => {
  const DATE = 'Fri, 02 Jan 2026 03:04:05 GMT';
  const rows: readonly [string, NotModifiedInput, boolean][] = [
    ['GET, its tag', { method: 'GET', status: 200, ifNoneMatch: '"v7"', etag: '"v7"' }, true],
    ['get (lower case), its tag', { method: 'get', status: 200, ifNoneMatch: '"v7"', etag: '"v7"' }, true],
    ['HEAD, its tag', { method: 'HEAD', status: 200, ifNoneMatch: '"v7"', etag: '"v7"' }, true],
    ['GET, weak form', { method: 'GET', status: 200, ifNoneMatch: 'W/"v7"', etag: '"v7"' }, true],
    ['GET, in a list', { method: 'GET', status: 200, ifNoneMatch: '"a", "v7"', etag: '"v7"' }, true],
    ['GET, *', { method: 'GET', status: 200, ifNoneMatch: '*', etag: '"v7"' }, true],
    ['GET, another tag', { method: 'GET', status: 200, ifNoneMatch: '"v6"', etag: '"v7"' }, false],
    ['GET, no ETag', { method: 'GET', status: 200, ifNoneMatch: '"v7"' }, false],
    ['GET, no conditional field', { method: 'GET', status: 200, etag: '"v7"' }, false],
    ['POST, *', { method: 'POST', status: 200, ifNoneMatch: '*', etag: '"v7"' }, false],
    ['GET 201, its tag', { method: 'GET', status: 201, ifNoneMatch: '"v7"', etag: '"v7"' }, false],
    ['GET 404, *', { method: 'GET', status: 404, ifNoneMatch: '*' }, false],
    [
      'GET, If-Modified-Since = Last-Modified',
      { method: 'GET', status: 200, ifModifiedSince: DATE, lastModified: DATE },
      true,
    ],
    [
      'GET, If-Modified-Since, no Last-Modified',
      { method: 'GET', status: 200, ifModifiedSince: DATE },
      false,
    ],
    [
      'GET, If-None-Match fails, If-Modified-Since ignored',
      {
        method: 'GET',
        status: 200,
        ifNoneMatch: '"v6"',
        etag: '"v7"',
        ifModifiedSince: DATE,
        lastModified: DATE,
      },
      false,
    ],
  ];
  it.each(rows)('%s → %s', (_label, input, expected) => {
    expect(isNotModified(input)).toBe(expected);
  });
});

describe('isNotModifiedResponse (what every notModified asks)', () => {
  const DATE = 'Fri, 02 Jan 2026 03:04:05 GMT';
  const from =
    (headers: Record<string, unknown>) =>
    (name: string): unknown =>
      headers[name];

  it.each([
    ['If-None-Match, its tag', 'GET', 200, { 'if-none-match': '"v7"' }, { etag: '"v7"' }, true],
    ['HEAD, weak form', 'HEAD', 200, { 'if-none-match': 'W/"v7"' }, { etag: '"v7"' }, true],
    [
      'two If-None-Match lines, the tag in the second',
      'GET',
      200,
      { 'if-none-match': ['"a"', '"v7"'] },
      { etag: '"v7"' },
      true,
    ],
    ['*, no validators', 'GET', 200, { 'if-none-match': '*' }, {}, true],
    [
      'If-Modified-Since = Last-Modified',
      'GET',
      200,
      { 'if-modified-since': DATE },
      { 'last-modified': DATE },
      true,
    ],
    [
      'two If-Modified-Since lines: not a date',
      'GET',
      200,
      { 'if-modified-since': [DATE, DATE] },
      { 'last-modified': DATE },
      false,
    ],
    ['an ETag that is not a string', 'GET', 200, { 'if-none-match': '"7"' }, { etag: 7 }, false],
    ['POST', 'POST', 200, { 'if-none-match': '*' }, { etag: '"v7"' }, false],
    ['a 201', 'GET', 201, { 'if-none-match': '*' }, { etag: '"v7"' }, false],
    ['no conditional field', 'GET', 200, { 'cache-control': 'no-cache' }, { etag: '"v7"' }, false],
  ] as const)('%s → %s', (_label, method, status, request, response, expected) => {
    expect(isNotModifiedResponse(method, status, request, from(response))).toBe(expected);
  });

  it('reads no response header for a request that cannot become 304, and one otherwise', () => {
    const read: string[] = [];
    const reader = (name: string) => {
      read.push(name);
      return undefined;
    };
    isNotModifiedResponse('GET', 200, {}, reader);
    isNotModifiedResponse('GET', 404, { 'if-none-match': '*' }, reader);
    expect(read).toEqual([]);
    isNotModifiedResponse('GET', 200, { 'if-none-match': '"a"', 'if-modified-since': DATE }, reader);
    isNotModifiedResponse('GET', 200, { 'if-modified-since': DATE }, reader);
    expect(read).toEqual(['etag', 'last-modified']);
  });

  it('answers as isNotModified given both validators, whatever the fields', () => {
    const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
    const tags = fc.constantFrom('"v7"', 'W/"v7"', '"v6"', 'v7', '*', '');
    const dates = fc.constantFrom(
      DATE,
      'Fri, 02 Jan 2026 03:04:04 GMT',
      'Fri, 02 Jan 2026 03:04:06 GMT',
      'soon',
    );
    fc.assert(
      fc.property(
        fc.constantFrom('GET', 'HEAD', 'POST', 'get'),
        fc.constantFrom(200, 201, 304, 404),
        maybe(fc.array(tags, { minLength: 1, maxLength: 3 }).map((list) => list.join(', '))),
        maybe(dates),
        maybe(tags),
        maybe(dates),
        (method, status, ifNoneMatch, ifModifiedSince, etag, lastModified) => {
          const request = { 'if-none-match': ifNoneMatch, 'if-modified-since': ifModifiedSince };
          const response = { etag, 'last-modified': lastModified };
          const input = { method, status, ifNoneMatch, ifModifiedSince, etag, lastModified };
          expect(isNotModifiedResponse(method, status, request, from(response))).toBe(isNotModified(input));
        },
      ),
    );
  });
});

describe('entity tags', () => {
  it('the portable SHA-256 and Node’s give the same tag', () => {
    fc.assert(
      fc.property(fc.string(), fc.uint8Array({ maxLength: 200 }), (meta, body) => {
        const viaNode = digestTag(meta, body, { createHash: (a) => createHash(a) as never });
        expect(digestTag(meta, body, undefined)).toBe(viaNode);
        expect(viaNode).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
        // Text goes through the one-shot hash when the runtime has it: the same tag.
        const text = new TextDecoder().decode(body);
        const oneShot = { createHash: (a: string) => createHash(a) as never, hash: nodeHash };
        expect(digestTag(meta, text, oneShot)).toBe(digestTag(meta, text, undefined));
      }),
    );
  });
});
