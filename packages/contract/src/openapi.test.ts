/**
 * toOpenApi on the fixture API (__fixtures__/api.ts): the operations it writes, exactly; the
 * document passes @plumbline/conformance's lint at 100 % and Spectral's `spectral:oas` without an
 * error; every exchange with the live Express app conforms to it; and a client typed from it with
 * openapi-typescript + openapi-fetch type-checks (wrong calls do not) and round-trips against the app.
 */
import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { formatTable, lint, scoreFindings } from '@plumbline/conformance';
import { ContractValidator, describeViolations, type Exchange, recordExchanges } from '@plumbline/test-utils';
import { createVersionPolicy } from '@plumbline/versioning';
import { versioning } from '@plumbline/versioning/express';
import { Document, Spectral } from '@stoplight/spectral-core';
import parsers from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import express from 'express';
import openapiTS, { astToString } from 'openapi-typescript';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { apiRoutes, createStore } from './__fixtures__/api.js';
import { expressApp, fixture, READ_KEY, WRITE_KEY } from './__fixtures__/apps.js';
import {
  defaultOperationId,
  type JsonObject,
  type OpenApiDocument,
  type OpenApiOptions,
  RouteDefinitionError,
  route,
  toOpenApi,
} from './index.js';

const OPTIONS: OpenApiOptions = {
  info: { title: 'Contract fixture', version: '1.0.0', description: 'Projects and their tasks' },
  pathPrefix: '/v1',
  security: { apiKey: true, bearer: true },
};
const DEPRECATED: OpenApiOptions = {
  ...OPTIONS,
  rateLimit: true,
  deprecation: {
    deprecation: new Date('2026-01-01T00:00:00Z'),
    sunset: new Date('2027-01-01T00:00:00Z'),
    link: 'https://example.com/docs/v2',
  },
};

const document = toOpenApi(apiRoutes(createStore()), OPTIONS);
const deprecatedDocument = toOpenApi(apiRoutes(createStore()), DEPRECATED);

type Operation = OpenApiDocument['paths'][string]['get'] & object;

function operationOf(doc: OpenApiDocument, method: string, path: string): Operation {
  const operation = doc.paths[path]?.[method.toLowerCase() as 'get'];
  if (!operation) throw new Error(`no ${method} ${path}`);
  return operation;
}

function resolve(doc: OpenApiDocument, value: unknown): JsonObject {
  let node = value as JsonObject;
  while (typeof node['$ref'] === 'string') {
    const [, kind, name] = /^#\/components\/([^/]+)\/([^/]+)$/.exec(node['$ref'])!;
    node = (doc.components as unknown as Record<string, Record<string, JsonObject>>)[kind!]![name!]!;
  }
  return node;
}

/** `in:name`, with `!` when required. */
function parametersOf(doc: OpenApiDocument, operation: Operation): string[] {
  return (operation.parameters ?? []).map((p) => {
    const parameter = resolve(doc, p);
    return `${String(parameter['in'])}:${String(parameter['name'])}${parameter['required'] === true ? '!' : ''}`;
  });
}

const COMMON = ['X-Request-Id', 'Content-Language', 'Vary'];
const COLLECTIONS = [
  'GET /v1/projects',
  'GET /v1/projects/{id}/tasks',
  'POST /v1/projects/{id}/tasks/search',
];

/** The headers of each response beyond the three every response has (`!` when required). */
function headersOf(doc: OpenApiDocument, operation: Operation, common = COMMON): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(operation.responses).map(([status, response]) => [
      status,
      Object.entries((response['headers'] ?? {}) as JsonObject)
        .filter(([name]) => !common.includes(name))
        .map(([name, header]) => `${name}${resolve(doc, header)['required'] === true ? '!' : ''}`),
    ]),
  );
}

function contentOf(operation: Operation): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [status, response] of Object.entries(operation.responses)) {
    for (const [type, media] of Object.entries((response['content'] ?? {}) as Record<string, JsonObject>)) {
      out[`${status} ${type}`] = String((media['schema'] as JsonObject)['$ref']).replace(
        '#/components/schemas/',
        '',
      );
    }
  }
  return out;
}

const READ = ['read:projects'];
const WRITE = ['write:projects'];
const problems = (...statuses: number[]) =>
  Object.fromEntries(
    statuses.flatMap((s) => [
      [`${s} application/problem+json`, 'Problem'],
      [`${s} application/problem+xml`, 'Problem'],
    ]),
  );
const both = (status: number, schema: string) => ({
  [`${status} application/json`]: schema,
  [`${status} application/xml`]: schema,
});
const COLLECTION_QUERY = [
  'query:q',
  'query:sort',
  'query:limit',
  'query:offset',
  'query:page',
  'query:size',
  'query:cursor',
  'query:fields',
];
// 400 may carry a bearer challenge (invalid_request); 401 always does, 403 names the missing scope.
const AUTH_HEADERS = {
  '400': ['WWW-Authenticate'],
  '401': ['WWW-Authenticate!'],
  '403': ['WWW-Authenticate'],
};

interface Expected {
  readonly id: string;
  readonly statuses: readonly number[];
  readonly parameters: readonly string[];
  /** Headers beyond the common three, by status (statuses with none left out). */
  readonly headers: Readonly<Record<string, readonly string[]>>;
  readonly content: Readonly<Record<string, string>>;
  readonly body?: Readonly<Record<string, string>>;
  /** The request body may be left out (`requestBody.required: false`). */
  readonly bodyOptional?: boolean;
  readonly scopes?: readonly string[];
}

/**
 * The headers of an operation on a path that takes a PATCH: every response also declares the
 * optional `Accept-Patch` the mount sends once the path matched (`acceptPatch`, on by default).
 */
function patchable(statuses: readonly number[], headers: Readonly<Record<string, string[]>>) {
  return Object.fromEntries(
    statuses.map((status) => {
      const own = headers[String(status)] ?? [];
      return [String(status), own.includes('Accept-Patch!') ? own : [...own, 'Accept-Patch']];
    }),
  );
}

