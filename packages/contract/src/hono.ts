/**
 * Hono adapter for @plumbline/contract (Hono 4): mounts a route table on an app. Each route runs
 * the packages' own Hono middleware (scopes, Content-Type, idempotency, preconditions) around the
 * contract's framework-free steps, in the order every adapter uses, and reads a JSON body with the
 * answers express.json gives (413, 415, 400 `malformed_json`).
 * @packageDocumentation
 */
import { getPrincipal, requireScopes } from '@plumbline/auth/hono';
import { HttpError } from '@plumbline/errors';
import { methodNotAllowed, requestPath, setResponseHeaders } from '@plumbline/errors/hono';
import {
  getTransaction,
  type IdempotencyMiddlewareOptions,
  type IdempotencyTransactionOptions,
  idempotency,
  idempotencyTransaction,
} from '@plumbline/idempotency/hono';
import {
  conditional,
  entityTagOf,
  getJsonBody,
  getPreconditions,
  jsonBody as readJsonBody,
  represent,
  requireContentType,
} from '@plumbline/negotiation/hono';
import { rawQueryOf } from '@plumbline/query-parser';
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { type CompiledRoute, compileRoutes } from './compile.js';
import {
  acceptPatchOf,
  DEFAULT_BODY_LIMIT,
  exactParams,
  loadCurrent,
  mountPlan,
  pathsOf,
  runBefore,
  routeState as stateOf,
} from './mount.js';
import type { Route } from './route.js';
import {
  type ContractOptions,
  type ContractRequest,
  type ContractResponse,
  checkContentCoding,
  checkContentTypeLines,
  handlerInput,
  parseSearch,
  respond,
  validateParams,
  validateRequest,
} from './run.js';

/**
 * Options of {@link mount}; `Tx` is the transaction type of `idempotencyTransaction`.
 *
 * @example
 * ```ts
 * const options: MountOptions = { idempotency: { store: createMemoryStore() }, bodyLimit: 1_048_576 };
 * const exactlyOnce: MountOptions<pg.PoolClient> = {
 *   idempotencyTransaction: {
 *     store: createSqlStore({ dialect: 'postgres' }),
 *     transaction: (work) => withTransaction(pool, work), // BEGIN, work(client), COMMIT or ROLLBACK
 *     query: (client) => async (sql, params) => (await client.query(sql, [...params])).rows,
 *   },
 * };
 * ```
 */
export interface MountOptions<Tx = unknown> extends ContractOptions {
  /** Store and settings of `@plumbline/idempotency` for routes declared `idempotent`. */
  readonly idempotency?: Omit<IdempotencyMiddlewareOptions, 'required' | 'principal'>;
  /**
   * `@plumbline/idempotency`'s transactional mode (`idempotencyTransaction`: a SQL store, how to
   * open a transaction and run a statement in it) for routes declared `idempotent`: the key and
   * the response are written in the transaction the handler writes through (`input.transaction`),
   * and the response is let out after the commit. Routes declaring `idempotent.transaction: false`
   * keep the `idempotency` store.
   */
  readonly idempotencyTransaction?: Omit<IdempotencyTransactionOptions<Tx>, 'required' | 'principal'>;
  /** Largest JSON body in bytes: 413 beyond it. Default 1 MiB. */
  readonly bodyLimit?: number;
  /**
   * What the app knows of this request that the route's steps need (the API version its router
   * serves, a tenant): called once per request before the route's \`before\` step, and handed to
   * \`before\`, \`preconditions\` (\`load\`, \`represent\`, \`modified\`) and the handler as \`context\`.
   * Default: none (\`undefined\`).
   */
  readonly context?: (c: Context) => unknown;
}

/** Node's raw header lines on `@hono/node-server`; elsewhere none (the Fetch API has joined them). */
function rawHeaders(c: Context): readonly string[] {
  const raw = (c.env as { incoming?: { rawHeaders?: unknown } } | undefined)?.incoming?.rawHeaders;
  return Array.isArray(raw) ? (raw as string[]) : [];
}

