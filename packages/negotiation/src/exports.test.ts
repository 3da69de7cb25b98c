import { describe, expect, it } from 'vitest';

// Guards the public API: adding or removing an export must be a deliberate, reviewed change.
describe('public exports', () => {
  it('@plumbline/negotiation', async () => {
    expect(Object.keys(await import('./index.js')).sort()).toEqual([
      'DEFAULT_JSON_BODY_LIMIT',
      'LruCache',
      'MAX_ACCEPT_LENGTH',
      'NEGOTIATION_VARY',
      'checkRequestBody',
      'createJsonBodyReader',
      'createNegotiator',
      'entityTag',
      'evaluatePreconditions',
      'isNotModified',
      'isNotModifiedResponse',
      'jsonSerializer',
      'parseEntityTags',
      'parseHttpDate',
      'representation',
      'representationTag',
      'requestHasBody',
      'xmlSerializer',
    ]);
  });

  it('@plumbline/negotiation/express', async () => {
    expect(Object.keys(await import('./express.js')).sort()).toEqual([
      'conditional',
      'entityTagOf',
      'getNegotiation',
      'getPreconditions',
      'negotiate',
      'notModified',
      'represent',
      'requireContentType',
    ]);
  });

  it('@plumbline/negotiation/fastify', async () => {
    expect(Object.keys(await import('./fastify.js')).sort()).toEqual([
      'conditional',
      'entityTagOf',
      'getPreconditions',
      'jsonBodyParser',
      'negotiation',
      'notModified',
      'requireContentType',
    ]);
  });

  it('@plumbline/negotiation/hono', async () => {
    expect(Object.keys(await import('./hono.js')).sort()).toEqual([
      'conditional',
      'entityTagOf',
      'getJsonBody',
      'getNegotiation',
      'getPreconditions',
      'jsonBody',
      'negotiate',
      'notModified',
      'represent',
      'requireContentType',
    ]);
  });
});
