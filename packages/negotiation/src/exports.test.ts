import { describe, expect, it } from 'vitest';

// Guards the public API: adding or removing an export must be a deliberate, reviewed change.
describe('public exports', () => {
  it('@plumbline/negotiation', async () => {
    expect(Object.keys(await import('./index.js')).sort()).toEqual([
      'LruCache',
      'MAX_ACCEPT_LENGTH',
      'checkRequestBody',
      'createNegotiator',
      'jsonSerializer',
      'xmlSerializer',
    ]);
  });

  it('@plumbline/negotiation/express', async () => {
    expect(Object.keys(await import('./express.js')).sort()).toEqual([
      'getNegotiation',
      'negotiate',
      'represent',
      'requireContentType',
    ]);
  });
});
