import { describe, expect, it } from 'vitest';
import {
  errorFields,
  errorMarker,
  hasPaginationMetadata,
  isDeprecationValue,
  isHttpDate,
  jsonBody,
  nextLink,
  pageHasMore,
  pageItems,
  parseLinkHeader,
  stackTraceIn,
} from './inspect.js';

const response = (body: string, contentType?: string) => ({
  status: 400,
  headers: new Headers(contentType === undefined ? {} : { 'content-type': contentType }),
  body,
});

describe('inspect', () => {
  it.each([
    [
      '</p?offset=2>; rel="next", </p?offset=0>; rel="first prev"',
      { next: '/p?offset=2', first: '/p?offset=0', prev: '/p?offset=0' },
    ],
    ['<https://h/x>;rel=next', { next: 'https://h/x' }],
    ['<a,b>; rel="self"', { self: 'a,b' }],
    ['garbage', {}],
  ])('parseLinkHeader(%j)', (header, expected) => {
    expect(Object.fromEntries(parseLinkHeader(header))).toEqual(expected);
  });

  const here = new URL('http://h/v2/projects?limit=1');
  it.each([
    [
      'Link header',
      { link: '</v2/projects?limit=1&offset=1>; rel="next"' },
      {},
      '/v2/projects?limit=1&offset=1',
    ],
    ['links.next', {}, { links: { next: '/n1' } }, '/n1'],
    ['_links.next.href (HAL)', {}, { _links: { next: { href: '/n2' } } }, '/n2'],
    ['next', {}, { next: '/n3' }, '/n3'],
    ['page.next_cursor', {}, { page: { next_cursor: 'abc' } }, '/v2/projects?limit=1&cursor=abc'],
    ['meta.nextCursor', {}, { meta: { nextCursor: 'c' } }, '/v2/projects?limit=1&cursor=c'],
    ['continuationToken', {}, { continuationToken: 't' }, '/v2/projects?limit=1&cursor=t'],
    ['nextPageToken', {}, { nextPageToken: 'p' }, '/v2/projects?limit=1&cursor=p'],
    [
      'pageInfo.hasNextPage',
      {},
      { data: [1], pageInfo: { hasNextPage: true } },
      '/v2/projects?limit=1&offset=1',
    ],
    ['hasMore', {}, { data: [1], hasMore: true }, '/v2/projects?limit=1&offset=1'],
    ['a total beyond the page', {}, { data: [1], total: 3 }, '/v2/projects?limit=1&offset=1'],
    ['hasMore false', {}, { data: [1], hasMore: false }, undefined],
    ['none', {}, { data: [] }, undefined],
  ])('nextLink from %s', (_label, headers, json, expected) => {
    expect(nextLink(new Headers(headers), json, here)).toBe(expected);
  });

  it.each([
    [['limit', 'page_token'], '/v2/projects?limit=1&page_token=x'],
    [['limit', 'continuationToken'], '/v2/projects?limit=1&continuationToken=x'],
    [['limit'], '/v2/projects?limit=1&cursor=x'],
  ])('a next_page_token goes in the documented query parameter %j', (query, expected) => {
    expect(nextLink(new Headers(), { next_page_token: 'x' }, here, query)).toBe(expected);
  });

  it.each([
    [
      [1, 2],
      [1, 2],
    ],
    [{ data: [1] }, [1]],
    [{ items: [2] }, [2]],
    [{ whatever: [3], total: 1 }, [3]],
    [{ a: [1], b: [2] }, undefined],
    ['text', undefined],
  ])('pageItems(%j)', (json, expected) => {
    expect(pageItems(json)).toEqual(expected);
  });

  it.each([
    [{ link: '</x>; rel="next"' }, [], true],
    [{}, { data: [], page: {} }, true],
    [{}, { data: [] }, false],
    [{}, [], false],
    [{}, { data: [], next: null }, true],
    [{}, { items: [], nextPageToken: '' }, true],
    [{}, { data: [], totalCount: 0 }, true],
    [{}, { data: [], window: {} }, false],
  ])('hasPaginationMetadata(%j, %j)', (headers, json, expected) => {
    expect(hasPaginationMetadata(new Headers(headers), json)).toBe(expected);
  });

  it.each([
    [{ page: { has_more: true } }, true],
    [{ page: { has_more: false } }, false],
    [{ data: [1], total: 5 }, true],
    [{ data: [1] }, undefined],
  ])('pageHasMore(%j)', (json, expected) => {
    expect(pageHasMore(json)).toBe(expected);
  });

  it.each([
    ['{"error_code":"x","message":"y"}', 'application/problem+json', { errorCode: 'x', message: 'y' }],
    ['{"error_code":"x"}', 'application/json', { errorCode: 'x' }],
    ['{"error_code":"","message":5}', 'application/json', {}],
    [
      '<problem><error_code>x</error_code><message>y</message></problem>',
      'application/problem+xml',
      { errorCode: 'x', message: 'y' },
    ],
    ['<html>oops</html>', 'text/html', {}],
    ['{"error_code":"x","message":"y"}', undefined, { errorCode: 'x', message: 'y' }],
  ])('errorFields(%s, %s)', (body, type, expected) => {
    expect(errorFields(response(body, type))).toEqual(expected);
  });

  it('jsonBody ignores bodies that are neither JSON-typed nor JSON-shaped', () => {
    expect(jsonBody(response('{"a":1}', 'text/plain'))).toBeUndefined();
    expect(jsonBody(response('{broken', 'application/json'))).toBeUndefined();
  });

  it.each([
    [{ error: 'bad sort' }, 'member "error"'],
    [{ error_code: 'x' }, 'member "error_code"'],
    [{ errors: [{}] }, 'non-empty "errors"'],
    [{ success: false }, '"success": false'],
    [{ status: 'error' }, '"status": "error"'],
    [{ data: [], errors: [] }, undefined],
    [{ error: null, data: [] }, undefined],
    [[{ error: 'x' }], undefined],
    [{ id: 7, status: 'failed', error: 'disk full' }, undefined],
  ])('errorMarker(%j)', (json, expected) => {
    expect(errorMarker(json)).toBe(expected);
  });

  it.each([
    ['Error: boom\n    at handler (/srv/app.js:10:5)', 'a JavaScript stack frame'],
    ['at Layer.handle [as handle_request] (file:///srv/node_modules/x.js:1:2)', 'a JavaScript stack frame'],
    [
      'at async Promise.all (index 0) at run (node:internal/process/task_queues:95:5)',
      'a JavaScript stack frame',
    ],
    ['Traceback (most recent call last):\n  File "app.py"', 'a Python traceback'],
    ['at com.acme.Api.get(Api.java:42)', 'a JVM stack frame'],
    ['{"stack":"Error: x"}', 'a "stack" member'],
    ['error: syntax error at or near "FROM"', 'a database driver message'],
    ['{"error_code":"not_found","message":"The resource does not exist."}', undefined],
    ['{"message":"look at the docs (see /errors/not_found)"}', undefined],
  ])('stackTraceIn(%j)', (body, expected) => {
    expect(stackTraceIn(body)).toBe(expected);
  });

  it.each([
    ['Thu, 31 Dec 2026 23:59:59 GMT', true],
    ['Tue, 31 Dec 2030 23:59:59 GMT', true],
    ['2026-12-31T23:59:59Z', false],
    ['Thu, 31 Dec 2026 23:59:59 UTC', false],
  ])('isHttpDate(%s)', (value, expected) => {
    expect(isHttpDate(value)).toBe(expected);
  });

  it.each([
    ['true', true],
    ['@1767225600', true],
    ['false', false],
    ['Wed, 01 Jan 2026 00:00:00 GMT', false],
  ])('isDeprecationValue(%s)', (value, expected) => {
    expect(isDeprecationValue(value)).toBe(expected);
  });
});
