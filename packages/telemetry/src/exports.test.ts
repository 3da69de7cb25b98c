import { describe, expect, it } from 'vitest';

// Guards the public API: adding or removing an export must be a deliberate, reviewed change.
describe('public exports', () => {
  it('@plumbline/telemetry', async () => {
    expect(Object.keys(await import('./index.js')).sort()).toEqual([
      'DURATION_BUCKETS',
      'HTTP_ATTRIBUTES',
      'KNOWN_METHODS',
      'METRICS',
      'PLUMBLINE_ATTRIBUTES',
      'createTelemetry',
      'idempotencyOutcome',
      'problemErrorCode',
      'rateLimitPolicy',
      'rateLimitRemaining',
    ]);
  });

  it.each(['express', 'fastify', 'hono'])('@plumbline/telemetry/%s', async (adapter) => {
    expect(Object.keys(await import(`./${adapter}.ts`)).sort()).toEqual(['telemetry']);
  });
});
