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
import { type ApiStrategy, vendorType } from '../service/versioning.js';

type Json = Record<string, unknown>;

const VERSIONED = /^\/v(\d+)(\/.*)$/;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** One schema for both versions: the current one, or `anyOf` the two when v1 differs. */
function union(current: unknown, old: unknown): unknown {
  return old === undefined || same(current, old) ? current : { anyOf: [current, old] };
}

/** A content map with a schema per version: vendor types per version, plain types for the default. */
function contentPerVersion(current: Json, old: Json | undefined, defaultVersion: string): Json {
  const out: Json = {};
  for (const [type, media] of Object.entries(current)) {
    out[type] = media;
    const suffix = type === 'application/json' ? 'json' : type === 'application/xml' ? 'xml' : undefined;
    if (suffix === undefined) continue;
    out[vendorType(defaultVersion, suffix)] = media;
    const oldMedia = old?.[type];
    if (oldMedia !== undefined) out[vendorType('1', suffix)] = oldMedia;
  }
  return out;
}

function contentUnion(current: Json, old: Json | undefined): Json {
  const out: Json = {};
  for (const [type, media] of Object.entries(current)) {
    const oldMedia = old?.[type];
    out[type] =
      isObject(media) && isObject(oldMedia)
        ? { ...media, schema: union(media['schema'], oldMedia['schema']) }
        : media;
  }
  return out;
}

function mergeResponses(
  api: ApiStrategy,
  current: Json,
  old: Json | undefined,
  defaultVersion: string,
): Json {
  const out: Json = {};
  for (const [status, response] of Object.entries(current)) {
    const previous = old?.[status];
    if (!isObject(response) || !isObject(response['content']) || '$ref' in response) {
      out[status] = response;
      continue;
    }
    const oldContent = isObject(previous) && isObject(previous['content']) ? previous['content'] : undefined;
    out[status] = {
      ...response,
      // v1's responses add Deprecation, Sunset and the deprecation links.
      ...(isObject(previous) && isObject(previous['headers'])
        ? { headers: { ...(response['headers'] as Json | undefined), ...previous['headers'] } }
        : {}),
      content:
        api.strategy === 'media-type'
          ? contentPerVersion(response['content'], oldContent, defaultVersion)
          : contentUnion(response['content'], oldContent),
    };
  }
  return out;
}

function mergeOperation(
  api: ApiStrategy,
  current: Json,
  old: Json | undefined,
  defaultVersion: string,
): Json {
  const { deprecated: _deprecated, ...rest } = current;
  const operation: Json = {
    ...rest,
    operationId: String(current['operationId']).replace(/^v\d+_/, ''),
    responses: mergeResponses(
      api,
      current['responses'] as Json,
      old?.['responses'] as Json | undefined,
      defaultVersion,
    ),
  };
  if (old !== undefined)
    operation['description'] =
      'Version 1 (deprecated; it answers with Deprecation, Sunset and a successor-version link) is served too.';
  if (api.strategy !== 'media-type') {
    operation['parameters'] = [
      ...((current['parameters'] as unknown[] | undefined) ?? []),
      { $ref: '#/components/parameters/ApiVersion' },
    ];
  }
  const body = current['requestBody'];
  const oldBody = old?.['requestBody'];
  if (isObject(body) && isObject(body['content']) && isObject(oldBody) && isObject(oldBody['content']))
    operation['requestBody'] = { ...body, content: contentUnion(body['content'], oldBody['content']) };
  return operation;
}

/** The version parameter of the query and header strategies. */
function versionParameter(api: ApiStrategy): Json {
  const { policy } = api;
  return {
    name: api.strategy === 'query' ? 'version' : 'X-API-Version',
    in: api.strategy === 'query' ? 'query' : 'header',
    required: false,
    description: `The API version (${policy.versions.join(', ')}; 1 is deprecated). Without it the default, ${policy.defaultVersion}, is served; an unknown version is 400.`,
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
    const old = versions.get('1');
    const item: Json = {};
    for (const method of METHODS) {
      const operation = current[method];
      if (isObject(operation))
        item[method] = mergeOperation(api, operation, old?.[method] as Json | undefined, defaultVersion);
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
