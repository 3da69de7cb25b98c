import { isNotModified } from './conditional.js';
import { entityTag } from './entity-tag.js';
import type { ContentNegotiator, Negotiation } from './negotiator.js';

/**
 * The `Vary` members every negotiated response carries; adapters merge them into the response's
 * `Vary` (with `mergeVary` of `@plumbline/errors`).
 *
 * @example
 * ```ts
 * reply.header('Vary', mergeVary(reply.getHeader('vary') as string | undefined, NEGOTIATION_VARY));
 * ```
 */
export const NEGOTIATION_VARY = 'Accept, Accept-Language';

/**
 * A representation, ready to send: set `headers` (merge `Vary`), answer with `status` and `body`.
 * `body` is `null` for statuses that cannot carry one (204, 205, 304), which then have no
 * `Content-Type` either.
 *
 * @example
 * ```ts
 * const response: RepresentationResponse = { status: 200, headers: { 'Content-Type': 'application/json; charset=utf-8' }, body: '{}' };
 * ```
 */
export interface RepresentationResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Uint8Array | null;
}

const NULL_BODY = new Set([204, 205, 304]);

/**
 * What every adapter's `represent` sends: `data` serialized in the negotiated type, with
 * `Content-Type`, `Content-Language`, `Vary: Accept, Accept-Language` and, for a 2xx with a body,
 * the representation's strong `ETag` ({@link entityTag}; adapters keep an `ETag` the route set).
 *
 * @example
 * ```ts
 * const result = negotiator.negotiate({ accept: 'application/xml' });
 * if (result.ok) representation(negotiator, result, { id: 1 }, 201);
 * // { status: 201, headers: { 'Content-Type': 'application/xml; charset=utf-8', 'Content-Language': 'en',
 * //   Vary: 'Accept, Accept-Language', ETag: '"…"' }, body: '<?xml version="1.0" encoding="UTF-8"?><data><id>1</id></data>' }
 * ```
 */
export function representation(
  negotiator: ContentNegotiator,
  negotiation: Negotiation,
  data: unknown,
  status = 200,
): RepresentationResponse {
  if (NULL_BODY.has(status)) {
    return {
      status,
      headers: { 'Content-Language': negotiation.language, Vary: NEGOTIATION_VARY },
      body: null,
    };
  }
  const { body, contentType, contentLanguage } = negotiator.serialize(negotiation, data);
  const headers: Record<string, string> = {
    'Content-Type': contentType,
    'Content-Language': contentLanguage,
    Vary: NEGOTIATION_VARY,
  };
  if (status >= 200 && status < 300) headers['ETag'] = entityTag(body, contentType, contentLanguage);
  return { status, headers, body };
}

/**
 * The strong `ETag` that `represent` would send for `data` in the negotiated type and language:
 * what a route's `current` validator returns so that a precondition compares against exactly the
 * tag the client got from GET (docs/design.md#d-conditional).
 *
 * @example
 * ```ts
 * const result = negotiator.negotiate({ accept: 'application/json' });
 * if (result.ok) representationTag(negotiator, result, { id: 1 }); // '"…"'
 * ```
 */
export function representationTag(
  negotiator: ContentNegotiator,
  negotiation: Negotiation,
  data: unknown,
): string {
  const { body, contentType, contentLanguage } = negotiator.serialize(negotiation, data);
  return entityTag(body, contentType, contentLanguage);
}

/**
 * Whether a request carries a body, from its headers: a `Transfer-Encoding`, or a positive
 * `Content-Length` (RFC 9112 section 6.3). What `checkRequestBody` needs as `hasBody`.
 *
 * @example
 * ```ts
 * requestHasBody(req.headers['content-length'], req.headers['transfer-encoding']); // true for '12'
 * ```
 */
export function requestHasBody(contentLength: unknown, transferEncoding: unknown): boolean {
  if (transferEncoding !== undefined && transferEncoding !== null) return true;
  return contentLength !== undefined && contentLength !== null && Number(contentLength) > 0;
}

// Shared by the adapters (not part of the public API).

type Header = (name: string) => string | undefined;

/**
 * What `represent` sends for this request: `response`, or, when {@link isNotModified} says so, a 304
 * with the same headers minus `Content-Type` and no body (RFC 9110 section 15.4.5). `requestHeader`
 * reads the request (lower-case names); `routeHeader` reads an `ETag` or `Last-Modified` the route
 * already set (it wins over the computed `ETag`), and is only called for a conditional request.
 */
export function notModifiedOr(
  response: RepresentationResponse,
  method: string,
  requestHeader: Header,
  routeHeader: Header,
): RepresentationResponse {
  const ifNoneMatch = requestHeader('if-none-match');
  const ifModifiedSince = requestHeader('if-modified-since');
  if (ifNoneMatch === undefined && ifModifiedSince === undefined) return response;
  const input = {
    method,
    status: response.status,
    ifNoneMatch,
    ifModifiedSince,
    etag: routeHeader('etag') ?? response.headers['ETag'],
    lastModified: routeHeader('last-modified'),
  };
  if (!isNotModified(input)) return response;
  const { 'Content-Type': _type, ...headers } = response.headers;
  return { status: 304, headers, body: null };
}
