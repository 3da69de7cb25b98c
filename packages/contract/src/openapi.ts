/**
 * OpenAPI 3.1 from the route table alone: every operation with the inputs its schemas accept, the
 * success responses it declares, and the answers the conventions give around it (problem documents
 * for each status the adapters can send, the headers they set, both media types). What the
 * document says is what the adapters do; nothing here is written by hand per route.
 */
import { PROBLEM_JSON, PROBLEM_XML, PROBLEM_XML_NAMESPACE, xmlName } from '@plumbline/errors';
import { type Collection, toOpenApiParameters } from '@plumbline/query-parser';
import type { VersionChanges } from '@plumbline/versioning';
import { type CompiledRoute, compileRoutes, RouteDefinitionError } from './compile.js';
import { acceptPatchOf } from './mount.js';
import type { Route, RouteMethod } from './route.js';
import { type AnySchema, jsonSchemaOf } from './schema.js';

/**
 * A JSON Schema (draft 2020-12, OpenAPI 3.1's dialect) or any other JSON object of the document.
 *
 * @example
 * ```ts
 * const schema: JsonObject = { type: 'string', minLength: 1 };
 * ```
 */
export type JsonObject = { [key: string]: unknown };

/**
 * Options of {@link toOpenApi}: what the route table cannot know about the service it runs in.
 *
 * @example
 * ```ts
 * const options: OpenApiOptions = {
 *   info: { title: 'Projects API', version: '1.4.0' },
 *   pathPrefix: '/v1',
 *   security: { apiKey: true, bearer: true },
 *   rateLimit: true,
 *   deprecation: { deprecation: new Date('2026-01-01'), sunset: new Date('2027-01-01'), link: 'https://example.com/v2' },
 * };
 * ```
 */
export interface OpenApiOptions {
  readonly info: {
    readonly title: string;
    readonly version: string;
    readonly description?: string;
    readonly summary?: string;
    readonly contact?: JsonObject;
    readonly license?: JsonObject;
  };
  /** `servers` of the document (default `[{ url: '/' }]`). */
  readonly servers?: readonly { readonly url: string; readonly description?: string }[];
  /**
   * Put before every route path (`/v1`): one document per API version from the same table. Starts
   * with `/`, no trailing slash. Operation ids do not change with it.
   */
  readonly pathPrefix?: string;
  /**
   * This version is deprecated (`@plumbline/versioning`): every operation is `deprecated`, every
   * response carries `Deprecation` (RFC 9745), with a date `Sunset` (RFC 8594) and 410
   * `api_version_sunset` after it, and `link` as `Link: <…>; rel="deprecation"`.
   */
  readonly deprecation?: {
    readonly deprecation?: Date;
    readonly sunset?: Date;
    readonly link?: string;
    /** The version that replaces this one (`@plumbline/versioning`'s `successor`): `Link: <…>; rel="successor-version"`. */
    readonly successor?: string;
  };
  /**
   * `@plumbline/versioning` runs in front of the routes: every response carries
   * `API-Supported-Versions` (and `API-Deprecated-Versions` while one is deprecated).
   */
  readonly versions?: { readonly supported: readonly string[]; readonly deprecated?: readonly string[] };
  /** A rate limit runs in front of the routes: `RateLimit` and `RateLimit-Policy` on every response, 429 with `Retry-After`. */
  readonly rateLimit?: boolean;
  /**
   * How clients authenticate (`@plumbline/auth`): an API key header and/or a bearer JWT. Routes with
   * `scopes` list them in their `security` requirement and answer 401 and 403.
   */
  readonly security?: {
    readonly apiKey?: boolean | { readonly name?: string; readonly description?: string };
    readonly bearer?: boolean | { readonly bearerFormat?: string; readonly description?: string };
    /** The `realm` of the `WWW-Authenticate` challenge (default `plumbline`). */
    readonly realm?: string;
    /**
     * An OAuth 2.0 scheme (`oauth2`) with these `flows` (OpenAPI Flows Object: the token URL and the
     * scopes a client can ask for). Then a route's scopes go on the `oauth2` requirement, where
     * OpenAPI defines them, and the `apiKey` and `bearer` requirements list none:
     * `[{ apiKey: [] }, { bearer: [] }, { oauth2: ['read:projects'] }]`.
     *
     * @example
     * ```ts
     * const security = {
     *   apiKey: true,
     *   bearer: true,
     *   oauth2: { flows: { clientCredentials: { tokenUrl: '/oauth/token', scopes: { 'read:projects': 'read projects' } } } },
     * };
     * ```
     */
    readonly oauth2?: { readonly flows: JsonObject; readonly description?: string };
  };
  /**
   * The operation id each route gets in this document, from its own (the declared `operationId`, else
   * {@link defaultOperationId}): e.g. a version prefix, so that the documents of several versions
   * can be merged into one with unique ids. Ids must stay unique: a clash is refused as a declared
   * duplicate is.
   *
   * @example
   * ```ts
   * toOpenApi(routes, { info, pathPrefix: '/v1', operationId: (id) => `v1_${id}` });
   * // GET /projects with operationId 'list_projects' → 'v1_list_projects'
   * ```
   */
  readonly operationId?: (
    id: string,
    route: { readonly method: RouteMethod; readonly path: string },
  ) => string;
  /**
   * How a path parameter is published, by the name the route declares: its name in the document
   * (in the path template and the parameter) and its schema, in place of the one the route's
   * `params` give. Return `{}` to keep both. The routes keep their own names; only the document
   * changes, so a name must map to one name.
   *
   * @example
   * ```ts
   * // `{projectId}` in the routes, `{project_id}` (a UUID) in the document:
   * const pathParameter = (name: string) => ({
   *   name: name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
   *   schema: { type: 'string', format: 'uuid' },
   * });
   * ```
   */
  readonly pathParameter?: (name: string) => { readonly name?: string; readonly schema?: JsonObject };
  /** Base of the problem `type` links (`@plumbline/errors`' `docsBaseUrl`, default `/errors`). */
  readonly problemTypeBase?: string;
  /** Languages the service negotiates (`Content-Language`), first the default (default `['en', 'de']`). */
  readonly languages?: readonly string[];
  /** Response media types the service negotiates (default `['application/json', 'application/xml']`). */
  readonly mediaTypes?: readonly string[];
  /** Root element of XML representations (the XML serializer's `root`, default `data`). */
  readonly xmlRoot?: string;
  /** The mount's `requirePreconditions` (default false): 428 on unsafe requests without a precondition. */
  readonly requirePreconditions?: boolean;
  /**
   * The mount's `acceptPatch` (default `true`): every response of a path that takes a PATCH
   * declares `Accept-Patch`.
   */
  readonly acceptPatch?: boolean;
  /**
   * The document of one declared version (`@plumbline/versioning`'s `versions([...])`): every body
   * schema named in a change's `affects` goes through `api.schemaAt(version, name, schema)`, routes
   * that `version` does not serve (`api.hasEndpoint` false) are left out, and `info.version` is
   * `version`. A schema's name is the one its component gets: its JSON Schema `title` in PascalCase,
   * else the route's resource (`Project`, `ProjectInput`, `ProjectPatch`); a `$defs` entry's is its key.
   *
   * @example
   * ```ts
   * const api = versions([{ version: '1' }, { version: '2', changes: [budgetBecameMoney] }]);
   * const v1 = toOpenApi(routes, { info, pathPrefix: '/v1', changes: { api, version: '1' } });
   * ```
   */
  readonly changes?: { readonly api: VersionChanges; readonly version: string };
}

