import { describe, expect, it } from 'vitest';

// Guards the public API: adding or removing an export must be a deliberate, reviewed change.
describe('public exports', () => {
  it('@plumbline/cors', async () => {
    expect(Object.keys(await import('./index.js')).sort()).toEqual([
      'DEFAULT_ALLOW_HEADERS',
      'DEFAULT_EXPOSE_HEADERS',
      'DEFAULT_METHODS',
      'createCors',
    ]);
  });

  it.each(['express', 'fastify', 'hono'])('@plumbline/cors/%s', async (adapter) => {
    expect(Object.keys(await import(`./${adapter}.ts`)).sort()).toEqual(['cors']);
  });
});