const TABLE: readonly (readonly [string, string, Expected])[] = [
  [
    'GET',
    '/v1/projects',
    {
      id: 'getProjects',
      statuses: [200, 304, 400, 401, 403, 406, 500],
      parameters: [
        'query:name',
        'query:budget[gte]',
        'query:budget[lte]',
        ...COLLECTION_QUERY,
        'header:Prefer',
        'header:If-None-Match',
        'header:Accept-Language',
      ],
      headers: {
        '200': ['Link!', 'Preference-Applied', 'ETag'],
        '304': ['Link!', 'Preference-Applied', 'ETag'],
        ...AUTH_HEADERS,
      },
      content: { ...both(200, 'ProjectPage'), ...problems(400, 401, 403, 406, 500) },
      scopes: READ,
    },
  ],
  [
    'POST',
    '/v1/projects',
    {
      id: 'postProjects',
      statuses: [201, 400, 401, 403, 406, 409, 413, 415, 422, 500, 503],
      parameters: ['header:Idempotency-Key', 'header:Accept-Language'],
      headers: {
        '201': ['Location!', 'ETag', 'Idempotent-Replayed', 'Replayed-By-Request-Id'],
        ...AUTH_HEADERS,
        '409': ['Retry-After!'],
        '415': ['Accept-Post!'],
        '503': ['Retry-After!'],
      },
      content: { ...both(201, 'Project'), ...problems(400, 401, 403, 406, 409, 413, 415, 422, 500, 503) },
      body: { 'application/json': 'ProjectInput' },
      scopes: WRITE,
    },
  ],
  [
    'GET',
    '/v1/projects/{id}',
    {
      id: 'getProjectsById',
      statuses: [200, 304, 400, 401, 403, 404, 406, 412, 500],
      parameters: [
        'path:id!',
        'header:If-Match',
        'header:If-None-Match',
        'header:If-Unmodified-Since',
        'header:If-Modified-Since',
        'header:Accept-Language',
      ],
      headers: patchable([200, 304, 400, 401, 403, 404, 406, 412, 500], {
        '200': ['ETag', 'Last-Modified'],
        '304': ['ETag', 'Last-Modified'],
        ...AUTH_HEADERS,
      }),
      content: { ...both(200, 'Project'), ...problems(400, 401, 403, 404, 406, 412, 500) },
      scopes: READ,
    },
  ],
  [
    'PATCH',
    '/v1/projects/{id}',
    {
      id: 'patchProjectsById',
      statuses: [200, 400, 401, 403, 404, 406, 412, 413, 415, 428, 500],
      parameters: [
        'path:id!',
        'header:If-Match',
        'header:If-None-Match',
        'header:If-Unmodified-Since',
        'header:Accept-Language',
      ],
      headers: patchable([200, 400, 401, 403, 404, 406, 412, 413, 415, 428, 500], {
        '200': ['ETag'],
        ...AUTH_HEADERS,
        '415': ['Accept-Patch!'],
      }),
      content: { ...both(200, 'Project'), ...problems(400, 401, 403, 404, 406, 412, 413, 415, 428, 500) },
      body: { 'application/merge-patch+json': 'ProjectPatch', 'application/json': 'ProjectPatch' },
      scopes: WRITE,
    },
  ],
  [
    'DELETE',
    '/v1/projects/{id}',
    {
      id: 'deleteProjectsById',
      statuses: [204, 400, 401, 403, 404, 406, 500],
      parameters: ['path:id!', 'header:Accept-Language'],
      headers: patchable([204, 400, 401, 403, 404, 406, 500], AUTH_HEADERS),
      content: problems(400, 401, 403, 404, 406, 500),
      scopes: WRITE,
    },
  ],
  [
    'GET',
    '/v1/projects/{id}/tasks',
    {
      id: 'getProjectsByIdTasks',
      statuses: [200, 304, 400, 401, 403, 404, 406, 500],
      parameters: [
        'path:id!',
        'query:done',
        ...COLLECTION_QUERY,
        'header:Prefer',
        'header:If-None-Match',
        'header:Accept-Language',
      ],
      headers: {
        '200': ['Link!', 'Preference-Applied', 'ETag'],
        '304': ['Link!', 'Preference-Applied', 'ETag'],
        ...AUTH_HEADERS,
      },
      content: { ...both(200, 'TaskPage'), ...problems(400, 401, 403, 404, 406, 500) },
      scopes: READ,
    },
  ],
  [
    'POST',
    '/v1/projects/{id}/tasks',
    {
      id: 'postProjectsByIdTasks',
      statuses: [201, 400, 401, 403, 404, 406, 409, 413, 415, 422, 500, 503],
      parameters: ['path:id!', 'header:x-trace', 'header:Idempotency-Key!', 'header:Accept-Language'],
      headers: {
        '201': ['Location!', 'ETag', 'Idempotent-Replayed', 'Replayed-By-Request-Id'],
        ...AUTH_HEADERS,
        '409': ['Retry-After!'],
        '415': ['Accept-Post!'],
        '503': ['Retry-After!'],
      },
      content: { ...both(201, 'Task'), ...problems(400, 401, 403, 404, 406, 409, 413, 415, 422, 500, 503) },
      body: { 'application/json': 'TaskInput' },
      scopes: WRITE,
    },
  ],
  [
    'POST',
    '/v1/projects/{id}/tasks/search',
    {
      // A search: no query parameters (the query is the body), a page like the collection's.
      id: 'postProjectsByIdTasksSearch',
      statuses: [200, 400, 401, 403, 404, 406, 409, 413, 415, 422, 500, 503],
      parameters: ['path:id!', 'header:Prefer', 'header:Idempotency-Key', 'header:Accept-Language'],
      headers: {
        '200': ['Link!', 'Preference-Applied', 'ETag', 'Idempotent-Replayed', 'Replayed-By-Request-Id'],
        ...AUTH_HEADERS,
        '409': ['Retry-After!'],
        '415': ['Accept-Post!'],
        '503': ['Retry-After!'],
      },
      content: {
        ...both(200, 'TaskPage2'),
        ...problems(400, 401, 403, 404, 406, 409, 413, 415, 422, 500, 503),
      },
      body: { 'application/json': 'TaskSearch' },
      // No body is a search without criteria.
      bodyOptional: true,
      scopes: READ,
    },
  ],
  [
    'GET',
    '/v1/stats',
    {
      id: 'getStats',
      statuses: [200, 304, 400, 406, 500],
      parameters: ['query:precision', 'header:If-None-Match', 'header:Accept-Language'],
      headers: { '200': ['ETag'], '304': ['ETag'], '400': ['WWW-Authenticate'] },
      content: { ...both(200, 'Stats'), ...problems(400, 406, 500) },
    },
  ],
  [
    'GET',
    '/v1/broken',
    {
      id: 'getBroken',
      statuses: [200, 304, 400, 406, 500],
      parameters: ['header:If-None-Match', 'header:Accept-Language'],
      headers: { '200': ['ETag'], '304': ['ETag'], '400': ['WWW-Authenticate'] },
      content: { ...both(200, 'Broken'), ...problems(400, 406, 500) },
    },
  ],
  [
    'GET',
    '/v1/undeclared',
    {
      id: 'getUndeclared',
      statuses: [200, 304, 400, 406, 500],
      parameters: ['header:If-None-Match', 'header:Accept-Language'],
      headers: { '200': ['ETag'], '304': ['ETag'], '400': ['WWW-Authenticate'] },
      content: { ...both(200, 'Undeclared'), ...problems(400, 406, 500) },
    },
  ],
];