/**
 * An OpenAPI 3.1 operation as {@link toOpenApi} writes it.
 *
 * @example
 * ```ts
 * const get: OpenApiOperation | undefined = toOpenApi(routes, options).paths['/v1/projects/{id}']?.get;
 * get?.responses['304']; // the conditional GET's Not Modified
 * ```
 */
export interface OpenApiOperation {
  readonly operationId: string;
  readonly summary?: string;
  readonly description?: string;
  readonly tags: readonly string[];
  readonly deprecated?: true;
  readonly security?: readonly Readonly<Record<string, readonly string[]>>[];
  readonly parameters?: readonly JsonObject[];
  readonly requestBody?: JsonObject;
  readonly responses: Readonly<Record<string, JsonObject>>;
}

/**
 * The OpenAPI 3.1 document {@link toOpenApi} returns: plain JSON, ready for `JSON.stringify`.
 *
 * @example
 * ```ts
 * const document: OpenApiDocument = toOpenApi(routes, { info: { title: 'Projects API', version: '1.0.0' } });
 * await writeFile('openapi.json', JSON.stringify(document, null, 2));
 * ```
 */
export interface OpenApiDocument {
  readonly openapi: '3.1.0';
  readonly info: JsonObject;
  readonly servers: readonly JsonObject[];
  readonly tags: readonly { readonly name: string }[];
  readonly paths: Readonly<
    Record<string, Partial<Readonly<Record<'get' | 'post' | 'put' | 'patch' | 'delete', OpenApiOperation>>>>
  >;
  readonly components: {
    readonly schemas: Readonly<Record<string, JsonObject>>;
    readonly parameters: Readonly<Record<string, JsonObject>>;
    readonly headers: Readonly<Record<string, JsonObject>>;
    readonly securitySchemes?: Readonly<Record<string, JsonObject>>;
  };
}

const DEFAULT_LANGUAGES = ['en', 'de'];
const DEFAULT_TYPES = ['application/json', 'application/xml'];
const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const pascal = (text: string) =>
  text
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== '')
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
function singular(word: string): string {
  if (/ies$/.test(word)) return `${word.slice(0, -3)}y`;
  if (/(ss|us|is)$/.test(word) || !word.endsWith('s')) return word;
  return word.slice(0, -1);
}

/**
 * The operation id a route gets when it declares none: the method in lower case, then each path
 * segment in PascalCase (`{id}` as `ById`), e.g. `GET /projects/{id}/tasks` → `getProjectsByIdTasks`.
 * It depends on the method and the path template only (not on the prefix), so it is stable.
 *
 * @example
 * ```ts
 * defaultOperationId('PATCH', '/projects/{id}'); // 'patchProjectsById'
 * ```
 */
export function defaultOperationId(method: RouteMethod, path: string): string {
  const parts = path
    .split('/')
    .filter((s) => s !== '')
    .map((s) => {
      const param = /^\{(.+)\}$/.exec(s);
      return param ? `By${pascal(param[1]!)}` : pascal(s);
    });
  return `${method.toLowerCase()}${parts.join('')}`;
}

/** The route's resource name for schema names: `Project` for `/projects/{id}`, `Task` for `POST /projects/{id}/tasks`. */
function resourceName(compiled: CompiledRoute): string {
  const segments = compiled.path.split('/').filter((s) => s !== '');
  // A search (`/tasks/search`) is its collection's.
  if (compiled.search) segments.pop();
  const lastLiteral = [...segments].reverse().find((s) => !s.startsWith('{')) ?? 'root';
  const member = segments.at(-1)?.startsWith('{') === true;
  // A member, an item of a collection, or what a POST to a collection creates: one of them.
  const one = member || compiled.collection !== undefined || compiled.method === 'POST';
  return pascal(one ? singular(lastLiteral) : lastLiteral) || 'Root';
}

/** Error codes each convention can answer, for the descriptions of the problem responses. */
const QUERY_CODES = [
  'unknown_parameter',
  'duplicate_parameter',
  'invalid_value',
  'invalid_sort',
  'sort_field_not_allowed',
  'field_not_filterable',
  'operator_not_allowed',
  'field_not_selectable',
  'search_too_short',
  'search_too_long',
  'invalid_pagination',
  'conflicting_pagination',
  'limit_too_large',
  'invalid_cursor',
  'query_too_long',
];

const SUCCESS: Readonly<Record<number, string>> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  203: 'Non-Authoritative Information',
  204: 'No Content',
  205: 'Reset Content',
  206: 'Partial Content',
  300: 'Multiple Choices',
  301: 'Moved Permanently',
  302: 'Found',
  303: 'See Other',
  307: 'Temporary Redirect',
  308: 'Permanent Redirect',
};

const codes = (list: readonly string[]) => list.map((c) => `\`${c}\``).join(', ');

interface Resolved {
  readonly info: JsonObject;
  readonly servers: readonly JsonObject[];
  readonly prefix: string;
  readonly deprecation: OpenApiOptions['deprecation'];
  readonly rateLimit: boolean;
  readonly versions: OpenApiOptions['versions'];
  readonly apiKey: { readonly name: string; readonly description: string | undefined } | undefined;
  readonly bearer: { readonly bearerFormat: string; readonly description: string | undefined } | undefined;
  readonly realm: string;
  readonly typeBase: string;
  readonly languages: readonly string[];
  readonly mediaTypes: readonly string[];
  readonly xmlRoot: string;
  readonly requirePreconditions: boolean;
  readonly changes: OpenApiOptions['changes'];
  readonly oauth2: { readonly flows: JsonObject; readonly description: string | undefined } | undefined;
  readonly operationId: OpenApiOptions['operationId'];
  readonly pathParameter: OpenApiOptions['pathParameter'];
}

