/**
 * The versioned paths of the OpenAPI document (`/v<N>/...`), made from the route table every
 * framework mounts (api/routes/*.ts), so a route added or changed there is in the document too.
 * `@plumbline/contract`'s `toOpenApi` gives each route's path (its parameters published as
 * `{project_id}`, a UUID), operation id (`v<N>_<id>`), summary, tag, deprecation and security (the
 * scopes on `oauth2`); the service's own conventions are written around them here: the shared
 * problem responses (openapi/document.ts), the version's schemas, the collection query as the
 * version names its fields, and the headers each answer carries.
 */
import { type CompiledRoute, compileRoutes, type Route, toOpenApi } from '@plumbline/contract';
import { toOpenApiMemberParameters, toOpenApiParameters } from '@plumbline/query-parser';
import { commentRoutes } from '../api/routes/comments.js';
import { projectRoutes } from '../api/routes/projects.js';
import { searchRoutes } from '../api/routes/searches.js';
import { taskRoutes } from '../api/routes/tasks.js';
import type { ApiVersion } from '../domain/model.js';
import { API_VERSIONS, isDeprecatedVersion, queryFieldAt, queryFieldsOf } from '../domain/versions.js';
import type { AppContext } from '../service/context.js';
import { pageOf } from './front.js';

type Json = Record<string, unknown>;

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

export const header = (name: string) => ({ $ref: `#/components/headers/${name}` });

export function errorResponses(codes: readonly string[]): Json {
  return Object.fromEntries(codes.map((code) => [code, { $ref: `#/components/responses/Error${code}` }]));
}

/**
 * Headers every response carries (or may carry): the request id, the version headers, the
 * negotiation headers, the validator and the rate limit. On a deprecated version also `Deprecation`,
 * `Sunset` and the `Link` to the successor; without a version (shared error responses) those are
 * declared as optional, since the same problem response serves every version.
 */
export function commonResponseHeaders(version?: ApiVersion): Json {
  return {
    'X-Request-Id': header('XRequestId'),
    'API-Supported-Versions': header('ApiSupportedVersions'),
    'API-Deprecated-Versions': header('ApiDeprecatedVersions'),
    'Content-Language': header('ContentLanguage'),
    Vary: header('Vary'),
    ETag: header('ETag'),
    RateLimit: header('RateLimit'),
    'RateLimit-Policy': header('RateLimitPolicy'),
    Link: header('Link'),
    ...(version === undefined || isDeprecatedVersion(version)
      ? { Deprecation: header('Deprecation'), Sunset: header('Sunset') }
      : {}),
  };
}

/** `{projectId}` of the routes as the document publishes it: `{project_id}`, a UUID. */
const publishedName = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
const pathParameter = (name: string) => ({
  name: publishedName(name),
  schema: { type: 'string', format: 'uuid' },
});

const READ_ERRORS = ['400', '401', '403', '404', '406', '410', '429', '500', '503'];
const WRITE_ERRORS = ['400', '401', '403', '404', '406', '409', '410', '413', '415', '429', '500', '503'];
const ERRORS: Readonly<Record<string, readonly string[]>> = {
  GET: READ_ERRORS,
  DELETE: READ_ERRORS,
  PUT: WRITE_ERRORS,
  PATCH: WRITE_ERRORS,
  POST: [...WRITE_ERRORS, '422'],
};

/** The document's schemas of a resource (by the routes' tag) in `version`: only a project's differ by version. */
function schemasOf(tag: string, version: ApiVersion): { readonly item: Json; readonly input: Json } {
  if (tag === 'projects') return { item: ref(`ProjectV${version}`), input: ref(`ProjectInputV${version}`) };
  const name = { tasks: 'Task', comments: 'Comment' }[tag];
  if (name === undefined) throw new Error(`no schemas for the routes tagged ${tag}`);
  return { item: ref(name), input: ref(`${name}Input`) };
}

