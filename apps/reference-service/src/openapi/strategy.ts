/**
 * The OpenAPI document under the chosen VERSIONING_STRATEGY. openapi/document.ts describes the path strategy
 * (`/v1/...` and `/v2/...`); under the other strategies both versions live at one path, so each
 * pair of operations becomes one operation of the current version that also describes v1:
 *
 *   query       a `version` query parameter (default 2)
 *   header      an `X-API-Version` header parameter (default 2)
 *   media-type  per-version vendor media types in every JSON/XML response (`application/vnd.plumbline.v1+json`
 *               has v1's schema), plain `application/json` and `application/xml` the default's
 *
 * Where v1's schema differs (the project budget) the query and header documents give `anyOf`
 * of both; v1's Deprecation, Sunset and Link headers stay declared on the responses.
 */
import { isDeprecatedVersion } from '../domain/versions.js';
import { type ApiStrategy, vendorType } from '../service/versioning.js';

type Json = Record<string, unknown>;

const VERSIONED = /^\/v(\d+)(\/.*)$/;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** An operation (or response) of a version other than the default, with its version name. */
type Other = readonly [version: string, item: Json | undefined];

/** One schema for every version: the current one, or `anyOf` the distinct ones when an older version's differs. */
function union(current: unknown, others: readonly unknown[]): unknown {
  const distinct: unknown[] = [current];
  for (const other of others)
    if (other !== undefined && !distinct.some((known) => same(known, other))) distinct.push(other);
  return distinct.length === 1 ? current : { anyOf: distinct };
}

/** A content map with a schema per version: vendor types per version, plain types for the default. */
function contentPerVersion(current: Json, others: readonly Other[], defaultVersion: string): Json {
  const out: Json = {};
  for (const [type, media] of Object.entries(current)) {
    out[type] = media;
    const suffix = type === 'application/json' ? 'json' : type === 'application/xml' ? 'xml' : undefined;
    if (suffix === undefined) continue;
    out[vendorType(defaultVersion, suffix)] = media;
    for (const [version, content] of others) {
      const otherMedia = content?.[type];
      if (otherMedia !== undefined) out[vendorType(version, suffix)] = otherMedia;
    }
  }
  return out;
}

function contentUnion(current: Json, others: readonly Other[]): Json {
  const out: Json = {};
  for (const [type, media] of Object.entries(current)) {
    const schemas = others.map(([, content]) => {
      const otherMedia = content?.[type];
      return isObject(otherMedia) ? otherMedia['schema'] : undefined;
    });
    out[type] = isObject(media) ? { ...media, schema: union(media['schema'], schemas) } : media;
  }
  return out;
}

const contentOf = (item: unknown): Json | undefined =>
  isObject(item) && isObject(item['content']) ? item['content'] : undefined;

function mergeResponses(
  api: ApiStrategy,
  current: Json,
  others: readonly Other[],
  defaultVersion: string,
): Json {
  const out: Json = {};
  for (const [status, response] of Object.entries(current)) {
    if (!isObject(response) || !isObject(response['content']) || '$ref' in response) {
      out[status] = response;
      continue;
    }
    const previous = others.map(([version, responses]) => [version, responses?.[status]] as const);
    // A deprecated version's responses add Deprecation, Sunset and the deprecation links.
    let headers = response['headers'] as Json | undefined;
    for (const [, other] of previous)
      if (isObject(other) && isObject(other['headers'])) headers = { ...headers, ...other['headers'] };
    const otherContent = previous.map(([version, other]): Other => [version, contentOf(other)]);
    out[status] = {
      ...response,
      ...(headers === response['headers'] ? {} : { headers }),
      content:
        api.strategy === 'media-type'
          ? contentPerVersion(response['content'], otherContent, defaultVersion)
          : contentUnion(response['content'], otherContent),
    };
  }
  return out;
}