function resolveOptions(options: OpenApiOptions): Resolved {
  const problems: string[] = [];
  const prefix = options.pathPrefix ?? '';
  if (prefix !== '' && (!prefix.startsWith('/') || prefix.endsWith('/') || /[{}?#\s]/.test(prefix)))
    problems.push(
      `pathPrefix "${prefix}" must start with "/", not end with one, and hold no template or query`,
    );
  if (typeof options.info?.title !== 'string' || typeof options.info.version !== 'string')
    problems.push('info needs a title and a version');
  const languages = options.languages ?? DEFAULT_LANGUAGES;
  if (languages.length === 0) problems.push('languages must not be empty');
  const mediaTypes = options.mediaTypes ?? DEFAULT_TYPES;
  if (mediaTypes.length === 0) problems.push('mediaTypes must not be empty');
  for (const [name, date] of Object.entries(options.deprecation ?? {})) {
    if (name !== 'link' && name !== 'successor' && !(date instanceof Date && Number.isFinite(date.getTime())))
      problems.push(`deprecation.${name} must be a valid Date`);
  }
  if (options.versions !== undefined && options.versions.supported.length === 0)
    problems.push('versions.supported must not be empty');
  const changes = options.changes;
  if (
    changes !== undefined &&
    (typeof changes.api?.schemaAt !== 'function' || !changes.api.versions.includes(changes.version))
  )
    problems.push(
      `changes.version "${String(changes.version)}" must be one of the versions of changes.api (versions([...]) of @plumbline/versioning)`,
    );
  const oauth2 = options.security?.oauth2;
  if (oauth2 !== undefined && (!isObject(oauth2.flows) || Object.keys(oauth2.flows).length === 0))
    problems.push('security.oauth2.flows must name at least one flow');
  for (const name of ['operationId', 'pathParameter'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'function')
      problems.push(`${name} must be a function`);
  }
  if (problems.length > 0) throw new RouteDefinitionError(problems.map((p) => `toOpenApi: ${p}`));
  const { apiKey, bearer } = options.security ?? {};
  const info: JsonObject = { title: options.info.title, version: changes?.version ?? options.info.version };
  for (const key of ['summary', 'description', 'contact', 'license'] as const) {
    if (options.info[key] !== undefined) info[key] = options.info[key];
  }
  return {
    info,
    servers: (options.servers ?? [{ url: '/' }]).map((s) => ({ ...s })),
    prefix,
    deprecation: options.deprecation,
    rateLimit: options.rateLimit === true,
    versions: options.versions,
    apiKey:
      apiKey === undefined || apiKey === false
        ? undefined
        : {
            name: (apiKey === true ? undefined : apiKey.name) ?? 'X-API-Key',
            description: apiKey === true ? undefined : apiKey.description,
          },
    bearer:
      bearer === undefined || bearer === false
        ? undefined
        : {
            bearerFormat: (bearer === true ? undefined : bearer.bearerFormat) ?? 'JWT',
            description: bearer === true ? undefined : bearer.description,
          },
    realm: options.security?.realm ?? 'plumbline',
    typeBase: (options.problemTypeBase ?? '/errors').replace(/\/+$/, ''),
    languages,
    mediaTypes,
    xmlRoot: xmlName(options.xmlRoot ?? 'data'),
    requirePreconditions: options.requirePreconditions ?? false,
    changes,
    oauth2:
      options.security?.oauth2 === undefined
        ? undefined
        : { flows: options.security.oauth2.flows, description: options.security.oauth2.description },
    operationId: options.operationId,
    pathParameter: options.pathParameter,
  };
}

/** Adds the `xml` objects that describe how `@plumbline/errors`' `toXml` writes a value: arrays as `<i>` items. */
function xmlify(schema: unknown): unknown {
  if (!isObject(schema)) return schema;
  const out: JsonObject = { ...schema };
  if (isObject(schema['properties'])) {
    out['properties'] = Object.fromEntries(
      Object.entries(schema['properties']).map(([key, value]) => {
        const child = xmlify(value);
        const name = xmlName(key);
        return [
          key,
          name !== key && isObject(child)
            ? { ...child, xml: { ...(child['xml'] as JsonObject), name } }
            : child,
        ];
      }),
    );
  }
  const type = schema['type'];
  if (type === 'array' || (Array.isArray(type) && type.includes('array'))) {
    out['xml'] = { ...(schema['xml'] as JsonObject | undefined), wrapped: true };
    const item = (value: unknown) => {
      const child = xmlify(value);
      return isObject(child)
        ? { ...child, xml: { ...(child['xml'] as JsonObject | undefined), name: 'i' } }
        : child;
    };
    if (schema['items'] !== undefined) out['items'] = item(schema['items']);
    if (Array.isArray(schema['prefixItems'])) out['prefixItems'] = schema['prefixItems'].map(item);
  }
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    if (Array.isArray(schema[key])) out[key] = schema[key].map(xmlify);
  }
  if (isObject(schema['additionalProperties']))
    out['additionalProperties'] = xmlify(schema['additionalProperties']);
  return out;
}

/** Rewrites every `$ref` of a schema: `#/$defs/X…` through `defs`, any other local one below `self`. */
function rewriteRefs(
  value: unknown,
  defs: ReadonlyMap<string, string>,
  self: string | undefined,
  where: string,
): unknown {
  if (Array.isArray(value)) return value.map((v) => rewriteRefs(v, defs, self, where));
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, child] of Object.entries(value)) {
    if (key === '$ref' && typeof child === 'string' && child.startsWith('#')) {
      const def = /^#\/\$defs\/([^/]+)(.*)$/.exec(child);
      if (def && defs.has(decodeURIComponent(def[1]!.replaceAll('~1', '/').replaceAll('~0', '~'))))
        out[key] =
          `#/components/schemas/${defs.get(decodeURIComponent(def[1]!.replaceAll('~1', '/').replaceAll('~0', '~')))}${def[2]}`;
      else if (self !== undefined) out[key] = `${self}${child.slice(1)}`;
      else
        throw new RouteDefinitionError([
          `toOpenApi: ${where}: the schema refers to itself (${child}); name it, or use it as a body`,
        ]);
    } else out[key] = rewriteRefs(child, defs, self, where);
  }
  return out;
}

const PAGE_META: JsonObject = {
  type: 'object',
  description:
    'Where this page is: the pagination it was read with, whether there is more, and the total when asked for',
  required: ['has_more'],
  properties: {
    limit: { type: 'integer', minimum: 1 },
    offset: { type: 'integer', minimum: 0 },
    page: { type: 'integer', minimum: 1 },
    size: { type: 'integer', minimum: 1 },
    has_more: { type: 'boolean' },
    next_cursor: { type: 'string', description: 'Send as `cursor` (with the same query) for the next page' },
    total: {
      type: 'integer',
      minimum: 0,
      description: 'With `Prefer: count=exact` (or a collection that always counts)',
    },
  },
  additionalProperties: false,
  xml: { name: 'page' },
};

const PAGE_LINKS: JsonObject = {
  type: 'object',
  description:
    'The page relations (RFC 8288 link relations), each with the query in canonical form; the same as the Link header',
  required: ['self'],
  properties: Object.fromEntries(
    ['self', 'first', 'prev', 'next', 'last'].map((rel) => [
      rel,
      { type: 'string', format: 'uri-reference' },
    ]),
  ),
  additionalProperties: false,
  xml: { name: 'links' },
};

