// What the README's "Where each adapter runs" table says, held to: the Hono adapter itself adds no Node-
// only API; the core's Node uses (node:crypto for signed cursors and the default secret, Buffer for
// base64url) are exactly the documented ones, so on Workers the package needs `nodejs_compat`. And
// frameworks are optional peers only.
import { frameworkPeerProblems, nodeOnlyUses } from '@plumbline/test-utils';
import { expect, it } from 'vitest';

it('the Node-only uses on the import graph of the core and the Hono adapter are the documented ones', () => {
  expect(nodeOnlyUses(new URL('../src/', import.meta.url), ['index.ts', 'hono.ts'])).toEqual([
    'collection.ts: from [\'"]node:',
    'collection.ts: \\bBuffer\\.',
    'parse.ts: \\bBuffer\\.',
    'cursor.ts: from [\'"]node:',
    'cursor.ts: \\bBuffer\\.',
  ]);
  expect(
    nodeOnlyUses(new URL('../src/', import.meta.url), ['hono.ts']).filter((use) => use.startsWith('hono.ts')),
  ).toEqual([]);
});

it('frameworks are optional peers only: installing one adapter never pulls in another framework', async () => {
  const manifest = (await import('../package.json', { with: { type: 'json' } })).default;
  expect(frameworkPeerProblems(manifest)).toEqual([]);
});
