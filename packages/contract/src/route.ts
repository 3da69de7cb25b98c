/**
 * A route is data: method, path template, the schemas of every input, the declared responses, the
 * conventions it opts into (scopes, idempotency, preconditions, a collection query) and the handler.
 * `route()` only checks and freezes the definition; adapters mount it and `toOpenApi()` describes it.
 */
import type { Principal } from '@plumbline/auth';
import type { Collection, CollectionQuery } from '@plumbline/query-parser';
import type { AnySchema, InputOf, OutputOf } from './schema.js';

/**
 * The methods a route can declare (HEAD follows GET; OPTIONS and 405 are the adapters').
 *
 * @example
 * ```ts
 * const method: RouteMethod = 'PATCH';
 * ```
 */
export type RouteMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * A declared response: a body schema (absent for 204 and 304), a description, response headers.
 *
 * @example
 * ```ts
 * const created: ResponseSpec = { description: 'The new project', body: Project, headers: { Location: { description: 'Its URL' } } };
 * ```
 */
export interface ResponseSpec<S extends AnySchema | undefined = AnySchema | undefined> {
  readonly description?: string;
  /** What the body looks like; checked against what the handler returns when response validation is on. */
  readonly body?: S;
  /** Headers this response carries besides the conventions' own (documented, not checked). */
  readonly headers?: Readonly<
    Record<string, { readonly description: string; readonly schema?: Record<string, unknown> }>
  >;
}

/**
 * The responses of a route by status: a schema (shorthand for `{ body }`), a spec, or `null` for no body.
 *
 * @example
 * ```ts
 * const responses: Responses = { 200: Project, 202: { description: 'Queued' }, 204: null };
 * ```
 */
export type Responses = Readonly<Record<number, AnySchema | ResponseSpec | null>>;

/**
 * A request body: one schema for the media types the route accepts (default `application/json`).
 *
 * @example
 * ```ts
 * const body: BodySpec = { schema: ProjectPatch, mediaTypes: ['application/merge-patch+json', 'application/json'] };
 * ```
 */
export interface BodySpec<S extends AnySchema = AnySchema> {
  readonly schema: S;
  /** Accepted request media types, in preference order (415 for anything else). */
  readonly mediaTypes?: readonly string[];
  readonly description?: string;
}

/**
 * Preconditions (RFC 9110 section 13) on a member: how to load it and what a GET would send for it.
 * Each function also gets what the mount's `context` option gave for the request (`undefined`
 * without it), so a representation that depends on the request (the API version a router serves,
 * a tenant) gets the entity tag of what that request is sent.
 *
 * @example
 * ```ts
 * const preconditions: PreconditionSpec<{ id: number }, Project> = {
 *   load: ({ params }) => projects.get(params.id),
 *   represent: (project, context) => ((context as { version: number }).version === 1 ? v1(project) : project),
 *   modified: (project) => project.updated_at,
 *   required: true,
 * };
 * ```
 */
export interface PreconditionSpec<P, T> {
  /** Loads the target; throw an `HttpError` (404, 410) when there is none. `context`: the mount's, for this request. */
  readonly load: (input: {
    readonly params: P;
    readonly principal: Principal | undefined;
    readonly context: unknown;
  }) => Promise<T> | T;
  /** The representation a GET sends for the loaded value, for this request's `context`: its entity tag is the `ETag`. */
  readonly represent: (value: T, context: unknown) => unknown;
  /** `Last-Modified` of the loaded value (RFC 3339 string, Date or epoch milliseconds), for this request's `context`. */
  readonly modified?: (value: T, context: unknown) => string | Date | number | undefined;
  /** Unsafe methods without `If-Match`/`If-Unmodified-Since` get 428 (default: the mount option, else false). */
  readonly required?: boolean;
}

