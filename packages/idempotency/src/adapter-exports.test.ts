import { describe, expect, it } from 'vitest';

// Guards the Fastify and Hono subpaths (the Express one is in exports.test.ts).
describe('public exports of the Fastify and Hono adapters', () => {
  it('@plumbline/idempotency/fastify', async () => {
    expect(Object.keys(await import('./fastify.js')).sort()).toEqual([
      'getTransaction',
      'idempotency',
      'idempotencyTransaction',
    ]);
  });
  it('@plumbline/idempotency/hono', async () => {
    expect(Object.keys(await import('./hono.js')).sort()).toEqual([
      'getTransaction',
      'idempotency',
      'idempotencyTransaction',
    ]);
  });
});
