import { describe, expect, it } from 'vitest';

// Guards the public API: adding or removing an export must be a deliberate, reviewed change.
describe('public exports', () => {
  it('@plumbline/contract', async () => {
    expect(Object.keys(await import('./index.js')).sort()).toEqual([
      'RouteDefinitionError',
      'compileRoutes',
      'defaultOperationId',
      'isStandardSchema',
      'jsonSchemaOf',
      'parseSearch',
      'respond',
      'route',
      'toOpenApi',
      'validateParams',
      'validateRequest',
    ]);
  });

  it('@plumbline/contract/express', async () => {
    expect(Object.keys(await import('./express.js')).sort()).toEqual(['mount']);
  });
});
