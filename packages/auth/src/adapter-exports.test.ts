import { describe, expect, it } from 'vitest';

// Guards the Fastify and Hono subpaths (the Express one is in exports.test.ts): the same names as
// /express, so moving between frameworks changes imports, not code.
describe('public exports of the Fastify and Hono adapters', () => {
  it.each(['fastify', 'hono'])('@plumbline/auth/%s', async (adapter) => {
    expect(Object.keys(await import(`./${adapter}.ts`)).sort()).toEqual([
      'authenticate',
      'closeSessionEndpoint',
      'getPrincipal',
      'openSessionEndpoint',
      'requireHttps',
      'requireScopes',
      'revocationEndpoint',
      'tokenEndpoint',
    ]);
  });
});
