/**
 * Start-up checks: a route table that cannot be served correctly is refused when it is mounted or
 * described, with every problem named, never discovered by the first client.
 */
import type { Principal } from '@plumbline/auth';
import { type Collection, isCollection } from '@plumbline/query-parser';
import type { Route, RouteMethod } from './route.js';
import {
  type AnySchema,
  hasJsonSchema,
  isStandardSchema,
  jsonSchemaOf,
  type StandardJSONSchemaV1,
} from './schema.js';

/**
 * A declared response after compilation.
 *
 * @example
 * ```ts
 * const created = compileRoutes([createProject])[0]!.responses.get(201);
 * created?.body; // the Project schema
 * ```
 */
export interface CompiledResponse {
  readonly status: number;
  readonly description: string | undefined;
  readonly body: AnySchema | undefined;
  readonly headers: Readonly<
    Record<string, { readonly description: string; readonly schema?: Record<string, unknown> }>
  >;
}

/**
 * A route ready to mount: the definition plus what every adapter and the OpenAPI generator derive from it.
 *
 * @example
 * ```ts
 * const [compiled] = compileRoutes([getProject]);
 * compiled!.colonPath; // '/projects/:id'
 * compiled!.paramNames; // ['id']
 * ```
 */
export interface CompiledRoute {
  readonly route: Route;
  readonly method: RouteMethod;
  /** The OpenAPI template, e.g. `/projects/{id}`. */
  readonly path: string;
  /** The same path in the `:name` syntax of Express, Fastify and Hono. */
  readonly colonPath: string;
  readonly paramNames: readonly string[];
  readonly body:
    | {
        readonly schema: AnySchema;
        readonly mediaTypes: readonly string[];
        readonly description: string | undefined;
      }
    | undefined;
  readonly responses: ReadonlyMap<number, CompiledResponse>;
  /** `transaction`: the route's `idempotent.transaction` (`undefined`: the mount decides). */
  readonly idempotency: { readonly required: boolean; readonly transaction?: boolean } | undefined;
  /** The query-parser collection of a collection route (`collection`, or its `definition`). */
  readonly collection: Collection | undefined;
  /**
   * A search (`POST …/search` with a `collection`): the collection query is the JSON body, parsed
   * after idempotency and preconditions; `body` is then the search body (any JSON, none is `{}`).
   */
  readonly search: boolean;
  /** The server-side scope of a nested collection (`collection.scope`), from the validated params. */
  readonly scope:
    | ((input: {
        readonly params: unknown;
        readonly principal: Principal | undefined;
      }) => Readonly<Record<string, unknown>>)
    | undefined;
  /** `METHOD /path` for messages and logs. */
  readonly name: string;
}

/**
 * Thrown at start-up for a route table that cannot be served correctly; `problems` lists each one.
 *
 * @example
 * ```ts
 * try {
 *   compileRoutes(routes);
 * } catch (error) {
 *   if (error instanceof RouteDefinitionError) console.error(error.problems.join('\n'));
 *   throw error;
 * }
 * ```
 */
export class RouteDefinitionError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(
      `@plumbline/contract: ${problems.length} problem(s) in the route table:\n  - ${problems.join('\n  - ')}`,
    );
    this.name = 'RouteDefinitionError';
    this.problems = problems;
  }
}

const METHODS: ReadonlySet<string> = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
const PARAM = /\{([^{}]*)\}/g;
const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
// Literal segments: the unreserved characters of RFC 3986 (no encoded or reserved characters in a template).
const LITERAL = /^[A-Za-z0-9._~-]+$/;

const DEFAULT_BODY_TYPES: Readonly<Record<string, readonly string[]>> = {
  PATCH: ['application/merge-patch+json', 'application/json'],
};

function responseOf(status: number, value: unknown): CompiledResponse | string {
  if (value === null) return { status, description: undefined, body: undefined, headers: {} };
  if (isStandardSchema(value)) return { status, description: undefined, body: value, headers: {} };
  if (typeof value === 'object' && value !== null) {
    const spec = value as { description?: string; body?: unknown; headers?: CompiledResponse['headers'] };
    if (spec.body !== undefined && !isStandardSchema(spec.body))
      return `response ${status}: \`body\` is not a Standard Schema`;
    return {
      status,
      description: spec.description,
      body: spec.body as AnySchema | undefined,
      headers: spec.headers ?? {},
    };
  }
  return `response ${status}: expected a schema, a response spec or null`;
}

/** Whether a schema's JSON Schema says it is a list (an array, or an object with an array `data`). */
function looksLikeList(schema: AnySchema): boolean {
  if (!hasJsonSchema(schema)) return false;
  const json = jsonSchemaOf(schema, 'output');
  if (json['type'] === 'array') return true;
  const data = (json['properties'] as Record<string, { type?: unknown }> | undefined)?.['data'];
  return data?.type === 'array';
}

function propertyNames(schema: AnySchema): readonly string[] | undefined {
  if (!hasJsonSchema(schema)) return undefined;
  const properties = jsonSchemaOf(schema, 'input')['properties'];
  return typeof properties === 'object' && properties !== null ? Object.keys(properties) : undefined;
}