/**
 * Idempotency (`Idempotency-Key`) for a POST: optional or required key, and which of the mount's
 * modes keeps the keys. `transaction: true` runs the handler inside the mount's
 * `idempotencyTransaction` (the key and the response are written in the handler's own database
 * transaction, which it reaches as `input.transaction`); `transaction: false` uses the mount's
 * `idempotency` store; left out, the route takes `idempotencyTransaction` when the mount has one,
 * else the store.
 *
 * @example
 * ```ts
 * const idempotent: IdempotencySpec = { required: true }; // 400 idempotency_key_missing without a key
 * const search: IdempotencySpec = { transaction: false }; // a search POST: the shared store is enough
 * const create: IdempotencySpec = { required: true, transaction: true }; // exactly once, in the row's transaction
 * ```
 */
export type IdempotencySpec =
  | boolean
  | {
      /** Without an `Idempotency-Key` the request is 400 `idempotency_key_missing` (default false). */
      readonly required?: boolean;
      /** `true`: the mount's `idempotencyTransaction`; `false`: its `idempotency` store (default: the transaction when mounted with one). */
      readonly transaction?: boolean;
    };

/**
 * A collection route whose rows belong to a parent (`GET /projects/{projectId}/tasks`): the
 * query-parser collection and its server-side `scope`, equality filters on declared fields made
 * from the validated path parameters (and the caller). The scope is AND-ed into the handler's
 * `query` (`query.scope`: `applyToArray` and `toSql` apply it), bound into its cursors (a cursor
 * made under one parent is 400 `invalid_cursor` under another), and never written into links or
 * the OpenAPI document. A scope value that cannot be of its field's type is 404 `not_found`.
 *
 * @example
 * ```ts
 * const collection: ScopedCollection<typeof tasks, { projectId: number }> = {
 *   definition: tasks,
 *   scope: ({ params }) => ({ project_id: params.projectId }),
 * };
 * ```
 */
export interface ScopedCollection<C = Collection, P = unknown> {
  /** The query-parser collection: filters, sort, search, fields and pages. */
  readonly definition: C;
  /** The server-side equality filters of this request, by field name (fields need not be filterable). */
  readonly scope: (input: {
    readonly params: P;
    readonly principal: Principal | undefined;
  }) => Readonly<Record<string, unknown>>;
}

/**
 * What a route's {@link RouteDefinition.before} step sees: the request before its body is read,
 * with the path parameters through their schema.
 *
 * @example
 * ```ts
 * const before = async ({ params }: BeforeInput<{ projectId: number }>) => {
 *   if (!(await projects.exists(params.projectId))) throw new HttpError('not_found');
 * };
 * ```
 */
export interface BeforeInput<P = unknown> {
  readonly method: string;
  /** The request path as received (without the query string). */
  readonly path: string;
  /** The path parameters, the output of the `params` schema. */
  readonly params: P;
  /** The raw query string without `?`, as sent (the mount's `ignoredParameters` included). */
  readonly rawQuery: string;
  /** A request header by lower-case name (repeated lines joined with ", "). */
  readonly header: (name: string) => string | undefined;
  /** Who is calling (set by `@plumbline/auth`'s `authenticate()`), if anyone. */
  readonly principal: Principal | undefined;
  /** What the mount's `context` option gave for this request (`undefined` without it). */
  readonly context: unknown;
}

/**
 * What the handler gets for an optional schema: its output, or `undefined` when none is declared.
 *
 * @example
 * ```ts
 * type P = OutputOrUndefined<typeof Params>; // { id: number }
 * ```
 */
export type OutputOrUndefined<S> = [S] extends [AnySchema] ? OutputOf<S> : undefined;
/**
 * The handler's `query`: the collection query of a collection route, else the query schema's output.
 *
 * @example
 * ```ts
 * type Q = HandlerQuery<undefined, typeof tasks>; // CollectionQuery<'id' | 'title' | ...>
 * ```
 */
export type HandlerQuery<Q, C> = [C] extends [Collection<infer F>]
  ? CollectionQuery<F>
  : OutputOrUndefined<Q>;

/**
 * What a handler receives: every input parsed by its schema, typed from the schemas.
 *
 * @example
 * ```ts
 * type RenameInput = HandlerInput<{ id: number }, undefined, undefined, { name: string }>;
 * async function rename({ params, body, principal }: RenameInput) {
 *   return { status: 200 as const, body: await projects.rename(params.id, body.name, principal?.clientId) };
 * }
 * ```
 */
