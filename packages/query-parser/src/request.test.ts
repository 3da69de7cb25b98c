import { describe, expect, it } from 'vitest';
import { tasks } from '../test/fixtures.js';
import { defineCollection, parseQuery } from './index.js';
import {
  assertIdentityCoding,
  PARSED_QUERY_CACHE_MAX_LENGTH,
  PARSED_QUERY_CACHE_SIZE,
  parseCollectionRequest,
  parseSearchText,
} from './request.js';

const get = (query: string, prefer?: string) =>
  parseCollectionRequest(tasks, { method: 'GET', query, ...(prefer ? { prefer } : {}) });

describe('parseCollectionRequest remembers parsed query strings (bounded)', () => {
  it('answers a repeated query string with the same frozen query, equal to a fresh parse', () => {
    const first = get('sort=-created_at&limit=5');
    expect(get('sort=-created_at&limit=5')).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(first).toEqual(parseQuery(tasks, 'sort=-created_at&limit=5'));
  });

  it('keeps count=exact and plain requests apart, and scoped requests out of the table', () => {
    const plain = get('limit=7');
    const counted = get('limit=7', 'count=exact');
    expect(plain.count).toBe(false);
    expect(counted.count).toBe(true);
    expect(get('limit=7', 'count=exact')).toBe(counted);
    const scoped = (project: number) =>
      parseCollectionRequest(tasks, { method: 'GET', query: 'limit=7', scope: { project_id: project } });
    expect(scoped(7).scope).toEqual([{ field: 'project_id', op: 'eq', value: 7 }]);
    expect(scoped(8).scope).toEqual([{ field: 'project_id', op: 'eq', value: 8 }]);
  });

  it('never remembers failures: a bad query string throws every time', () => {
    expect(() => get('limit=oops')).toThrow();
    expect(() => get('limit=oops')).toThrow();
  });

  it(`holds at most ${PARSED_QUERY_CACHE_SIZE} query strings per collection, and none longer than ${PARSED_QUERY_CACHE_MAX_LENGTH} characters`, () => {
    const first = get('limit=5&offset=0');
    for (let i = 1; i <= PARSED_QUERY_CACHE_SIZE; i++) get(`limit=5&offset=${i}`);
    const again = get('limit=5&offset=0');
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
    const long = `limit=3&name=${'x'.repeat(PARSED_QUERY_CACHE_MAX_LENGTH)}`;
    expect(get(long)).not.toBe(get(long));
    expect(get(long)).toEqual(get(long));
  });

  it(`holds at most ${PARSED_QUERY_CACHE_SIZE} counted query strings too, apart from the plain ones`, () => {
    const plain = get('limit=6&offset=0');
    const counted = get('limit=6&offset=0', 'count=exact');
    for (let i = 1; i <= PARSED_QUERY_CACHE_SIZE; i++) get(`limit=6&offset=${i}`, 'count=exact');
    expect(get('limit=6&offset=0')).toBe(plain); // filling the counted table left the plain one alone
    const again = get('limit=6&offset=0', 'count=exact');
    expect(again).not.toBe(counted);
    expect(again).toEqual(counted);
  });

  it('keys on the collection: the same query string on another collection is parsed for it', () => {
    const other = defineCollection({
      fields: { id: { type: 'int', sort: true }, title: { type: 'string', sort: true } },
      defaultSort: 'id',
    });
    const mine = get('sort=-id&limit=4');
    const theirs = parseCollectionRequest(other, { method: 'GET', query: 'sort=-id&limit=4' });
    expect(theirs).not.toBe(mine);
    expect(theirs.collection).toBe(other);
    expect(mine.collection).toBe(tasks);
    expect(parseCollectionRequest(other, { method: 'GET', query: 'sort=-id&limit=4' })).toBe(theirs);
  });
});

describe('search bodies read as text', () => {
  it.each([
    ['', {}],
    ['{}', {}],
    ['{"sort":"-id"}', { sort: '-id' }],
    ['\ufeff{"sort":"-id"}', { sort: '-id' }],
  ])('parseSearchText(%j) → %j', (text, parsed) => {
    expect(parseSearchText(text)).toEqual(parsed);
  });

  it.each([' ', '{', 'null x'])('parseSearchText(%j) is 400 malformed_json', (text) => {
    expect(() => parseSearchText(text)).toThrow(
      expect.objectContaining({ status: 400, code: 'malformed_json' }),
    );
  });

  it.each([undefined, '', 'identity', ' Identity '])('assertIdentityCoding(%j) passes', (coding) => {
    expect(() => assertIdentityCoding(coding)).not.toThrow();
  });

  it.each(['gzip', 'br', 'deflate', 'bogus', 'gzip, identity'])(
    'assertIdentityCoding(%j) is 415',
    (coding) => {
      expect(() => assertIdentityCoding(coding)).toThrow(
        expect.objectContaining({ status: 415, code: 'unsupported_media_type' }),
      );
    },
  );
});
