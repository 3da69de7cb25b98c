import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { rawXHeader } from './hono-headers.js';

// What rawXHeader reads on @hono/node-server: Node's rawHeaders (names as sent, values in order).
describe('rawXHeader', () => {
  it.each<[string, string[] | undefined, string | undefined]>([
    ['absent', ['Host', 'a', 'Accept', '*/*'], undefined],
    ['one line, sent in mixed case', ['Host', 'a', 'X-Request-Id', 'abc-1'], 'abc-1'],
    ['one line, lower case', ['x-request-id', 'abc-1'], 'abc-1'],
    // Node joins repeated X-… lines with ", " in incoming.headers; so does Headers.get.
    ['two lines', ['X-Request-Id', 'a', 'Host', 'h', 'x-request-id', 'b'], 'a, b'],
    ['an empty value', ['X-Request-Id', ''], ''],
    ['a longer name with the same prefix', ['X-Request-Id-Extra', 'no'], undefined],
    ['a name of the same length', ['X-Request-Ix', 'no'], undefined],
  ])('%s', async (_name, rawHeaders, expected) => {
    let seen: string | undefined | null = null;
    const app = new Hono().get('/', (c) => {
      seen = rawXHeader(c, 'x-request-id');
      return c.body(null, 204);
    });
    await app.fetch(new Request('http://localhost/'), { incoming: { rawHeaders } });
    expect(seen).toBe(expected);
  });

  it.each<[string, Record<string, string>, string | undefined]>([
    ['absent', {}, undefined],
    ['present', { 'X-Request-Id': 'abc-1' }, 'abc-1'],
  ])('without Node bindings reads the Web request: %s', async (_name, headers, expected) => {
    let seen: string | undefined | null = null;
    const app = new Hono().get('/', (c) => {
      seen = rawXHeader(c, 'x-request-id');
      return c.body(null, 204);
    });
    await app.request('/', { headers });
    expect(seen).toBe(expected);
  });
});
