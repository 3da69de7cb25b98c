import { describe, expect, it } from 'vitest';
import { goodOpenApi } from './__fixtures__/openapi.js';
import {
  DEFAULT_IGNORED_PATHS,
  discoverCollections,
  isCollectionPath,
  isIgnoredPath,
  parsePath,
  unknownVersionRequest,
  versionCarrierOf,
} from './openapi.js';

describe('openapi helpers', () => {
  it.each([
    ['/v2/projects', '2', ['projects'], true],
    ['/api/v1/projects/{id}', '1', ['projects', '{id}'], false],
    ['/api/projects', undefined, ['api', 'projects'], true],
    ['/v2/tasks/search', '2', ['tasks', 'search'], false],
    ['/v2/projects/id-{id}', '2', ['projects', 'id-{id}'], false],
    ['/', undefined, [], false],
    // Bitbucket's decimal prefix and a minor version after v (issue 32).
    [
      '/2.0/repositories/{username}/{slug}/pullrequests',
      '2.0',
      ['repositories', '{username}', '{slug}', 'pullrequests'],
      true,
    ],
    ['/v2.1/projects', '2.1', ['projects'], true],
    // Digits with a dot are a version only as the first segment.
    ['/files/1.0/{id}', undefined, ['files', '1.0', '{id}'], false],
  ])('parsePath(%s)', (path, version, segments, collection) => {
    const shape = parsePath(path);
    expect(shape.version).toBe(version);
    expect(shape.segments.map((segment) => segment.text)).toEqual(segments);
    expect(isCollectionPath(shape)).toBe(collection);
  });

  it.each([
    ['/openapi.json', true],
    ['/v2/openapi.yaml', true],
    ['/.well-known/jwks.json', true],
    ['/oauth/token', true],
    ['/errors/not_found', true],
    ['/health', true],
    ['/changelog', true],
    ['/changelogs', false],
    ['/v2/health-checks', false],
    ['/v2/projects', false],
  ])('isIgnoredPath(%s)', (path, expected) => {
    expect(isIgnoredPath(parsePath(path), DEFAULT_IGNORED_PATHS)).toBe(expected);
  });

  it('discovers paginated collections with what the probe needs', () => {
    const found = discoverCollections(goodOpenApi());
    expect(found.map((c) => [c.path, c.pagination, c.deprecated, c.creatable])).toEqual([
      ['/v1/projects', 'offset', true, false],
      ['/v2/projects', 'offset', false, true],
      ['/v2/projects/{project_id}/tasks', 'offset', false, true],
      ['/v2/tasks', 'offset', false, false],
    ]);
    expect(found[1]).toMatchObject({
      query: ['limit', 'offset', 'sort', 'q'],
      createExample: { name: 'Conformance check' },
      idSchema: { type: 'integer' },
    });
  });

  it('resolves $ref parameters and request bodies', () => {
    const document = {
      openapi: '3.1.0',
      paths: {
        '/v1/things': {
          get: { parameters: [{ $ref: '#/components/parameters/Cursor' }] },
          post: { requestBody: { $ref: '#/components/requestBodies/Thing' } },
        },
      },
      components: {
        parameters: { Cursor: { name: 'cursor', in: 'query' } },
        requestBodies: {
          Thing: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
        },
        schemas: { Thing: { type: 'object', example: { name: 'x' } } },
      },
    };
    expect(discoverCollections(document)).toEqual([
      {
        path: '/v1/things',
        pagination: 'cursor',
        query: ['cursor'],
        deprecated: false,
        creatable: true,
        createSchema: { type: 'object', example: { name: 'x' } },
        createExample: { name: 'x' },
      },
    ]);
  });

  it.each(['anyOf', 'oneOf'])(
    'a request body with %s alternatives is written in the first shape',
    (keyword) => {
      const document = {
        openapi: '3.1.0',
        paths: {
          '/things': {
            get: { parameters: [{ name: 'limit', in: 'query' }] },
            post: {
              requestBody: {
                content: {
                  'application/json': {
                    schema: { [keyword]: [{ $ref: '#/components/schemas/ThingV2' }, { type: 'object' }] },
                  },
                },
              },
            },
          },
        },
        components: { schemas: { ThingV2: { type: 'object', required: ['name'] } } },
      };
      expect(discoverCollections(document)[0]?.createSchema).toEqual({ type: 'object', required: ['name'] });
    },
  );
});

/** A one-collection document whose GET has `parameters` and answers 200 with `content`. */
function documentWith(parameters: unknown[], content: Record<string, unknown> = { 'application/json': {} }) {
  return {
    openapi: '3.1.0',
    paths: {
      '/projects': {
        get: {
          parameters: [{ name: 'limit', in: 'query' }, ...parameters],
          responses: { '200': { description: 'ok', content } },
        },
      },
      '/health': { get: { responses: { '200': { description: 'ok' } } } },
    },
    components: {
      parameters: { ApiVersion: { name: 'X-API-Version', in: 'header', description: 'The API version' } },
    },
  };
}

describe('the versioning strategy of a document, and the unknown-version request', () => {
  it.each([
    ['path segments only', documentWith([]), undefined],
    [
      'a version query parameter that says API',
      documentWith([{ name: 'version', in: 'query', description: 'The API version' }]),
      { strategy: 'query', name: 'version' },
    ],
    [
      'a version query parameter on half the operations',
      documentWith([{ name: 'api-version', in: 'query' }]),
      { strategy: 'query', name: 'api-version' },
    ],
    [
      'a version header, through $ref',
      documentWith([{ $ref: '#/components/parameters/ApiVersion' }]),
      { strategy: 'header', name: 'X-API-Version' },
    ],
    [
      'vendor media types in a response',
      documentWith([], { 'application/json': {}, 'application/vnd.acme.v2+json': {} }),
      { strategy: 'media-type', vendor: 'acme' },
    ],
  ] as const)('%s', (_name, document, carrier) => {
    expect(versionCarrierOf(document)).toEqual(carrier);
  });

  it.each([
    ['/v2/projects', undefined, { path: '/v9999/projects', headers: {} }],
    [
      '/api/v1/projects',
      { strategy: 'header', name: 'X-API-Version' },
      { path: '/api/v9999/projects', headers: {} },
    ],
    ['/2.0/repositories/{username}', undefined, { path: '/9999.0/repositories/{username}', headers: {} }],
    ['/v2.1/projects', undefined, { path: '/v9999/projects', headers: {} }],
    ['/projects', undefined, undefined],
    ['/projects', { strategy: 'query', name: 'version' }, { path: '/projects?version=9999', headers: {} }],
    [
      '/projects?limit=1',
      { strategy: 'query', name: 'v' },
      { path: '/projects?limit=1&v=9999', headers: {} },
    ],
    [
      '/projects',
      { strategy: 'header', name: 'X-API-Version' },
      { path: '/projects', headers: { 'X-API-Version': '9999' } },
    ],
    [
      '/projects',
      { strategy: 'media-type', vendor: 'acme' },
      { path: '/projects', headers: { Accept: 'application/vnd.acme.v9999+json' } },
    ],
  ] as const)('%s with %o → %o', (path, carrier, request) => {
    expect(unknownVersionRequest(path, carrier)).toEqual(request);
  });
});
