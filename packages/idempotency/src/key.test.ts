import { HttpError } from '@plumbline/errors';
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
  ['text after sf-string', { 'idempotency-key': '"a";p=1' }, 'text follows the quoted string'],
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
});
