/**
 * Fastify 5 adapter for @plumbline/contract: mounts a route table on an instance. Each route runs
 * the packages' own Fastify hooks (scopes, Content-Type, idempotency, preconditions) around the
 * contract's framework-free steps, in the order every adapter uses: `onRequest` hooks before the
 * body is read, the request schemas in `preValidation` once it is, idempotency and preconditions
 * in `preHandler`.
 * @packageDocumentation
 */
import { getPrincipal, requireScopes } from '@plumbline/auth/fastify';
import { HttpError, mergeVary } from '@plumbline/errors';
import { methodNotAllowed, routeEveryMethod } from '@plumbline/errors/fastify';
import {
  getTransaction,
  type IdempotencyPluginOptions,
  type IdempotencyTransactionPluginOptions,
  idempotency,
  idempotencyTransaction,
} from '@plumbline/idempotency/fastify';
import {
  conditional,
  entityTagOf,
  getPreconditions,
  jsonBodyParser,
  requireContentType,
} from '@plumbline/negotiation/fastify';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
  preHandlerHookHandler,
  preValidationHookHandler,
  RouteOptions,
} from 'fastify';
import { type CompiledRoute, compileRoutes } from './compile.js';
import {
  acceptPatchOf,
  DEFAULT_BODY_LIMIT,
  exactParams,
  loadCurrent,
  type MountPlan,
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
  readonly idempotency?: Omit<IdempotencyPluginOptions, 'required' | 'principal'>;
  /**
   * `@plumbline/idempotency`'s transactional mode (`idempotencyTransaction`: a SQL store, how to
   * open a transaction and run a statement in it) for routes declared `idempotent`: the key and
   * the response are written in the transaction the handler writes through (`input.transaction`),
   * and the payload is sent after the commit. Routes declaring `idempotent.transaction: false`
   * keep the `idempotency` store.
   */
  readonly idempotencyTransaction?: Omit<IdempotencyTransactionPluginOptions<Tx>, 'required' | 'principal'>;
  /** Largest JSON body in bytes (the routes' `bodyLimit`): 413 beyond it. Default 1 MiB. */
  readonly bodyLimit?: number;
  /**
   * What the app knows of this request that the route's steps need (the API version its router
   * serves, a tenant): called once per request before the route's \`before\` step, and handed to
   * \`before\`, \`preconditions\` (\`load\`, \`represent\`, \`modified\`) and the handler as \`context\`.
   * Default: none (\`undefined\`).
   */
  readonly context?: (request: FastifyRequest) => unknown;
  /**
   * Every Fastify route the mount registers (each declared route, and the 405 answer of each path)
   * passes through this before it is registered: add `constraints` to mount the same table once per
   * API version on shared paths, or `config` of your own. Default: registered as is.
   */
  readonly routeOptions?: (route: RouteOptions) => RouteOptions;
}

const pathOf = (url: string): string => {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
};

function contractRequest(request: FastifyRequest): ContractRequest {
  const url = request.url;
  const q = url.indexOf('?');
  return {
    method: request.method,
    path: q === -1 ? url : url.slice(0, q),
    params: stateOf(request).raw ?? {},
    rawQuery: q === -1 ? '' : url.slice(q + 1),
    header: (name) => {
      const value = request.headers[name];
      return Array.isArray(value) ? value.join(', ') : value;
    },
    headers: () => request.headers as Record<string, string | undefined>,
    body: request.body,
    principal: getPrincipal(request),
    context: stateOf(request).context,
  };
}

/** The request for validation, kept for the handler step (one object per request). */
function readRequest(request: FastifyRequest): ContractRequest {
  const read = contractRequest(request);
  stateOf(request).request = read;
  return read;
}

/** Anything but this exact path (a trailing slash, an empty parameter) is 404, as on every framework. */
const exact =
  (colonPath: string, acceptPatch: string | undefined): onRequestHookHandler =>
  async (request, reply) => {
    const raw = exactParams(colonPath, pathOf(request.url));
    // The answer of the errors plugin's not-found handler: Fastify cannot pass a request on.
    if (raw === undefined) throw new HttpError('not_found');
    if (acceptPatch !== undefined) reply.header('Accept-Patch', acceptPatch);
    stateOf(request).raw = raw;
  };