function problemSchema(typeBase: string): JsonObject {
  const escaped = typeBase.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const text = (description: string) => ({ type: 'string', description });
  const list = (description: string, items: JsonObject) => ({
    type: 'array',
    description,
    xml: { wrapped: true },
    items: { ...items, xml: { name: 'i' } },
  });
  return {
    type: 'object',
    description: 'An RFC 9457 problem document (@plumbline/errors); clients match on `error_code`',
    required: ['type', 'title', 'status', 'detail', 'error_code', 'message'],
    properties: {
      type: {
        type: 'string',
        format: 'uri-reference',
        pattern: `^${escaped}/`,
        description: `\`${typeBase}/<error_code>\`: what the error code means`,
      },
      title: text('The status reason phrase'),
      status: { type: 'integer', minimum: 400, maximum: 599 },
      detail: text('What went wrong, in the negotiated language'),
      instance: text('The request path'),
      error_code: {
        type: 'string',
        pattern: '^[a-z][a-z0-9_]*$',
        description: 'Stable machine-readable code',
      },
      message: text('The same as `detail`, for clients that read `message`'),
      request_id: text('The `X-Request-Id` of the request'),
      errors: list('Every invalid value, each located by one of pointer, parameter or header', {
        type: 'object',
        required: ['error_code', 'detail'],
        properties: {
          pointer: {
            type: 'string',
            pattern: '^#(/[^/]*)*$',
            description:
              'JSON Pointer into the request body, URI fragment form (RFC 6901 section 6): `#/name`',
          },
          parameter: text('The query (or path) parameter'),
          header: text('The request header'),
          error_code: { type: 'string' },
          detail: { type: 'string' },
        },
      }),
      available: list('On 406: the media types that can be served', { type: 'string' }),
    },
    xml: { name: 'problem', namespace: PROBLEM_XML_NAMESPACE },
  };
}

type Success = { readonly status: number; readonly response: JsonObject };

/** Builds the document route by route, registering shared components as they are used. */
class DocumentBuilder {
  readonly schemas: Record<string, JsonObject> = {};
  readonly parameters: Record<string, JsonObject> = {};
  readonly headers: Record<string, JsonObject> = {};
  readonly paths: Record<string, Record<string, OpenApiOperation>> = {};
  readonly tags: string[] = [];
  private readonly named = new Map<AnySchema, Map<string, string>>();
  private readonly operationIds = new Map<string, string>();
  private readonly problems: string[] = [];
  private readonly headerSpecs: Readonly<Record<string, JsonObject>>;
  private readonly parameterSpecs: Readonly<Record<string, JsonObject>>;

  constructor(private readonly o: Resolved) {
    this.schemas['Problem'] = problemSchema(o.typeBase);
    this.headerSpecs = headerSpecs(o);
    this.parameterSpecs = parameterSpecs(o);
  }

  private uniqueName(base: string): string {
    const clean = base.replace(/[^A-Za-z0-9._-]/g, '') || 'Schema';
    let name = clean;
    for (let i = 2; this.schemas[name] !== undefined; i++) name = `${clean}${i}`;
    return name;
  }

  /** `$defs` of a schema as components (same name and content: reused), by their names in the schema. */
  private hoistDefs(json: JsonObject, io: 'input' | 'output', where: string): Map<string, string> {
    const defs = new Map<string, string>();
    const declared = json['$defs'];
    if (!isObject(declared)) return defs;
    delete json['$defs'];
    const raw = Object.fromEntries(Object.entries(declared).map(([key, def]) => [key, this.at(key, def)]));
    for (const key of Object.keys(raw)) {
      const existing = this.schemas[key];
      defs.set(key, existing !== undefined && same(existing, raw[key]) ? key : this.uniqueName(key));
    }
    for (const [key, name] of defs) {
      const schema = rewriteRefs(raw[key], defs, `#/components/schemas/${name}`, where) as JsonObject;
      this.schemas[name] = io === 'output' ? (xmlify(schema) as JsonObject) : schema;
    }
    return defs;
  }

  /** A schema as the document's version has it (`changes`): through `schemaAt` by its name. */
  private at(name: string, json: unknown): unknown {
    const changes = this.o.changes;
    if (changes === undefined || !isObject(json)) return json;
    return structuredClone(changes.api.schemaAt(changes.version, name, json));
  }

  private json(schema: AnySchema, io: 'input' | 'output', where: string): JsonObject {
    try {
      return structuredClone(jsonSchemaOf(schema, io));
    } catch (error) {
      throw new RouteDefinitionError([
        `toOpenApi: ${where}: ${error instanceof Error ? error.message : String(error)}`,
      ]);
    }
  }

  /** A body schema as a named component (once per schema and direction), and the reference to it. */
  component(schema: AnySchema, io: 'input' | 'output', hint: string, where: string): JsonObject {
    const byIo = this.named.get(schema) ?? new Map<string, string>();
    this.named.set(schema, byIo);
    let name = byIo.get(io);
    if (name === undefined) {
      const base = this.json(schema, io, where);
      const own = typeof base['title'] === 'string' ? pascal(base['title']) : hint;
      const json = this.at(own, base) as JsonObject;
      name = this.uniqueName(own);
      // Reserve the name before the $defs take theirs.
      this.schemas[name] = {};
      byIo.set(io, name);
      const defs = this.hoistDefs(json, io, where);
      const rewritten = rewriteRefs(json, defs, `#/components/schemas/${name}`, where) as JsonObject;
      this.schemas[name] =
        io === 'output'
          ? {
              ...(xmlify(rewritten) as JsonObject),
              xml: { ...(rewritten['xml'] as JsonObject), name: this.o.xmlRoot },
            }
          : rewritten;
    }
    return { $ref: `#/components/schemas/${name}` };
  }

  /** The page of a collection route: `{ data, page, links }` around its item schema. */
  page(schema: AnySchema, collection: Collection, hint: string, where: string): JsonObject {
    const name = this.uniqueName(`${hint}Page`);
    this.schemas[name] = {};
    const base = this.json(schema, 'output', where);
    const json = this.at(
      typeof base['title'] === 'string' ? pascal(base['title']) : hint,
      base,
    ) as JsonObject;
    const defs = this.hoistDefs(json, 'output', where);
    const item = rewriteRefs(
      json,
      defs,
      `#/components/schemas/${name}/properties/data/items`,
      where,
    ) as JsonObject;
    // `fields=` selects members: only the identifier is always there.
    if (Array.isArray(item['required']))
      item['required'] = item['required'].filter((r) => r === collection.id);
    this.schemas['PageMeta'] ??= PAGE_META;
    this.schemas['PageLinks'] ??= PAGE_LINKS;
    this.schemas[name] = {
      type: 'object',
      description: `A page of a collection: the items (\`fields=\` selects their members; \`${collection.id}\` is always there), where the page is, and the links to the others`,
      required: ['data', 'page', 'links'],
      properties: {
        data: {
          type: 'array',
          xml: { wrapped: true },
          items: { ...(xmlify(item) as JsonObject), xml: { name: 'i' } },
        },
        page: { $ref: '#/components/schemas/PageMeta' },
        links: { $ref: '#/components/schemas/PageLinks' },
      },
      additionalProperties: false,
      xml: { name: this.o.xmlRoot },
    };
    return { $ref: `#/components/schemas/${name}` };
  }

  /** A property schema used in place (a parameter): its `$defs` become components; it may not refer to itself. */
  private inline(json: JsonObject, io: 'input' | 'output', where: string): JsonObject {
    const defs = this.hoistDefs(json, io, where);
    return rewriteRefs(json, defs, undefined, where) as JsonObject;
  }

  header(name: string): JsonObject {
    const spec = this.headerSpecs[name];
    if (spec === undefined) throw new Error(`unknown header component ${name}`);
    this.headers[name] ??= spec;
    return { $ref: `#/components/headers/${name}` };
  }

