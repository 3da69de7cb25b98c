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
});