/** A member read under `fields=`: a `<Item>Selection` is `<Item>` with only `id` required (openapi/document.ts). */
const selection = (item: Json): Json => ({ $ref: `${String(item['$ref'])}Selection` });

/**
 * A collection's query parameters as `version` names the fields: the grammar knows every version's
 * name of a renamed field (domain/collections.ts), a version's document only its own, in `fields`
 * and in the fields `q` searches.
 */
function atVersion(version: ApiVersion, parameters: readonly Json[]): Json[] {
  return parameters.map((parameter) => {
    if (parameter['name'] === 'fields') {
      const schema = parameter['schema'] as Json;
      const items = schema['items'] as Json;
      const names = items['enum'] as string[];
      return {
        ...parameter,
        schema: { ...schema, items: { ...items, enum: queryFieldsOf(version, names) } },
      };
    }
    if (parameter['name'] === 'q') {
      const description = String(parameter['description']).replace(
        /(search in )(.*)(\.)$/,
        (_all, before: string, names: string, after: string) =>
          `${before}${names
            .split(', ')
            .map((name) => queryFieldAt(version, name))
            .join(', ')}${after}`,
      );
      return { ...parameter, description };
    }
    return parameter;
  });
}

/** What the route table's document says of an operation, and what the service adds to it. */
interface OperationSpec {
  /** `operationId`, `summary`, `tags`, `deprecated`, `security`: toOpenApi's, as they are. */
  readonly generated: Json;
  readonly params: readonly Json[];
  readonly body?: { readonly schema: Json; readonly types: readonly string[] };
  readonly idempotencyKey?: 'required' | 'optional';
  readonly success: {
    readonly status: string;
    readonly description: string;
    readonly schema?: Json;
    readonly location?: boolean;
  };
  readonly errors: readonly string[];
  /** A resource that takes a PATCH: every response advertises `Accept-Patch`. */
  readonly member?: boolean;
  /** A page of a collection (`Preference-Applied` for `Prefer: count=exact`). */
  readonly page?: boolean;
}

function operation(version: ApiVersion, spec: OperationSpec): Json {
  const { operationId, summary, tags, deprecated, security } = spec.generated;
  const successHeaders = {
    ...commonResponseHeaders(version),
    ...(spec.member ? { 'Accept-Patch': header('AcceptPatch') } : {}),
    ...(spec.page ? { 'Preference-Applied': header('PreferenceApplied') } : {}),
    ...(spec.idempotencyKey
      ? {
          'Idempotent-Replayed': header('IdempotentReplayed'),
          'Replayed-By-Request-Id': header('ReplayedByRequestId'),
        }
      : {}),
    ...(spec.success.location ? { Location: header('Location') } : {}),
  };
  const parameters = [
    ...spec.params,
    ...(spec.idempotencyKey
      ? [
          {
            $ref: `#/components/parameters/IdempotencyKey${spec.idempotencyKey === 'required' ? 'Required' : ''}`,
          },
        ]
      : []),
  ];
  const body = spec.body;
  return {
    operationId,
    summary,
    tags,
    ...(deprecated === true ? { deprecated } : {}),
    security,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(body
      ? {
          requestBody: {
            required: true,
            content: Object.fromEntries(body.types.map((type) => [type, { schema: body.schema }])),
          },
        }
      : {}),
    responses: {
      [spec.success.status]: {
        description: spec.success.description,
        headers: successHeaders,
        ...(spec.success.schema
          ? {
              content: {
                'application/json': { schema: spec.success.schema },
                'application/xml': { schema: spec.success.schema },
              },
            }
          : {}),
      },
      ...errorResponses(spec.errors),
    },
  };
}

/** The route table of the versioned API, as every framework mounts it. */
const apiRoutes = (ctx: AppContext): readonly Route[] => [
  ...searchRoutes(ctx),
  ...projectRoutes(ctx),
  ...taskRoutes(ctx),
  ...commentRoutes(ctx),
];

