import { describe, expect, it } from 'vitest';
import { goodOpenApi } from './__fixtures__/openapi.js';
import {
  DEFAULT_IGNORED_PATHS,
  discoverCollections,
  isCollectionPath,
  isIgnoredPath,
  parsePath,
} from './openapi.js';

describe('openapi helpers', () => {
  it.each([
    ['/v2/projects', '2', ['projects'], true],
    ['/api/v1/projects/{id}', '1', ['projects', '{id}'], false],
    ['/api/projects', undefined, ['api', 'projects'], true],
    ['/v2/tasks/search', '2', ['tasks', 'search'], false],
    ['/v2/projects/id-{id}', '2', ['projects', 'id-{id}'], false],
    ['/', undefined, [], false],
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
