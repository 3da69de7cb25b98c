/**
 * Hono adapter for @plumbline/negotiation (Hono 4 on Node, Bun, Deno and Workers): `negotiate()`
 * middleware, `represent(c, data)`, `requireContentType()`, and `jsonBody()`, express.json's JSON
 * bodies (read with `getJsonBody(c)`). The core decides everything; nothing here needs Node.
 * @packageDocumentation
 */
import { HttpError } from '@plumbline/errors';
import { requestHeader, setResponseHeaders, withResponseHeaders } from '@plumbline/errors/hono';
import type { Context, MiddlewareHandler } from 'hono';
import { createJsonBodyReader, type JsonBodyOptions } from './json-body.js';
import { createNegotiator, type Negotiation, type NegotiatorOptions, negotiatorOf } from './negotiator.js';
import { ROUTE_ETAG } from './negotiators.js';
import { checkRequestBody } from './request-body.js';
import { NEGOTIATION_VARY, notModifiedOr, representation, requestHasBody } from './respond.js';

declare module 'hono' {
  interface ContextVariableMap {
    /** Set by `negotiate()` of `@plumbline/negotiation/hono`. */
    negotiation: Negotiation;
  }
}

const VARY_ONLY = Object.freeze({ Vary: NEGOTIATION_VARY });

/**
 * Options for {@link negotiate}: the core options of `createNegotiator`.
 * @example
 * ```ts
 * const options: NegotiateOptions = { languages: ['en', 'de'] };
 * ```
 */
export type NegotiateOptions = NegotiatorOptions;

/**
 * Negotiates type and language once per request (the core's `createNegotiator`), merges
 * `Accept, Accept-Language` into `Vary`, sets `Content-Language` and `c.var.negotiation`. No
 * acceptable type throws a 406 `not_acceptable` for `problemDetails().onError` of
 * `@plumbline/errors/hono`.
 * @example
 * ```ts
 * app.use('/projects/*', negotiate({ languages: ['en', 'de'] }));
 * app.get('/projects/:id', (c) => represent(c, { id: c.req.param('id') }));
 * ```
 */
export function negotiate(options: NegotiateOptions = {}): MiddlewareHandler {
  const negotiator = createNegotiator(options);
  return (c, next) => {
    const result = negotiator.negotiate({
      accept: requestHeader(c, 'accept'),
      acceptLanguage: requestHeader(c, 'accept-language'),
    });
    // Where headers go (Node's response on @hono/node-server, so c.json() keeps the server's fast
    // path) is decided by @plumbline/errors/hono, which also merges Vary with other middleware's.
    if (!result.ok) {
      setResponseHeaders(c, VARY_ONLY);
      throw result.error;
    }
    c.set('negotiation', result);
    return withResponseHeaders(c, { Vary: NEGOTIATION_VARY, 'Content-Language': result.language }, next);
  };
}

/**
 * The decision {@link negotiate} made, or `undefined` when it did not run.
 * @example
 * ```ts
 * const language = getNegotiation(c)?.language;
 * ```
 */
export function getNegotiation(c: Context): Negotiation | undefined {
  return c.get('negotiation');
}

/**
 * A `Response` with `data` in the negotiated type, `Content-Type`, `Content-Language` and `Vary`.
 * Throws (a 500) when {@link negotiate} did not run: a wiring mistake, not a client error.
 * @example
 * ```ts
 * app.post('/projects', async (c) => represent(c, await create(await c.req.json()), 201));
 * ```
 */
export function represent(c: Context, data: unknown, status = 200): Response {
  const negotiation = c.get('negotiation');
  const negotiator = negotiatorOf(negotiation);
  if (!negotiation || !negotiator) throw new Error('represent() needs the negotiate() middleware first');
  const response = notModifiedOr(
    representation(negotiator, negotiation, data, status),
    c.req.method,
    (name) => c.req.header(name),
    // Read only for a conditional request: c.res costs an extra Response.
    (name) =>
      name === 'etag' && !ROUTE_ETAG.has(c.req.raw) ? undefined : (c.res.headers.get(name) ?? undefined),
  );
  // Vary was added by negotiate(); the rest describes this representation. An ETag set by the route
  // (conditional() on a GET) stays.
  for (const [name, value] of Object.entries(response.headers)) {
    if (name !== 'Vary' && !(name === 'ETag' && ROUTE_ETAG.has(c.req.raw))) c.header(name, value);
  }
  const { body } = response;
  if (body === null) c.header('Content-Type', undefined);
  return body === null ? c.body(null, response.status as 204) : c.body(body as string, status as 200);
}

/**
 * Answers a body whose Content-Type is missing or not one of `types` with 415
 * `unsupported_media_type` (and `Accept-Post` / `Accept-Patch` / `Accept`). Requests without a body
 * pass. Invalid types throw at start-up.
 * @example
 * ```ts
 * app.post('/projects', requireContentType('application/json'), create);
 * ```
 */
