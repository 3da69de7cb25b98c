/** What every adapter decides the same way when it mounts a compiled route. */

import type { Principal } from '@plumbline/auth';
import { HttpError } from '@plumbline/errors';
import type { Validators } from '@plumbline/negotiation';
import type { CompiledRoute } from './compile.js';
import { RouteDefinitionError } from './compile.js';
import type { BeforeInput, PreconditionSpec } from './route.js';
import type { ContractOptions, ContractRequest, ValidInput } from './run.js';

/**
 * The largest JSON body by default, in bytes: 1 MiB, express.json's `'1mb'`. Beyond it: 413.
 *
 * @example
 * ```ts
 * const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT; // 1_048_576
 * ```
 */
export const DEFAULT_BODY_LIMIT = 1_048_576;

/**
 * How one route is mounted: whether it takes idempotency keys (and must, and in which of the
 * mount's modes: `transaction` is the mount's `idempotencyTransaction`, else its `idempotency`
 * store) and 428 without a precondition.
 *
 * @example
 * ```ts
 * const plan: MountPlan = { idempotency: { required: true, transaction: false }, requirePrecondition: false };
 * ```
 */
export interface MountPlan {
  readonly idempotency: { readonly required: boolean; readonly transaction: boolean } | undefined;
  readonly requirePrecondition: boolean;
}

/**
 * The mount plan of a route. An idempotent route takes the mount's `idempotencyTransaction` when it
 * declares `transaction: true`, or leaves it out and the mount has one; else the `idempotency`
 * store. A route whose mode the mount does not configure is refused at start-up.
 *
 * @example
 * ```ts
 * const plan = mountPlan(compiled, options);
 * if (plan.idempotency?.transaction) chain.push(idempotencyTransaction({ ...options.idempotencyTransaction, required: plan.idempotency.required }));
 * else if (plan.idempotency) chain.push(idempotency({ ...options.idempotency, required: plan.idempotency.required }));
 * ```
 */
export function mountPlan(
  compiled: CompiledRoute,
  options: ContractOptions & { readonly idempotency?: unknown; readonly idempotencyTransaction?: unknown },
): MountPlan {
  const requirePrecondition = compiled.route.preconditions?.required ?? options.requirePreconditions ?? false;
  const declared = compiled.idempotency;
  if (declared === undefined) return { idempotency: undefined, requirePrecondition };
  const hasStore = options.idempotency !== undefined;
  const hasTransaction = options.idempotencyTransaction !== undefined;
  const transaction = declared.transaction ?? hasTransaction;
  if (transaction && !hasTransaction) {
    throw new RouteDefinitionError([
      `${compiled.name}: declares \`idempotent.transaction\`, but the mount has no \`idempotencyTransaction\``,
    ]);
  }
  if (!transaction && !hasStore) {
    throw new RouteDefinitionError([
      hasTransaction
        ? `${compiled.name}: declares \`idempotent.transaction: false\`, but the mount has no \`idempotency\` store`
        : `${compiled.name}: is idempotent, but the mount has no \`idempotency\` store (or \`idempotencyTransaction\`)`,
    ]);
  }
  return { idempotency: { required: declared.required, transaction }, requirePrecondition };
}

/**
 * Each mounted path (`:name` syntax) with the methods declared on it, in declaration order.
 *
 * @example
 * ```ts
 * for (const [path, methods] of pathsOf(compiled)) app.all(path, methodNotAllowed(methods));
 * // '/projects' → ['GET', 'POST'], '/projects/:id' → ['GET', 'PATCH', 'DELETE']
 * ```
 */
export function pathsOf(compiled: readonly CompiledRoute[]): Map<string, string[]> {
  const paths = new Map<string, string[]>();
  for (const c of compiled) {
    const methods = paths.get(c.colonPath) ?? [];
    methods.push(c.method);
    paths.set(c.colonPath, methods);
  }
  return paths;
}

/**
 * The `Accept-Patch` value of each mounted path (`:name` syntax) that has a PATCH route: that
 * route's body media types, in declared order. Empty with `acceptPatch: false`.
 *
 * @example
 * ```ts
 * acceptPatchOf(compiled, {}); // Map { '/projects/:id' => 'application/merge-patch+json, application/json' }
 * ```
 */
export function acceptPatchOf(
  compiled: readonly CompiledRoute[],
  options: { readonly acceptPatch?: boolean },
): ReadonlyMap<string, string> {
  const values = new Map<string, string>();
  if (options.acceptPatch === false) return values;
  for (const c of compiled) {
    if (c.method === 'PATCH' && c.body) values.set(c.colonPath, c.body.mediaTypes.join(', '));
  }
  return values;
}

/**
 * `Last-Modified` as epoch milliseconds from a string, Date or number.
 *
 * @example
 * ```ts
 * lastModifiedOf('2026-01-02T00:00:00.000Z'); // 1767312000000
 * lastModifiedOf('not a date'); // undefined
 * ```
 */