  parameter(name: string): JsonObject {
    const spec = this.parameterSpecs[name];
    if (spec === undefined) throw new Error(`unknown parameter component ${name}`);
    this.parameters[name] ??= spec;
    return { $ref: `#/components/parameters/${name}` };
  }

  /** The parameters of one location from an object schema: one per property. */
  private parametersOf(
    schema: AnySchema,
    location: 'path' | 'query' | 'header',
    where: string,
    only?: readonly string[],
  ): JsonObject[] {
    const json = this.inline(this.json(schema, 'input', where), 'input', where);
    const properties = json['properties'];
    if (!isObject(properties)) {
      if (location === 'query')
        return [{ name: 'query', in: 'query', required: false, style: 'form', explode: true, schema: json }];
      throw new RouteDefinitionError([
        `toOpenApi: ${where}: the ${location} schema must be an object with properties`,
      ]);
    }
    const required = new Set(Array.isArray(json['required']) ? (json['required'] as string[]) : []);
    const out: JsonObject[] = [];
    for (const name of only ?? Object.keys(properties)) {
      const property = properties[name];
      if (!isObject(property)) continue;
      // OpenAPI ignores these as parameters (they are the media types and the credentials).
      if (location === 'header' && ['accept', 'content-type', 'authorization'].includes(name.toLowerCase()))
        continue;
      const { description, ...rest } = property;
      out.push({
        name,
        in: location,
        required: location === 'path' || required.has(name),
        ...(typeof description === 'string' ? { description } : {}),
        schema: rest,
      });
    }
    return out;
  }

  private operationId(compiled: CompiledRoute): string {
    const own = compiled.route.operationId ?? defaultOperationId(compiled.method, compiled.path);
    const id = this.o.operationId?.(own, { method: compiled.method, path: compiled.path }) ?? own;
    let unique = id;
    if (compiled.route.operationId !== undefined || this.o.operationId !== undefined) {
      const earlier = this.operationIds.get(id);
      if (earlier !== undefined)
        this.problems.push(`${compiled.name}: operationId "${id}" is also ${earlier}'s`);
    } else for (let i = 2; this.operationIds.has(unique); i++) unique = `${id}${i}`;
    this.operationIds.set(unique, compiled.name);
    return unique;
  }

  /** A path parameter's name in the document (`pathParameter`). */
  private publishedName(name: string): string {
    return this.o.pathParameter?.(name).name ?? name;
  }

  /** A path parameter as the document publishes it (`pathParameter`): its name and schema. */
  private published(parameter: JsonObject): JsonObject {
    const hook = this.o.pathParameter;
    if (hook === undefined) return parameter;
    const name = String(parameter['name']);
    const { name: renamed, schema } = hook(name);
    return { ...parameter, name: renamed ?? name, ...(schema !== undefined ? { schema } : {}) };
  }

  /** Headers every response of the version carries. */
  private common(options: { readonly link?: boolean } = {}): JsonObject {
    const o = this.o;
    const out: JsonObject = {
      'X-Request-Id': this.header('XRequestId'),
      'Content-Language': this.header('ContentLanguage'),
      Vary: this.header('Vary'),
    };
    if (o.versions) {
      out['API-Supported-Versions'] = this.header('ApiSupportedVersions');
      if ((o.versions.deprecated ?? []).length > 0)
        out['API-Deprecated-Versions'] = this.header('ApiDeprecatedVersions');
    }
    if (o.rateLimit) {
      out['RateLimit'] = this.header('RateLimit');
      out['RateLimit-Policy'] = this.header('RateLimitPolicy');
    }
    if (o.deprecation) {
      out['Deprecation'] = this.header('Deprecation');
      if (o.deprecation.sunset) out['Sunset'] = this.header('Sunset');
      if (
        (o.deprecation.link !== undefined || o.deprecation.successor !== undefined) &&
        options.link !== false
      )
        out['Link'] = this.header('DeprecationLink');
    }
    return out;
  }

  private problem(description: string, headers: JsonObject = {}): JsonObject {
    return {
      description,
      headers: { ...this.common(), ...headers },
      content: {
        [PROBLEM_JSON]: { schema: { $ref: '#/components/schemas/Problem' } },
        [PROBLEM_XML]: { schema: { $ref: '#/components/schemas/Problem' } },
      },
    };
  }

  private content(schema: JsonObject): JsonObject {
    return Object.fromEntries(this.o.mediaTypes.map((type) => [type, { schema }]));
  }

