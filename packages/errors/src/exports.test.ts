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
    expect(Object.keys(await import('./fastify.js')).sort()).toEqual([
      'getRequestId',
      'methodNotAllowed',
      'plumblineErrors',
      'routeEveryMethod',
    ]);
  });

  it('@plumbline/errors/hono', async () => {
    expect(Object.keys(await import('./hono.js')).sort()).toEqual([
      'getRequestId',
      'methodNotAllowed',
      'plainResponse',
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