function send(reply: FastifyReply, response: ContractResponse): FastifyReply {
  for (const [name, value] of Object.entries(response.headers)) {
    // Link and Vary are lists: the page's join what is there (a version's deprecation link,
    // negotiation's Vary).
    const prior = name === 'Link' || name === 'Vary' ? reply.getHeader(name) : undefined;
    if (prior === undefined) reply.header(name, value);
    else reply.header(name, name === 'Vary' ? mergeVary(String(prior), value) : `${String(prior)}, ${value}`);
  }
  if (response.body === undefined) return reply.code(response.status).send();
  return reply.represent(response.body, response.status);
}

function routeOptions<Tx>(
  compiled: CompiledRoute,
  plan: MountPlan,
  options: MountOptions<Tx>,
  acceptPatch: string | undefined,
): RouteOptions {
  const { route } = compiled;
  const scopes = route.scopes && route.scopes.length > 0 ? requireScopes(...route.scopes) : undefined;
  const contentType = compiled.body ? requireContentType(...compiled.body.mediaTypes) : undefined;
  const validate = (request: FastifyRequest) => {
    const valid = validateRequest(compiled, readRequest(request), options, stateOf(request).params);
    if (valid instanceof Promise)
      return valid.then((v) => {
        stateOf(request).valid = v;
      });
    stateOf(request).valid = valid;
    return undefined;
  };
  // One hook for the steps before the body is read, in their order; a promise is awaited only
  // where a step returns one (each await is a turn of the microtask queue on every request).
  const onRequest: onRequestHookHandler = async function contractRequestHook(request, reply) {
    const state = stateOf(request);
    // Anything but this exact path (a trailing slash, an empty parameter) is 404, as on every framework.
    const raw = exactParams(compiled.colonPath, pathOf(request.url));
    if (raw === undefined) throw new HttpError('not_found');
    if (acceptPatch !== undefined) reply.header('Accept-Patch', acceptPatch);
    state.raw = raw;
    if (scopes) await scopes.call(this, request, reply);
    if (options.context) state.context = options.context(request);
    const params = validateParams(compiled, raw);
    state.params = params instanceof Promise ? await params : params;
    // The route's own step runs before the body: its answer (a missing parent) wins over 415 and 400.
    const pending = route.before ? runBefore(compiled, contractRequest(request), state.params) : undefined;
    if (pending) await pending;
    if (contentType) {
      checkContentTypeLines(request.raw.rawHeaders);
      // requireContentType answers through its callback at once: no promise needed.
      let refused: Error | undefined;
      contentType.call(this, request, reply, (error?: Error) => {
        refused = error;
      });
      if (refused) throw refused;
      checkContentCoding(request.headers['content-encoding']);
    } else {
      // No body to wait for: the schemas of the query and headers run now.
      await validate(request);
    }
  };
  // A callback hook: no promise when the schemas answer at once (the usual case).
  const preValidation: preValidationHookHandler | undefined = compiled.body
    ? (request, _reply, done) => {
        let pending: Promise<void> | undefined;
        try {
          pending = validate(request);
        } catch (error) {
          done(error as Error);
          return;
        }
        if (pending) pending.then(() => done(), done);
        else done();
      }
    : undefined;
  const preHandler: preHandlerHookHandler[] = [];
  const preconditions = route.preconditions;
  if (preconditions) {
    preHandler.push(
      conditional({
        current: (request, reply) =>
          loadCurrent(preconditions, stateOf(request), getPrincipal(request), (data) =>
            entityTagOf(reply, data),
          ),
        requirePrecondition: plan.requirePrecondition,
      }),
    );
  }
  return {
    method: compiled.method,
    url: compiled.colonPath,
    // HEAD is answered by the GET route (as on Express and Hono) whatever the instance's default.
    ...(compiled.method === 'GET' ? { exposeHeadRoute: true } : {}),
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    onRequest,
    ...(preValidation ? { preValidation } : {}),
    ...(preHandler.length > 0 ? { preHandler } : {}),
    handler: (request, reply) => {
      const state = stateOf(request);
      const read = state.request ?? contractRequest(request);
      // A search's query is read from its body now, after idempotency and preconditions.
      const valid = parseSearch(compiled, read, state.params, state.valid!);
      const input = handlerInput(read, state.params, valid, {
        current: state.current,
        conditional: preconditions ? getPreconditions(request)?.conditional === true : false,
        transaction: plan.idempotency ? getTransaction(request) : undefined,
      });
      const response = respond(compiled, input, options);
      if (response instanceof Promise) return response.then((r) => send(reply, r));
      // Sent here; a synchronous handler returns nothing (returning the reply would send it twice).
      send(reply, response);
      return undefined;
    },
  };
}

