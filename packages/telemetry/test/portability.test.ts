// The core and the Hono adapter must run on Workers, Deno and Bun: no Node-only API on their import graph.
import { frameworkPeerProblems, nodeOnlyUses } from '@plumbline/test-utils';
import { expect, it } from 'vitest';

it('the core and the Hono adapter use no Node-only API', () => {
  expect(nodeOnlyUses(new URL('../src/', import.meta.url), ['index.ts', 'hono.ts'])).toEqual([]);
});

it('frameworks are optional peers only: installing one adapter never pulls in another framework', async () => {
  const manifest = (await import('../package.json', { with: { type: 'json' } })).default;
  expect(frameworkPeerProblems(manifest)).toEqual([]);
});
