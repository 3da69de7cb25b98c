import { describe, expect, it } from 'vitest';

// Guards the public API: adding or removing an export must be a deliberate, reviewed change.
describe('public exports', () => {
  it('@plumbline/versioning', async () => {
    expect(Object.keys(await import('./index.js')).sort()).toEqual([
      'MAX_ACCEPT_LENGTH',
      'changelog',
      'changelogMarkdown',
      'combineHeader',
      'compareVersions',
      'createRequestVersioning',
      'createVersionPolicy',
      'endpointAdded',
      'endpointRemoved',
      'enumValueAdded',
      'fieldBecameRequired',
      'fieldRenamed',
      'fieldShapeChanged',
      'formatDeprecation',
      'formatHttpDate',
      'isDateVersion',
      'parseVersion',
      'resolveVersion',
      'roundTrip',
      'versionChange',
      'versionHeaders',
      'versionMediaType',
      'versionTable',
      'versions',
    ]);
  });

  it('@plumbline/versioning/express', async () => {
    expect(Object.keys(await import('./express.js')).sort()).toEqual([
      'getApiVersion',
      'getResolvedVersion',
      'refuseVersion',
      'versionedRouter',
      'versioning',
    ]);
  });

  it('@plumbline/versioning/fastify', async () => {
    expect(Object.keys(await import('./fastify.js')).sort()).toEqual([
      'getApiVersion',
      'versionConstraint',
      'versioning',
    ]);
  });

  it('@plumbline/versioning/hono', async () => {
    expect(Object.keys(await import('./hono.js')).sort()).toEqual([
      'getApiVersion',
      'getResolvedVersion',
      'refuseVersion',
      'versioning',
    ]);
  });
});
