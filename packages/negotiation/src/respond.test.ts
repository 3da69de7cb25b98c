import { describe, expect, it } from 'vitest';
import { createNegotiator, representation, requestHasBody } from './index.js';

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
      },
      body: '<?xml version="1.0" encoding="UTF-8"?><data><id>1</id></data>',
    });
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
