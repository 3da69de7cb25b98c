import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createNegotiator, entityTag, representation, representationTag, requestHasBody } from './index.js';

const XML_BODY = '<?xml version="1.0" encoding="UTF-8"?><data><id>1</id></data>';
// The strong tag: SHA-256 over Content-Type, Content-Language and the body, 22 base64url characters.
const XML_TAG = `"${createHash('sha256')
  .update(`application/xml; charset=utf-8\nde\n${XML_BODY}`)
  .digest('base64url')
  .slice(0, 22)}"`;

describe('representation()', () => {
  const negotiator = createNegotiator({ languages: ['en', 'de'] });
  const xml = negotiator.negotiate({ accept: 'application/xml', acceptLanguage: 'de' });
  if (!xml.ok) throw new Error('fixture');

  it('serializes with every header an adapter sends', () => {
    expect(representation(negotiator, xml, { id: 1 }, 201)).toEqual({
      status: 201,
      headers: {
        'Content-Type': 'application/xml; charset=utf-8',
        'Content-Language': 'de',
        Vary: 'Accept, Accept-Language',
        ETag: XML_TAG,
      },
      body: XML_BODY,
    });
    expect(representationTag(negotiator, xml, { id: 1 })).toBe(XML_TAG);
  });

  it('sends no ETag with an error status', () => {
    expect(representation(negotiator, xml, { id: 1 }, 409).headers).not.toHaveProperty('ETag');
  });

  it('gives JSON and XML, English and German, of the same data different tags', () => {
    const tags = ['application/json', 'application/xml'].flatMap((accept) =>
      ['en', 'de'].map((acceptLanguage) => {
        const result = negotiator.negotiate({ accept, acceptLanguage });
        if (!result.ok) throw new Error('fixture');
        return representationTag(negotiator, result, { id: 1 });
      }),
    );
    expect(new Set(tags).size).toBe(4);
    expect(entityTag('{"id":1}', 'application/json; charset=utf-8', 'en')).toBe(tags[0]);
    expect(entityTag('{"id":2}', 'application/json; charset=utf-8', 'en')).not.toBe(tags[0]);
  });

  it.each([204, 205, 304])('sends no body and no Content-Type for %i', (status) => {
    expect(representation(negotiator, xml, { id: 1 }, status)).toEqual({
      status,
      headers: { 'Content-Language': 'de', Vary: 'Accept, Accept-Language' },
      body: null,
    });
  });
});

describe('requestHasBody()', () => {
  it.each([
    [undefined, undefined, false],
    ['0', undefined, false],
    ['', undefined, false],
    ['abc', undefined, false],
    ['-5', undefined, false],
    ['12', undefined, true],
    [12, undefined, true],
    [undefined, 'chunked', true],
    ['0', 'chunked', true],
  ])('Content-Length %j, Transfer-Encoding %j → %s', (length, encoding, expected) => {
    expect(requestHasBody(length, encoding)).toBe(expected);
  });
});