describe('toOpenApi: the operations of the fixture API', () => {
  it('has exactly the operations of the route table, under the prefix', () => {
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations).toEqual(TABLE.map(([method, path]) => `${method} ${path}`));
  });

  it.each(TABLE)('%s %s', (method, path, expected) => {
    const operation = operationOf(document, method, path);
    expect(operation.operationId).toBe(expected.id);
    expect(Object.keys(operation.responses).map(Number)).toEqual(expected.statuses);
    expect(parametersOf(document, operation)).toEqual(expected.parameters);
    const headers = Object.fromEntries(
      Object.entries(headersOf(document, operation)).filter(([, list]) => list.length > 0),
    );
    expect(headers).toEqual(expected.headers);
    // Every response carries the request id, the language and Vary, the common three (and only required ones are so).
    for (const response of Object.values(operation.responses)) {
      const names = Object.keys(response['headers'] as JsonObject);
      expect(names.slice(0, 3)).toEqual(COMMON);
    }
    expect(contentOf(operation)).toEqual(expected.content);
    const body = operation.requestBody;
    expect(
      body === undefined
        ? undefined
        : Object.fromEntries(
            Object.entries(body['content'] as Record<string, JsonObject>).map(([type, media]) => [
              type,
              String((media['schema'] as JsonObject)['$ref']).replace('#/components/schemas/', ''),
            ]),
          ),
    ).toEqual(expected.body);
    if (body) expect(body['required']).toBe(expected.bodyOptional !== true);
    expect(operation.security).toEqual(
      expected.scopes ? [{ apiKey: expected.scopes }, { bearer: expected.scopes }] : undefined,
    );
    expect(operation.deprecated).toBeUndefined();
  });

  it('names the error codes each problem response can carry', () => {
    const create = operationOf(document, 'POST', '/v1/projects/{id}/tasks').responses;
    expect(create['400']!['description']).toBe(
      'Bad Request: `unknown_parameter`, `validation_failed`, `malformed_json`, `idempotency_key_missing`, `idempotency_key_invalid`, `invalid_request`, `credentials_in_query`; `errors` lists every invalid value',
    );
    expect(create['403']!['description']).toBe('Forbidden: `insufficient_scope` (needs write:projects)');
    expect(create['415']!['description']).toBe(
      'Unsupported Media Type: `unsupported_media_type` (send application/json, without a content coding; Accept-Post lists them)',
    );
    expect(operationOf(document, 'GET', '/v1/stats').responses['400']!['description']).toBe(
      'Bad Request: `validation_failed`, `invalid_request`, `credentials_in_query`; `errors` lists every invalid value',
    );
    const search = operationOf(document, 'POST', '/v1/projects/{id}/tasks/search');
    expect(search.responses['400']!['description']).toBe(
      'Bad Request: `unknown_parameter`, `duplicate_parameter`, `invalid_value`, `invalid_sort`, `sort_field_not_allowed`, `field_not_filterable`, `operator_not_allowed`, `field_not_selectable`, `search_too_short`, `search_too_long`, `invalid_pagination`, `conflicting_pagination`, `limit_too_large`, `invalid_cursor`, `query_too_long`, `malformed_json`, `idempotency_key_invalid`, `invalid_request`, `credentials_in_query`; `errors` lists every invalid value',
    );
    expect(search.description).toBe(
      'Needs the scope `read:projects`. A search: the collection query (filter, search, sort, page and select fields) is the JSON body (unknown members are refused), and any query parameter is refused with 400; the answer is one page (`data`, `page`, `links`), its links (to the collection) also in `Link`. Accepts application/json; every invalid value is listed in one 400. Takes an `Idempotency-Key`: a retry with the same key and request gets the first answer again (`Idempotent-Replayed: true`).',
    );
    // The search body: the members the collection reads (tasks page by offset and cursor), no others.
    expect(document.components.schemas['TaskSearch']).toEqual({
      type: 'object',
      properties: {
        filter: { type: 'object' },
        q: { type: 'string' },
        sort: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
        limit: { type: ['integer', 'string'] },
        offset: { type: ['integer', 'string'] },
        page: { type: ['integer', 'string'] },
        size: { type: ['integer', 'string'] },
        cursor: { type: 'string' },
        fields: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
      },
      additionalProperties: false,
    });
    expect(operationOf(document, 'GET', '/v1/projects').description).toBe(
      'Needs the scope `read:projects`. A collection: filter, search, sort, page and select fields with the query parameters (unknown ones are refused); the answer is one page (`data`, `page`, `links`), its links also in `Link`. Answers 304 to a current If-None-Match.',
    );
  });

  it('takes the parameters from the schemas: path, query (with defaults), headers', () => {
    const [id] = operationOf(document, 'GET', '/v1/projects/{id}').parameters!;
    expect(id).toEqual({
      name: 'id',
      in: 'path',
      required: true,
      schema: { type: 'integer', exclusiveMinimum: 0, maximum: 9007199254740991 },
    });
    const [precision] = operationOf(document, 'GET', '/v1/stats').parameters!;
    expect(precision).toEqual({
      name: 'precision',
      in: 'query',
      required: false,
      schema: { default: 0, type: 'integer', minimum: 0, maximum: 3 },
    });
    const [, trace] = operationOf(document, 'POST', '/v1/projects/{id}/tasks').parameters!;
    expect(trace).toEqual({
      name: 'x-trace',
      in: 'header',
      required: false,
      schema: { type: 'string', pattern: '^[a-z0-9]{1,16}$' },
    });
    // The collection's own parameters, as @plumbline/query-parser writes them.
    const sort = operationOf(document, 'GET', '/v1/projects').parameters!.find((p) => p['name'] === 'sort')!;
    expect((sort['schema'] as JsonObject)['pattern']).toMatch(/^\^\(\?!/);
  });

  it('puts bodies in components: inputs as the schemas accept them, outputs with their XML shape', () => {
    const { schemas } = document.components;
    expect(Object.keys(schemas)).toEqual([
      'Problem',
      'ProjectPage',
      'PageMeta',
      'PageLinks',
      'ProjectInput',
      'Project',
      'ProjectPatch',
      'TaskPage',
      'TaskSearch',
      'TaskPage2',
      'TaskInput',
      'Task',
      'Stats',
      'Broken',
      'Undeclared',
    ]);
    expect(schemas['TaskInput']).toEqual({
      type: 'object',
      properties: {
        title: { type: 'string', minLength: 3, maxLength: 200 },
        done: { default: false, type: 'boolean' },
      },
      required: ['title'],
      additionalProperties: false,
    });
    expect(schemas['Project']).toEqual({
      type: 'object',
      properties: {
        id: { type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 },
        name: { type: 'string', minLength: 1, maxLength: 100 },
        budget: { anyOf: [{ type: 'number', minimum: 0 }, { type: 'null' }] },
        updated_at: { type: 'string' },
      },
      required: ['id', 'name', 'budget', 'updated_at'],
      additionalProperties: false,
      xml: { name: 'data' },
    });
    // A page: the items (only `id` always there, as `fields=` selects), the page, the links.
    expect(schemas['TaskPage']).toMatchObject({
      type: 'object',
      required: ['data', 'page', 'links'],
      properties: {
        data: {
          type: 'array',
          xml: { wrapped: true },
          items: { type: 'object', required: ['id'], xml: { name: 'i' } },
        },
        page: { $ref: '#/components/schemas/PageMeta' },
        links: { $ref: '#/components/schemas/PageLinks' },
      },
      additionalProperties: false,
      xml: { name: 'data' },
    });
    expect(schemas['Problem']).toMatchObject({
      required: ['type', 'title', 'status', 'detail', 'error_code', 'message'],
      xml: { name: 'problem', namespace: 'urn:ietf:rfc:7807' },
      properties: {
        type: { type: 'string', format: 'uri-reference', pattern: '^/errors/' },
        errors: { type: 'array', xml: { wrapped: true }, items: { xml: { name: 'i' } } },
        available: { type: 'array', xml: { wrapped: true }, items: { type: 'string', xml: { name: 'i' } } },
      },
    });
  });

  it('declares the security schemes and the conventions’ headers and parameters once', () => {
    expect(document.components.securitySchemes).toEqual({
      apiKey: {
        type: 'apiKey',
        in: 'header',
        name: 'X-API-Key',
        description: 'An API key; its access level grants the read:* or write:* scopes',
      },
      bearer: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: 'A bearer token whose `scope` claim lists the scopes',
      },
    });
    expect(Object.keys(document.components.parameters).sort()).toEqual([
      'AcceptLanguage',
      'IdempotencyKey',
      'IdempotencyKeyRequired',
      'IfMatch',
      'IfModifiedSince',
      'IfNoneMatch',
      'IfUnmodifiedSince',
      'PreferCount',
    ]);
    expect(document.components.headers['ContentLanguage']).toEqual({
      description: 'The language of the representation (and of problem details)',
      schema: { type: 'string', enum: ['en', 'de'] },
      required: true,
    });
    expect(document.components.headers['RateLimit']).toBeUndefined();
    expect(document.tags).toEqual([
      { name: 'projects' },
      { name: 'stats' },
      { name: 'broken' },
      { name: 'undeclared' },
    ]);
    expect(document.servers).toEqual([{ url: '/' }]);
    expect(document.info).toEqual({
      title: 'Contract fixture',
      version: '1.0.0',
      description: 'Projects and their tasks',
    });
  });

  it('a deprecated, rate-limited version: Deprecation, Sunset, Link and RateLimit on every response, 410 and 429', () => {
    for (const [method, path, expected] of TABLE) {
      const operation = operationOf(deprecatedDocument, method, path);
      expect(operation.deprecated).toBe(true);
      expect(Object.keys(operation.responses).map(Number)).toEqual(
        [...expected.statuses, 410, 429].sort((a, b) => a - b),
      );
      const headers = headersOf(deprecatedDocument, operation);
      for (const [status, names] of Object.entries(headers)) {
        // A page's Link holds the page links and the deprecation link: one header, checked below.
        const page = COLLECTIONS.includes(`${method} ${path}`) && (status === '200' || status === '304');
        const link = page ? [] : ['Link!'];
        expect(names.slice(0, 4 + link.length), `${method} ${path} ${status}`).toEqual([
          'RateLimit',
          'RateLimit-Policy',
          'Deprecation!',
          'Sunset!',
          ...link,
        ]);
      }
      expect(headers['429']).toContain('Retry-After!');
    }
    const { headers } = deprecatedDocument.components;
    expect(headers['Deprecation']!['schema']).toEqual({ type: 'string', const: '@1767225600' });
    expect(headers['Sunset']!['schema']).toEqual({ type: 'string', const: 'Fri, 01 Jan 2027 00:00:00 GMT' });
    expect(headers['DeprecationLink']!['description']).toBe(
      '<https://example.com/docs/v2>; rel="deprecation": what replaces this version (with rel="sunset" when the version policy names it)',
    );
    // On a page, one Link header carries both the page links and the deprecation link.
    const page = operationOf(deprecatedDocument, 'GET', '/v1/projects').responses['200']![
      'headers'
    ] as JsonObject;
    expect(page['Link']).toEqual({ $ref: '#/components/headers/PageAndDeprecationLink' });
  });
});