/**
 * The body parsers of one route's scope: its JSON body as express.json reads it (`jsonBodyParser`
 * of `@plumbline/negotiation/fastify`; an empty body is no body, for the body schema to judge), or,
 * for a route without one, nothing read (404, 405 and a DELETE answer without reading it).
 * `requireContentType` already refused any other type.
 */
function bodyParsers(scope: FastifyInstance, body: CompiledRoute['body'], limit: number): void {
  if (body !== undefined) {
    jsonBodyParser(scope, { types: body.mediaTypes, limit, emptyBody: 'none' });
    return;
  }
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
}

/**
 * Mounts a route table on a Fastify instance: each route with its checks in order (scopes → path
 * parameters → the route's `before` step → Content-Type → body → query, headers and body schemas →
 * idempotency → preconditions → handler → reply check), and every path's other methods answered 405
 * with `Allow` (OPTIONS 204).
 * The routes are registered in a plugin of their own (their body parsers stay there); the instance
 * must have `@plumbline/errors`' `plumblineErrors` and `@plumbline/negotiation`'s `negotiation`
 * registered (and `authenticate()` as an `onRequest` hook when a route has scopes). A bad table
 * throws `RouteDefinitionError` here, at start-up. Returns what `app.register` returns: await it,
 * or let `app.ready()` load it. Every method Node parses is made routable on the instance
 * (`addHttpMethod`), so an unknown method on a path is 405 with its `Allow`. Two answers come from
 * Fastify's router before any plugin and only the instance's options change them: a parameter over
 * `routerOptions.maxParamLength` (default 100) is 414, and a bad percent-encoding is 400, both with
 * Fastify's own body unless `frameworkErrors` renders a problem.
 *
 * @example
 * ```ts
 * const app = Fastify();
 * await app.register(plumblineErrors);
 * await app.register(negotiation, { languages: ['en', 'de'] });
 * app.addHook('onRequest', authenticate(auth));
 * await mount(app, [listProjects, getProject, createProject], { idempotency: { store: createMemoryStore() } });
 * ```
 */
export function mount<Tx = unknown>(
  app: FastifyInstance,
  routes: readonly Route[],
  options: MountOptions<Tx> = {},
): FastifyInstance & PromiseLike<undefined> {
  const compiled = compileRoutes(routes);
  const plans = compiled.map((c) => mountPlan(c, options));
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const transform = options.routeOptions ?? ((route: RouteOptions) => route);
  const acceptPatch = acceptPatchOf(compiled, options);
  // Every method Node's parser accepts is routable, so a path answers PROPFIND with 405 and its
  // Allow, as `app.all` does on Express and Hono, rather than the not-found handler guessing.
  routeEveryMethod(app);
  return app.register(async (scope) => {
    compiled.forEach((c, i) => {
      const plan = plans[i]!;
      // One scope per route: its body parser and its idempotency hooks apply to it alone.
      scope.register(async (own) => {
        bodyParsers(own, c.body, limit);
        if (plan.idempotency) {
          const principal = (request: FastifyRequest) => getPrincipal(request)?.clientId;
          const { required } = plan.idempotency;
          if (plan.idempotency.transaction)
            await own.register(
              idempotencyTransaction({ ...options.idempotencyTransaction!, required, principal }),
            );
          else await own.register(idempotency, { ...options.idempotency!, required, principal });
        }
        own.route(transform(routeOptions(c, plan, options, acceptPatch.get(c.colonPath))));
      });
    });
    scope.register(async (own) => {
      bodyParsers(own, undefined, limit);
      // 405 with Allow (OPTIONS 204) before the body is read; HEAD is the GET route's when the path has one.
      for (const [path, methods] of pathsOf(compiled))
        methodNotAllowed(own, path, methods, {
          onRequest: exact(path, acceptPatch.get(path)),
          routeOptions: transform,
        });
    });
  });
}
