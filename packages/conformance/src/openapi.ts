/**
 * Reading an OpenAPI 3.x document: path shapes, operations, parameters and collections. Shared by
 * the Spectral ruleset and the probe's discovery so both agree on what a collection is.
 */

/** A JSON object as it comes out of a parsed document. */
export type JsonObject = Record<string, unknown>;

/** HTTP methods an OpenAPI path item may hold. */
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** One segment of a path template. */
interface Segment {
  readonly text: string;
  /** True for a segment that is exactly one `{param}`. */
  readonly param: boolean;
}

/**
 * A path template split into its version prefix and its resource part.
 *
 * @example
 * ```ts
 * parsePath('/v2/projects/{project_id}/tasks').version; // '2'
 * ```
 */
export interface PathShape {
  readonly path: string;
  /**
   * The version of a `/v<N>/`, `/v<N>.<M>/` or `/api/v<N>/` prefix, or of a first segment that is a
   * decimal version (`/2.0/`, Bitbucket's style): digits with a dot cannot be a resource name.
   */
  readonly version?: string;
  /** Segments after the version prefix. */
  readonly segments: readonly Segment[];
}

const VERSION_SEGMENT = /^v\d+(?:\.\d+)?$/i;
/** A decimal version without the `v` (`2.0`, `1.1`): a version prefix only as the first segment. */
const DECIMAL_VERSION = /^\d+\.\d+$/;

/**
 * Splits a path template into segments and its version prefix.
 *
 * @example
 * ```ts
 * parsePath('/api/v1/projects/{id}').segments; // [{ text: 'projects', param: false }, { text: '{id}', param: true }]
 * ```
 */
export function parsePath(path: string): PathShape {
  const raw = path.split('/').filter((part) => part !== '');
  let start = 0;
  if (raw[0]?.toLowerCase() === 'api' && raw[1] !== undefined && VERSION_SEGMENT.test(raw[1])) start = 1;
  let version: string | undefined;
  const candidate = raw[start];
  if (candidate !== undefined && VERSION_SEGMENT.test(candidate)) {
    version = candidate.slice(1);
    start += 1;
  } else if (candidate !== undefined && start === 0 && DECIMAL_VERSION.test(candidate)) {
    version = candidate;
    start = 1;
  } else {
    start = 0;
  }
  const segments = raw.slice(start).map((text) => ({ text, param: /^\{[^{}]+\}$/.test(text) }));
  return version === undefined ? { path, segments } : { path, version, segments };
}

/**
 * Paths that are not resources (API description, health, token endpoint, error pages, changelog, the
 * browser icon and robots file): the path rules and discovery leave them alone. Matched against the
 * path after the version prefix.
 */
export const DEFAULT_IGNORED_PATHS: readonly RegExp[] = [
  /^\/\.well-known(\/|$)/,
  /^\/openapi(\.json|\.ya?ml)?$/,
  /^\/(health|healthz|live|livez|ready|readyz|ping|metrics)$/,
  /^\/oauth(\/|$)/,
  /^\/errors(\/|$)/,
  /^\/docs(\/|$)/,
  /^\/changelog$/,
  /^\/(favicon\.ico|robots\.txt)$/,
];

/**
 * True when a path is a meta endpoint rather than a resource.
 *
 * @example
 * ```ts
 * isIgnoredPath(parsePath('/openapi.json'), DEFAULT_IGNORED_PATHS); // true
 * ```
 */
export function isIgnoredPath(shape: PathShape, ignored: readonly RegExp[]): boolean {
  const rest = `/${shape.segments.map((segment) => segment.text).join('/')}`;
  return ignored.some((pattern) => pattern.test(rest) || pattern.test(shape.path));
}

/**
 * True for a POST-only search action such as `/tasks/search` (docs/conventions.md 4.2 (7)).
 *
 * @example
 * ```ts
 * isSearchAction(parsePath('/v2/tasks/search')); // true
 * ```
 */
export function isSearchAction(shape: PathShape): boolean {
  const { segments } = shape;
  const last = segments[segments.length - 1];
  const before = segments[segments.length - 2];
  return last?.text === 'search' && before !== undefined && !before.param;
}

/**
 * True when the template ends in a collection (a static segment), not a member `{id}`.
 *
 * @example
 * ```ts
 * isCollectionPath(parsePath('/projects/{id}/tasks')); // true
 * ```
 */