describe('toOpenApi: names, ids and refusals', () => {
  it('derives stable operation ids from the method and the path', () => {
    expect(defaultOperationId('GET', '/projects/{id}/tasks')).toBe('getProjectsByIdTasks');
    expect(defaultOperationId('DELETE', '/task-lists/{list_id}')).toBe('deleteTaskListsByListId');
    expect(defaultOperationId('GET', '/')).toBe('get');
    // The prefix does not change them: one client works against v1 and v2 documents.
    const unprefixed = toOpenApi(apiRoutes(createStore()), { ...OPTIONS, pathPrefix: '' });
    expect(
      Object.values(unprefixed.paths).flatMap((item) => Object.values(item).map((o) => o.operationId)),
    ).toEqual(TABLE.map(([, , e]) => e.id));
  });

  const handler = async () => ({ status: 200 as const, body: { ok: true } });
  const Ok = z.object({ ok: z.boolean() });

  it('keeps declared operation ids and refuses a duplicate', () => {
    const a = route({ method: 'GET', path: '/a', operationId: 'readThing', responses: { 200: Ok }, handler });
    const b = route({ method: 'GET', path: '/b', operationId: 'readThing', responses: { 200: Ok }, handler });
    expect(() => toOpenApi([a, b], OPTIONS)).toThrow(RouteDefinitionError);
    expect(() => toOpenApi([a, b], OPTIONS)).toThrow('GET /b: operationId "readThing" is also GET /a\'s');
  });

  it('names components after a title, and reuses one schema by identity', () => {
    const Thing = z.object({ ok: z.boolean() }).meta({ title: 'the thing' });
    const routes = [
      route({
        method: 'GET',
        path: '/things/{id}',
        params: z.object({ id: z.string() }),
        responses: { 200: Thing },
        handler,
      }),
      route({
        method: 'PUT',
        path: '/things/{id}',
        params: z.object({ id: z.string() }),
        body: Thing,
        responses: { 200: Thing },
        handler,
      }),
    ];
    const doc = toOpenApi(routes, OPTIONS);
    expect(Object.keys(doc.components.schemas)).toEqual(['Problem', 'TheThing', 'TheThing2']);
    expect(doc.components.schemas['TheThing']).toMatchObject({ title: 'the thing', xml: { name: 'data' } });
    // The input direction of the same schema is its own component (no XML: requests are JSON).
    expect(doc.components.schemas['TheThing2']).not.toHaveProperty('xml');
    const put = operationOf(doc, 'PUT', '/v1/things/{id}');
    expect(put.responses['415']!['headers']).toMatchObject({
      Accept: { $ref: '#/components/headers/AcceptPut' },
    });
  });

  it('hoists $defs into components and follows recursion', () => {
    const Person = z.object({ name: z.string() }).meta({ id: 'Person' });
    interface Tree {
      name: string;
      children: Tree[];
    }
    const TreeSchema: z.ZodType<Tree> = z.object({
      name: z.string(),
      get children() {
        return z.array(TreeSchema);
      },
    });
    const routes = [
      route({
        method: 'GET',
        path: '/teams',
        query: z.object({}),
        responses: { 200: z.object({ lead: Person, deputy: Person }) },
        handler: async () => ({ status: 200 as const, body: { lead: { name: 'a' }, deputy: { name: 'b' } } }),
      }),
      route({
        method: 'GET',
        path: '/trees',
        query: z.object({}),
        responses: { 200: TreeSchema },
        handler: async () => ({ status: 200 as const, body: { name: 'x', children: [] } }),
      }),
    ];
    const doc = toOpenApi(routes, OPTIONS);
    expect(doc.components.schemas['Teams']).toMatchObject({
      properties: {
        lead: { $ref: '#/components/schemas/Person' },
        deputy: { $ref: '#/components/schemas/Person' },
      },
    });
    expect(doc.components.schemas['Person']).toEqual({
      type: 'object',
      properties: { name: { type: 'string' } },
      required: ['name'],
      additionalProperties: false,
    });
    expect(doc.components.schemas['Trees']).toMatchObject({
      properties: {
        children: {
          type: 'array',
          xml: { wrapped: true },
          items: { $ref: '#/components/schemas/Trees', xml: { name: 'i' } },
        },
      },
    });
  });

  it('refuses bad options and schemas that cannot describe themselves, naming the route', () => {
    const r = route({ method: 'GET', path: '/x', responses: { 200: Ok }, handler });
    expect(() => toOpenApi([r], { ...OPTIONS, pathPrefix: 'v1/' })).toThrow(
      'pathPrefix "v1/" must start with "/"',
    );
    expect(() => toOpenApi([r], { ...OPTIONS, deprecation: { sunset: new Date('nope') } })).toThrow(
      'deprecation.sunset must be a valid Date',
    );
    const opaque = {
      '~standard': { version: 1 as const, vendor: 'opaque', validate: (value: unknown) => ({ value }) },
    };
    const s = route({
      method: 'GET',
      path: '/y',
      responses: { 200: opaque },
      handler: async () => ({ status: 200 as const, body: {} }),
    });
    expect(() => toOpenApi([s], OPTIONS)).toThrow(
      /GET \/y: @plumbline\/contract: the opaque schema cannot describe itself/,
    );
    // The table is checked as compileRoutes checks it.
    expect(() =>
      toOpenApi([route({ method: 'GET', path: '/z/{id}', responses: { 200: Ok }, handler })], OPTIONS),
    ).toThrow(RouteDefinitionError);
  });
});