/** The routes in the document's order: each search (`POST <collection>/search`) right after its collection. */
function documentOrder(compiled: readonly CompiledRoute[]): CompiledRoute[] {
  const searches = compiled.filter((route) => route.search);
  const searchesOf = (route: CompiledRoute) =>
    route.method === 'GET' && route.collection !== undefined
      ? searches.filter((search) => search.path === `${route.path}/search`)
      : [];
  const ordered = compiled.filter((route) => !route.search).flatMap((route) => [route, ...searchesOf(route)]);
  return [...ordered, ...searches.filter((search) => !ordered.includes(search))];
}

/**
 * The paths of `version`: every route of the table `version` serves, the searches after their
 * collections.
 *
 * @example
 * ```ts
 * const paths = versionPaths(ctx, 2); // { '/v2/projects': { get, post }, '/v2/projects/search': { post }, ... }
 * ```
 */
export function versionPaths(ctx: AppContext, version: ApiVersion): Json {
  const routes = apiRoutes(ctx);
  const document = toOpenApi(routes, {
    info: { title: 'Plumbline reference service', version: String(version) },
    pathPrefix: `/v${version}`,
    operationId: (id) => `v${version}_${id}`,
    pathParameter,
    // The scopes are the `oauth2` scheme's; openapi/document.ts declares the schemes.
    security: {
      apiKey: true,
      bearer: true,
      oauth2: { flows: { clientCredentials: { tokenUrl: '/oauth/token' } } },
    },
    ...(isDeprecatedVersion(version) ? { deprecation: {} } : {}),
    changes: { api: API_VERSIONS, version: String(version) },
  });
  const compiled = compileRoutes(routes);
  // Every answer on a path that takes a PATCH carries `Accept-Patch` (http/<framework>/routes.ts).
  const patched = new Set(compiled.filter((route) => route.method === 'PATCH').map((route) => route.path));
  const paths: Record<string, Json> = {};
  for (const { method, path: own, collection, search, idempotency, body } of documentOrder(compiled)) {
    const path = `/v${version}${own.replace(/\{([^}]+)\}/g, (_all, name: string) => `{${publishedName(name)}}`)}`;
    const generated = document.paths[path]?.[method.toLowerCase() as 'get'] as Json | undefined;
    // A route this version does not serve (`endpointAdded` later, `endpointRemoved` earlier).
    if (generated === undefined) continue;
    const tag = String((generated['tags'] as string[])[0]) as keyof AppContext['collections'];
    const { item, input } = schemasOf(tag, version);
    const params = ((generated['parameters'] as Json[] | undefined) ?? []).filter((p) => p['in'] === 'path');
    const [status, declared] = Object.entries(generated['responses'] as Record<string, Json>)[0]!;
    // A search's collection query is its body (SearchBody).
    const query = search
      ? []
      : collection
        ? [
            ...atVersion(version, toOpenApiParameters(collection) as unknown as Json[]),
            { $ref: '#/components/parameters/Prefer' },
          ]
        : method === 'GET'
          ? atVersion(version, toOpenApiMemberParameters(ctx.collections[tag]) as unknown as Json[])
          : [];
    paths[path] ??= {};
    paths[path][method.toLowerCase()] = operation(version, {
      generated,
      params: [...params, ...query],
      ...(body
        ? {
            body: {
              schema: search ? ref('SearchBody') : method === 'PATCH' ? { type: 'object' } : input,
              types: body.mediaTypes,
            },
          }
        : {}),
      ...(idempotency ? { idempotencyKey: idempotency.required ? 'required' : 'optional' } : {}),
      success: {
        status,
        description: String(declared['description']),
        ...(status === '204'
          ? {}
          : { schema: collection ? pageOf(item) : method === 'GET' ? selection(item) : item }),
        ...(status === '201' ? { location: true } : {}),
      },
      errors: search ? [...READ_ERRORS, '413', '415'] : ERRORS[method]!,
      member: patched.has(own),
      page: collection !== undefined,
    });
  }
  return paths;
}
