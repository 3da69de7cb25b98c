import { describe, expect, it } from 'vitest';

// Guards the Fastify and Hono subpaths (the Express one is in exports.test.ts).
describe('public exports of the Fastify and Hono adapters', () => {
  it('@plumbline/contract/fastify', async () => {
    expect(Object.keys(await import('./fastify.js')).sort()).toEqual(['mount']);
  });
  it('@plumbline/contract/hono', async () => {
    expect(Object.keys(await import('./hono.js')).sort()).toEqual(['mount']);
  });
});
