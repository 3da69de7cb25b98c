import { describe, expect, it } from 'vitest';
import { jsonPointer } from './pointer.js';

describe('jsonPointer (RFC 6901 §6, URI fragment form)', () => {
  it.each([
    [[], '#'],
    [['name'], '#/name'],
    [['budget', 'currency'], '#/budget/currency'],
    [['filter', 'tags', 0], '#/filter/tags/0'],
    [['x/y~z'], '#/x~1y~0z'],
    [[''], '#/'],
    [['a b'], '#/a%20b'],
    [['100%'], '#/100%25'],
    [['a#b'], '#/a%23b'],
    [['ä'], '#/%C3%A4'],
    [["a:b@c!$&'()*+,;=?"], "#/a:b@c!$&'()*+,;=?"],
    [['a"b<c>'], '#/a%22b%3Cc%3E'],
  ] as const)('%j → %s', (path, expected) => {
    expect(jsonPointer(path)).toBe(expected);
  });

  it('round-trips: decoding the fragment and unescaping gives the tokens back', () => {
    const path = ['a/b', '~x', 'ä ö', '%'];
    const tokens = decodeURIComponent(jsonPointer(path).slice(1))
      .split('/')
      .slice(1)
      .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
    expect(tokens).toEqual(path);
  });
});
