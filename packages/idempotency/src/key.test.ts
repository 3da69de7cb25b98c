import { HttpError } from '@plumbline/errors';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_KEY_HEADERS, parseIdempotencyKey } from './key.js';

type Headers = Record<string, string | string[]>;

const valid: [string, Headers, string | undefined][] = [
  ['no header', {}, undefined],
  [
    'bare token',
    { 'idempotency-key': '8e03978e-40d5-43e8-bc93-6894a57f9324' },
    '8e03978e-40d5-43e8-bc93-6894a57f9324',
  ],
  ['sf-string is unquoted', { 'idempotency-key': '"abc-123"' }, 'abc-123'],
  ['sf-string escapes', { 'idempotency-key': '"a\\"b\\\\c"' }, 'a"b\\c'],
  ['quoted comma is one key', { 'idempotency-key': '"a,b"' }, 'a,b'],
  ['surrounding spaces trimmed', { 'idempotency-key': '  k1 \t' }, 'k1'],
  ['X- header', { 'x-idempotency-key': 'k2' }, 'k2'],
  ['both headers, same key', { 'idempotency-key': 'k3', 'x-idempotency-key': '"k3"' }, 'k3'],
  ['255 characters', { 'idempotency-key': 'k'.repeat(255) }, 'k'.repeat(255)],
  // RFC 8941 parameters are valid syntax; none is defined for this header, so they are ignored.
  ['sf-string with a parameter', { 'idempotency-key': '"abc";p=1' }, 'abc'],
  [
    'sf-string with parameters of every bare-item type',
    { 'idempotency-key': '"abc";a;b=?0;c=-12;d=1.5;e="x;y";f=tok/en:1;g=:aGk=:;*h' },
    'abc',
  ],
  ['sf-string, spaces after the semicolon', { 'idempotency-key': '"abc";  p=1' }, 'abc'],
  [
    'all visible ASCII',
    { 'idempotency-key': "!#$%&'*+-.^_`|~09AZaz{}[]()/:;<=>?@" },
    "!#$%&'*+-.^_`|~09AZaz{}[]()/:;<=>?@",
  ],
];

const invalid: [string, Headers, string][] = [
  ['empty', { 'idempotency-key': '' }, 'the key is empty'],
  ['only spaces', { 'idempotency-key': '   ' }, 'the key is empty'],
  ['empty sf-string', { 'idempotency-key': '""' }, 'the key is empty'],
  ['256 characters', { 'idempotency-key': 'k'.repeat(256) }, 'the key is longer than 255 characters'],
  ['control character', { 'idempotency-key': 'a\u0001b' }, 'only visible ASCII characters are allowed'],
  ['tab inside', { 'idempotency-key': 'a\tb' }, 'only visible ASCII characters are allowed'],
  ['space inside', { 'idempotency-key': 'a b' }, 'only visible ASCII characters are allowed'],
  ['space inside sf-string', { 'idempotency-key': '"a b"' }, 'only visible ASCII characters are allowed'],
  ['non-ASCII', { 'idempotency-key': 'caf\u00e9' }, 'only visible ASCII characters are allowed'],
  ['DEL', { 'idempotency-key': 'a\u007f' }, 'only visible ASCII characters are allowed'],
  ['comma list', { 'idempotency-key': 'a, b' }, 'a list of keys is not allowed'],
  ['sf-string list', { 'idempotency-key': '"a", "b"' }, 'a list of keys is not allowed'],
  ['two header lines', { 'idempotency-key': ['a', 'b'] }, 'the header is sent more than once'],
  ['two identical header lines', { 'idempotency-key': ['a', 'a'] }, 'the header is sent more than once'],
  ['unterminated sf-string', { 'idempotency-key': '"abc' }, 'the quoted string is not closed'],
  ['bad escape', { 'idempotency-key': '"a\\nb"' }, 'a backslash may only escape " or \\'],
  ['text after sf-string', { 'idempotency-key': '"a"b' }, 'text follows the quoted string'],
  ['space before a parameter', { 'idempotency-key': '"a" ;p=1' }, 'text follows the quoted string'],
  ['parameter key in upper case', { 'idempotency-key': '"a";P=1' }, 'text follows the quoted string'],
  ['parameter without a key', { 'idempotency-key': '"a";=1' }, 'text follows the quoted string'],
  ['parameter value not a bare item', { 'idempotency-key': '"a";p=@' }, 'text follows the quoted string'],
  ['parameter value an open string', { 'idempotency-key': '"a";p="x' }, 'text follows the quoted string'],
  ['a list after parameters', { 'idempotency-key': '"a";p=1, "b"' }, 'text follows the quoted string'],
  ['a trailing semicolon', { 'idempotency-key': '"a";' }, 'text follows the quoted string'],
  [
    'different keys in the two headers',
    { 'idempotency-key': 'k1', 'x-idempotency-key': 'k2' },
    'Idempotency-Key and X-Idempotency-Key carry different keys',
  ],
];

describe('parseIdempotencyKey', () => {
  it.each(valid)('%s', (_name, headers, expected) => {
    expect(parseIdempotencyKey(headers)).toBe(expected);
  });

  it.each(invalid)('%s → 400 idempotency_key_invalid', (_name, headers, reason) => {
    let thrown: unknown;
    try {
      parseIdempotencyKey(headers);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(HttpError);
    const error = thrown as HttpError;
    expect([error.status, error.code, error.params['reason']]).toEqual([
      400,
      'idempotency_key_invalid',
      reason,
    ]);
  });

  it('reads configured header names, in order', () => {
    expect(parseIdempotencyKey({ 'request-key': 'r1' }, ['Request-Key'])).toBe('r1');
    expect(parseIdempotencyKey({ 'idempotency-key': 'ignored' }, ['Request-Key'])).toBeUndefined();
    expect(DEFAULT_KEY_HEADERS).toEqual(['Idempotency-Key', 'X-Idempotency-Key']);
  });

  it('an sf-string key with any valid parameters reads as the key alone (property)', () => {
    const visible = fc.stringMatching(/^[\x21-\x7e]{1,40}$/);
    const quote = (text: string) => `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
    const bareItem = fc.oneof(
      fc.integer({ min: -999_999, max: 999_999 }).map(String),
      fc.boolean().map((b) => (b ? '?1' : '?0')),
      fc.stringMatching(/^[A-Za-z*][A-Za-z0-9:/_.-]{0,8}$/),
      fc.stringMatching(/^[\x20-\x7e]{0,8}$/).map(quote),
      fc.uint8Array({ maxLength: 6 }).map((b) => `:${Buffer.from(b).toString('base64')}:`),
    );
    const parameter = fc
      .tuple(fc.stringMatching(/^[a-z*][a-z0-9_.*-]{0,6}$/), fc.option(bareItem), fc.nat({ max: 2 }))
      .map(([key, value, spaces]) => `;${' '.repeat(spaces)}${key}${value === null ? '' : `=${value}`}`);
    fc.assert(
      fc.property(visible, fc.array(parameter, { maxLength: 4 }), (key, parameters) => {
        expect(parseIdempotencyKey({ 'idempotency-key': `${quote(key)}${parameters.join('')}` })).toBe(key);
      }),
    );
  });
});
