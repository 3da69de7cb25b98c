// Issue 22 item 8: credentials never reach a log through a URL or a parsed query.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_REDACTED_PARAMETERS, redactQuery, redactUrl } from './index.js';

describe('redactUrl', () => {
  it.each([
    ['/v2/projects?access_token=eyJhbGci.x.y&page=2', '/v2/projects?access_token=[REDACTED]&page=2'],
    ['/v2/projects?page=2&API_KEY=plk_abc', '/v2/projects?page=2&API_KEY=[REDACTED]'],
    ['/v2/projects?apikey=1&token=2', '/v2/projects?apikey=[REDACTED]&token=[REDACTED]'],
    ['/v2/projects?access%5Ftoken=secret', '/v2/projects?access%5Ftoken=[REDACTED]'],
    ['/v2/projects?access_token[]=secret', '/v2/projects?access_token[]=[REDACTED]'],
    ['/v2/projects?access_token%5B0%5D=secret', '/v2/projects?access_token%5B0%5D=[REDACTED]'],
    ['/v2/projects?+access_token=secret', '/v2/projects?+access_token=[REDACTED]'],
    ['/v2/projects?access_token', '/v2/projects?access_token=[REDACTED]'],
    [
      '/v2/projects?access_token=a&access_token=b',
      '/v2/projects?access_token=[REDACTED]&access_token=[REDACTED]',
    ],
    [
      '/oauth/token?client_secret=s&refresh_token=plr_x',
      '/oauth/token?client_secret=[REDACTED]&refresh_token=[REDACTED]',
    ],
    ['/x?password=hunter2#frag', '/x?password=[REDACTED]#frag'],
    ['/x?%zz=1&token=2', '/x?%zz=1&token=[REDACTED]'],
    ['/v2/projects?sort=-name&q=token', '/v2/projects?sort=-name&q=token'],
    ['/v2/projects', '/v2/projects'],
    ['/v2/projects?', '/v2/projects?'],
    ['https://api.example.com/p?token=t&x=1', 'https://api.example.com/p?token=[REDACTED]&x=1'],
  ])('%s → %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });

  it('takes its own names and replacement', () => {
    expect(redactUrl('/p?sig=abc&token=t', { parameters: ['SIG'], replacement: '***' })).toBe(
      '/p?sig=***&token=t',
    );
  });

  it('property: no value of a redacted name survives; every other pair is kept as it was', () => {
    const secretName = fc.constantFrom(...DEFAULT_REDACTED_PARAMETERS, 'ACCESS_TOKEN', 'Api_Key');
    const plainName = fc.constantFrom('page', 'sort', 'q', 'limit', 'name');
    const value = fc.stringMatching(/^[A-Za-z0-9._~-]{1,20}$/);
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.oneof(secretName, plainName), value), { maxLength: 8 }), (pairs) => {
        const url = `/p?${pairs.map(([n, v]) => `${n}=${v}`).join('&')}`;
        const out = redactUrl(url).slice(3).split('&');
        pairs.forEach(([n, v], i) => {
          const secret = DEFAULT_REDACTED_PARAMETERS.includes(n.toLowerCase());
          expect(out[i]).toBe(secret ? `${n}=[REDACTED]` : `${n}=${v}`);
        });
      }),
    );
  });
});

describe('redactQuery', () => {
  it.each([
    [
      { access_token: 'eyJ', page: '2' },
      { access_token: '[REDACTED]', page: '2' },
    ],
    [
      { API_KEY: ['a', 'b'], q: 'x' },
      { API_KEY: '[REDACTED]', q: 'x' },
    ],
    [{ 'token[]': 'x' }, { 'token[]': '[REDACTED]' }],
    [{ sort: 'token' }, { sort: 'token' }],
    [{}, {}],
  ])('%j → %j', (query, expected) => {
    const before = JSON.stringify(query);
    expect(redactQuery(query)).toEqual(expected);
    expect(JSON.stringify(query)).toBe(before);
  });
});