function contractRequest(c: Context): ContractRequest {
  const state = stateOf(c);
  return {
    method: c.req.method,
    path: requestPath(c),
    params: state.raw ?? {},
    rawQuery: rawQueryOf(c.req.url),
    header: (name) => c.req.header(name),
    headers: () => c.req.header() as Record<string, string | undefined>,
    body: state.body,
    principal: getPrincipal(c),
    context: state.context,
  };
}

/** The request for validation, kept for the handler step (one object per request). */
function readRequest(c: Context): ContractRequest {
  const read = contractRequest(c);
  stateOf(c).request = read;
  return read;
}

/** A step between middleware: runs, then goes on. */
const step =
  (run: (c: Context) => unknown): MiddlewareHandler =>
  async (c, next) => {
    await run(c);
    await next();
  };

const proceed = async () => {};

/**
 * Reads a JSON body as express.json does (`jsonBody` of `@plumbline/negotiation/hono`): one
 * Content-Type line of the route's types, UTF-8, no coding, at most `limit` bytes, counted as they
 * arrive. An empty body is no body, for the body schema to judge.
 */
function jsonBody(types: readonly string[], limit: number): (c: Context) => Promise<unknown> {
  const contentType = requireContentType(...types);
  const read = readJsonBody({ types, limit, emptyBody: 'none' });
  return async (c) => {
    checkContentTypeLines(rawHeaders(c));
    await contentType(c, proceed);
    checkContentCoding(c.req.header('content-encoding'));
    await read(c, proceed);
    return getJsonBody(c);
  };
}

function send(c: Context, response: ContractResponse): Response | Promise<Response> {
  // Link and Vary are lists: the page's are appended to what is there (a version's deprecation
  // link, negotiation's Vary), as the query-parser's Hono adapter does.
  for (const [name, value] of Object.entries(response.headers))
    c.header(name, value, { append: name === 'Link' || name === 'Vary' });
  if (response.body === undefined) return c.body(null, response.status as 204);
  const res = represent(c, response.body, response.status);
  // Hono answers HEAD with the GET route's response without its body, and without its length:
  // Express and Fastify send the Content-Length the GET's body has (RFC 9110 section 9.3.2).
  if (c.req.method === 'HEAD' && res.body !== null && !res.headers.has('content-length')) {
    return res
      .clone()
      .arrayBuffer()
      .then((bytes) => {
        res.headers.set('Content-Length', String(bytes.byteLength));
        return res;
      });
  }
  return res;
}

