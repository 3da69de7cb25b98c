/** GET /openapi.json is a valid OpenAPI 3.1 document (checked against the official schema). */
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, startService } from './harness.js';

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
});
