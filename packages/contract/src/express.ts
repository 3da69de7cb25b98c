/**
 * Express adapter for @plumbline/contract (Express 4.21+ and 5): mounts a route table on an app or
 * router. Each route runs the packages' own Express middleware (scopes, Content-Type, idempotency,
 * preconditions) around the contract's framework-free steps, in the order every adapter uses.
 * @packageDocumentation
 */
import { getPrincipal, requireScopes } from '@plumbline/auth/express';
import { mergeVary } from '@plumbline/errors';
import { methodNotAllowed } from '@plumbline/errors/express';
import {
  getTransaction,
  type IdempotencyMiddlewareOptions,
  type IdempotencyTransactionOptions,
  idempotency,
  idempotencyTransaction,
} from '@plumbline/idempotency/express';
import {
  conditional,
  entityTagOf,
  getPreconditions,
  represent,
  requireContentType,
} from '@plumbline/negotiation/express';
import express, {
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
  type Router,
} from 'express';
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
  isEmptyBody,
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
 * const options: MountOptions = { idempotency: { store: createMemoryStore() }, bodyLimit: '1mb' };
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
   * and the response is sent after the commit. Routes declaring `idempotent.transaction: false`
   * keep the `idempotency` store.
   */
  readonly idempotencyTransaction?: Omit<IdempotencyTransactionOptions<Tx>, 'required' | 'principal'>;
  /** Largest JSON body (express.json's `limit`: bytes, or a string such as `'1mb'`): 413 beyond it. Default 1 MiB. */
  readonly bodyLimit?: number | string;
  /**
   * What the app knows of this request that the route's steps need (the API version its router
   * serves, a tenant): called once per request before the route's \`before\` step, and handed to
   * \`before\`, \`preconditions\` (\`load\`, \`represent\`, \`modified\`) and the handler as \`context\`.
   * Default: none (\`undefined\`).
   */
  readonly context?: (req: Request) => unknown;
}

const pathOf = (url: string): string => {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
};

function contractRequest(req: Request): ContractRequest {
  const url = req.originalUrl ?? req.url ?? '';
  const q = url.indexOf('?');
  const state = stateOf(req);
  return {
    method: req.method,
    path: q === -1 ? url : url.slice(0, q),
    params: state.raw ?? {},
    rawQuery: q === -1 ? '' : url.slice(q + 1),
    header: (name) => {
      const value = req.headers[name];
      return Array.isArray(value) ? value.join(', ') : value;
    },
    headers: () => req.headers as Record<string, string | undefined>,
    // Express 4 leaves `{}` without a body and express.json reads zero bytes as `{}`: no body is `undefined`.
    body: state.hasBody === true ? req.body : undefined,
    principal: getPrincipal(req),
    context: state.context,
  };
}

/** The request for validation, kept for the handler step (one object per request). */
function readRequest(req: Request): ContractRequest {
  const read = contractRequest(req);
  stateOf(req).request = read;
  return read;
}

function send(res: Response, response: ContractResponse): void {
  for (const [name, value] of Object.entries(response.headers)) {
    // Link and Vary are lists: the page's join what is there (a version's deprecation link,
    // negotiation's Vary).
    const prior = name === 'Link' || name === 'Vary' ? res.getHeader(name) : undefined;
    if (prior === undefined) res.setHeader(name, value);
    else
      res.setHeader(name, name === 'Vary' ? mergeVary(String(prior), value) : `${String(prior)}, ${value}`);
  }
  if (response.body === undefined) {
    res.status(response.status).end();
    return;
  }
  represent(res, response.body, response.status);
}

/**
 * Runs one of the packages' synchronous middleware (requireScopes, requireContentType) inside a
 * step of ours: its refusal is thrown. They answer through `next` at once; one that did not would
 * be a wiring bug, reported as such.
 */
function runNow(middleware: RequestHandler, req: Request, res: Response): void {
  let called = false;
  let failure: unknown;
  middleware(req, res, (error?: unknown) => {
    called = true;
    failure = error;
  });
  if (!called) throw new Error('@plumbline/contract: a synchronous middleware did not answer at once');
  if (failure !== undefined) throw failure;
}