function lastModifiedOf(value: string | Date | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = value instanceof Date ? value.getTime() : typeof value === 'number' ? value : Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * The path parameters of a request whose path matches `colonPath` exactly, decoded; `undefined`
 * when it does not. Frameworks differ on what reaches a route: Express matches without regard to
 * case and to a trailing slash, Fastify hands `/projects/` to `/projects/:id` with an empty id, and
 * each decodes parameters its own way. Every adapter asks this instead, so `/PROJECTS`,
 * `/projects/` and `/projects/1/` are 404 everywhere and `%2F` is `/` everywhere.
 *
 * `rawPath` is the request path as sent (percent-encoding kept, no query). Only its last segments
 * are compared (as many as the template has): a prefix the app mounted the routes under was matched
 * by the framework. A parameter whose percent-encoding is not UTF-8 is a 400 `bad_request`, as
 * Express's router answers it.
 *
 * @example
 * ```ts
 * exactParams('/projects/:id', '/projects/a%20b'); // { id: 'a b' }
 * exactParams('/projects/:id', '/projects/2/'); // undefined: another path (404)
 * exactParams('/projects', '/PROJECTS'); // undefined
 * exactParams('/projects/:id', '/projects/%E0%A4%A'); // throws HttpError bad_request
 * ```
 */
export function exactParams(colonPath: string, rawPath: string): Record<string, string> | undefined {
  const template = colonPath.split('/').slice(1);
  const received = rawPath.split('/').slice(1);
  if (received.length < template.length) return undefined;
  const tail = received.slice(received.length - template.length);
  const params: Record<string, string> = {};
  for (let i = 0; i < template.length; i++) {
    const expected = template[i]!;
    const segment = tail[i]!;
    if (!expected.startsWith(':')) {
      if (segment !== expected) return undefined;
      continue;
    }
    if (segment === '') return undefined;
    try {
      params[expected.slice(1)] = decodeURIComponent(segment);
    } catch (cause) {
      throw new HttpError('bad_request', { cause });
    }
  }
  return params;
}

/**
 * What the steps of one request hand on to the next, in every adapter.
 *
 * @example
 * ```ts
 * const state: RouteState = { raw: { id: '7' }, params: { id: 7 } };
 * ```
 */
export interface RouteState {
  /** The path parameters as received (decoded), from {@link exactParams}. */
  raw?: Record<string, string>;
  params?: unknown;
  /** The parsed body, where the adapter reads it itself (Hono). */
  body?: unknown;
  /** Whether the body parser read a body with something in it (Express). */
  hasBody?: boolean;
  valid?: Omit<ValidInput, 'params'>;
  /** The request as the core read it for validation, reused by the handler step. */
  request?: ContractRequest;
  current?: unknown;
  /** What the mount's `context` option gave for this request. */
  context?: unknown;
}

// On the request object itself, not in a WeakMap: a WeakMap entry per request is an ephemeron the
// garbage collector must trace, and it measurably added GC time on every request.
const STATE = Symbol('@plumbline/contract.state');
type Carrier = { [STATE]?: RouteState };

/**
 * The state of one request, kept on the framework's request (or context) object.
 *
 * @example
 * ```ts
 * routeState(req).params = await validateParams(compiled, raw);
 * ```
 */
export function routeState(request: object): RouteState {
  const carrier = request as Carrier;
  let state = carrier[STATE];
  if (!state) {
    state = {};
    carrier[STATE] = state;
  }
  return state;
}

/**
 * The `current` of `@plumbline/negotiation`'s `conditional()` for a route's preconditions: loads the
 * target (kept in the state for the handler) and gives its validators, handing `load`, `represent`
 * and `modified` the mount's `context` for the request (`state.context`); `tagOf` is the adapter's
 * `entityTagOf` (the tag of the representation in the negotiated type and language).
 *
 * @example
 * ```ts
 * conditional({ current: (req, res) => loadCurrent(spec, routeState(req), getPrincipal(req), (d) => entityTagOf(res, d)) });
 * ```
 */
export async function loadCurrent(
  preconditions: PreconditionSpec<never, unknown>,
  state: RouteState,
  principal: Principal | undefined,
  tagOf: (representation: unknown) => string,
): Promise<Validators> {
  const { context } = state;
  const value = await preconditions.load({ params: state.params as never, principal, context });
  state.current = value;
  return {
    etag: tagOf(preconditions.represent(value, context)),
    lastModified: lastModifiedOf(preconditions.modified?.(value, context)),
  };
}

/**
 * Runs a route's `before` step (if it declares one) on the request as the adapter read it, before
 * the body; `undefined` when there is nothing to wait for, so adapters await only a real promise.
 * Adapters call it only for a route that has the step: the request is not read for the others.
 *
 * @example
 * ```ts
 * const pending = route.before ? runBefore(compiled, contractRequest(req), state.params) : undefined;
 * if (pending) await pending; // throws the step's HttpError
 * ```
 */
export function runBefore(
  compiled: CompiledRoute,
  request: ContractRequest,
  params: unknown,
): Promise<void> | undefined {
  const before = compiled.route.before as ((input: BeforeInput) => void | Promise<void>) | undefined;
  if (before === undefined) return undefined;
  const result = before({
    method: request.method,
    path: request.path,
    params,
    rawQuery: request.rawQuery,
    header: request.header,
    principal: request.principal,
    context: request.context,
  });
  return result instanceof Promise ? result : undefined;
}