  /** `advertisePatch`: the path takes a PATCH, so every answer may carry `Accept-Patch` (the mount's `acceptPatch`). */
  add(compiled: CompiledRoute, advertisePatch = false): void {
    const o = this.o;
    const { route, method } = compiled;
    const where = compiled.name;
    const resource = resourceName(compiled);
    const scopes = route.scopes ?? [];
    const preconditions = route.preconditions;
    const hasModified = preconditions?.modified !== undefined;
    const safe = method === 'GET';
    const required428 =
      !safe && preconditions !== undefined && (preconditions.required ?? o.requirePreconditions);
    // `represent` answers 304 to a GET that would get 200 with a body; preconditions answer it before the handler.
    const ok = compiled.responses.get(200);
    const conditionalGet =
      safe &&
      (preconditions !== undefined ||
        (ok !== undefined && (ok.body !== undefined || compiled.collection !== undefined)));

    // Parameters: path, then query (the schema's, or the collection's), headers, then the conventions'.
    const parameters: JsonObject[] = [];
    if (route.params !== undefined)
      parameters.push(
        ...this.parametersOf(route.params, 'path', where, compiled.paramNames).map((p) => this.published(p)),
      );
    if (compiled.collection !== undefined) {
      // A search's query is its body: no query parameters.
      if (!compiled.search)
        parameters.push(
          ...(toOpenApiParameters(compiled.collection) as unknown as JsonObject[]).map((p) => ({ ...p })),
        );
      if (compiled.collection.count === 'prefer') parameters.push(this.parameter('PreferCount'));
    } else if (route.query !== undefined) parameters.push(...this.parametersOf(route.query, 'query', where));
    const conventionHeaders: JsonObject[] = [];
    if (compiled.idempotency)
      conventionHeaders.push(
        this.parameter(compiled.idempotency.required ? 'IdempotencyKeyRequired' : 'IdempotencyKey'),
      );
    if (preconditions !== undefined) {
      conventionHeaders.push(
        this.parameter('IfMatch'),
        this.parameter('IfNoneMatch'),
        this.parameter('IfUnmodifiedSince'),
      );
      if (safe && hasModified) conventionHeaders.push(this.parameter('IfModifiedSince'));
    } else if (conditionalGet) conventionHeaders.push(this.parameter('IfNoneMatch'));
    conventionHeaders.push(this.parameter('AcceptLanguage'));
    const taken = new Set(
      conventionHeaders.map((ref) =>
        String(this.parameters[String(ref['$ref']).split('/').pop()!]!['name']).toLowerCase(),
      ),
    );
    if (route.headers !== undefined)
      parameters.push(
        ...this.parametersOf(route.headers, 'header', where).filter(
          (p) => !taken.has(String(p['name']).toLowerCase()),
        ),
      );
    parameters.push(...conventionHeaders);

    // The request body, in every media type the route accepts.
    let requestBody: JsonObject | undefined;
    if (compiled.body) {
      const hint = `${resource}${compiled.search ? 'Search' : method === 'PATCH' ? 'Patch' : 'Input'}`;
      const schema = this.component(compiled.body.schema, 'input', hint, where);
      requestBody = {
        required: !acceptsUndefined(compiled.body.schema),
        ...(compiled.body.description !== undefined ? { description: compiled.body.description } : {}),
        content: Object.fromEntries(compiled.body.mediaTypes.map((type) => [type, { schema }])),
      };
    }

    // Success responses, as declared.
    const successes: Success[] = [];
    for (const [status, declared] of compiled.responses) {
      const headers: JsonObject = {
        ...this.common({ link: !(compiled.collection !== undefined && status === 200) }),
      };
      const response: JsonObject = {};
      let body: JsonObject | undefined;
      if (compiled.collection !== undefined && status === 200 && declared.body !== undefined) {
        body = this.page(declared.body, compiled.collection, resource, where);
        headers['Link'] = this.header(
          o.deprecation?.link !== undefined || o.deprecation?.successor !== undefined
            ? 'PageAndDeprecationLink'
            : 'PageLink',
        );
        if (compiled.collection.count === 'prefer')
          headers['Preference-Applied'] = this.header('PreferenceApplied');
      } else if (declared.body !== undefined) body = this.component(declared.body, 'output', resource, where);
      if (status === 201) headers['Location'] = this.header('Location');
      // `represent` gives every 2xx with a body its entity tag; preconditions give GETs theirs and Last-Modified.
      if ((body !== undefined && status < 300) || (preconditions !== undefined && safe))
        headers['ETag'] = this.header('ETag');
      if (preconditions !== undefined && safe && hasModified)
        headers['Last-Modified'] = this.header('LastModified');
      if (compiled.idempotency) {
        headers['Idempotent-Replayed'] = this.header('IdempotentReplayed');
        headers['Replayed-By-Request-Id'] = this.header('ReplayedByRequestId');
      }
      for (const [name, spec] of Object.entries(declared.headers)) {
        headers[name] = { description: spec.description, schema: spec.schema ?? { type: 'string' } };
      }
      response['description'] =
        declared.description ??
        (compiled.collection !== undefined && status === 200
          ? `A page of ${resource} items`
          : (SUCCESS[status] ?? `Status ${status}`));
      response['headers'] = headers;
      if (body !== undefined) response['content'] = this.content(body);
      successes.push({ status, response });
    }

    // What the conventions answer around the handler.
    const responses: Record<string, JsonObject> = {};
    for (const { status, response } of successes) responses[String(status)] = response;
    if (conditionalGet) {
      // A 304 carries the headers the 200 would have had (RFC 9110 section 15.4.5), without a body.
      const ok = successes.find((s) => s.status === 200)?.response['headers'] as JsonObject | undefined;
      const headers: JsonObject = { ...(ok ?? this.common()), ETag: this.header('ETag') };
      if (preconditions !== undefined && hasModified) headers['Last-Modified'] = this.header('LastModified');
      responses['304'] = {
        description: 'Not Modified: the entity tag sent in If-None-Match is current (no body)',
        headers,
      };
    }
    const bad: string[] = [];
    if (compiled.collection !== undefined) bad.push(...QUERY_CODES);
    else if (route.query === undefined) bad.push('unknown_parameter');
    // A search's body is judged by the query parser (its codes above), not by a schema.
    if (
      route.query !== undefined ||
      route.headers !== undefined ||
      (compiled.body !== undefined && !compiled.search)
    )
      bad.push('validation_failed');
    if (compiled.body !== undefined) bad.push('malformed_json');
    if (compiled.idempotency)
      bad.push(
        ...(compiled.idempotency.required ? ['idempotency_key_missing'] : []),
        'idempotency_key_invalid',
      );
    const authenticates = o.apiKey !== undefined || o.bearer !== undefined;
    if (authenticates) bad.push('invalid_request', 'credentials_in_query');
    responses['400'] = this.problem(
      `Bad Request: ${codes([...new Set(bad)])}; \`errors\` lists every invalid value`,
      authenticates && o.bearer !== undefined ? { 'WWW-Authenticate': this.header('BearerChallenge') } : {},
    );
    if (scopes.length > 0) {
      responses['401'] = this.problem(
        'Unauthorized: `unauthorized` (no or unknown credentials), `invalid_token`',
        {
          'WWW-Authenticate': this.header('WWWAuthenticate'),
        },
      );
      responses['403'] = this.problem(`Forbidden: \`insufficient_scope\` (needs ${scopes.join(', ')})`, {
        'WWW-Authenticate': this.header('InsufficientScopeChallenge'),
      });
    }
    if (compiled.paramNames.length > 0 || preconditions !== undefined)
      responses['404'] = this.problem(
        'Not Found: `not_found` (no such resource, or a path parameter that names none)',
      );
    responses['406'] = this.problem(
      `Not Acceptable: \`not_acceptable\` (served: ${o.mediaTypes.join(', ')}; \`available\` lists them)`,
    );
    if (compiled.idempotency)
      responses['409'] = this.problem(
        'Conflict: `idempotency_key_in_use` (a request with this key is still running; retry after Retry-After)',
        {
          'Retry-After': this.header('RetryAfterRequired'),
        },
      );
    if (o.deprecation?.sunset)
      responses['410'] = this.problem(
        `Gone: \`api_version_sunset\` (this version is retired since ${o.deprecation.sunset.toUTCString()})`,
      );
    if (preconditions !== undefined)
      responses['412'] = this.problem(
        safe
          ? 'Precondition Failed: `precondition_failed` (If-Match or If-Unmodified-Since does not hold)'
          : 'Precondition Failed: `precondition_failed` (the resource changed since it was read: If-Match, If-None-Match or If-Unmodified-Since does not hold)',
      );
    if (compiled.body !== undefined) {
      responses['413'] = this.problem('Content Too Large: `payload_too_large` (the body is over the limit)');
      const acceptHeader =
        method === 'POST' ? 'AcceptPost' : method === 'PATCH' ? 'AcceptPatch' : 'AcceptPut';
      const acceptName = method === 'POST' ? 'Accept-Post' : method === 'PATCH' ? 'Accept-Patch' : 'Accept';
      responses['415'] = this.problem(
        `Unsupported Media Type: \`unsupported_media_type\` (send ${compiled.body.mediaTypes.join(' or ')}, without a content coding; ${acceptName} lists them)`,
        { [acceptName]: this.header(acceptHeader) },
      );
    }
    if (compiled.idempotency)
      responses['422'] = this.problem(
        'Unprocessable Content: `idempotency_key_reused` (the key was used with another request)',
      );
    if (required428)
      responses['428'] = this.problem(
        'Precondition Required: `precondition_required` (send If-Match or If-Unmodified-Since)',
      );
    if (o.rateLimit)
      responses['429'] = this.problem('Too Many Requests: `rate_limited` (retry after Retry-After)', {
        'Retry-After': this.header('RetryAfterRequired'),
      });
    responses['500'] = this.problem('Internal Server Error: `internal_error` (no details are given)');
    if (compiled.idempotency)
      responses['503'] = this.problem(
        'Service Unavailable: `service_unavailable` (the idempotency store is unreachable; retry after Retry-After)',
        {
          'Retry-After': this.header('RetryAfterRequired'),
        },
      );

    if (advertisePatch) {
      for (const response of Object.values(responses)) {
        const headers = response['headers'] as JsonObject;
        if (headers['Accept-Patch'] === undefined)
          headers['Accept-Patch'] = this.header('AcceptPatchAdvertised');
      }
    }

    const tags =
      route.tags && route.tags.length > 0
        ? [...route.tags]
        : [compiled.path.split('/').find((s) => s !== '' && !s.startsWith('{')) ?? 'root'];
    for (const tag of tags) if (!this.tags.includes(tag)) this.tags.push(tag);
    const security: Record<string, readonly string[]>[] = [];
    if (scopes.length > 0) {
      // With an OAuth 2.0 scheme the scopes are its own; the others list none.
      const others = o.oauth2 ? [] : [...scopes];
      if (o.apiKey) security.push({ apiKey: others });
      if (o.bearer) security.push({ bearer: [...others] });
      if (o.oauth2) security.push({ oauth2: [...scopes] });
    }
    const operation: OpenApiOperation = {
      operationId: this.operationId(compiled),
      ...(route.summary !== undefined ? { summary: route.summary } : {}),
      description: route.description ?? conventionsOf(compiled, required428, conditionalGet),
      tags,
      ...(route.deprecated === true || o.deprecation !== undefined ? { deprecated: true as const } : {}),
      ...(security.length > 0 ? { security } : {}),
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(requestBody !== undefined ? { requestBody } : {}),
      responses,
    };
    const path = `${o.prefix}${compiled.path.replace(/\{([^}]+)\}/g, (_all, name: string) => `{${this.publishedName(name)}}`)}`;
    this.paths[path] ??= {};
    this.paths[path][method.toLowerCase()] = operation;
  }