/**
 * The body of a search: any JSON (the query parser judges it after idempotency), no body being `{}`
 * as express.json reads an empty one; described as the members the collection reads.
 */
function searchBodySchema(collection: Collection): AnySchema & StandardJSONSchemaV1 {
  const list = { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] };
  const number = { type: ['integer', 'string'] };
  const modes = new Set<string>(collection.pagination);
  const properties: Record<string, unknown> = {
    filter: { type: 'object' },
    ...(collection.searchable.length > 0 ? { q: { type: 'string' } } : {}),
    ...(collection.sortable.length > 0 ? { sort: list } : {}),
    ...(modes.has('offset') || modes.has('cursor') ? { limit: number } : {}),
    ...(modes.has('offset') ? { offset: number } : {}),
    ...(modes.has('page') ? { page: number, size: number } : {}),
    ...(modes.has('cursor') ? { cursor: { type: 'string' } } : {}),
    fields: list,
  };
  const json = {
    type: 'object',
    properties,
    ...(collection.unknownParameters === 'strict' ? { additionalProperties: false } : {}),
  };
  return {
    '~standard': {
      version: 1,
      vendor: '@plumbline/contract',
      validate: (value: unknown) => ({ value: value === undefined ? {} : value }),
      jsonSchema: { input: () => json, output: () => json },
    },
  };
}