describe('toOpenApi: operation ids, path parameters and the OAuth 2.0 scheme as the service publishes them', () => {
  const handler = async () => ({ status: 200 as const, body: { ok: true } });
  const Ok = z.object({ ok: z.boolean() });
  const routes = [
    route({
      method: 'GET',
      path: '/projects/{projectId}',
      params: z.object({ projectId: z.string() }),
      operationId: 'get_project',
      responses: { 200: Ok },
      scopes: ['read:projects'],
      handler,
    }),
    route({
      method: 'GET',
      path: '/projects/{projectId}/tasks/{taskId}',
      params: z.object({ projectId: z.string(), taskId: z.string() }),
      responses: { 200: Ok },
      handler,
    }),
  ];
  const flows = {
    clientCredentials: { tokenUrl: '/oauth/token', scopes: { 'read:projects': 'read projects' } },
  };
  const snake = (name: string) => ({
    name: name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
    schema: { type: 'string', format: 'uuid' },
  });
  const summary = (options: Partial<OpenApiOptions>) => {
    const doc = toOpenApi(routes, { ...OPTIONS, ...options });
    return {
      paths: Object.fromEntries(
        Object.entries(doc.paths).map(([path, item]) => [
          path,
          {
            operationId: item.get?.operationId,
            security: item.get?.security,
            parameters: item.get?.parameters?.filter((p) => p['in'] === 'path'),
          },
        ]),
      ),
      schemes: Object.keys(doc.components.securitySchemes ?? {}),
      oauth2: doc.components.securitySchemes?.['oauth2'],
    };
  };
  const param = (name: string, schema: JsonObject = { type: 'string' }) => ({
    name,
    in: 'path',
    required: true,
    schema,
  });
  const uuid = { type: 'string', format: 'uuid' };

  it.each<[string, Partial<OpenApiOptions>, ReturnType<typeof summary>]>([
    [
      'none of them: the route’s names and ids, scopes on apiKey and bearer',
      {},
      {
        paths: {
          '/v1/projects/{projectId}': {
            operationId: 'get_project',
            security: [{ apiKey: ['read:projects'] }, { bearer: ['read:projects'] }],
            parameters: [param('projectId')],
          },
          '/v1/projects/{projectId}/tasks/{taskId}': {
            operationId: 'getProjectsByProjectIdTasksByTaskId',
            security: undefined,
            parameters: [param('projectId'), param('taskId')],
          },
        },
        schemes: ['apiKey', 'bearer'],
        oauth2: undefined,
      },
    ],
    [
      'operationId prefixes the declared and the default ids; pathParameter renames and retypes; oauth2 carries the scopes',
      {
        operationId: (id) => `v1_${id}`,
        pathParameter: snake,
        security: { apiKey: true, bearer: true, oauth2: { flows } },
      },
      {
        paths: {
          '/v1/projects/{project_id}': {
            operationId: 'v1_get_project',
            security: [{ apiKey: [] }, { bearer: [] }, { oauth2: ['read:projects'] }],
            parameters: [param('project_id', uuid)],
          },
          '/v1/projects/{project_id}/tasks/{task_id}': {
            operationId: 'v1_getProjectsByProjectIdTasksByTaskId',
            security: undefined,
            parameters: [param('project_id', uuid), param('task_id', uuid)],
          },
        },
        schemes: ['apiKey', 'bearer', 'oauth2'],
        oauth2: { type: 'oauth2', flows },
      },
    ],
    [
      'operationId sees the method and the route’s own path; pathParameter may keep the schema; oauth2 alone',
      {
        operationId: (id, { method, path }) => `${id}_${method}_${path.split('/').length}`,
        pathParameter: (name) => (name === 'taskId' ? { name: 'task' } : {}),
        security: { oauth2: { flows, description: 'Client credentials' } },
      },
      {
        paths: {
          '/v1/projects/{projectId}': {
            operationId: 'get_project_GET_3',
            security: [{ oauth2: ['read:projects'] }],
            parameters: [param('projectId')],
          },
          '/v1/projects/{projectId}/tasks/{task}': {
            operationId: 'getProjectsByProjectIdTasksByTaskId_GET_5',
            security: undefined,
            parameters: [param('projectId'), param('task')],
          },
        },
        schemes: ['oauth2'],
        oauth2: { type: 'oauth2', description: 'Client credentials', flows },
      },
    ],
  ])('%s', (_title, options, expected) => {
    expect(summary(options)).toEqual(expected);
  });

  it.each<[string, Partial<OpenApiOptions>, string]>([
    [
      'ids the naming makes equal',
      { operationId: () => 'same' },
      'operationId "same" is also GET /projects/{projectId}\'s',
    ],
    [
      'an oauth2 scheme without a flow',
      { security: { oauth2: { flows: {} } } },
      'security.oauth2.flows must name at least one flow',
    ],
    [
      'an operationId that is not a function',
      { operationId: 'x' as never },
      'toOpenApi: operationId must be a function',
    ],
    [
      'a pathParameter that is not a function',
      { pathParameter: {} as never },
      'toOpenApi: pathParameter must be a function',
    ],
  ])('refuses %s', (_title, options, message) => {
    expect(() => toOpenApi(routes, { ...OPTIONS, ...options })).toThrow(message);
  });
});