export function isCollectionPath(shape: PathShape): boolean {
  const last = shape.segments[shape.segments.length - 1];
  return last !== undefined && !last.param && !last.text.includes('{') && !isSearchAction(shape);
}

/** An operation with its path and method. */
export interface OperationRef {
  readonly path: string;
  readonly method: (typeof METHODS)[number];
  readonly operation: JsonObject;
  readonly pathItem: JsonObject;
}

/**
 * True for a plain object.
 *
 * @example
 * ```ts
 * isObject({}); // true
 * ```
 */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The path items of a document.
 *
 * @example
 * ```ts
 * pathsOf({ paths: { '/x': {} } }); // [['/x', {}]]
 * ```
 */
export function pathsOf(document: unknown): [string, JsonObject][] {
  if (!isObject(document) || !isObject(document['paths'])) return [];
  return Object.entries(document['paths']).filter((entry): entry is [string, JsonObject] =>
    isObject(entry[1]),
  );
}

/**
 * Every operation of a document.
 *
 * @example
 * ```ts
 * operationsOf(document).filter((op) => op.method === 'post');
 * ```
 */
export function operationsOf(document: unknown): OperationRef[] {
  const list: OperationRef[] = [];
  for (const [path, pathItem] of pathsOf(document)) {
    for (const method of METHODS) {
      const operation = pathItem[method];
      if (isObject(operation)) list.push({ path, method, operation, pathItem });
    }
  }
  return list;
}

/**
 * Resolves a local `$ref` (`#/components/...`) once; other values come back unchanged.
 *
 * @example
 * ```ts
 * deref(document, { $ref: '#/components/schemas/Problem' });
 * ```
 */
export function deref(document: unknown, value: unknown, depth = 0): unknown {
  if (!isObject(value) || typeof value['$ref'] !== 'string' || depth > 20) return value;
  const ref = value['$ref'];
  if (!ref.startsWith('#/')) return value;
  let node: unknown = document;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    node = isObject(node) ? node[key] : undefined;
  }
  return deref(document, node, depth + 1);
}

/** A parameter reduced to what the rules need. */
export interface ParameterInfo {
  readonly name: string;
  readonly in: string;
  readonly schema?: JsonObject;
  readonly description?: string;
  /** `required: true` in the document (a path parameter always is). */
  readonly required?: boolean;
  /** The parameter's `example` and the values of its `examples`, when it has any. */
  readonly examples?: readonly unknown[];
  readonly path: (string | number)[];
}

/**
 * Path-level and operation-level parameters of an operation (operation ones win by name + in).
 *
 * @example
 * ```ts
 * parametersOf(document, op).some((p) => p.in === 'query' && p.name === 'limit');
 * ```
 */
export function parametersOf(document: unknown, op: OperationRef): ParameterInfo[] {
  const byKey = new Map<string, ParameterInfo>();
  const collect = (list: unknown, base: (string | number)[]): void => {
    if (!Array.isArray(list)) return;
    list.forEach((raw, index) => {
      const parameter = deref(document, raw);
      if (
        !isObject(parameter) ||
        typeof parameter['name'] !== 'string' ||
        typeof parameter['in'] !== 'string'
      )
        return;
      // A parameter may carry its schema in `content` instead (a JSON-encoded query parameter).
      const content = deref(document, parameter['content']);
      const media = isObject(content) ? deref(document, Object.values(content)[0]) : undefined;
      const schema = deref(document, parameter['schema'] ?? (isObject(media) ? media['schema'] : undefined));
      const examples: unknown[] = 'example' in parameter ? [parameter['example']] : [];
      const named = deref(document, parameter['examples']);
      if (isObject(named))
        for (const example of Object.values(named)) {
          const value = deref(document, example);
          if (isObject(value) && 'value' in value) examples.push(value['value']);
        }
      const info: ParameterInfo = {
        name: parameter['name'],
        in: parameter['in'],
        path: [...base, index],
        ...(isObject(schema) ? { schema } : {}),
        ...(typeof parameter['description'] === 'string' ? { description: parameter['description'] } : {}),
        ...(parameter['required'] === true ? { required: true } : {}),
        ...(examples.length > 0 ? { examples } : {}),
      };
      byKey.set(`${info.in}:${info.name.toLowerCase()}`, info);
    });
  };
  collect(op.pathItem['parameters'], ['paths', op.path, 'parameters']);
  collect(op.operation['parameters'], ['paths', op.path, op.method, 'parameters']);
  return [...byKey.values()];
}

