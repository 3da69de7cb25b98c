/**
 * The 406 of the negotiated version-neutral routes (pages/unversioned.ts), declared in the OpenAPI
 * document next to their other responses. Kept apart from openapi/document.ts, which builds everything else.
 */

type Json = Record<string, unknown>;

/** The neutral paths of the document whose GET negotiates `Accept` in front of its handler. */
const NEGOTIATED = [
  '/health',
  '/ready',
  '/openapi.json',
  '/.well-known/jwks.json',
  '/errors',
  '/errors/{error_code}',
  '/docs',
  '/docs/deprecations/v1',
  '/docs/sunset-policy',
  '/changelog',
  '/docs/changelog',
  '/metrics',
  '/',
];

/**
 * Adds `406` (the shared `Error406` response) to the GET operation of every negotiated neutral path
 * the document has; returns the document.
 *
 * @example
 * ```ts
 * return withUnversionedResponses(withFrontDoor(document));
 * ```
 */
export function withUnversionedResponses(document: Json): Json {
  const paths = document['paths'] as Record<string, Record<string, { responses?: Json }>>;
  for (const path of NEGOTIATED) {
    const get = paths[path]?.['get'];
    if (get === undefined) continue;
    get.responses = { ...get.responses, '406': { $ref: '#/components/responses/Error406' } };
  }
  return document;
}
