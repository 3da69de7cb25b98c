/**
 * What the front door adds to the OpenAPI document: the `xml` object of every schema (so the XML
 * and JSON representations are described by one schema, see api/xml-representation.ts), one page
 * schema per collection (`<projects><project>…</project>…<page>…</page><links>…</links></projects>`),
 * and the operations of `/`, `/docs`, `/metrics` and the HTML error pages.
 */

import { API_VERSIONS } from '../domain/versions.js';

type Json = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Root element of each component schema. */
const XML_NAMES: Readonly<Record<string, string>> = {
  ...Object.fromEntries(
    API_VERSIONS.versions.flatMap((version) => [
      [`ProjectV${version}`, 'project'],
      [`ProjectInputV${version}`, 'project'],
    ]),
  ),
  Task: 'task',
  TaskInput: 'task',
  Comment: 'comment',
  CommentInput: 'comment',
  PageMeta: 'page',
  PageLinks: 'links',
  SearchBody: 'search',
  TokenResponse: 'token',
  OAuthError: 'error',
};

/** Collections: the page schema's name, its root element and the item schema. */
const PAGES: readonly (readonly [string, string, string])[] = [
  ...API_VERSIONS.versions.map(
    (version) => [`ProjectV${version}Page`, 'projects', `ProjectV${version}`] as const,
  ),
  ['TaskPage', 'tasks', 'Task'],
  ['CommentPage', 'comments', 'Comment'],
];

/**
 * The collection schema for a page of `item` (an `{ $ref }` to `<Item>`): a reference to `<Item>Page`.
 *
 * @example
 * ```ts
 * pageOf({ $ref: '#/components/schemas/Task' }); // { $ref: '#/components/schemas/TaskPage' }
 * ```
 */
export function pageOf(item: Json): Json {
  return { $ref: `${String(item['$ref'])}Page` };
}

/** Problem documents follow RFC 9457 appendix B: namespace `urn:ietf:rfc:7807`, array members as `<i>`. */
function problemXml(problem: Json): Json {
  const properties = { ...(problem['properties'] as Json) };
  const errors = properties['errors'] as Json;
  properties['errors'] = {
    ...errors,
    xml: { wrapped: true },
    items: { ...(errors['items'] as Json), xml: { name: 'i' } },
  };
  properties['available'] = {
    type: 'array',
    description: 'On 406: the media types that can be served',
    xml: { wrapped: true },
    items: { type: 'string', xml: { name: 'i' } },
  };
  return { ...problem, properties, xml: { name: 'problem', namespace: 'urn:ietf:rfc:7807' } };
}

const apiIndex: Json = {
  type: 'object',
  xml: { name: 'api' },
  required: ['name', 'version', 'versions', 'links'],
  properties: {
    name: { type: 'string' },
    version: { type: 'string', description: 'Version of this service build (the OpenAPI info.version)' },
    description: { type: 'string' },
    versions: {
      type: 'array',
      xml: { wrapped: true },
      items: {
        type: 'object',
        xml: { name: 'version' },
        required: ['version', 'status', 'default', 'href'],
        properties: {
          version: { type: 'string' },
          status: { enum: ['current', 'deprecated', 'sunset'] },
          default: {
            type: 'boolean',
            description:
              'This version serves a request that names none (never under the path strategy, where every API path names its version)',
          },
          href: { type: 'string', format: 'uri-reference' },
          deprecated_at: { type: ['string', 'null'], format: 'date-time' },
          sunset_at: { type: ['string', 'null'], format: 'date-time' },
          successor: { type: ['string', 'null'] },
        },
      },
    },
    links: {
      type: 'object',
      xml: { name: 'links' },
      required: ['self', 'openapi', 'docs', 'token', 'health'],
      properties: Object.fromEntries(
        ['self', 'openapi', 'docs', 'changelog', 'token', 'jwks', 'health', 'ready', 'metrics', 'errors'].map(
          (rel) => [rel, { type: 'string', format: 'uri-reference' }],
        ),
      ),
    },
  },
};

const errorDoc: Json = {
  type: 'object',
  xml: { name: 'error_code' },
  required: ['error_code', 'status', 'title', 'description', 'type', 'documentation'],
  properties: {
    error_code: { type: 'string' },
    status: { type: 'integer' },
    title: { type: 'string' },
    description: { type: 'string' },
    type: { type: 'string', format: 'uri-reference' },
    documentation: { type: 'string', format: 'uri' },
  },
};

const text = (description: string): Json => ({
  description,
  content: { 'text/plain': { schema: { type: 'string', xml: { name: 'text' } } } },
});