/** How a collection pages. */
export type PaginationStyle = 'offset' | 'page' | 'cursor';

/**
 * The pagination style declared by a collection GET's query parameters, if any.
 *
 * @example
 * ```ts
 * paginationStyle(['limit', 'offset', 'sort']); // 'offset'
 * ```
 */
export function paginationStyle(queryNames: readonly string[]): PaginationStyle | undefined {
  const names = new Set(queryNames.map((name) => name.toLowerCase()));
  if (names.has('limit') && names.has('offset')) return 'offset';
  if (names.has('page') && names.has('size')) return 'page';
  if (names.has('cursor')) return 'cursor';
  if (names.has('limit')) return 'offset';
  return undefined;
}

/** A collection found in a document. */
export interface CollectionInfo {
  /** The path template, e.g. `/v2/projects/{project_id}/tasks`. */
  readonly path: string;
  readonly pagination: PaginationStyle;
  /** Query parameter names the GET declares. */
  readonly query: readonly string[];
  readonly deprecated: boolean;
  /** Whether the collection accepts POST. */
  readonly creatable: boolean;
  /** Schema of the POST body, when documented. */
  readonly createSchema?: JsonObject;
  /** Example POST body, when documented. */
  readonly createExample?: unknown;
  /** Schema of the member identifier (`/<collection>/{id}`), when documented. */
  readonly idSchema?: JsonObject;
}

function requestBodyOf(
  document: unknown,
  operation: JsonObject,
): { schema?: JsonObject; example?: unknown } | undefined {
  const body = deref(document, operation['requestBody']);
  if (!isObject(body) || !isObject(body['content'])) return undefined;
  const media = Object.entries(body['content']).find(([type]) => /json/i.test(type))?.[1];
  if (!isObject(media)) return undefined;
  let schema = deref(document, media['schema']);
  // A body that may take several shapes (one per API version, say): the probe writes the first.
  const alternatives = isObject(schema) ? (schema['anyOf'] ?? schema['oneOf']) : undefined;
  if (Array.isArray(alternatives) && alternatives.length > 0) schema = deref(document, alternatives[0]);
  let example: unknown = media['example'];
  if (example === undefined && isObject(media['examples'])) {
    const first = deref(document, Object.values(media['examples'])[0]);
    if (isObject(first)) example = first['value'];
  }
  if (example === undefined && isObject(schema)) example = schema['example'];
  return { ...(isObject(schema) ? { schema } : {}), ...(example === undefined ? {} : { example }) };
}

/**
 * Collections of a document: GETs on a path ending in a static segment that declare limit/offset,
 * page/size or cursor (the discovery rule the probe uses).
 *
 * @example
 * ```ts
 * discoverCollections(openapi).map((c) => c.path); // ['/v2/projects', '/v2/projects/{project_id}/tasks']
 * ```
 */
export function discoverCollections(
  document: unknown,
  ignored: readonly RegExp[] = DEFAULT_IGNORED_PATHS,
): CollectionInfo[] {
  const list: CollectionInfo[] = [];
  const items = new Map(pathsOf(document));
  for (const op of operationsOf(document)) {
    if (op.method !== 'get') continue;
    const shape = parsePath(op.path);
    if (!isCollectionPath(shape) || isIgnoredPath(shape, ignored)) continue;
    const query = parametersOf(document, op)
      .filter((p) => p.in === 'query')
      .map((p) => p.name);
    const pagination = paginationStyle(query);
    if (pagination === undefined) continue;
    const post = op.pathItem['post'];
    const body = isObject(post) ? requestBodyOf(document, post) : undefined;
    let idSchema: JsonObject | undefined;
    for (const [path, item] of items) {
      if (!path.startsWith(`${op.path}/`) || !/^\{[^/]+\}$/.test(path.slice(op.path.length + 1))) continue;
      const get = item['get'];
      const memberOp = isObject(get)
        ? { path, method: 'get' as const, operation: get, pathItem: item }
        : undefined;
      idSchema = memberOp ? parametersOf(document, memberOp).find((p) => p.in === 'path')?.schema : undefined;
    }
    list.push({
      path: op.path,
      pagination,
      query,
      deprecated: op.operation['deprecated'] === true,
      creatable: isObject(post),
      ...(body?.schema ? { createSchema: body.schema } : {}),
      ...(body?.example !== undefined ? { createExample: body.example } : {}),
      ...(idSchema ? { idSchema } : {}),
    });
  }
  return list;
}