function handlers<Tx>(
  compiled: CompiledRoute,
  options: MountOptions<Tx>,
  acceptPatch: string | undefined,
): RequestHandler[] {
  const { route } = compiled;
  const scopes = route.scopes && route.scopes.length > 0 ? requireScopes(...route.scopes) : undefined;
  const types = compiled.body ? [...compiled.body.mediaTypes] : undefined;
  const contentType = types ? requireContentType(...types) : undefined;
  const validate = (req: Request, next: NextFunction) => {
    const valid = validateRequest(compiled, readRequest(req), options, stateOf(req).params);
    if (valid instanceof Promise) {
      valid.then((v) => {
        stateOf(req).valid = v;
        next();
      }, next);
      return;
    }
    stateOf(req).valid = valid;
    next();
  };
  // The steps before the body, in one middleware; a promise only where a schema returns one.
  // Express matches paths without regard to case or a trailing slash: anything but this exact
  // path is passed on (to the 404 after the routes).
  const chain: RequestHandler[] = [
    (req, res, next) => {
      try {
        const raw = exactParams(compiled.colonPath, pathOf(req.url));
        if (raw === undefined) {
          next('route');
          return;
        }
        if (acceptPatch !== undefined) res.setHeader('Accept-Patch', acceptPatch);
        const state = stateOf(req);
        state.raw = raw;
        if (scopes) runNow(scopes, req, res);
        if (options.context) state.context = options.context(req);
        const body = () => {
          if (contentType) {
            checkContentTypeLines(req.rawHeaders);
            runNow(contentType, req, res);
            checkContentCoding(req.headers['content-encoding']);
            next();
          } else validate(req, next); // no body to wait for
        };
        // The route's own step runs before the body: its answer (a missing parent) wins over 415 and 400.
        const after = (params: unknown) => {
          state.params = params;
          const pending = route.before ? runBefore(compiled, contractRequest(req), params) : undefined;
          if (pending) pending.then(body).catch(next);
          else body();
        };
        const params = validateParams(compiled, raw);
        if (params instanceof Promise) params.then(after).catch(next);
        else after(params);
      } catch (error) {
        next(error);
      }
    },
  ];
  if (types) {
    chain.push(
      express.json({
        limit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
        type: types,
        // inflate: false: content codings are refused (415), so a small compressed body cannot grow past the limit.
        inflate: false,
        verify: (req, _res, bytes) => {
          stateOf(req as Request).hasBody = !isEmptyBody(bytes);
        },
      }),
      (req, _res, next) => {
        try {
          validate(req, next);
        } catch (error) {
          next(error);
        }
      },
    );
  }
  const plan = mountPlan(compiled, options);
  if (plan.idempotency) {
    const principal = (req: Request) => getPrincipal(req)?.clientId;
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
        current: (req, res) =>
          loadCurrent(preconditions, stateOf(req), getPrincipal(req), (data) => entityTagOf(res, data)),
        requirePrecondition: plan.requirePrecondition,
      }),
    );
  }
  chain.push((req, res, next) => {
    try {
      const state = stateOf(req);
      const read = state.request ?? contractRequest(req);
      // A search's query is read from its body now, after idempotency and preconditions.
      const valid = parseSearch(compiled, read, state.params, state.valid!);
      const input = handlerInput(read, state.params, valid, {
        current: state.current,
        conditional: preconditions ? getPreconditions(req)?.conditional === true : false,
        transaction: plan.idempotency ? getTransaction(req) : undefined,
      });
      const response = respond(compiled, input, options);
      if (response instanceof Promise) response.then((r) => send(res, r)).catch(next);
      else send(res, response);
    } catch (error) {
      next(error);
    }
  });
  return chain;
}

/**
 * Mounts a route table on an Express app or router: each route with its checks in order (scopes →
 * path parameters → the route's `before` step → Content-Type → body → query, headers and body
 * schemas → idempotency → preconditions → handler → reply check), and every path's other methods
 * answered 405 with `Allow` (OPTIONS 204). The app must run `@plumbline/negotiation`'s `negotiate()` before it and
 * `@plumbline/errors`' `errorHandler()` after it (and `authenticate()` when a route has scopes).
 * A bad table throws `RouteDefinitionError` here, at start-up.
 *
 * @example
 * ```ts
 * const app = express();
 * app.use(requestId(), negotiate(), authenticate(auth));
 * mount(app, [listProjects, getProject, createProject], { idempotency: { store: createMemoryStore() } });
 * app.use(notFoundHandler(), errorHandler());
 * ```
 */
export function mount<A extends Router, Tx = unknown>(
  app: A,
  routes: readonly Route[],
  options: MountOptions<Tx> = {},
): A {
  const compiled = compileRoutes(routes);
  for (const c of compiled) mountPlan(c, options);
  const acceptPatch = acceptPatchOf(compiled, options);
  for (const c of compiled) {
    const method = c.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    app[method](c.colonPath, ...handlers(c, options, acceptPatch.get(c.colonPath)));
  }
  for (const [path, methods] of pathsOf(compiled)) {
    const answer = methodNotAllowed(methods);
    const patch = acceptPatch.get(path);
    app.all(path, (req, res, next) => {
      let exact: boolean;
      try {
        exact = exactParams(path, pathOf(req.url)) !== undefined;
      } catch (error) {
        next(error);
        return;
      }
      if (!exact) return next();
      if (patch !== undefined) res.setHeader('Accept-Patch', patch);
      answer(req, res, next);
    });
  }
  return app;
}
