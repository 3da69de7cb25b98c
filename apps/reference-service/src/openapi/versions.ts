/**
 * One OpenAPI document per API version, served at `/openapi.json?version=<N>` next to the document
 * of every version (`/openapi.json`). Each is cut from the path strategy's document
 * (openapi/document.ts), whose v1 schemas are generated from v2's through the declared changes
 * (`schemaAt`, domain/versions.ts): the version's own operations and the version-neutral ones, in
 * the shape the configured strategy serves them:
 *
 *   path        /v1/projects, as in the full document
 *   query       /projects with a required `version` query parameter that can only be that version
 *   header      /projects with a required `X-API-Version` header that can only be that version
 *   media-type  /projects with that version's vendor media types (and, for the default version,
 *               the plain ones, which serve it)
 */
import { HttpError } from '@plumbline/errors';
import { API_VERSIONS } from '../domain/versions.js';
import { type ApiStrategy, vendorType } from '../service/versioning.js';

type Json = Record<string, unknown>;

const VERSIONED = /^\/v(\d+)(\/.*)$/;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const PLAIN = { 'application/json': 'json', 'application/xml': 'xml' } as const;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A content map as `version` serves it under the media-type strategy. */
function vendorContent(content: Json, version: string, isDefault: boolean): Json {
  const out: Json = {};
  for (const [type, media] of Object.entries(content)) {
    const suffix = PLAIN[type as keyof typeof PLAIN];
    if (suffix === undefined) {
      out[type] = media;
      continue;
    }
    if (isDefault) out[type] = media;
    out[vendorType(version, suffix)] = media;
  }
  return out;
}

function withResponses(operation: Json, map: (content: Json) => Json): Json {
  const responses: Json = {};
  for (const [status, response] of Object.entries(operation['responses'] as Json)) {
    responses[status] =
      isObject(response) && isObject(response['content'])
        ? { ...response, content: map(response['content']) }
        : response;
  }
  return { ...operation, responses };
}

/** One operation of `version` as the strategy serves it at the unprefixed path. */
function unprefixed(api: ApiStrategy, operation: Json, version: string): Json {
  const renamed = { ...operation, operationId: String(operation['operationId']).replace(/^v\d+_/, '') };
  if (api.strategy === 'media-type') {
    const isDefault = version === api.policy.defaultVersion;
    return withResponses(renamed, (content) => vendorContent(content, version, isDefault));
  }
  const parameter = {
    name: api.strategy === 'query' ? 'version' : 'X-API-Version',
    in: api.strategy === 'query' ? 'query' : 'header',
    required: true,
    description: `The API version this document describes (${version}).`,
    schema: { type: 'string', enum: [version] },
  };
  return {
    ...renamed,
    parameters: [...((operation['parameters'] as unknown[] | undefined) ?? []), parameter],
  };
}

/** The document of one version, cut from the path strategy's document of every version. */
function documentOf(api: ApiStrategy, document: Json, version: string): Json {
  const paths: Json = {};
  const neutral: Json = {};
  for (const [path, item] of Object.entries(document['paths'] as Json)) {
    const match = VERSIONED.exec(path);
    if (match === null) {
      neutral[path] = item;
      continue;
    }
    if (match[1] !== version) continue;
    if (api.strategy === 'path') {
      paths[path] = item;
      continue;
    }
    const operations: Json = {};
    for (const [key, value] of Object.entries(item as Json)) {
      operations[key] =
        (METHODS as readonly string[]).includes(key) && isObject(value)
          ? unprefixed(api, value, version)
          : value;
    }
    paths[match[2]!] = operations;
  }
  const info = document['info'] as Json;
  return {
    ...document,
    info: {
      ...info,
      title: `${String(info['title'])}, API version ${version}`,
      description: `${String(info['description'])} This document describes API version ${version} only; /openapi.json describes every version.`,
    },
    // The API paths first, as in the full document.
    paths: { ...paths, ...neutral },
  };
}

/**
 * The document of every declared version, by version name, made once at start.
 *
 * @example
 * ```ts
 * const documents = versionDocuments(ctx.api, buildOpenApi(ctx));
 * documents.get('1'); // v1's operations and the version-neutral ones
 * ```
 */
export function versionDocuments(api: ApiStrategy, pathDocument: Json): ReadonlyMap<string, Json> {
  return new Map(API_VERSIONS.versions.map((version) => [version, documentOf(api, pathDocument, version)]));
}

/**
 * What `GET /openapi.json` answers for its `version` query value: the document of every version
 * without one, the version's document with one, 400 `unsupported_api_version` for another value
 * (or the parameter sent twice).
 *
 * @example
 * ```ts
 * openapiFor(openapi, documents, req.query['version']);
 * ```
 */
export function openapiFor(all: Json, documents: ReadonlyMap<string, Json>, version: unknown): Json {
  if (version === undefined) return all;
  const found = typeof version === 'string' ? documents.get(version) : undefined;
  if (found !== undefined) return found;
  throw new HttpError('unsupported_api_version', {
    params: { version: String(version), supported: [...documents.keys()].join(', ') },
  });
}