/** Query parameter names that carry an API version. */
export const VERSION_QUERY = new Set(['version', 'api-version', 'api_version', 'v']);
/** Request headers that carry an API version. */
export const VERSION_HEADER = new Set([
  'x-api-version',
  'api-version',
  'accept-version',
  'x-version',
  'version',
]);
/** A versioned media type: a vendor type with `.v<N>`, or a `version=` parameter. */
export const VENDOR_MEDIA = /^application\/vnd\.[^;+]+\.v\d+(\+[a-z]+)?$|;\s*version=/i;

/** Where a document's API carries its version, as the probe needs it to ask for an unknown one. */
export type VersionCarrier =
  | { readonly strategy: 'query' | 'header'; readonly name: string }
  | { readonly strategy: 'media-type'; readonly vendor: string };

/**
 * The query, header or media-type strategy a document declares (the path strategy needs no
 * declaration: it is read from each path). A `version` query parameter counts when it says "API"
 * or is on at least half of the operations, as the lint rule plumbline-version-consistent counts it.
 *
 * @example
 * ```ts
 * versionCarrierOf(openapi); // { strategy: 'header', name: 'X-API-Version' }
 * ```
 */
export function versionCarrierOf(document: unknown): VersionCarrier | undefined {
  const operations = operationsOf(document);
  const query: ParameterInfo[] = [];
  for (const op of operations) {
    for (const parameter of parametersOf(document, op)) {
      const name = parameter.name.toLowerCase();
      if (parameter.in === 'header' && VERSION_HEADER.has(name))
        return { strategy: 'header', name: parameter.name };
      if (parameter.in === 'query' && VERSION_QUERY.has(name)) query.push(parameter);
    }
    const responses = deref(document, op.operation['responses']);
    for (const response of isObject(responses) ? Object.values(responses) : []) {
      const content = deref(document, (deref(document, response) as JsonObject | undefined)?.['content']);
      for (const type of isObject(content) ? Object.keys(content) : []) {
        const vendor = /^application\/vnd\.([^;+]+)\.v\d+\+json$/i.exec(type);
        if (vendor !== null) return { strategy: 'media-type', vendor: vendor[1]! };
      }
    }
  }
  const counts =
    query.length * 2 >= operations.length || query.some((p) => /\bapi\b/i.test(p.description ?? ''));
  return counts && query[0] ? { strategy: 'query', name: query[0].name } : undefined;
}

/**
 * The request for an API version that cannot exist (9999) on a collection `path`: the path's
 * `/v<N>/` segment swapped, or the version sent the way `carrier` says; `undefined` when neither
 * the path nor the document shows a version. A decimal prefix (`/2.0/`) becomes `/9999.0/`.
 *
 * @example
 * ```ts
 * unknownVersionRequest('/v2/projects', undefined); // { path: '/v9999/projects', headers: {} }
 * unknownVersionRequest('/projects', { strategy: 'query', name: 'version' }); // { path: '/projects?version=9999', headers: {} }
 * ```
 */
export function unknownVersionRequest(
  path: string,
  carrier: VersionCarrier | undefined,
): { path: string; headers: Record<string, string> } | undefined {
  const segment = /^(\/(?:api\/)?)v\d+(?:\.\d+)?(\/.*)$/i.exec(path);
  if (segment !== null) return { path: `${segment[1]}v9999${segment[2]}`, headers: {} };
  const decimal = /^\/\d+\.\d+(\/.*)$/.exec(path);
  if (decimal !== null) return { path: `/9999.0${decimal[1]}`, headers: {} };
  if (carrier === undefined) return undefined;
  if (carrier.strategy === 'media-type')
    return { path, headers: { Accept: `application/vnd.${carrier.vendor}.v9999+json` } };
  if (carrier.strategy === 'header') return { path, headers: { [carrier.name]: '9999' } };
  return {
    path: `${path}${path.includes('?') ? '&' : '?'}${encodeURIComponent(carrier.name)}=9999`,
    headers: {},
  };
}
