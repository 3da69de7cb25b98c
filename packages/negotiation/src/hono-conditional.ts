/**
 * Hono adapter for conditional requests: `conditional()` middleware evaluating the preconditions
 * with the core's `evaluatePreconditions`, `entityTagOf()` for the tag `represent` sends, and
 * `notModified()`, the core's `isNotModifiedResponse` for every route. Nothing here needs Node.
 */
import { requestHeader } from '@plumbline/errors/hono';
import type { Context, MiddlewareHandler } from 'hono';
import {
  checkPreconditions,
  isNotModifiedResponse,
  type PreconditionState,
  type Validators,
} from './conditional.js';

export type { PreconditionState };

import { negotiatorOf } from './negotiator.js';
import { ROUTE_ETAG } from './negotiators.js';
import { representationTag } from './respond.js';

/**
 * Options of {@link conditional}: `current` loads the validators of the target resource
 * (`undefined` when it has no current representation; throw an `HttpError` such as 404 or 410 when
 * the request would fail without its preconditions); `requirePrecondition` answers an unsafe request
 * on an existing resource without `If-Match` or `If-Unmodified-Since` with 428.
 * @example
 * ```ts
 * const options: ConditionalOptions = { current: async (c) => store.validators(c.req.param('id')), requirePrecondition: true };
 * ```
 */
export interface ConditionalOptions {
  /** Loads the current validators of the target resource; `undefined` when it has none. */
  readonly current: (c: Context) => Validators | undefined | Promise<Validators | undefined>;
  /** Answer 428 to an unsafe request on an existing resource without If-Match or If-Unmodified-Since. */
  readonly requirePrecondition?: boolean;
}

const CHECKED = new WeakMap<Request, PreconditionState>();

/**
 * Middleware for conditional requests (RFC 9110 section 13): loads the current validators,
 * answers 304 (GET/HEAD), throws 412 `precondition_failed` or 428 `precondition_required` for
 * `problemDetails().onError` of `@plumbline/errors/hono`, or lets the request through; a GET that
 * proceeds gets the current `ETag` and `Last-Modified`.
 * @example
 * ```ts
 * const preconditions = conditional({ current: async (c) => ({ etag: entityTagOf(c, await load(c.req.param('id'))) }) });
 * app.put('/projects/:id', preconditions, async (c) => represent(c, await save(await c.req.json())));
 * ```
 */
export function conditional(options: ConditionalOptions): MiddlewareHandler {
  const { current, requirePrecondition = false } = options;
  return async (c, next) => {
    const step = checkPreconditions(
      c.req.method,
      (name) => c.req.header(name),
      await current(c),
      requirePrecondition,
    );
    if (step.outcome === 'failed') throw step.error;
    for (const [name, value] of Object.entries(step.headers)) c.header(name, value);
    if (step.outcome === 'not-modified') return c.body(null, 304);
    if (step.headers['ETag'] !== undefined) ROUTE_ETAG.add(c.req.raw);
    CHECKED.set(c.req.raw, step.state);
    await next();
    return undefined;
  };
}

/**
 * What {@link conditional} decided for this request, or `undefined` when it did not run.
 * @example
 * ```ts
 * if (getPreconditions(c)?.conditional) await store.updateIfUnchanged(id, data, version);
 * ```
 */
export function getPreconditions(c: Context): PreconditionState | undefined {
  return CHECKED.get(c.req.raw);
}

/**
 * The strong `ETag` that `represent(c, data)` would send: use it as the `current` tag so a
 * precondition compares with what GET gave the client. Needs `negotiate()` first.
 * @example
 * ```ts
 * conditional({ current: async (c) => ({ etag: entityTagOf(c, await load(c.req.param('id'))) }) });
 * ```
 */
export function entityTagOf(c: Context, data: unknown): string {
  const negotiation = c.get('negotiation');
  const negotiator = negotiatorOf(negotiation);
  if (!negotiator || !negotiation) throw new Error('entityTagOf() needs the negotiate() middleware first');
  return representationTag(negotiator, negotiation, data);
}

/**
 * The byte length of a body that is all there already (a string, bytes, a stream that has finished),
 * read from a copy within one turn of the event loop; `undefined` for a stream still producing (an
 * event stream, say), which is then not waited for.
 */
async function heldLength(res: Response): Promise<number | undefined> {
  const reader = res.clone().body!.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const later = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), 0);
  });
  let length = 0;
  try {
    for (;;) {
      const chunk = await Promise.race([reader.read(), later]);
      if (chunk === undefined) return undefined;
      if (chunk.done) return length;
      length += chunk.value.byteLength;
    }
  } finally {
    clearTimeout(timer);
    reader.cancel().catch(() => {});
  }
}

/**
 * Middleware that gives every route the 304 `represent` gives its own: after the handler, a GET or
 * HEAD answered 200 whose `If-None-Match` matches the `ETag` the route set (weak comparison, `*`
 * matches), or without `If-None-Match`, whose `If-Modified-Since` is not earlier than its
 * `Last-Modified` (the core's `isNotModifiedResponse`), becomes a 304 with no body and without
 * `Content-Type`, `Content-Length` and `Transfer-Encoding`; every other header stays. The same status,
 * headers and empty body as `notModified(app)` on Express and the `notModified` plugin on Fastify. Use it
 * first (`app.use(notModified())` before other middleware), so it sees the final response.
 *
 * It also gives a HEAD answer without `Content-Length` the length of the GET's body, when that body
 * is all there (a string or bytes, as `c.json()`, `c.text()` and `c.body()` make it; a stream still
 * producing is not waited for). Hono answers HEAD by running the GET route and dropping the body
 * before the server sees it, so `@hono/node-server` cannot count it as Node counts it for Express
 * and Fastify: without this, a HEAD there has no `Content-Length` where the other two send the GET's.
 * @example
 * ```ts
 * app.use(notModified());
 * app.get('/report', (c) => {
 *   c.header('ETag', '"r42"');
 *   c.header('Cache-Control', 'no-cache');
 *   return c.json(report); // 304 to If-None-Match: "r42"
 * });
 * ```
 */
export function notModified(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const { method } = c.req;
    if (method !== 'GET' && method !== 'HEAD') return;
    const res = c.res;
    const conditions = {
      'if-none-match': requestHeader(c, 'if-none-match'),
      'if-modified-since': requestHeader(c, 'if-modified-since'),
    };
    if (isNotModifiedResponse(method, res.status, conditions, (name) => res.headers.get(name))) {
      const headers = new Headers(res.headers);
      for (const name of ['content-type', 'content-length', 'transfer-encoding']) headers.delete(name);
      // The body is not sent: a stream is closed (a file it reads is let go).
      res.body?.cancel().catch(() => {});
      // Unset first: Hono would otherwise merge the old response's headers back in.
      c.res = undefined;
      c.res = new Response(null, { status: 304, headers });
    } else if (
      method === 'HEAD' &&
      res.body !== null &&
      !res.bodyUsed &&
      !res.headers.has('content-length')
    ) {
      const length = await heldLength(res);
      try {
        if (length !== undefined) res.headers.set('Content-Length', String(length));
      } catch {
        // Immutable headers (a Response from fetch()): it goes out as it came.
      }
    }
  };
}
