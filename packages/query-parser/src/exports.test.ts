import { describe, expect, it } from 'vitest';

// Guards the public API: adding or removing an export must be a deliberate, reviewed change.
describe('public exports', () => {
  it('@plumbline/query-parser', async () => {
    expect(Object.keys(await import('./index.js')).sort()).toEqual([
      'OPERATORS',
      'RESERVED_PARAMETERS',
      'applyToArray',
      'buildPage',
      'countInArray',
      'defineCollection',
      'isCollection',
      'parseQuery',
      'parseSearchBody',
      'toOpenApiParameters',
      'toQueryString',
      'toSql',
    ]);
  });

  it('@plumbline/query-parser/express', async () => {
    expect(Object.keys(await import('./express.js')).sort()).toEqual([
      'collectionQuery',
      'getCollectionQuery',
      'sendPage',
      'setPageHeaders',
    ]);
  });
});