export function requireContentType(...types: readonly string[]): MiddlewareHandler {
  const accepted = Object.freeze([...types]);
  checkRequestBody({ contentType: undefined, hasBody: false, method: 'GET', accepted });
  return async (c, next) => {
    const result = checkRequestBody({
      contentType: c.req.header('content-type'),
      hasBody: requestHasBody(c.req.header('content-length'), c.req.header('transfer-encoding')),
      method: c.req.method,
      accepted,
    });
    if (!result.ok) throw result.error;
    await next();
  };
}

// The parsed body, on the context itself (as the contract keeps its state: no WeakMap entry per request).
const JSON_BODY = Symbol('@plumbline/negotiation.jsonBody');
type BodyCarrier = { [JSON_BODY]?: unknown };

/**
 * Reads a JSON request body as `express.json({ strict: true, inflate: false, type: types, limit })`
 * does, with the same answers: a body of one of `types` is parsed strictly (an object or an array;
 * an empty body is `{}`) and kept for {@link getJsonBody}; a charset other than UTF-8 or a
 * `Content-Encoding` is 415 `unsupported_media_type`, more than `limit` bytes 413
 * `payload_too_large` (a declared `Content-Length` before any byte is kept, a chunked body counted
 * as it arrives; the rest is read and dropped before the answer, as body-parser does), anything but
 * strict JSON 400 `malformed_json`, thrown for `problemDetails().onError` of `@plumbline/errors/hono`.
 * Every other body is left unread, as express.json leaves it; put {@link requireContentType} first
 * to refuse it with 415 as on Express. The bytes read stay readable: `c.req.text()`,
 * `c.req.arrayBuffer()` and `c.req.json()` (and Hono's `validator('json')`) give them again. A
 * request has a body when it has a `Transfer-Encoding` or a numeric `Content-Length`, as
 * body-parser decides it. Invalid `types` or `limit` throw here, at start-up.
 *
 * @example
 * ```ts
 * const types = ['application/merge-patch+json', 'application/json'];
 * app.patch('/projects/:id', requireContentType(...types), jsonBody({ types, limit: 65_536 }), (c) =>
 *   represent(c, update(c.req.param('id'), getJsonBody(c))),
 * );
 * ```
 */
export function jsonBody(options: JsonBodyOptions = {}): MiddlewareHandler {
  const reader = createJsonBodyReader(options);
  return async (c, next) => {
    const { req } = c;
    const transferEncoding = req.header('transfer-encoding');
    const contentLength = req.header('content-length');
    // A declared length within the limit (start() refuses a longer one before any byte): the body is
    // read whole through Hono, which keeps it for c.req.text() and json(). On @hono/node-server that
    // reads Node's stream directly; opening the Web stream (c.req.raw.body) instead cost a POST
    // about 700,000 instructions more (pnpm bench:guard, hono/contract-post).
    if (transferEncoding === undefined && contentLength !== undefined) {
      const decision = reader.start({
        contentType: req.header('content-type'),
        contentLength,
        transferEncoding,
        contentEncoding: req.header('content-encoding'),
      });
      if (decision.action === 'read') {
        let text: string;
        try {
          // UTF-8, one leading byte order mark dropped: what parse() would decode from the bytes.
          text = await req.text();
        } catch (cause) {
          // The client went away in the middle of the body (body-parser's `request.aborted`).
          throw new HttpError('bad_request', { cause });
        }
        (c as unknown as BodyCarrier)[JSON_BODY] = reader.parseText(text);
        await next();
        return;
      }
    }
    // Chunked bodies are counted as they arrive; refusals drain what is still coming.
    const result = await reader.read(c.req.raw);
    if (result.read) {
      (c as unknown as BodyCarrier)[JSON_BODY] = result.value;
      const { bytes } = result;
      const exact =
        bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
      // Hono's own body cache: c.req.text(), json() and arrayBuffer() read from it once the stream is used.
      (c.req.bodyCache as Record<string, unknown>)['arrayBuffer'] = Promise.resolve(exact.buffer);
    }
    await next();
  };
}

/**
 * The body {@link jsonBody} read (an object or an array, `{}` for an empty body); `undefined` when
 * the request had no JSON body or `jsonBody()` did not run. Validate it before use: it is what the
 * client sent.
 *
 * @example
 * ```ts
 * app.post('/projects', requireContentType('application/json'), jsonBody(), (c) => {
 *   const body = getJsonBody(c) as { name?: unknown };
 *   return represent(c, { id: 8, name: String(body.name) }, 201);
 * });
 * ```
 */
export function getJsonBody(c: Context): unknown {
  return (c as unknown as BodyCarrier)[JSON_BODY];
}

export {
  type ConditionalOptions,
  conditional,
  entityTagOf,
  getPreconditions,
  notModified,
  type PreconditionState,
} from './hono-conditional.js';
export type { JsonBodyOptions } from './json-body.js';