function compileOne(route: Route, problems: string[]): CompiledRoute | undefined {
  const name = `${String(route.method)} ${String(route.path)}`;
  const fail = (message: string) => problems.push(`${name}: ${message}`);
  const before = problems.length;
  if (!METHODS.has(route.method)) fail(`method must be one of ${[...METHODS].join(', ')}`);
  if (typeof route.path !== 'string' || !route.path.startsWith('/')) fail('path must start with "/"');
  if (typeof route.handler !== 'function') fail('handler must be a function');
  const path = String(route.path);
  const paramNames: string[] = [];
  for (const segment of path.split('/').slice(1)) {
    const whole = /^\{([^{}]*)\}$/.exec(segment);
    if (whole) {
      const param = whole[1]!;
      if (!PARAM_NAME.test(param)) fail(`path parameter {${param}} must be a name ([A-Za-z_][A-Za-z0-9_]*)`);
      else if (paramNames.includes(param)) fail(`path parameter {${param}} appears twice`);
      else paramNames.push(param);
    } else if (segment === '' && path !== '/') fail('path has an empty segment or a trailing slash');
    else if (segment !== '' && !LITERAL.test(segment))
      fail(`path segment "${segment}" must be letters, digits, "-", ".", "_" or "~", or a whole {parameter}`);
  }
  if (paramNames.length > 0 && route.params === undefined)
    fail(`path parameter(s) ${paramNames.map((p) => `{${p}}`).join(', ')} have no schema: add \`params\``);
  if (route.params !== undefined) {
    if (!isStandardSchema(route.params)) fail('`params` is not a Standard Schema');
    else {
      const declared = propertyNames(route.params);
      if (declared) {
        const missing = paramNames.filter((p) => !declared.includes(p));
        const extra = declared.filter((p) => !paramNames.includes(p));
        if (missing.length > 0)
          fail(`\`params\` has no schema for ${missing.map((p) => `{${p}}`).join(', ')}`);
        if (extra.length > 0) fail(`\`params\` declares ${extra.join(', ')}, which the path does not have`);
      }
    }
  }
  for (const key of ['query', 'headers'] as const) {
    if (route[key] !== undefined && !isStandardSchema(route[key]))
      fail(`\`${key}\` is not a Standard Schema`);
  }
  if (route.query !== undefined && route.collection !== undefined)
    fail('declare either `query` or `collection`, not both');
  let collection: Collection | undefined;
  let scope: CompiledRoute['scope'];
  const given = route.collection as unknown;
  if (given !== undefined) {
    const spec = given as { definition?: unknown; scope?: unknown };
    if (isCollection(given)) collection = given;
    else if (typeof given === 'object' && given !== null && isCollection(spec.definition)) {
      collection = spec.definition;
      if (typeof spec.scope === 'function') scope = spec.scope as CompiledRoute['scope'];
      else fail('`collection.scope` must be a function of the path parameters');
    } else fail('`collection` is not a @plumbline/query-parser collection (or `{ definition, scope }`)');
  }
  let body: CompiledRoute['body'];
  const search = collection !== undefined && route.method === 'POST';
  if (search && route.body !== undefined)
    fail('a search reads its collection query from the JSON body: drop `body`');
  else if (search && collection !== undefined)
    body = {
      schema: searchBodySchema(collection),
      mediaTypes: ['application/json'],
      description: 'The collection query as JSON (filter, q, sort, the page, fields)',
    };
  if (route.body !== undefined) {
    if (route.method === 'GET' || route.method === 'DELETE') fail(`a ${route.method} takes no request body`);
    const spec = isStandardSchema(route.body)
      ? { schema: route.body }
      : (route.body as { schema?: unknown; mediaTypes?: readonly string[]; description?: string });
    if (!isStandardSchema(spec.schema)) fail('`body` must be a Standard Schema or { schema, mediaTypes }');
    else {
      const mediaTypes = spec.mediaTypes ?? DEFAULT_BODY_TYPES[route.method] ?? ['application/json'];
      if (mediaTypes.length === 0) fail('`body.mediaTypes` is empty');
      body = { schema: spec.schema, mediaTypes, description: spec.description };
    }
  }
  const responses = new Map<number, CompiledResponse>();
  const declared = route.responses as Readonly<Record<string, unknown>> | undefined;
  if (typeof declared !== 'object' || declared === null) fail('`responses` is required');
  else {
    for (const [key, value] of Object.entries(declared)) {
      const status = Number(key);
      if (!Number.isInteger(status) || status < 200 || status > 399) {
        fail(
          `response ${key}: declare success statuses (200-399) only; the error responses come from the conventions`,
        );
        continue;
      }
      const compiled = responseOf(status, value);
      if (typeof compiled === 'string') fail(compiled);
      else responses.set(status, compiled);
    }
    if (![...responses.keys()].some((s) => s < 300)) fail('declare at least one 2xx response');
  }
  const created = responses.get(201);
  if (created && route.method !== 'POST' && route.method !== 'PUT')
    fail('201 Created is a POST (or PUT) answer');
  if (created && collection !== undefined) fail('a collection route does not create: drop 201');
  if (responses.has(204) && responses.get(204)!.body !== undefined)
    fail('204 No Content cannot declare a body');
  if (collection !== undefined) {
    const isSearch = route.method === 'POST' && path.endsWith('/search');
    if (route.method !== 'GET' && !isSearch) fail('a collection query is read by GET (or POST …/search)');
    if (!responses.has(200)) fail('a collection route answers 200 with a page');
    if (collection.pagination.length === 0) fail('the collection declares no pagination mode');
  } else if (route.method === 'GET') {
    const ok = responses.get(200)?.body;
    if (ok && looksLikeList(ok))
      fail(
        'answers a list without `collection`: every collection is paginated (declare a @plumbline/query-parser collection)',
      );
  }
  if (
    route.idempotent !== undefined &&
    route.idempotent !== false &&
    route.method !== 'POST' &&
    route.method !== 'PATCH'
  )
    fail('`idempotent` is for POST (and PATCH); PUT and DELETE are idempotent by definition');
  if (
    typeof route.idempotent === 'object' &&
    route.idempotent !== null &&
    (!['boolean', 'undefined'].includes(typeof route.idempotent.required) ||
      !['boolean', 'undefined'].includes(typeof route.idempotent.transaction))
  )
    fail('`idempotent.required` and `idempotent.transaction` are booleans');
  if (route.preconditions !== undefined) {
    if (route.method === 'POST')
      fail('preconditions apply to a member (GET, PUT, PATCH, DELETE), not a POST');
    if (typeof route.preconditions.load !== 'function' || typeof route.preconditions.represent !== 'function')
      fail('`preconditions` needs `load` and `represent` functions');
  }
  if (
    route.scopes !== undefined &&
    (!Array.isArray(route.scopes) || route.scopes.some((s) => typeof s !== 'string' || s === ''))
  )
    fail('`scopes` must be a list of non-empty strings');
  if (route.before !== undefined && typeof route.before !== 'function') fail('before must be a function');
  if (problems.length > before) return undefined;
  const idempotent = route.idempotent;
  return {
    route,
    method: route.method,
    path,
    colonPath: path.replace(PARAM, ':$1'),
    paramNames,
    body,
    responses,
    idempotency:
      idempotent === undefined || idempotent === false
        ? undefined
        : idempotent === true || idempotent.transaction === undefined
          ? { required: idempotent !== true && idempotent.required === true }
          : { required: idempotent.required === true, transaction: idempotent.transaction },
    collection,
    search,
    scope,
    name,
  };
}

/**
 * Checks a route table and prepares it for mounting: every problem (a path parameter without a
 * schema, a duplicate method + path, a 201 on a GET, a list without a collection, ...) is collected
 * and thrown as one {@link RouteDefinitionError}.
 *
 * @example
 * ```ts
 * const compiled = compileRoutes([listProjects, getProject, createProject]);
 * ```
 */
export function compileRoutes(routes: readonly Route[]): readonly CompiledRoute[] {
  const problems: string[] = [];
  const out: CompiledRoute[] = [];
  const seen = new Map<string, string>();
  routes.forEach((route, index) => {
    if (typeof route !== 'object' || route === null || route['~route'] !== true) {
      problems.push(`routes[${index}]: not a route (declare it with route({...}))`);
      return;
    }
    const compiled = compileOne(route, problems);
    if (!compiled) return;
    // Two templates that differ only in parameter names match the same requests.
    const shape = `${compiled.method} ${compiled.path.replace(PARAM, '{}')}`;
    const earlier = seen.get(shape);
    if (earlier !== undefined) problems.push(`${compiled.name}: duplicates ${earlier}`);
    else seen.set(shape, compiled.name);
    out.push(compiled);
  });
  if (problems.length > 0) throw new RouteDefinitionError(problems);
  return out;
}
