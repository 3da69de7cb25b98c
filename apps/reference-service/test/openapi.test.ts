/**
 * GET /openapi.json is a valid OpenAPI 3.1 document (checked against the official schema), and its
 * versioned operations are the route table's (api/routes/*.ts, the searches included).
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commentRoutes } from '../src/api/routes/comments.js';
import { projectRoutes } from '../src/api/routes/projects.js';
import { searchRoutes } from '../src/api/routes/searches.js';
import { taskRoutes } from '../src/api/routes/tasks.js';
import { type RunningService, startService } from './harness.js';

type Json = Record<string, unknown>;
type Operation = {
  operationId: string;
  security: Record<string, string[]>[];
  parameters?: ({ $ref: string } | { name: string; in: string })[];
};

describe('OpenAPI document', () => {
  let svc: RunningService;
  let document: Record<string, unknown>;
  beforeAll(async () => {
    svc = await startService({ name: 'sqlite + memory', postgres: false, redis: false });
    document = (await (await fetch(`${svc.url}/openapi.json`)).json()) as Record<string, unknown>;
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('validates against the OpenAPI 3.1 schema', async () => {
    const result = await new Validator().validate(document);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)?.slice(0, 2000)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document['openapi']).toBe('3.1.0');
  });

  it('documents both versions, v1 as deprecated, with the problem schema and security schemes', () => {
    const paths = document['paths'] as Record<
      string,
      Record<string, { deprecated?: boolean; responses: Record<string, unknown> }>
    >;
    expect(paths['/v1/projects']?.['get']?.deprecated).toBe(true);
    expect(paths['/v2/projects']?.['get']?.deprecated).toBeUndefined();
    expect(Object.keys(paths['/v2/projects']?.['post']?.responses ?? {})).toEqual(
      expect.arrayContaining(['201', '400', '401', '403', '409', '415', '422', '429']),
    );
    const components = document['components'] as Record<string, Record<string, unknown>>;
    expect(Object.keys(components['securitySchemes'] ?? {}).sort()).toEqual(['apiKey', 'bearer', 'oauth2']);
    expect(components['schemas']?.['Problem']).toMatchObject({
      required: expect.arrayContaining(['error_code', 'message']),
    });
  });

  it('every component schema declares its XML element, and every XML body refers to one', () => {
    const components = document['components'] as Record<string, Record<string, Record<string, unknown>>>;
    const schemas = components['schemas'] ?? {};
    const unnamed = Object.entries(schemas)
      .filter(([, schema]) => typeof (schema['xml'] as { name?: unknown } | undefined)?.name !== 'string')
      .map(([name]) => name);
    expect(unnamed).toEqual([]);
    const xmlBodies: string[] = [];
    const visit = (node: unknown, path: string) => {
      if (typeof node !== 'object' || node === null) return;
      for (const [key, child] of Object.entries(node)) {
        if (/^application\/(problem\+)?xml$/.test(key)) {
          const ref = (child as { schema?: { $ref?: string } }).schema?.$ref;
          xmlBodies.push(`${path} ${key} ${ref && schemas[ref.split('/').pop()!] ? 'named' : 'UNNAMED'}`);
        } else visit(child, `${path}/${key}`);
      }
    };
    visit(document['paths'], '');
    visit(components['responses'], '#responses');
    expect(xmlBodies.length).toBeGreaterThan(40);
    expect(xmlBodies.filter((entry) => entry.endsWith('UNNAMED'))).toEqual([]);
  });

  it('collections are pages of their own (<projects>, <tasks>, <comments>) with unwrapped items', () => {
    const schemas = (document['components'] as Record<string, Record<string, Record<string, unknown>>>)[
      'schemas'
    ]!;
    expect(
      Object.fromEntries(
        ['ProjectV1Page', 'ProjectV2Page', 'TaskPage', 'CommentPage'].map((name) => {
          const page = schemas[name] as { xml: { name: string }; properties: { data: { xml: unknown } } };
          return [name, [page.xml.name, page.properties.data.xml]];
        }),
      ),
    ).toEqual({
      ProjectV1Page: ['projects', { wrapped: false }],
      ProjectV2Page: ['projects', { wrapped: false }],
      TaskPage: ['tasks', { wrapped: false }],
      CommentPage: ['comments', { wrapped: false }],
    });
  });

  it.each<[string, string, string, string, string]>([
    // method, path, operationId, the oauth2 scope, the Idempotency-Key parameter
    ['get', '/v2/projects', 'v2_list_projects', 'read:projects', '-'],
    ['post', '/v2/projects', 'v2_create_project', 'write:projects', 'IdempotencyKeyRequired'],
    ['post', '/v2/projects/search', 'v2_search_projects', 'read:projects', 'IdempotencyKey'],
    ['get', '/v2/projects/{project_id}', 'v2_get_project', 'read:projects', '-'],
    ['put', '/v2/projects/{project_id}', 'v2_replace_project', 'write:projects', '-'],
    ['patch', '/v2/projects/{project_id}', 'v2_update_project', 'write:projects', '-'],
    ['delete', '/v2/projects/{project_id}', 'v2_delete_project', 'write:projects', '-'],
    ['get', '/v2/projects/{project_id}/tasks', 'v2_list_project_tasks', 'read:tasks', '-'],
    ['post', '/v2/projects/{project_id}/tasks', 'v2_create_task', 'write:tasks', 'IdempotencyKey'],
    [
      'post',
      '/v2/projects/{project_id}/tasks/search',
      'v2_search_project_tasks',
      'read:tasks',
      'IdempotencyKey',
    ],
    ['get', '/v2/projects/{project_id}/tasks/{task_id}', 'v2_get_project_task', 'read:tasks', '-'],
    ['put', '/v2/projects/{project_id}/tasks/{task_id}', 'v2_replace_project_task', 'write:tasks', '-'],
    ['patch', '/v2/projects/{project_id}/tasks/{task_id}', 'v2_update_project_task', 'write:tasks', '-'],
    ['delete', '/v2/projects/{project_id}/tasks/{task_id}', 'v2_delete_project_task', 'write:tasks', '-'],
    ['get', '/v2/tasks', 'v2_list_tasks', 'read:tasks', '-'],
    ['post', '/v2/tasks/search', 'v2_search_tasks', 'read:tasks', 'IdempotencyKey'],
    ['get', '/v2/tasks/{task_id}', 'v2_get_task', 'read:tasks', '-'],
    ['put', '/v2/tasks/{task_id}', 'v2_replace_task', 'write:tasks', '-'],
    ['patch', '/v2/tasks/{task_id}', 'v2_update_task', 'write:tasks', '-'],
    ['delete', '/v2/tasks/{task_id}', 'v2_delete_task', 'write:tasks', '-'],
    ['get', '/v2/tasks/{task_id}/comments', 'v2_list_comments', 'read:comments', '-'],
    ['post', '/v2/tasks/{task_id}/comments', 'v2_create_comment', 'write:comments', 'IdempotencyKey'],
    ['get', '/v2/tasks/{task_id}/comments/{comment_id}', 'v2_get_comment', 'read:comments', '-'],
    ['delete', '/v2/tasks/{task_id}/comments/{comment_id}', 'v2_delete_comment', 'write:comments', '-'],
  ])('%s %s: %s, scope %s, idempotency key %s', (method, path, operationId, scope, key) => {
    const operation = (document['paths'] as Record<string, Record<string, Operation>>)[path]?.[method];
    const refs = (operation?.parameters ?? []).flatMap((p) => ('$ref' in p ? [p.$ref.split('/').pop()] : []));
    expect([
      operation?.operationId,
      operation?.security,
      refs.find((name) => name?.startsWith('IdempotencyKey')) ?? '-',
    ]).toEqual([operationId, [{ apiKey: [] }, { bearer: [] }, { oauth2: [scope] }], key]);
  });

  it('every version documents exactly the routes of the table (api/routes/*.ts), each search after its collection', () => {
    const published = (path: string) =>
      path.replace(
        /\{([^}]+)\}/g,
        (_all, name: string) => `{${name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}}`,
      );
    const table = [...projectRoutes(svc.ctx), ...taskRoutes(svc.ctx), ...commentRoutes(svc.ctx)];
    const searches = searchRoutes(svc.ctx);
    // A search's path follows its collection's path (the last route on that path).
    const routes = table.flatMap((route, i) =>
      table[i + 1]?.path === route.path
        ? [route]
        : [route, ...searches.filter((search) => search.path === `${route.path}/search`)],
    );
    expect(routes.length).toBe(table.length + searches.length);
    const paths = document['paths'] as Record<string, Record<string, Operation>>;
    for (const version of ['1', '2', '3']) {
      const documented = Object.entries(paths)
        .filter(([path]) => path.startsWith(`/v${version}/`))
        .flatMap(([path, item]) =>
          Object.entries(item).map(([method, operation]) => [
            `${method.toUpperCase()} ${path.slice(`/v${version}`.length)}`,
            operation.security[2]?.['oauth2'],
          ]),
        );
      expect(documented).toEqual(
        routes.map((route) => [`${route.method} ${published(route.path)}`, route.scopes]),
      );
    }
  });

  it('Accept-Patch is declared on the answers of exactly the paths that send it: those that take a PATCH', async () => {
    const paths = document['paths'] as Record<string, Record<string, { responses: Record<string, Json> }>>;
    const id = '00000000-0000-4000-8000-000000000000';
    const seen: [string, boolean, boolean][] = [];
    for (const [path, item] of Object.entries(paths)) {
      if (!path.startsWith('/v2/') || item['get'] === undefined) continue;
      const declared = Object.hasOwn(item['get'].responses['200']?.['headers'] as Json, 'Accept-Patch');
      // A missing member (or parent) is a 404; the Accept-Patch of a member path comes before it.
      const res = await fetch(`${svc.url}${path.replace(/\{[a-z_]+\}/g, id)}`, {
        headers: { 'x-api-key': svc.credentials.apiKeys.readOnly },
      });
      seen.push([path, declared, res.headers.has('accept-patch')]);
    }
    expect(seen).toEqual([
      ['/v2/projects', false, false],
      ['/v2/projects/{project_id}', true, true],
      ['/v2/projects/{project_id}/tasks', false, false],
      ['/v2/projects/{project_id}/tasks/{task_id}', true, true],
      ['/v2/tasks', false, false],
      ['/v2/tasks/{task_id}', true, true],
      ['/v2/tasks/{task_id}/comments', false, false],
      ['/v2/tasks/{task_id}/comments/{comment_id}', false, false],
    ]);
  });
});