function handlers<Tx>(
  compiled: CompiledRoute,
  options: MountOptions<Tx>,
  acceptPatch: string | undefined,
): MiddlewareHandler[] {
  const { route } = compiled;
  const scopes = route.scopes && route.scopes.length > 0 ? requireScopes(...route.scopes) : undefined;
  const body = compiled.body
    ? jsonBody(compiled.body.mediaTypes, options.bodyLimit ?? DEFAULT_BODY_LIMIT)
    : undefined;
  // One middleware for the steps before idempotency, in their order; a promise is awaited only
  // where a step returns one (each await is a turn of the microtask queue on every request).
  const chain: MiddlewareHandler[] = [
    async (c, next) => {
      const state = stateOf(c);
      // Anything but this exact path (a trailing slash on a lenient app) is 404, as on every framework.
      const raw = exactParams(compiled.colonPath, requestPath(c));
      if (raw === undefined) throw new HttpError('not_found');
      // Where errors/hono puts a header set before the handler (Node's response on @hono/node-server).
      if (acceptPatch !== undefined) setResponseHeaders(c, { 'Accept-Patch': acceptPatch });
      state.raw = raw;
      if (scopes) await scopes(c, proceed);
      if (options.context) state.context = options.context(c);
      const params = validateParams(compiled, raw);
      state.params = params instanceof Promise ? await params : params;
      // The route's own step runs before the body: its answer (a missing parent) wins over 415 and 400.
      const pending = route.before ? runBefore(compiled, contractRequest(c), state.params) : undefined;
      if (pending) await pending;
      if (body) state.body = await body(c);
      const valid = validateRequest(compiled, readRequest(c), options, state.params);
      state.valid = valid instanceof Promise ? await valid : valid;
      await next();
    },
  ];
  const plan = mountPlan(compiled, options);
  if (plan.idempotency) {
    const principal = (c: Context) => getPrincipal(c)?.clientId;
    const { required } = plan.idempotency;
    chain.push(
      plan.idempotency.transaction
        ? idempotencyTransaction({ ...options.idempotencyTransaction!, required, principal })
        : idempotency({ ...options.idempotency!, required, principal }),
    );
  }
  const preconditions = route.preconditions;
  if (preconditions) {
    chain.push(
      conditional({
        current: (c) =>
          loadCurrent(preconditions, stateOf(c), getPrincipal(c), (data) => entityTagOf(c, data)),
        requirePrecondition: plan.requirePrecondition,
      }),
    );
  }
  // The handler: Hono takes a Response or a promise of one.
  const handler = (c: Context): Response | Promise<Response> => {
    const state = stateOf(c);
    const read = state.request ?? contractRequest(c);
    // A search's query is read from its body now, after idempotency and preconditions.
    const valid = parseSearch(compiled, read, state.params, state.valid!);
    const input = handlerInput(read, state.params, valid, {
      current: state.current,
      conditional: preconditions ? getPreconditions(c)?.conditional === true : false,
      transaction: plan.idempotency ? getTransaction(c) : undefined,
    });
    const response = respond(compiled, input, options);
    return response instanceof Promise ? response.then((r) => send(c, r)) : send(c, response);
  };
  chain.push(handler as unknown as MiddlewareHandler);
  return chain;
}

/**
 * Mounts a route table on a Hono app: each route with its checks in order (scopes → path
 * parameters → the route's `before` step → Content-Type → body → query, headers and body schemas →
 * idempotency → preconditions → handler → reply check), and every path's other methods answered 405
 * with `Allow` (OPTIONS 204).
 * The app must run `@plumbline/errors`' `problemDetails()` (middleware, `onError`, `notFound`) and
 * `@plumbline/negotiation`'s `negotiate()` before it (and `authenticate()` when a route has
 * scopes). A bad table throws `RouteDefinitionError` here, at start-up.
 *
 * @example
 * ```ts
 * const app = new Hono();
 * const problems = problemDetails();
 * app.use(problems.middleware).use(negotiate({ languages: ['en', 'de'] })).use(authenticate(auth));
 * app.onError(problems.onError).notFound(problems.notFound);
 * mount(app, [listProjects, getProject, createProject], { idempotency: { store: createMemoryStore() } });
 * ```
 */
// biome-ignore lint/suspicious/noExplicitAny: any app (its env, schema and base path) takes the routes.
export function mount<A extends Hono<any, any, any>, Tx = unknown>(
  app: A,
  routes: readonly Route[],
  options: MountOptions<Tx> = {},
): A {
  const compiled = compileRoutes(routes);
  for (const c of compiled) mountPlan(c, options);
  // Typed as a plain app: the routes do not depend on the app's env, schema or base path.
  const target = app as unknown as Hono;
  const acceptPatch = acceptPatchOf(compiled, options);
  for (const c of compiled)
    target.on(
      c.method,
      c.colonPath,
      ...(handlers(c, options, acceptPatch.get(c.colonPath)) as [MiddlewareHandler]),
    );
  for (const [path, methods] of pathsOf(compiled)) {
    const patch = acceptPatch.get(path);
    target.all(
      path,
      step((c) => {
        if (exactParams(path, requestPath(c)) === undefined) throw new HttpError('not_found');
        if (patch !== undefined) setResponseHeaders(c, { 'Accept-Patch': patch });
      }),
      methodNotAllowed(methods),
    );
  }
  return app;
}
