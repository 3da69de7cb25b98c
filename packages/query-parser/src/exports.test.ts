import { describe, expect, it } from 'vitest';

// Guards the public API: adding or removing an export must be a deliberate, reviewed change.
describe('public exports', () => {
  it('@plumbline/query-parser', async () => {
    expect(Object.keys(await import('./index.js')).sort()).toEqual([
      'MAX_SEARCH_BODY_BYTES',
      'OPERATORS',
      'RESERVED_PARAMETERS',
      'applyToArray',
      'assertIdentityCoding',
      'assertSearchContentType',
      'buildPage',
      'countInArray',
      'defineCollection',
      'expectCollectionQuery',
      'isCollection',
      'pageHeaders',
      'parseCollectionRequest',
      'parseMemberQuery',
      'parseQuery',
      'parseSearchBody',
      'parseSearchText',
      'prefersCount',
      'rawQueryOf',
      'readLimitedText',
      'toOpenApiMemberParameters',
      'toOpenApiParameters',
      'toQueryString',
      'toSql',
    ]);
  });

  it.each(['express', 'fastify', 'hono'])('@plumbline/query-parser/%s', async (adapter) => {
    expect(Object.keys(await import(`./${adapter}.ts`)).sort()).toEqual([
      'collectionQuery',
      'getCollectionQuery',
      'sendPage',
      'setPageHeaders',
    ]);
  });
});