  document(): OpenApiDocument {
    if (this.problems.length > 0) throw new RouteDefinitionError(this.problems);
    const o = this.o;
    const securitySchemes: Record<string, JsonObject> = {};
    if (o.apiKey)
      securitySchemes['apiKey'] = {
        type: 'apiKey',
        in: 'header',
        name: o.apiKey.name,
        description:
          o.apiKey.description ?? 'An API key; its access level grants the read:* or write:* scopes',
      };
    if (o.bearer)
      securitySchemes['bearer'] = {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: o.bearer.bearerFormat,
        description: o.bearer.description ?? 'A bearer token whose `scope` claim lists the scopes',
      };
    if (o.oauth2)
      securitySchemes['oauth2'] = {
        type: 'oauth2',
        ...(o.oauth2.description !== undefined ? { description: o.oauth2.description } : {}),
        flows: o.oauth2.flows,
      };
    return {
      openapi: '3.1.0',
      info: o.info,
      servers: o.servers,
      tags: this.tags.map((name) => ({ name })),
      paths: this.paths,
      components: {
        schemas: this.schemas,
        parameters: this.parameters,
        headers: this.headers,
        ...(Object.keys(securitySchemes).length > 0 ? { securitySchemes } : {}),
      },
    };
  }
}

/** What a route without a `description` is described with: the conventions it follows, in a few sentences. */
function conventionsOf(compiled: CompiledRoute, required428: boolean, conditionalGet: boolean): string {
  const { route } = compiled;
  const out: string[] = [];
  if (route.scopes !== undefined && route.scopes.length > 0)
    out.push(
      `Needs the scope${route.scopes.length > 1 ? 's' : ''} ${route.scopes.map((s) => `\`${s}\``).join(', ')}.`,
    );
  if (compiled.search)
    out.push(
      'A search: the collection query (filter, search, sort, page and select fields) is the JSON body (unknown members are refused), and any query parameter is refused with 400; the answer is one page (`data`, `page`, `links`), its links (to the collection) also in `Link`.',
    );
  else if (compiled.collection !== undefined)
    out.push(
      'A collection: filter, search, sort, page and select fields with the query parameters (unknown ones are refused); the answer is one page (`data`, `page`, `links`), its links also in `Link`.',
    );
  else if (route.query === undefined) out.push('Takes no query parameters (any is refused with 400).');
  if (compiled.body !== undefined)
    out.push(`Accepts ${compiled.body.mediaTypes.join(' or ')}; every invalid value is listed in one 400.`);
  if (compiled.idempotency)
    out.push(
      `${compiled.idempotency.required ? 'Needs' : 'Takes'} an \`Idempotency-Key\`: a retry with the same key and request gets the first answer again (\`Idempotent-Replayed: true\`).`,
    );
  if (route.preconditions !== undefined)
    out.push(
      compiled.method === 'GET'
        ? 'Conditional: 304 to a current If-None-Match, 412 when If-Match or If-Unmodified-Since does not hold.'
        : `Conditional: 412 when If-Match, If-None-Match or If-Unmodified-Since does not hold${required428 ? '; 428 without If-Match or If-Unmodified-Since' : ''}.`,
    );
  else if (conditionalGet) out.push('Answers 304 to a current If-None-Match.');
  return out.join(' ');
}

/** Whether a body schema accepts no body at all (then the request body is optional). */
function acceptsUndefined(schema: AnySchema): boolean {
  try {
    const result = schema['~standard'].validate(undefined);
    return !(result instanceof Promise) && result.issues === undefined;
  } catch {
    return false;
  }
}