describe('the document passes the linters', () => {
  // A document without a deprecated operation gives the deprecation rules nothing to judge.
  const NO_DEPRECATION = ['plumbline-deprecation-header', 'plumbline-sunset-header'];
  const versions = [
    { name: 'current', doc: document, notApplicable: NO_DEPRECATION },
    { name: 'deprecated', doc: deprecatedDocument, notApplicable: [] },
  ];

  it.each(versions)(
    '@plumbline/conformance lint: every rule with something to judge passes ($name version)',
    async ({ doc, notApplicable }) => {
      const card = scoreFindings(await lint(doc), 'openapi.json');
      const not = (outcome: string) => card.results.filter((r) => r.outcome === outcome).map((r) => r.id);
      expect(
        [card.results.filter((r) => r.outcome === 'fail' || r.outcome === 'skip'), not('not-applicable')],
        formatTable(card),
      ).toEqual([[], notApplicable]);
      expect(card.results.filter((r) => r.outcome === 'pass').length).toBeGreaterThan(10);
    },
  );

  it.each(versions)(
    'spectral:oas: no error ($name version)',
    async ({ doc }) => {
      const spectral = new Spectral();
      spectral.setRuleset({ extends: [[oas as never, 'recommended']] } as never);
      const results = await spectral.run(
        new Document(JSON.stringify(doc, null, 2), parsers.Json, 'openapi.json'),
      );
      const errors = results.filter((r) => r.severity === 0);
      expect(errors.map((r) => `${String(r.code)} ${r.message} at ${r.path.join('.')}`)).toEqual([]);
      // What is left are recommendations the route table cannot answer (contact) and OpenAPI 3.0's
      // rule that scopes belong to OAuth 2 schemes only (3.1 allows roles for any scheme).
      expect([...new Set(results.map((r) => String(r.code)))].sort()).toEqual([
        'info-contact',
        'oas3-operation-security-defined',
      ]);
    },
    30_000,
  );
});

/** Exchanges without Express's `X-Powered-By` banner, which the fixture app does not turn off. */
const withoutBanner = (exchanges: readonly Exchange[]): Exchange[] =>
  exchanges.map((e) => ({
    ...e,
    responseHeaders: Object.fromEntries(
      Object.entries(e.responseHeaders).filter(([name]) => name !== 'x-powered-by'),
    ),
  }));

function liveApp() {
  const f = fixture();
  const outer = express();
  outer.use('/v1', expressApp(express, f));
  return { f, ...recordExchanges(outer as never) };
}

describe('the document describes what the Express app sends', () => {
  it('every exchange conforms (status, headers, JSON and XML bodies, parameters)', async () => {
    const { handler, exchanges } = liveApp();
    const r = () => request(handler as never);
    const read = { 'x-api-key': READ_KEY };
    const write = { 'x-api-key': WRITE_KEY };
    const merge = { ...write, 'content-type': 'application/merge-patch+json' };
    const statuses: number[] = [];
    const go = async (test: request.Test) => statuses.push((await test).status);
    await go(r().get('/v1/projects?limit=2').set(read));
    await go(
      r()
        .get('/v1/projects?limit=1&sort=-name&q=alp')
        .set({ ...read, accept: 'application/xml' }),
    );
    await go(r().get('/v1/projects?sort=colour').set(read));
    await go(
      r()
        .get('/v1/projects?sort=name,-name')
        .set({ ...read, accept: 'application/xml' }),
    );
    await go(r().get('/v1/projects'));
    await go(r().get('/v1/projects/1/tasks?done=false&limit=5').set(read));
    await go(r().get('/v1/projects/77/tasks').set(read));
    const got = await r().get('/v1/projects/2').set(read);
    statuses.push(got.status);
    await go(
      r()
        .get('/v1/projects/2')
        .set({ ...read, 'if-none-match': got.headers['etag'] as string }),
    );
    await go(
      r()
        .get('/v1/projects/2')
        .set({ ...read, 'if-match': '"stale"' }),
    );
    await go(
      r()
        .get('/v1/projects/2')
        .set({ ...read, accept: 'application/xml', 'accept-language': 'de' }),
    );
    await go(
      r()
        .get('/v1/projects/2')
        .set({ ...read, accept: 'image/png' }),
    );
    await go(r().get('/v1/projects/2?x=1').set(read));
    await go(
      r()
        .get('/v1/projects/abc')
        .set({ ...read, accept: 'application/xml' }),
    );
    await go(
      r()
        .post('/v1/projects')
        .set({ ...write, 'idempotency-key': 'k1' })
        .send({ name: 'delta', budget: 5 }),
    );
    await go(
      r()
        .post('/v1/projects')
        .set({ ...write, 'idempotency-key': 'k1' })
        .send({ name: 'delta', budget: 5 }),
    );
    await go(
      r()
        .post('/v1/projects')
        .set({ ...write, 'idempotency-key': 'k1' })
        .send({ name: 'other' }),
    );
    await go(r().post('/v1/projects').set(write).send({ name: '', colour: 1 }));
    await go(
      r()
        .post('/v1/projects')
        .set({ ...write, 'content-type': 'text/plain' })
        .send('x'),
    );
    await go(r().post('/v1/projects').set(read).send({ name: 'x' }));
    await go(r().post('/v1/projects').set({ 'x-api-key': 'plk_wrong' }).send({ name: 'x' }));
    await go(r().post('/v1/projects/1/tasks').set(write).send({ title: 'third' }));
    await go(
      r()
        .post('/v1/projects/1/tasks')
        .set({ ...write, 'idempotency-key': 't1', 'x-trace': 'abc' })
        .send({ title: 'third' }),
    );
    await go(
      r()
        .patch('/v1/projects/2')
        .set(merge)
        .send(JSON.stringify({ name: 'b2' })),
    );
    await go(
      r()
        .patch('/v1/projects/2')
        .set({ ...merge, 'if-match': '"stale"' })
        .send(JSON.stringify({ name: 'b2' })),
    );
    const again = await r().get('/v1/projects/2').set(read);
    await go(
      r()
        .patch('/v1/projects/2')
        .set({ ...merge, 'if-match': again.headers['etag'] as string })
        .send(JSON.stringify({ budget: null })),
    );
    await go(
      r()
        .patch('/v1/projects/2')
        .set({ ...write, 'content-type': 'application/xml' })
        .send('<a/>'),
    );
    await go(r().delete('/v1/projects/3').set(write));
    await go(r().delete('/v1/projects/3').set(write));
    await go(r().put('/v1/projects/2').set(write));
    await go(r().options('/v1/projects'));
    await go(r().get('/v1/stats?precision=1'));
    await go(r().get('/v1/stats?precision=9').set({ 'accept-language': 'de' }));
    await go(r().get('/v1/broken'));
    await go(r().get('/v1/undeclared'));
    await go(r().get('/v1/nothing'));
    expect(statuses).toEqual([
      200, 200, 400, 400, 401, 200, 404, 200, 304, 412, 200, 406, 400, 404, 201, 201, 422, 400, 415, 403, 401,
      400, 201, 428, 412, 200, 415, 204, 404, 405, 204, 200, 400, 500, 500, 404,
    ]);
    const validator = new ContractValidator(document as unknown as JsonObject);
    expect(describeViolations(validator, withoutBanner(exchanges))).toBe('');
    // The checker is not blind: an undeclared header, an undeclared status and a wrong body are caught.
    const sample = exchanges.find((e) => e.url === '/v1/stats?precision=1')!;
    expect(
      validator.check({ ...sample, responseHeaders: { ...sample.responseHeaders, 'x-extra': '1' } }),
    ).toContain('undeclared response header x-extra');
    expect(validator.check({ ...sample, status: 202 }).join()).toContain('status 202 is not declared');
    expect(validator.check({ ...sample, responseBody: '{"projects":"many"}' }).join()).toContain(
      'body /projects must be number',
    );
  });
});