export interface HandlerInput<P = unknown, Q = unknown, H = unknown, B = unknown, T = unknown> {
  readonly method: string;
  /** The request path as received (without the query string). */
  readonly path: string;
  readonly params: P;
  /** The parsed query: the schema's output, or the collection query of a collection route. */
  readonly query: Q;
  readonly headers: H;
  readonly body: B;
  /** Who is calling (set by `@plumbline/auth`'s `authenticate()`), if anyone. */
  readonly principal: Principal | undefined;
  /** The value `preconditions.load` returned, after the preconditions held. */
  readonly current: T;
  /** Whether the client sent a precondition that held (If-Match, If-Unmodified-Since). */
  readonly conditional: boolean;
  /**
   * The open database transaction of the mount's `idempotencyTransaction` (what its `transaction`
   * option hands to `work`), when this route runs in it and the request carries a key; write the
   * side effect through it, so it commits with the key or not at all. `undefined` otherwise.
   */
  readonly transaction: unknown;
  /** What the mount's `context` option gave for this request (`undefined` without it). */
  readonly context?: unknown;
}

/**
 * The body a reply of a declared response carries: what its schema accepts.
 *
 * @example
 * ```ts
 * type B = ReplyBody<typeof Project>; // { id: number; name: string }
 * ```
 */
export type ReplyBody<S> = S extends AnySchema
  ? InputOf<S>
  : S extends ResponseSpec<infer B>
    ? B extends AnySchema
      ? InputOf<B>
      : undefined
    : undefined;

/**
 * One reply a handler may give: a declared status and the body its schema accepts.
 *
 * @example
 * ```ts
 * const reply: Reply<{ 201: typeof Project }> = { status: 201, body: project, location: `/projects/${project.id}` };
 * ```
 */
export type Reply<R extends Responses> = {
  [S in keyof R & number]: {
    readonly status: S;
    readonly body?: ReplyBody<R[S]>;
    /** The new resource's URL (required for 201: sent as `Location`). */
    readonly location?: string;
    readonly headers?: Readonly<Record<string, string>>;
  };
}[keyof R & number];

/**
 * A collection route's reply: up to `limit + 1` rows (the extra one only sets `has_more`) and an optional total.
 *
 * @example
 * ```ts
 * const page: PageReply<Project> = { status: 200, rows: applyToArray(query, all), total: all.length };
 * ```
 */
