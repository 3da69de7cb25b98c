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
      'REPRESENTATION_HEADERS',
      'clientErrorCode',
      'codeForStatus',
      'createClientErrorResponder',
      'createMessageCatalogue',
      'createMethodGuard',
      'createProblemRenderer',
      'createRequestIdSource',
      'defaultCatalogue',
      'fillTemplate',
      'httpErrors',
      'isErrorCode',
      'isHttpError',
      'jsonPointer',
      'lookupLanguage',
      'mergeVary',
      'parseAcceptLanguage',
      'problemMediaType',
      'reasonPhrase',
      'renderProblem',
      'reportError',
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

  it('@plumbline/errors/fastify', async () => {
    expect(Object.keys(await import('./fastify.js')).sort()).toEqual(['getRequestId', 'plumblineErrors']);
  });

  it('@plumbline/errors/hono', async () => {
    expect(Object.keys(await import('./hono.js')).sort()).toEqual([
      'getRequestId',
      'methodNotAllowed',
      'problemDetails',
      'requestHeader',
      'requestPath',
      'responseParts',
      'sentHeaders',
      'setResponseHeaders',
      'withResponseHeaders',
    ]);
  });

  it('@plumbline/errors/node', async () => {
    expect(Object.keys(await import('./node.js')).sort()).toEqual(['clientErrorHandler']);
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
    // No adapter loads with the core, so installing one framework never needs another.
    expect(loaded.filter((file) => /(express|fastify|hono|node)\.cjs$/.test(file))).toEqual([]);
    const adapter = require(fileURLToPath(new URL('express.cjs', dist)));
    expect(adapter.problemMediaType('application/xml')).toBe('application/problem+xml');
  });

  it('the ESM entry points expose the same names as the sources', async () => {
    for (const entry of ['index', 'express', 'fastify', 'hono', 'node']) {
      const built = await import(fileURLToPath(new URL(`${entry}.mjs`, dist)));
      expect(Object.keys(built).sort()).toEqual(Object.keys(await import(`./${entry}.js`)).sort());
    }
  });
});