const html = (description: string): Json => ({
  description,
  content: { 'text/html': { schema: { type: 'string', xml: { name: 'html' } } } },
});

const frontPaths: Json = {
  '/': {
    get: {
      operationId: 'index',
      summary: 'The API index: versions with their status, and links to everything else',
      tags: ['service'],
      security: [],
      responses: {
        '200': {
          description: 'The index (an HTML page for browsers)',
          content: {
            'application/json': { schema: ref('ApiIndex') },
            'application/xml': { schema: ref('ApiIndex') },
            'text/html': { schema: { type: 'string', xml: { name: 'html' } } },
          },
        },
        '406': { $ref: '#/components/responses/Error406' },
        '500': { $ref: '#/components/responses/Error500' },
      },
    },
  },
  '/docs': {
    get: {
      operationId: 'docs',
      summary: 'This reference, rendered by Swagger UI from /openapi.json',
      tags: ['service'],
      security: [],
      responses: { '200': html('The interactive API reference') },
    },
  },
  '/errors': {
    get: {
      operationId: 'error_codes',
      summary: 'Every error_code, with its status and meaning, in the caller’s language',
      tags: ['service'],
      security: [],
      responses: {
        '200': {
          description: 'The error codes',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['data'],
                properties: { data: { type: 'array', items: ref('ErrorCode') } },
              },
            },
          },
        },
      },
    },
  },
  '/docs/deprecations/v1': {
    get: {
      operationId: 'deprecation_v1',
      summary: 'What changed in v2 and how to move from v1 (the rel="deprecation" link of v1)',
      tags: ['service'],
      security: [],
      responses: { '200': text('The deprecation notice') },
    },
  },
  '/changelog': {
    get: {
      operationId: 'changelog',
      summary:
        'What changed between the API versions and their deprecation and sunset dates, from the declared version changes (newest first), in the caller’s language',
      tags: ['service'],
      security: [],
      responses: {
        '200': {
          description: 'The changelog: JSON, Markdown for Accept: text/markdown, an HTML page for a browser',
          content: {
            'application/json': { schema: ref('Changelog') },
            'text/markdown': { schema: { type: 'string', xml: { name: 'text' } } },
            'text/html': { schema: { type: 'string', xml: { name: 'html' } } },
          },
        },
      },
    },
  },
  '/docs/changelog': {
    get: {
      operationId: 'changelog_docs',
      summary: 'The same as /changelog, where the changelog was first served',
      tags: ['service'],
      security: [],
      responses: {
        '200': {
          description: 'The changelog, as GET /changelog answers it',
          content: {
            'application/json': { schema: ref('Changelog') },
            'text/markdown': { schema: { type: 'string', xml: { name: 'text' } } },
            'text/html': { schema: { type: 'string', xml: { name: 'html' } } },
          },
        },
      },
    },
  },
  '/docs/sunset-policy': {
    get: {
      operationId: 'sunset_policy',
      summary: 'How long a deprecated version stays available (the rel="sunset" link)',
      tags: ['service'],
      security: [],
      responses: { '200': text('The sunset policy') },
    },
  },
  '/docs/init.js': {
    get: {
      operationId: 'docs_script',
      summary: 'The script that starts Swagger UI on /docs',
      tags: ['service'],
      security: [],
      responses: {
        '200': {
          description: 'JavaScript',
          content: { 'text/javascript': { schema: { type: 'string', xml: { name: 'script' } } } },
        },
      },
    },
  },
  '/docs/assets/{file}': {
    get: {
      operationId: 'docs_asset',
      summary: 'Swagger UI’s files (scripts, style sheets, icons)',
      tags: ['service'],
      security: [],
      parameters: [{ name: 'file', in: 'path', required: true, schema: { type: 'string' } }],
      responses: {
        '200': {
          description: 'The file',
          content: { '*/*': { schema: { type: 'string', xml: { name: 'file' } } } },
        },
        '404': { $ref: '#/components/responses/Error404' },
      },
    },
  },
  '/metrics': {
    get: {
      operationId: 'metrics',
      summary: 'Prometheus metrics (text exposition format 0.0.4)',
      tags: ['service'],
      security: [],
      responses: {
        '200': {
          description:
            'Requests by route template, latency, idempotency, auth, rate limit, backend errors, process',
          content: { 'text/plain': { schema: { type: 'string', xml: { name: 'metrics' } } } },
        },
      },
    },
  },
};

