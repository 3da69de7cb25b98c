import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Guards the public API: adding or removing an export must be a deliberate, reviewed change.
describe('public exports', () => {
  it('@plumbline/errors', async () => {
    expect(Object.keys(await import('./index.js')).sort()).toEqual([
      'BUILTIN_MESSAGES',
      'ERROR_CODES',
      'ERROR_STATUS',
      'HttpError',
      'MAX_ACCEPT_LANGUAGE_LENGTH',
      'PROBLEM_JSON',
      'PROBLEM_XML',
      'PROBLEM_XML_NAMESPACE',
      'codeForStatus',
      'createMessageCatalogue',
      'defaultCatalogue',
      'fillTemplate',
      'httpErrors',
      'isErrorCode',
      'isHttpError',
      'lookupLanguage',
      'parseAcceptLanguage',
      'serializeProblem',
      'toHttpError',
      'toProblem',
      'toXml',
      'wantsXml',
      'xmlName',
    ]);
  });

  it('@plumbline/errors/express', async () => {
    expect(Object.keys(await import('./express.js')).sort()).toEqual([
      'asyncHandler',
      'errorHandler',
      'getRequestId',
      'methodNotAllowed',
      'notFoundHandler',
      'problemMediaType',
      'requestId',
    ]);
  });
});

// The published build, as `require`/`import` see it. `pnpm test` builds first; locally without a
// build these are skipped, in CI they must run.
const dist = new URL('../dist/', import.meta.url);
const built = existsSync(new URL('index.cjs', dist));

describe.skipIf(!built && process.env['CI'] !== 'true')('published build', () => {
  it('the CJS core loads without the Express adapter and exposes every export', () => {
    const require = createRequire(import.meta.url);
    const core = require(fileURLToPath(new URL('index.cjs', dist)));
    expect(core.PROBLEM_JSON).toBe('application/problem+json');
    const loaded = Object.keys(require.cache).filter((file) => file.startsWith(fileURLToPath(dist)));
    expect(loaded.some((file) => file.endsWith('express.cjs'))).toBe(false);
    const adapter = require(fileURLToPath(new URL('express.cjs', dist)));
    expect(adapter.problemMediaType('application/xml')).toBe('application/problem+xml');
  });

  it('the ESM entry points expose the same names as the sources', async () => {
    const [core, adapter] = await Promise.all([
      import(fileURLToPath(new URL('index.mjs', dist))),
      import(fileURLToPath(new URL('express.mjs', dist))),
    ]);
    expect(Object.keys(core).sort()).toEqual(Object.keys(await import('./index.js')).sort());
    expect(Object.keys(adapter).sort()).toEqual(Object.keys(await import('./express.js')).sort());
  });
});
