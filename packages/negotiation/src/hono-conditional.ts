/**
 * Hono adapter for conditional requests: `conditional()` middleware evaluating the preconditions
 * with the core's `evaluatePreconditions`, and `entityTagOf()` for the tag `represent` sends.
 * Nothing here needs Node.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { checkPreconditions, type PreconditionState, type Validators } from './conditional.js';

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