function headerSpecs(o: Resolved): Readonly<Record<string, JsonObject>> {
  const text = (description: string, extra: JsonObject = {}) => ({
    description,
    schema: { type: 'string', ...extra },
  });
  const required = (description: string, extra: JsonObject = {}) => ({
    ...text(description, extra),
    required: true,
  });
  const sunset = o.deprecation?.sunset;
  const deprecated = o.deprecation?.deprecation;
  const link = o.deprecation?.link;
  const successor = o.deprecation?.successor;
  const relations = [
    ...(link !== undefined ? [`<${link}>; rel="deprecation"`] : []),
    ...(successor !== undefined ? [`rel="successor-version" (version ${successor})`] : []),
  ].join(' and ');
  return {
    PreferenceApplied: text(
      '`count=exact` when the page carries the total that `Prefer` asked for (RFC 7240)',
      {
        enum: ['count=exact'],
      },
    ),
    XRequestId: text(
      'The request id (also `request_id` in problems): the client’s own X-Request-Id when it is a valid one, else a new one',
      {
        maxLength: 128,
      },
    ),
    ContentLanguage: required('The language of the representation (and of problem details)', {
      enum: [...o.languages],
    }),
    Vary: required('The request headers the representation depends on', {
      examples: ['Accept, Accept-Language'],
    }),
    ETag: text(
      'Strong entity tag of this representation (per media type and language); send it in If-None-Match for a 304, in If-Match to write',
      {
        pattern: '^(W/)?"[^"]*"$',
      },
    ),
    LastModified: text(
      'When the resource last changed (HTTP-date); send it in If-Unmodified-Since to write',
      {
        examples: ['Fri, 02 Jan 2026 00:00:00 GMT'],
      },
    ),
    Location: {
      ...required('The URL of the created resource'),
      schema: { type: 'string', format: 'uri-reference' },
    },
    PageLink: required(
      'RFC 8288 links to the pages: rel="self", "first", and "prev", "next", "last" when there are such pages',
    ),
    PageAndDeprecationLink: required(
      `RFC 8288 links to the pages (rel="self", "first", "prev", "next", "last") and ${relations} (with rel="sunset" when the version policy names it)`,
    ),
    DeprecationLink: required(
      `${relations}: what replaces this version (with rel="sunset" when the version policy names it)`,
      link !== undefined ? { examples: [`<${link}>; rel="deprecation"`] } : {},
    ),
    Deprecation: required(
      deprecated
        ? `RFC 9745: this version is deprecated since ${deprecated.toUTCString()} (@<unix seconds>)`
        : 'RFC 9745: this version is deprecated',
      deprecated ? { const: `@${Math.floor(deprecated.getTime() / 1000)}` } : { examples: ['true'] },
    ),
    Sunset: required(
      `RFC 8594: this version answers 410 after this HTTP-date`,
      sunset ? { const: sunset.toUTCString() } : {},
    ),
    ApiSupportedVersions: required('The API versions this service serves', {
      examples: [(o.versions?.supported ?? []).join(', ')],
    }),
    ApiDeprecatedVersions: text('The API versions that are deprecated (served until their sunset)', {
      examples: [(o.versions?.deprecated ?? []).join(', ')],
    }),
    RateLimit: text('draft-ietf-httpapi-ratelimit-headers: the quota left in the current window'),
    RateLimitPolicy: text('draft-ietf-httpapi-ratelimit-headers: the quota policy'),
    RetryAfterRequired: required('Seconds to wait before retrying', { pattern: '^[0-9]+$' }),
    WWWAuthenticate: required(
      `The authentication challenge (RFC 9110 section 11.6.1), e.g. Bearer realm="${o.realm}"`,
    ),
    BearerChallenge: text(
      `RFC 6750 section 3.1: Bearer realm="${o.realm}", error="invalid_request" when a bearer request is malformed`,
    ),
    InsufficientScopeChallenge: text(
      `RFC 6750 section 3.1: Bearer realm="${o.realm}", error="insufficient_scope", scope="…"`,
    ),
    AcceptPost: required('The media types a POST accepts'),
    AcceptPatch: required('The media types a PATCH accepts'),
    AcceptPatchAdvertised: text(
      'The media types a PATCH of this resource accepts (RFC 5789 section 3.1), sent once the path has matched',
    ),
    AcceptPut: required('The media types a PUT accepts'),
    IdempotentReplayed: text(
      '`true` when this is the stored response of an earlier request with the same Idempotency-Key',
      {
        enum: ['true'],
      },
    ),
    ReplayedByRequestId: text(
      'On a replay: the request id of this retry (X-Request-Id and the body keep the first request’s)',
      {
        maxLength: 128,
      },
    ),
  };
}

function parameterSpecs(o: Resolved): Readonly<Record<string, JsonObject>> {
  const header = (name: string, description: string, schema: JsonObject, required = false) => ({
    name,
    in: 'header',
    required,
    description,
    schema,
  });
  const key = { type: 'string', minLength: 1, maxLength: 257 };
  return {
    IdempotencyKeyRequired: header(
      'Idempotency-Key',
      'A unique key per logical operation (1 to 255 visible ASCII characters, or an RFC 8941 string); a retry with the same key and request replays the first answer',
      key,
      true,
    ),
    IdempotencyKey: header(
      'Idempotency-Key',
      'Optional: makes the request safe to retry (1 to 255 visible ASCII characters, or an RFC 8941 string); a retry with the same key and request replays the first answer',
      key,
    ),
    IfMatch: header(
      'If-Match',
      'Apply only if the resource is still at one of these entity tags (or `*`); otherwise 412',
      {
        type: 'string',
      },
    ),
    IfNoneMatch: header(
      'If-None-Match',
      'GET: 304 when one of these entity tags is current. Writes: `*` or a current tag makes the write fail with 412',
      {
        type: 'string',
      },
    ),
    IfUnmodifiedSince: header(
      'If-Unmodified-Since',
      'HTTP-date: apply only if the resource has not changed since; ignored with If-Match',
      {
        type: 'string',
      },
    ),
    IfModifiedSince: header(
      'If-Modified-Since',
      'HTTP-date: 304 when the resource has not changed since; ignored with If-None-Match',
      {
        type: 'string',
      },
    ),
    AcceptLanguage: header(
      'Accept-Language',
      `The language of messages and problem details: ${o.languages.join(', ')} (default ${o.languages[0]})`,
      {
        type: 'string',
      },
    ),
    PreferCount: header('Prefer', '`count=exact` asks for `page.total` (and a `last` link)', {
      type: 'string',
      examples: ['count=exact'],
    }),
  };
}

/**
 * The OpenAPI 3.1 document of a route table: each route's parameters (path, query or the collection
 * query, headers and the conventions' `Idempotency-Key`, `If-Match`, `If-None-Match`, ...), its request
 * body in the media types it accepts, its declared responses in JSON and XML (collections as
 * `{ data, page, links }` with `Link`, 201 with `Location`, `ETag`, 304 on GETs), and every problem
 * response the conventions can give (400, 401/403 with `WWW-Authenticate` on routes with scopes, 404,
 * 406, 409/422/503 when idempotent, 410 after a sunset, 412/428 with preconditions, 413/415 with a
 * body, 429 when rate limited, 500), in `application/problem+json` and `application/problem+xml`.
 * Body schemas become components (one per schema and direction), named after their JSON Schema
 * `title` or the route's resource. The table is checked as `compileRoutes` checks it. With `changes`
 * (`@plumbline/versioning`), the document of an older declared version from the same table.
 *
 * @example
 * ```ts
 * const document = toOpenApi(routes, {
 *   info: { title: 'Projects API', version: '1.0.0' },
 *   pathPrefix: '/v1',
 *   security: { apiKey: true, bearer: true },
 * });
 * app.get('/v1/openapi.json', (_req, res) => res.json(document));
 * // Version 1 of a table that is version 2, from the declared changes:
 * const v1 = toOpenApi(routes, { info, pathPrefix: '/v1', changes: { api, version: '1' } });
 * ```
 */
export function toOpenApi(routes: readonly Route[], options: OpenApiOptions): OpenApiDocument {
  const resolved = resolveOptions(options);
  const builder = new DocumentBuilder(resolved);
  const changes = resolved.changes;
  const served = compileRoutes(routes).filter(
    (compiled) => changes === undefined || changes.api.hasEndpoint(changes.version, compiled),
  );
  const acceptPatch = acceptPatchOf(served, options);
  for (const compiled of served) builder.add(compiled, acceptPatch.has(compiled.colonPath));
  return builder.document();
}