export interface PageReply<Row> {
  readonly status: 200;
  readonly rows: readonly Row[];
  readonly total?: number | string | bigint;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * The full definition {@link route} takes.
 *
 * @example
 * ```ts
 * const definition: RouteDefinition = { method: 'GET', path: '/health', responses: { 204: null }, handler: () => ({ status: 204 }) };
 * const health = route(definition);
 * ```
 */
export interface RouteDefinition<
  M extends RouteMethod = RouteMethod,
  P extends AnySchema | undefined = AnySchema | undefined,
  Q extends AnySchema | undefined = AnySchema | undefined,
  H extends AnySchema | undefined = AnySchema | undefined,
  B extends AnySchema | BodySpec | undefined = AnySchema | BodySpec | undefined,
  R extends Responses = Responses,
  C extends Collection | undefined = Collection | undefined,
  T = unknown,
> {
  readonly method: M;
  /** An OpenAPI path template: `/projects/{projectId}/tasks/{taskId}`. */
  readonly path: string;
  readonly operationId?: string;
  readonly summary?: string;
  readonly description?: string;
  readonly tags?: readonly string[];
  /** Path parameters (strings in, the schema's output to the handler; coerce numbers in the schema). */
  readonly params?: P;
  /** Query parameters of a non-collection route; without it any query parameter is a 400. */
  readonly query?: Q;
  /**
   * A collection route: the query-parser definition that parses filters, sort, search, fields and
   * pages, or `{ definition, scope }` for a nested collection filtered by its parent server-side.
   * On a `POST …/search` the route is a search: the collection query is the JSON body
   * (`parseSearchBody`: `{ "filter": {...}, "sort": "-id", "limit": 20 }`, no body is `{}`), read
   * after idempotency and preconditions; the route declares no `body`, a query string is 400
   * `unknown_parameter`, a type other than JSON 415 (`Accept-Post`), and a page's links point to
   * the collection (the path without `/search`).
   *
   * @example
   * ```ts
   * const searchTasks = route({
   *   method: 'POST',
   *   path: '/tasks/search',
   *   collection: tasks,
   *   responses: { 200: Task },
   *   idempotent: { required: false, transaction: false },
   *   handler: ({ query }) => ({ status: 200, rows: applyToArray(query, all) }),
   * });
   * ```
   */
  readonly collection?: C | ScopedCollection<C, OutputOrUndefined<P>>;
  /** Request headers, lower-case names (only the named ones are checked; others pass through). */
  readonly headers?: H;
  readonly body?: B;
  readonly responses: R;
  /** Scopes the caller needs (`@plumbline/auth`: 401 without credentials, 403 without the scope). */
  readonly scopes?: readonly string[];
  readonly idempotent?: IdempotencySpec;
  readonly preconditions?: PreconditionSpec<OutputOrUndefined<P>, T>;
  /**
   * A step of the route's own, run after the scopes and the path parameters and before anything
   * else: before the Content-Type check (415), the body (400, 413), the query, header and body
   * schemas, idempotency and preconditions. Throw an `HttpError` to answer instead, e.g. 404 when
   * the parent of a nested resource does not exist, so a missing parent wins over a bad body.
   */
  readonly before?: (input: BeforeInput<OutputOrUndefined<P>>) => void | Promise<void>;
  /** This operation is deprecated (OpenAPI `deprecated`; version deprecation is `@plumbline/versioning`'s). */
  readonly deprecated?: boolean;
  /** Answers the request from its parsed input: one of the declared statuses, or a page of rows for a collection. */
  readonly handler: (
    input: HandlerInput<
      OutputOrUndefined<P>,
      HandlerQuery<Q, C>,
      OutputOrUndefined<H>,
      B extends BodySpec<infer S> ? OutputOf<S> : OutputOrUndefined<B>,
      T
    >,
  ) =>
    | Promise<C extends Collection ? PageReply<Record<string, unknown>> | Reply<R> : Reply<R>>
    | (C extends Collection ? PageReply<Record<string, unknown>> | Reply<R> : Reply<R>);
}

/**
 * A route as {@link route} returns it: the definition, checked and frozen.
 *
 * @example
 * ```ts
 * const routes: readonly Route[] = [listProjects, getProject, createProject];
 * mount(app, routes);
 * ```
 */
export interface Route
  extends Readonly<
    RouteDefinition<
      RouteMethod,
      AnySchema | undefined,
      AnySchema | undefined,
      AnySchema | undefined,
      AnySchema | BodySpec | undefined,
      Responses,
      Collection | undefined,
      unknown
    >
  > {
  readonly '~route': true;
}

/**
 * Declares a route. The handler's input is typed from the schemas (no casts), and its reply must be
 * one of the declared statuses with a body its schema accepts.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * const getProject = route({
 *   method: 'GET',
 *   path: '/projects/{id}',
 *   params: z.object({ id: z.coerce.number().int().positive() }),
 *   responses: { 200: Project },
 *   scopes: ['read:projects'],
 *   handler: async ({ params }) => ({ status: 200, body: await projects.get(params.id) }),
 * });
 * ```
 */
export function route<
  const M extends RouteMethod,
  P extends AnySchema | undefined = undefined,
  Q extends AnySchema | undefined = undefined,
  H extends AnySchema | undefined = undefined,
  B extends AnySchema | BodySpec | undefined = undefined,
  const R extends Responses = Responses,
  C extends Collection | undefined = undefined,
  T = undefined,
>(definition: RouteDefinition<M, P, Q, H, B, R, C, T>): Route {
  return Object.freeze({ ...definition, '~route': true as const }) as unknown as Route;
}
