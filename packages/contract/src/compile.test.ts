/** Start-up checks: every bad definition is refused when the table is compiled, each problem named. */
import { defineCollection } from '@plumbline/query-parser';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compileRoutes, type Route, RouteDefinitionError, route } from './index.js';

const Item = z.object({ id: z.number() });
const items = defineCollection({ fields: { id: { type: 'int', sort: true } } });
const ok = () => ({ status: 200 as const, body: { id: 1 } });

function problemsOf(routes: readonly Route[]): readonly string[] {
  try {
    compileRoutes(routes);
  } catch (error) {
    expect(error).toBeInstanceOf(RouteDefinitionError);
    return (error as RouteDefinitionError).problems;
  }
  return [];
}

const bad = (definition: Record<string, unknown>) =>
  route({ handler: ok, responses: { 200: Item }, ...definition } as never);

describe('compileRoutes', () => {
  it.each([
    [
      'a path parameter with no schema',
      bad({ method: 'GET', path: '/items/{id}' }),
      ['GET /items/{id}: path parameter(s) {id} have no schema: add `params`'],
    ],
    [
      'params that miss a path parameter',
      bad({ method: 'GET', path: '/items/{id}', params: z.object({ key: z.string() }) }),
      [
        'GET /items/{id}: `params` has no schema for {id}',
        'GET /items/{id}: `params` declares key, which the path does not have',
      ],
    ],
    [
      'a path without a leading slash',
      bad({ method: 'GET', path: 'items' }),
      ['GET items: path must start with "/"'],
    ],
    [
      'a trailing slash',
      bad({ method: 'GET', path: '/items/' }),
      ['GET /items/: path has an empty segment or a trailing slash'],
    ],
    [
      'a reserved character in a segment',
      bad({ method: 'GET', path: '/items:search' }),
      [
        'GET /items:search: path segment "items:search" must be letters, digits, "-", ".", "_" or "~", or a whole {parameter}',
      ],
    ],
    [
      'an unknown method',
      bad({ method: 'TRACE', path: '/items' }),
      ['TRACE /items: method must be one of GET, POST, PUT, PATCH, DELETE'],
    ],
    [
      'a body on GET',
      bad({ method: 'GET', path: '/items', body: Item }),
      ['GET /items: a GET takes no request body'],
    ],
    [
      'an error status declared',
      bad({ method: 'GET', path: '/x', responses: { 200: Item, 404: Item } }),
      [
        'GET /x: response 404: declare success statuses (200-399) only; the error responses come from the conventions',
      ],
    ],
    [
      'no 2xx',
      bad({ method: 'GET', path: '/x', responses: { 304: null } }),
      ['GET /x: declare at least one 2xx response'],
    ],
    [
      'a 201 on a GET',
      bad({ method: 'GET', path: '/x', responses: { 201: Item } }),
      ['GET /x: 201 Created is a POST (or PUT) answer'],
    ],
    [
      'a list without a collection',
      bad({ method: 'GET', path: '/items', responses: { 200: z.array(Item) } }),
      [
        'GET /items: answers a list without `collection`: every collection is paginated (declare a @plumbline/query-parser collection)',
      ],
    ],
    [
      'a data envelope without a collection',
      bad({ method: 'GET', path: '/items', responses: { 200: z.object({ data: z.array(Item) }) } }),
      [
        'GET /items: answers a list without `collection`: every collection is paginated (declare a @plumbline/query-parser collection)',
      ],
    ],
    [
      'a collection on DELETE',
      bad({ method: 'DELETE', path: '/items', collection: items, responses: { 204: null } }),
      [
        'DELETE /items: a collection query is read by GET (or POST …/search)',
        'DELETE /items: a collection route answers 200 with a page',
      ],
    ],
    [
      'query and collection together',
      bad({ method: 'GET', path: '/items', collection: items, query: z.object({}) }),
      ['GET /items: declare either `query` or `collection`, not both'],
    ],
    [
      'idempotent PUT',
      bad({ method: 'PUT', path: '/x', idempotent: true }),
      ['PUT /x: `idempotent` is for POST (and PATCH); PUT and DELETE are idempotent by definition'],
    ],
    [
      'preconditions on POST',
      bad({ method: 'POST', path: '/x', preconditions: { load: () => 1, represent: () => 1 } }),
      ['POST /x: preconditions apply to a member (GET, PUT, PATCH, DELETE), not a POST'],
    ],
    [
      'a 204 with a body',
      bad({ method: 'DELETE', path: '/x', responses: { 204: Item } }),
      ['DELETE /x: 204 No Content cannot declare a body'],
    ],
    [
      'a body that is not a schema',
      bad({ method: 'POST', path: '/x', body: { type: 'object' } }),
      ['POST /x: `body` must be a Standard Schema or { schema, mediaTypes }'],
    ],
    [
      'empty scopes',
      bad({ method: 'GET', path: '/x', scopes: [''] }),
      ['GET /x: `scopes` must be a list of non-empty strings'],
    ],
    [
      'a before step that is not a function',
      bad({ method: 'GET', path: '/x', before: 'check the parent' }),
      ['GET /x: before must be a function'],
    ],
  ])('%s', (_name, definition, problems) => {
    expect(problemsOf([definition])).toEqual(problems);
  });

  it('a duplicate method + path, even with other parameter names', () => {
    const a = bad({ method: 'GET', path: '/items/{id}', params: z.object({ id: z.string() }) });
    const b = bad({ method: 'GET', path: '/items/{key}', params: z.object({ key: z.string() }) });
    expect(problemsOf([a, b])).toEqual(['GET /items/{key}: duplicates GET /items/{id}']);
  });

  it('something that is not a route', () => {
    expect(problemsOf([{ method: 'GET' } as unknown as Route])).toEqual([
      'routes[0]: not a route (declare it with route({...}))',
    ]);
  });

  it('every problem of a table at once, in one message', () => {
    const error = (() => {
      try {
        compileRoutes([
          bad({ method: 'GET', path: '/a/{id}' }),
          bad({ method: 'GET', path: '/b', body: Item }),
        ]);
      } catch (e) {
        return e as Error;
      }
      return undefined;
    })();
    expect(error?.message).toBe(
      '@plumbline/contract: 2 problem(s) in the route table:\n  - GET /a/{id}: path parameter(s) {id} have no schema: add `params`\n  - GET /b: a GET takes no request body',
    );
  });

  it("a good table compiles: paths in the frameworks' syntax, PATCH takes merge-patch", () => {
    const [get, patch] = compileRoutes([
      bad({
        method: 'GET',
        path: '/items/{id}/parts/{part}',
        params: z.object({ id: z.string(), part: z.string() }),
      }),
      bad({ method: 'PATCH', path: '/items/{id}', params: z.object({ id: z.string() }), body: z.object({}) }),
    ]);
    expect(get?.colonPath).toBe('/items/:id/parts/:part');
    expect(get?.paramNames).toEqual(['id', 'part']);
    expect(patch?.body?.mediaTypes).toEqual(['application/merge-patch+json', 'application/json']);
  });
});
