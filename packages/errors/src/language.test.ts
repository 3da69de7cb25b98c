import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lookupLanguage, parseAcceptLanguage } from './index.js';

const offered = ['en', 'de', 'zh-Hant'];

describe('lookupLanguage (RFC 4647 lookup)', () => {
  it.each([
    [undefined, 'en'],
    ['', 'en'],
    ['*', 'en'],
    ['de', 'de'],
    ['de-DE', 'de'],
    ['DE-de', 'de'],
    ['de-CH-1996', 'de'],
    ['de;q=0, en', 'en'],
    ['de;q=0', 'en'],
    ['es', 'en'],
    ['es, de;q=0.5', 'de'],
    ['en;q=0.5, de;q=0.9', 'de'],
    ['en, de', 'en'],
    ['zh-Hant-TW', 'zh-Hant'],
    ['zh-Hant-x-private', 'zh-Hant'],
    ['zh', 'en'],
    ['de;q=abc, en', 'en'],
    ['de;q=2', 'en'],
    ['12345678901', 'en'],
    [';;;,,,', 'en'],
    ['de-DE;q=0, de', 'de'],
    [`${'x,'.repeat(2000)}de`, 'en'],
  ])('%.40j → %s', (header, expected) => {
    expect(lookupLanguage(header, offered, 'en')).toBe(expected);
  });

  it('never throws and always returns an offered language or the fallback', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (header) => {
        const result = lookupLanguage(header, offered, 'en');
        expect(offered).toContain(result);
      }),
    );
  });

  it('parses ranges in preference order, header order among equal q', () => {
    expect(parseAcceptLanguage('fr;q=0.5, de, en;q=0.5, x-bad_tag, it;q=1.0')).toEqual([
      { range: 'de', q: 1 },
      { range: 'it', q: 1 },
      { range: 'fr', q: 0.5 },
      { range: 'en', q: 0.5 },
    ]);
  });
});