function mergeOperation(
  api: ApiStrategy,
  current: Json,
  others: readonly Other[],
  defaultVersion: string,
): Json {
  const { deprecated: _deprecated, ...rest } = current;
  const served = others.filter(([, other]) => other !== undefined);
  const operation: Json = {
    ...rest,
    operationId: String(current['operationId']).replace(/^v\d+_/, ''),
    responses: mergeResponses(
      api,
      current['responses'] as Json,
      served.map(([version, other]) => [version, other?.['responses'] as Json | undefined]),
      defaultVersion,
    ),
  };
  if (served.length > 0)
    operation['description'] = served
      .map(([version, other]) =>
        other?.['deprecated'] === true
          ? `Version ${version} (deprecated; it answers with Deprecation, Sunset and a successor-version link) is served too.`
          : `Version ${version} is served too.`,
      )
      .join(' ');
  if (api.strategy !== 'media-type') {
    operation['parameters'] = [
      ...((current['parameters'] as unknown[] | undefined) ?? []),
      { $ref: '#/components/parameters/ApiVersion' },
    ];
  }
  const body = current['requestBody'];
  if (isObject(body) && isObject(body['content'])) {
    const bodies = served.map(([version, other]): Other => [version, contentOf(other?.['requestBody'])]);
    if (bodies.some(([, content]) => content !== undefined))
      operation['requestBody'] = { ...body, content: contentUnion(body['content'], bodies) };
  }
  return operation;
}

/** The version parameter of the query and header strategies. */
function versionParameter(api: ApiStrategy): Json {
  const { policy } = api;
  const deprecated = policy.versions.filter((version) => isDeprecatedVersion(version));
  const retiring =
    deprecated.length === 0
      ? ''
      : `; ${deprecated.join(', ')} ${deprecated.length === 1 ? 'is' : 'are'} deprecated`;
  return {
    name: api.strategy === 'query' ? 'version' : 'X-API-Version',
    in: api.strategy === 'query' ? 'query' : 'header',
    required: false,
    description: `The API version (${policy.versions.join(', ')}${retiring}). Without it the default, ${policy.defaultVersion}, is served; an unknown version is 400.`,
    schema: { type: 'string', pattern: '^[1-9][0-9]*(\\.[0-9]+)?$', default: policy.defaultVersion },
  };
}

/**
 * The document for `api`'s strategy, made from the path strategy's document: the same document for
 * the path strategy; otherwise every `/v<N>/x` pair merged into one `/x`, with the version carried
 * the strategy's way.
 *
 * @example
 * ```ts
 * const openapi = documentForStrategy(ctx.api, buildOpenApi(ctx));
 * ```
 */
export function documentForStrategy(api: ApiStrategy, document: Json): Json {
  if (api.strategy === 'path') return document;
  const defaultVersion = api.policy.defaultVersion;
  const byPath = new Map<string, Map<string, Json>>();
  const paths: Json = {};
  for (const [path, item] of Object.entries(document['paths'] as Json)) {
    const match = VERSIONED.exec(path);
    if (match === null) {
      paths[path] = item;
      continue;
    }
    const versions = byPath.get(match[2]!) ?? new Map<string, Json>();
    versions.set(match[1]!, item as Json);
    byPath.set(match[2]!, versions);
  }
  const versioned: Json = {};
  for (const [path, versions] of byPath) {
    const current = versions.get(defaultVersion);
    if (current === undefined) continue;
    const others = [...versions].filter(([version]) => version !== defaultVersion);
    const item: Json = {};
    for (const method of METHODS) {
      const operation = current[method];
      const at = others.map(([version, other]): Other => [version, other[method] as Json | undefined]);
      if (isObject(operation)) item[method] = mergeOperation(api, operation, at, defaultVersion);
    }
    versioned[path] = item;
  }
  const components = document['components'] as Json;
  const info = document['info'] as Json;
  const how = {
    query: 'the version in a `version` query parameter',
    header: 'the version in an `X-API-Version` header',
    'media-type': 'the version in the media type (`Accept: application/vnd.plumbline.v2+json`)',
  }[api.strategy];
  return {
    ...document,
    info: { ...info, description: String(info['description']).replace('path versioning', how) },
    // The API paths first, as in the path strategy's document.
    paths: { ...versioned, ...paths },
    components:
      api.strategy === 'media-type'
        ? components
        : {
            ...components,
            parameters: { ...(components['parameters'] as Json), ApiVersion: versionParameter(api) },
          },
  };
}