describe('field selection on a page', () => {
  // Known gap of run.ts: with response validation on, the items of a page are checked against the
  // full item schema after `fields=` has dropped members, so a selection is answered 500. The
  // document describes the page as @plumbline/query-parser builds it (only `id` always there); this
  // flips to passing once the check allows the selection.
  it('GET /v1/projects?fields=id,name answers 200 with the selected members', async () => {
    const { handler } = liveApp();
    const page = await request(handler as never)
      .get('/v1/projects?fields=id,name&limit=1')
      .set({ 'x-api-key': READ_KEY });
    expect([page.status, page.body.data]).toEqual([200, [{ id: 1, name: 'alpha' }]]);
  });
});

describe('a deprecated version behind @plumbline/versioning: the document says what it sends', () => {
  // Known gap of the Express adapter (express.ts send() sets Link with setHeader): a page's Link
  // replaces the version's deprecation link instead of joining it. The document declares both in one
  // Link, as RFC 8288 and the versioning package intend; this flips to passing once the adapter appends.
  it('a page keeps the deprecation link next to the page links', async () => {
    const policy = createVersionPolicy({
      strategy: 'path',
      versions: [
        { version: '1', deprecated: true, links: { deprecation: 'https://example.com/docs/v2' } },
        '2',
      ],
    });
    const outer = express();
    outer.use(versioning(policy));
    outer.use('/v1', expressApp(express, fixture()));
    const page = await request(outer).get('/v1/projects?limit=1').set({ 'x-api-key': READ_KEY });
    expect(page.headers['link']).toContain('<https://example.com/docs/v2>; rel="deprecation"');
  });

  it('Deprecation, Sunset, Link and the version headers on every response, as declared', async () => {
    const policy = createVersionPolicy({
      strategy: 'path',
      versions: [
        {
          version: '1',
          deprecatedAt: '2026-01-01T00:00:00Z',
          sunsetAt: '2099-01-01T00:00:00Z',
          links: { deprecation: 'https://example.com/docs/v2' },
        },
        '2',
      ],
    });
    const doc = toOpenApi(apiRoutes(createStore()), {
      ...OPTIONS,
      versions: { supported: ['1', '2'], deprecated: ['1'] },
      deprecation: {
        deprecation: new Date('2026-01-01T00:00:00Z'),
        sunset: new Date('2099-01-01T00:00:00Z'),
        link: 'https://example.com/docs/v2',
      },
    });
    const f = fixture();
    const outer = express();
    outer.use(versioning(policy));
    outer.use('/v1', expressApp(express, f));
    const { handler, exchanges } = recordExchanges(outer as never);
    const r = () => request(handler as never);
    const read = { 'x-api-key': READ_KEY };
    const page = await r().get('/v1/projects?limit=1').set(read);
    expect(page.headers).toMatchObject({
      deprecation: '@1767225600',
      sunset: 'Thu, 01 Jan 2099 00:00:00 GMT',
      'api-supported-versions': '1, 2',
      'api-deprecated-versions': '1',
    });
    expect(page.headers['link']).toContain('rel="next"');
    const member = await r()
      .get('/v1/projects/2')
      .set({ ...read, accept: 'application/xml' });
    expect(member.headers['link']).toBe('<https://example.com/docs/v2>; rel="deprecation"');
    await r().get('/v1/projects/99').set(read);
    await r()
      .post('/v1/projects')
      .set({ 'x-api-key': WRITE_KEY, 'idempotency-key': 'd1' })
      .send({ name: 'dep' });
    await r().get('/v1/stats?precision=7');
    expect(exchanges.map((e) => e.status)).toEqual([200, 200, 404, 201, 400]);
    expect(
      describeViolations(new ContractValidator(doc as unknown as JsonObject), withoutBanner(exchanges)),
    ).toBe('');
    // Without the version headers declared, the same exchanges do not conform.
    const undeclared = toOpenApi(apiRoutes(createStore()), OPTIONS);
    expect(
      describeViolations(
        new ContractValidator(undeclared as unknown as JsonObject),
        withoutBanner(exchanges),
      ),
    ).toContain('undeclared response header deprecation');
  });
});

// ---------------------------------------------------------------------------------------------
// A typed client: openapi-typescript writes `paths` from the document, openapi-fetch calls with it.

const here = dirname(fileURLToPath(import.meta.url));
const clientDir = join(here, '..', '.tmp-client', `run-${process.pid}`);
const run = promisify(execFile);
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

