import { describe, expect, it } from 'vitest';

// Guards the public API: adding or removing an export must be a deliberate, reviewed change.
describe('public exports', () => {
  it('@plumbline/versioning', async () => {
    expect(Object.keys(await import('./index.js')).sort()).toEqual([
      'MAX_ACCEPT_LENGTH',
      'compareVersions',
      'createVersionPolicy',
      'formatDeprecation',
      'formatHttpDate',
      'parseVersion',
      'resolveVersion',
      'versionHeaders',
      'versionMediaType',
    ]);
  });

  it('@plumbline/versioning/express', async () => {
    expect(Object.keys(await import('./express.js')).sort()).toEqual([
      'getApiVersion',
      'getResolvedVersion',
      'versionedRouter',
      'versioning',
    ]);
  });
});