/**
 * `page`/`size` are the alternative to `limit`/`offset`: their defaults hold only once the client
 * pages that way, so they are said in words, not as `default` (which a client such as Swagger UI's
 * "Try it out" would send, making every first call a 400 `conflicting_pagination`).
 */
function alternativeWithoutDefault(parameter: unknown): unknown {
  const p = parameter as Json;
  if (p['in'] !== 'query' || (p['name'] !== 'page' && p['name'] !== 'size')) return parameter;
  const schema = { ...(p['schema'] as Json) };
  const fallback = schema['default'];
  if (fallback === undefined) return parameter;
  delete schema['default'];
  const note = `Instead of limit/offset; ${String(fallback)} when paging this way and this parameter is absent.`;
  return { ...p, schema, description: p['description'] ? `${String(p['description'])} ${note}` : note };
}

/** `GET /changelog` (pages/changelog.ts): the versions that have changes or a lifecycle, newest first. */
const changelogSchema: Json = {
  type: 'object',
  xml: { name: 'changelog' },
  required: ['data'],
  properties: {
    data: {
      type: 'array',
      items: {
        type: 'object',
        required: ['version', 'changes'],
        properties: {
          version: { type: 'string' },
          deprecated: {
            description: 'Deprecated: `true`, or since when',
            oneOf: [{ const: true }, { type: 'string', format: 'date-time' }],
          },
          sunset: { type: 'string', format: 'date-time', description: 'When the version answers 410' },
          links: {
            type: 'object',
            description: 'The lifecycle documentation, as the Link header sends it',
            properties: {
              deprecation: { type: 'string', format: 'uri-reference' },
              sunset: { type: 'string', format: 'uri-reference' },
              successor: { type: 'string', format: 'uri-reference' },
            },
          },
          successor: { type: 'string', description: 'The version that replaces this one' },
          changes: {
            type: 'array',
            items: {
              type: 'object',
              required: ['kind', 'description', 'affects'],
              properties: {
                kind: {
                  type: 'string',
                  description: '`custom`, or the helper that declared it (`field-renamed`, …)',
                },
                description: { type: 'string' },
                affects: {
                  type: 'array',
                  description: 'Schema names, and endpoints as `{ method, path }`',
                  items: {
                    oneOf: [
                      { type: 'string' },
                      {
                        type: 'object',
                        required: ['method', 'path'],
                        properties: { method: { type: 'string' }, path: { type: 'string' } },
                      },
                    ],
                  },
                },
              },
            },
          },
        },
      },
    },
  },
};

/**
 * Adds the front door's schemas and operations to the service's OpenAPI document (in place) and
 * returns it.
 *
 * @example
 * ```ts
 * const document = withFrontDoor(buildOpenApi(ctx));
 * ```
 */
export function withFrontDoor(document: Json): Json {
  const components = document['components'] as Json;
  const schemas = components['schemas'] as Record<string, Json>;
  for (const [name, xmlName] of Object.entries(XML_NAMES)) {
    const schema = schemas[name];
    if (schema) schemas[name] = { ...schema, xml: { name: xmlName } };
  }
  schemas['Problem'] = problemXml(schemas['Problem'] as Json);
  for (const [name, root, item] of PAGES) {
    const itemSchema = schemas[item] as Json;
    schemas[name] = {
      type: 'object',
      xml: { name: root },
      required: ['data', 'page', 'links'],
      properties: {
        data: {
          type: 'array',
          description: '`fields=` selects members; `id` is always there',
          xml: { wrapped: false },
          items: { ...itemSchema, required: ['id'] },
        },
        page: ref('PageMeta'),
        links: ref('PageLinks'),
      },
    };
  }
  schemas['ApiIndex'] = apiIndex;
  schemas['ErrorCode'] = errorDoc;
  schemas['Changelog'] = changelogSchema;

  const paths = document['paths'] as Record<string, Json>;
  const errorPage = paths['/errors/{error_code}']?.['get'] as Json | undefined;
  if (errorPage) {
    const responses = errorPage['responses'] as Json;
    responses['200'] = {
      description: 'The error code, in the caller’s language (an HTML page for browsers)',
      content: {
        'application/json': { schema: ref('ErrorCode') },
        'text/html': { schema: { type: 'string', xml: { name: 'html' } } },
      },
    };
  }
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      const parameters = (operation as Json)['parameters'];
      if (Array.isArray(parameters))
        (operation as Json)['parameters'] = parameters.map(alternativeWithoutDefault);
    }
  }
  document['paths'] = { ...frontPaths, ...paths };
  return document;
}