const CLIENT = `import createClient from 'openapi-fetch';
import type { components, paths } from './schema.js';

type Project = components['schemas']['Project'];

/** Creates, reads, lists, changes and misses a project through the typed client. */
export async function roundTrip(baseUrl: string, keys: { read: string; write: string }) {
  const reader = createClient<paths>({ baseUrl, headers: { 'X-API-Key': keys.read } });
  const writer = createClient<paths>({ baseUrl, headers: { 'X-API-Key': keys.write } });
  const created = await writer.POST('/v1/projects', {
    params: { header: { 'Idempotency-Key': 'typed-1' } },
    body: { name: 'typed', budget: 42 },
  });
  if (created.data === undefined) throw new Error(\`create: \${created.response.status}\`);
  const project: Project = created.data;
  const read = await reader.GET('/v1/projects/{id}', { params: { path: { id: project.id } } });
  const etag = read.response.headers.get('etag') ?? '';
  const page = await reader.GET('/v1/projects', { params: { query: { limit: 2, sort: '-id' } } });
  const changed = await writer.PATCH('/v1/projects/{id}', {
    params: { path: { id: project.id }, header: { 'If-Match': etag } },
    body: { name: 'typed again' },
  });
  const task = await writer.POST('/v1/projects/{id}/tasks', {
    params: { path: { id: project.id }, header: { 'Idempotency-Key': 'typed-task' } },
    body: { title: 'from the client' },
  });
  const missing = await reader.GET('/v1/projects/{id}', { params: { path: { id: 9999 } } });
  const refused = await writer.POST('/v1/projects', { params: { header: { 'Idempotency-Key': 'typed-2' } }, body: { name: '' } });
  return {
    created: { status: created.response.status, location: created.response.headers.get('location'), name: project.name },
    read: { status: read.response.status, budget: read.data?.budget, etag: etag !== '' },
    page: { status: page.response.status, names: page.data?.data.map((p) => p.name), hasMore: page.data?.page.has_more },
    changed: { status: changed.response.status, name: changed.data?.name },
    task: { status: task.response.status, done: task.data?.done, project: task.data?.project_id === project.id },
    missing: { status: missing.response.status, code: missing.error?.error_code },
    refused: { status: refused.response.status, pointers: refused.error?.errors?.map((e) => e.pointer) },
  };
}
`;

/** Calls the client must not compile: each file holds one mistake. */
const WRONG: Readonly<Record<string, string>> = {
  'wrong-path.ts': `await client.GET('/v1/nothing');`,
  'wrong-body.ts': `await client.POST('/v1/projects', { body: { budget: 3 } });`,
  'wrong-param.ts': `await client.GET('/v1/projects/{id}', { params: { path: { id: 'two' } } });`,
  'wrong-header.ts': `await client.POST('/v1/projects/{id}/tasks', { params: { path: { id: 1 } }, body: { title: 'no key' } });`,
  'wrong-method.ts': `await client.PUT('/v1/projects/{id}', { params: { path: { id: 1 } }, body: { name: 'x' } });`,
};

describe('a typed client from the document', () => {
  let server: Server | undefined;
  let baseUrl = '';
  let live: ReturnType<typeof liveApp>;

  beforeAll(async () => {
    await mkdir(clientDir, { recursive: true });
    // A member with a `default` is optional in a request (openapi-typescript's default makes it required).
    const ast = await openapiTS(document as never, { defaultNonNullable: false });
    await writeFile(join(clientDir, 'schema.d.ts'), astToString(ast));
    await writeFile(join(clientDir, 'client.ts'), CLIENT);
    for (const [file, call] of Object.entries(WRONG)) {
      await writeFile(
        join(clientDir, file),
        `import createClient from 'openapi-fetch';\nimport type { paths } from './schema.js';\nconst client = createClient<paths>({ baseUrl: 'http://127.0.0.1' });\n${call}\nexport {};\n`,
      );
    }
    await writeFile(
      join(clientDir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2023',
          lib: ['ES2023', 'DOM'],
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          exactOptionalPropertyTypes: true,
          noEmit: true,
          skipLibCheck: true,
          types: [],
        },
        include: ['*.ts'],
      }),
    );
    live = liveApp();
    server = createServer(live.handler);
    await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }, 60_000);

  afterAll(async () => {
    await new Promise((done) => (server ? server.close(done) : done(undefined)));
    await rm(join(here, '..', '.tmp-client'), { recursive: true, force: true });
  });

  it('type-checks the client, and refuses an unknown path, a missing body field, a wrong parameter type, a missing required header and an undeclared method', async () => {
    const output = await run(process.execPath, [tsc, '-p', join(clientDir, 'tsconfig.json')], {
      cwd: clientDir,
    }).then(
      () => '',
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    // `file(line,col): error TSnnnn: message`, continued on indented lines.
    const errorsByFile = new Map<string, string[]>();
    let last: string[] | undefined;
    for (const line of output.split('\n')) {
      const match = /^([\w.-]+\.ts)\(\d+,\d+\): error (TS\d+): (.*)$/.exec(line);
      if (match) {
        last = errorsByFile.get(match[1]!) ?? [];
        errorsByFile.set(match[1]!, last);
        last.push(`${match[2]} ${match[3]}`);
      } else if (/^\s+\S/.test(line) && last) last[last.length - 1] += ` ${line.trim()}`;
    }
    expect(errorsByFile.get('client.ts'), output).toBeUndefined();
    const codes = Object.fromEntries(
      [...errorsByFile].map(([file, errors]) => [file, errors.map((e) => e.split(' ')[0])]),
    );
    expect(codes, output).toEqual({
      'wrong-path.ts': ['TS2554'],
      'wrong-body.ts': ['TS2322'],
      'wrong-param.ts': ['TS2322'],
      'wrong-header.ts': ['TS2741'],
      'wrong-method.ts': ['TS2345'],
    });
    const text = (file: string) => errorsByFile.get(file)!.join('\n');
    expect(text('wrong-body.ts')).toContain("Property 'name' is missing in type '{ budget: number; }'");
    expect(text('wrong-param.ts')).toContain("Type 'string' is not assignable to type 'number'");
    expect(text('wrong-header.ts')).toMatch(/Property 'header' is missing .*"Idempotency-Key": string/);
    expect(text('wrong-method.ts')).toContain(
      `Argument of type '"/v1/projects/{id}"' is not assignable to parameter of type 'never'`,
    );
  }, 120_000);

  it('round-trips against the live Express app, and every exchange conforms to the document', async () => {
    const { roundTrip } = (await import(pathToFileURL(join(clientDir, 'client.ts')).href)) as {
      roundTrip: (baseUrl: string, keys: { read: string; write: string }) => Promise<unknown>;
    };
    expect(await roundTrip(baseUrl, { read: READ_KEY, write: WRITE_KEY })).toEqual({
      created: { status: 201, location: '/projects/4', name: 'typed' },
      read: { status: 200, budget: 42, etag: true },
      page: { status: 200, names: ['typed', 'gamma'], hasMore: true },
      changed: { status: 200, name: 'typed again' },
      task: { status: 201, done: false, project: true },
      missing: { status: 404, code: 'not_found' },
      refused: { status: 400, pointers: ['#/name'] },
    });
    expect(live.exchanges.map((e) => `${e.method} ${e.url.split('?')[0]} ${e.status}`)).toEqual([
      'POST /v1/projects 201',
      'GET /v1/projects/4 200',
      'GET /v1/projects 200',
      'PATCH /v1/projects/4 200',
      'POST /v1/projects/4/tasks 201',
      'GET /v1/projects/9999 404',
      'POST /v1/projects 400',
    ]);
    expect(
      describeViolations(
        new ContractValidator(document as unknown as JsonObject),
        withoutBanner(live.exchanges),
      ),
    ).toBe('');
  });
});
