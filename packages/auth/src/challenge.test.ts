import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatBearerChallenge, sanitizeDescription } from './index.js';

describe('Bearer challenges (RFC 6750 3)', () => {
  it.each([
    [{ realm: 'plumbline' }, 'Bearer realm="plumbline"'],
    [{ realm: 'a"b\\c' }, 'Bearer realm="abc"'],
    [
      { realm: 'plumbline', error: 'invalid_token', description: 'The access token expired' },
      'Bearer realm="plumbline", error="invalid_token", error_description="The access token expired"',
    ],
    [
      { realm: 'plumbline', error: 'invalid_token', description: 'x"\r\nSet-Cookie: a=b\\' },
      'Bearer realm="plumbline", error="invalid_token", error_description="xSet-Cookie: a=b"',
    ],
    [
      { realm: 'plumbline', error: 'insufficient_scope', scopes: ['write:items', 'bad"scope', 'x y'] },
      'Bearer realm="plumbline", error="insufficient_scope", scope="write:items badscope xy"',
    ],
  ] as const)('%j', (challenge, expected) => {
    expect(formatBearerChallenge(challenge)).toBe(expected);
  });

  it('error_description never contains a quote, backslash, CR, LF or non-ASCII', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const clean = sanitizeDescription(text);
        return /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/.test(clean) && clean.length <= 200;
      }),
    );
  });

  it('the whole header value is a valid field value for any input', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.array(fc.string({ unit: 'binary' })), (text, scopes) => {
        const value = formatBearerChallenge({
          realm: text,
          error: 'invalid_token',
          description: text,
          scopes,
        });
        return !/[\r\n\0]/.test(value) && (value.match(/"/g)?.length ?? 0) % 2 === 0;
      }),
    );
  });
});
