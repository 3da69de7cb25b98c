/**
 * The OpenAPI 3.1 document of the service, generated at start from the same sources the service
 * runs on: zod schemas for bodies, the query-parser collections for query parameters, the version
 * policy for deprecation headers, and the error catalogue for problem responses.
 */
import { ERROR_CODES } from '@plumbline/errors';
import { toOpenApiParameters } from '@plumbline/query-parser';
import { z } from 'zod';
import type { AppContext } from './context.js';
import type { ApiVersion } from './domain/model.js';
import {
  commentInput,
  commentOutput,
  projectInput,
  projectOutput,
  taskInput,
  taskOutput,
} from './domain/schemas.js';
import { withConditionalRequests } from './openapi-conditional.js';
import { pageOf, withFrontDoor } from './openapi-front.js';
import { COLLECTION_SCOPES } from './seed.js';

type Json = Record<string, unknown>;

function schema(zodSchema: z.ZodType, io: 'input' | 'output'): Json {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(zodSchema, { io, unrepresentable: 'any' }) as Json;
  return rest;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** 401 of the token and revocation endpoints: an RFC 6749 body and, like every 401, a challenge. */
const oauthInvalidClient = {
  description: 'invalid_client',
  headers: {
    'WWW-Authenticate': { description: 'Basic realm="plumbline"', schema: { type: 'string' } },
  },
  content: { 'application/json': { schema: ref('OAuthError') } },
};
const problemContent = {
  'application/problem+json': { schema: ref('Problem') },
  'application/problem+xml': { schema: ref('Problem') },
};

const ERROR_RESPONSES: Readonly<Record<string, string>> = {
  '400': 'Malformed request, invalid value, unknown or invalid query parameter',
  '401': 'Missing or invalid credentials (with WWW-Authenticate)',
  '403': 'Authenticated but not permitted (insufficient scope)',
  '404': 'The resource does not exist',
  '405': 'Method not allowed (with Allow)',
  '406': 'No requested media type can be served',
  '409': 'Conflict (a unique name is taken, or the idempotency key is in use)',
  '410': 'The resource was deleted',
  '413': 'Request body too large',
  '415': 'Unsupported request body media type (with Accept-Post / Accept-Patch)',
  '422': 'The idempotency key was used with a different request',
  '429': 'Too many requests (with Retry-After)',
  '500': 'Server-side failure (generic message, no details)',
  '503': 'A backing service is unavailable (with Retry-After)',
};

function errorResponses(codes: readonly string[]): Json {
  return Object.fromEntries(codes.map((code) => [code, { $ref: `#/components/responses/Error${code}` }]));
}

const versionHeaders = (version: ApiVersion): Json => ({
  'API-Supported-Versions': { $ref: '#/components/headers/ApiSupportedVersions' },
  'X-Request-Id': { $ref: '#/components/headers/XRequestId' },
  ...(version === 1
    ? {
        Deprecation: { $ref: '#/components/headers/Deprecation' },
        Sunset: { $ref: '#/components/headers/Sunset' },
        Link: { $ref: '#/components/headers/DeprecationLink' },
      }
    : {}),
});

const pathParam = (name: string) => ({
  name,
  in: 'path',
  required: true,
  schema: { type: 'string', format: 'uuid' },
});

interface OperationSpec {
  readonly summary: string;
  readonly tag: string;
  readonly scope: string;
  readonly params?: readonly Json[];
  readonly body?: { readonly schema: Json; readonly types: readonly string[] };
  readonly idempotencyKey?: 'required' | 'optional';
  readonly success: {
    readonly status: string;
    readonly description: string;
    readonly schema?: Json;
    readonly location?: boolean;
  };
  readonly errors: readonly string[];
}

function operation(version: ApiVersion, id: string, spec: OperationSpec): Json {
  const headers = versionHeaders(version);
  const successHeaders = {
    ...headers,
    ...(spec.success.location ? { Location: { $ref: '#/components/headers/Location' } } : {}),
  };
  const parameters = [
    ...(spec.params ?? []),
    ...(spec.idempotencyKey
      ? [
          {
            $ref: `#/components/parameters/IdempotencyKey${spec.idempotencyKey === 'required' ? 'Required' : ''}`,
          },
        ]
      : []),
  ];
  return {
    operationId: `v${version}_${id}`,
    summary: spec.summary,
    tags: [spec.tag],
    ...(version === 1 ? { deprecated: true } : {}),
    security: [{ apiKey: [] }, { bearer: [] }, { oauth2: [spec.scope] }],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(spec.body
      ? {
          requestBody: {
            required: true,
            content: Object.fromEntries(spec.body.types.map((type) => [type, { schema: spec.body!.schema }])),
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

// A page of a collection: `<Item>Page`, defined with its XML shape in openapi-front.ts.
const page = pageOf;

function versionPaths(ctx: AppContext, version: ApiVersion): Json {
  const { collections } = ctx;
  const v = `/v${version}`;
  const project = ref(`ProjectV${version}`);
  const projectBody = { schema: ref(`ProjectInputV${version}`), types: ['application/json'] };
  const task = ref('Task');
  const comment = ref('Comment');
  const readErrors = ['400', '401', '403', '404', '406', '410', '429', '500', '503'];
  const listErrors = ['400', '401', '403', '404', '406', '410', '429', '500', '503'];
  const writeErrors = ['400', '401', '403', '404', '406', '409', '410', '413', '415', '429', '500', '503'];
  const createErrors = [...writeErrors, '422'];
  const searchBody = { schema: ref('SearchBody'), types: ['application/json'] };
  const patchTypes = ['application/merge-patch+json', 'application/json'];
  const member = (
    tag: string,
    name: string,
    schemaRef: Json,
    inputRef: Json,
    scope: string,
    params: Json[],
  ) => ({
    get: operation(version, `get_${name}`, {
      summary: `Get one ${name}`,
      tag,
      scope: `read:${scope}`,
      params,
      success: { status: '200', description: `The ${name}`, schema: schemaRef },
      errors: readErrors,
    }),
    put: operation(version, `replace_${name}`, {
      summary: `Replace a ${name} (missing optional fields are reset)`,
      tag,
      scope: `write:${scope}`,
      params,
      body: { schema: inputRef, types: ['application/json'] },
      success: { status: '200', description: `The replaced ${name}`, schema: schemaRef },
      errors: writeErrors,
    }),
    patch: operation(version, `update_${name}`, {
      summary: `Update a ${name} with a JSON merge patch (RFC 7396)`,
      tag,
      scope: `write:${scope}`,
      params,
      body: { schema: { type: 'object' }, types: patchTypes },
      success: { status: '200', description: `The updated ${name}`, schema: schemaRef },
      errors: writeErrors,
    }),
    delete: operation(version, `delete_${name}`, {
      summary: `Delete a ${name} (later requests for it get 410)`,
      tag,
      scope: `write:${scope}`,
      params,
      success: { status: '204', description: 'Deleted' },
      errors: readErrors,
    }),
  });
  const collection = (
    tag: string,
    name: string,
    plural: string,
    itemRef: Json,
    inputRef: Json | undefined,
    queryParams: Json[],
    params: Json[],
    idempotencyKey: 'required' | 'optional',
  ) => ({
    get: operation(version, `list_${plural}`, {
      summary: `List ${plural}`,
      tag,
      scope: `read:${tag}`,
      params: [...params, ...queryParams, { $ref: '#/components/parameters/Prefer' }],
      success: { status: '200', description: `A page of ${plural}`, schema: page(itemRef) },
      errors: listErrors,
    }),
    ...(inputRef
      ? {
          post: operation(version, `create_${name}`, {
            summary: `Create a ${name}`,
            tag,
            scope: `write:${tag}`,
            params,
            body: { schema: inputRef, types: ['application/json'] },
            idempotencyKey,
            success: { status: '201', description: `The created ${name}`, schema: itemRef, location: true },
            errors: createErrors,
          }),
        }
      : {}),
  });
  const search = (tag: string, plural: string, itemRef: Json, params: Json[]) => ({
    post: operation(version, `search_${plural}`, {
      summary: `Search ${plural} with the collection query as a JSON body`,
      tag,
      scope: `read:${tag}`,
      params,
      body: searchBody,
      idempotencyKey: 'optional',
      success: { status: '200', description: `A page of ${plural}`, schema: page(itemRef) },
      errors: [...listErrors, '413', '415'],
    }),
  });
  const projectQuery = toOpenApiParameters(collections.projects) as unknown as Json[];
  const taskQuery = toOpenApiParameters(collections.tasks) as unknown as Json[];
  const commentQuery = toOpenApiParameters(collections.comments) as unknown as Json[];
  const projectId = [pathParam('project_id')];
  const taskId = [pathParam('task_id')];
  return {
    [`${v}/projects`]: collection(
      'projects',
      'project',
      'projects',
      project,
      ref(`ProjectInputV${version}`),
      projectQuery,
      [],
      'required',
    ),
    [`${v}/projects/search`]: search('projects', 'projects', project, []),
    [`${v}/projects/{project_id}`]: member(
      'projects',
      'project',
      project,
      projectBody.schema,
      'projects',
      projectId,
    ),
    [`${v}/projects/{project_id}/tasks`]: collection(
      'tasks',
      'task',
      'project_tasks',
      task,
      ref('TaskInput'),
      taskQuery,
      projectId,
      'optional',
    ),
    [`${v}/projects/{project_id}/tasks/search`]: search('tasks', 'project_tasks', task, projectId),
    [`${v}/projects/{project_id}/tasks/{task_id}`]: member(
      'tasks',
      'project_task',
      task,
      ref('TaskInput'),
      'tasks',
      [...projectId, ...taskId],
    ),
    [`${v}/tasks`]: collection('tasks', 'task', 'tasks', task, undefined, taskQuery, [], 'optional'),
    [`${v}/tasks/search`]: search('tasks', 'tasks', task, []),
    [`${v}/tasks/{task_id}`]: member('tasks', 'task', task, ref('TaskInput'), 'tasks', taskId),
    [`${v}/tasks/{task_id}/comments`]: collection(
      'comments',
      'comment',
      'comments',
      comment,
      ref('CommentInput'),
      commentQuery,
      taskId,
      'optional',
    ),
    [`${v}/tasks/{task_id}/comments/{comment_id}`]: (() => {
      const ops = member('comments', 'comment', comment, ref('CommentInput'), 'comments', [
        ...taskId,
        pathParam('comment_id'),
      ]);
      return { get: ops.get, delete: ops.delete };
    })(),
  };
}

function neutralPaths(): Json {
  const problem = errorResponses(['400', '401', '429', '500', '503']);
  return {
    '/health': {
      get: {
        operationId: 'health',
        summary: 'Liveness',
        tags: ['service'],
        security: [],
        responses: {
          '200': {
            description: 'The service is up',
            content: {
              'application/json': { schema: { type: 'object', properties: { status: { const: 'ok' } } } },
            },
          },
        },
      },
    },
    '/ready': {
      get: {
        operationId: 'ready',
        summary: 'Readiness: the database and Redis (when configured) answer within their deadlines',
        tags: ['service'],
        security: [],
        responses: {
          '200': {
            description: 'Every dependency answers',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    status: { const: 'ready' },
                    checks: { type: 'object', additionalProperties: { enum: ['ok', 'down'] } },
                  },
                },
              },
            },
          },
          ...errorResponses(['503']),
        },
      },
    },
    '/oauth/token': {
      post: {
        operationId: 'token',
        summary: 'OAuth 2.0 token endpoint (client_credentials and refresh_token grants)',
        tags: ['auth'],
        security: [],
        requestBody: {
          required: true,
          content: {
            'application/x-www-form-urlencoded': {
              schema: {
                type: 'object',
                required: ['grant_type'],
                properties: {
                  grant_type: { enum: ['client_credentials', 'refresh_token'] },
                  scope: { type: 'string' },
                  refresh_token: { type: 'string' },
                  client_id: { type: 'string' },
                  client_secret: { type: 'string' },
                },
              },
            },
          },
        },
        responses: {
          '200': {
            description: 'Tokens (Cache-Control: no-store)',
            content: { 'application/json': { schema: ref('TokenResponse') } },
          },
          '400': {
            description: 'RFC 6749 error (invalid_request, invalid_grant, ...)',
            content: { 'application/json': { schema: ref('OAuthError') } },
          },
          '401': oauthInvalidClient,
          '429': problem['429'],
        },
      },
    },
    '/oauth/revoke': {
      post: {
        operationId: 'revoke',
        summary:
          'RFC 7009 revocation: an access token, or a refresh token (ending its family and the family’s access tokens)',
        tags: ['auth'],
        security: [],
        requestBody: {
          required: true,
          content: {
            'application/x-www-form-urlencoded': {
              schema: {
                type: 'object',
                required: ['token'],
                properties: {
                  token: { type: 'string' },
                  token_type_hint: { enum: ['access_token', 'refresh_token'] },
                  client_id: { type: 'string' },
                  client_secret: { type: 'string' },
                },
              },
            },
          },
        },
        responses: {
          '200': {
            description:
              'Revoked, or nothing of this client’s to revoke (RFC 7009 2.2); Cache-Control: no-store',
            content: { 'application/json': { schema: { type: 'object' } } },
          },
          '400': {
            description: 'RFC 6749 error (invalid_request)',
            content: { 'application/json': { schema: ref('OAuthError') } },
          },
          '401': oauthInvalidClient,
          '429': problem['429'],
        },
      },
    },
    '/.well-known/jwks.json': {
      get: {
        operationId: 'jwks',
        summary: 'Public keys of the tokens this service issues',
        tags: ['auth'],
        security: [],
        responses: {
          '200': {
            description: 'JSON Web Key Set',
            content: { 'application/json': { schema: { type: 'object' } } },
          },
        },
      },
    },
    '/errors/{error_code}': {
      get: {
        operationId: 'error_doc',
        summary: 'What an error_code means (the `type` of every problem links here)',
        tags: ['service'],
        security: [],
        parameters: [{ name: 'error_code', in: 'path', required: true, schema: { enum: [...ERROR_CODES] } }],
        responses: {
          '200': {
            description: 'The error code',
            content: { 'application/json': { schema: { type: 'object' } } },
          },
          '404': { $ref: '#/components/responses/Error404' },
        },
      },
    },
  };
}

/** Builds the document once; it depends only on configuration. */
export function buildOpenApi(ctx: AppContext): Json {
  return withConditionalRequests(buildDocument(ctx));
}

function buildDocument(ctx: AppContext): Json {
  const scopes = Object.fromEntries(
    [...COLLECTION_SCOPES.read, ...COLLECTION_SCOPES.write].map((scope) => [
      scope,
      `${scope.split(':')[0]} ${scope.split(':')[1]}`,
    ]),
  );
  return withFrontDoor({
    openapi: '3.1.0',
    info: {
      title: 'Plumbline reference service',
      version: '2.0.0',
      description:
        'A project tracker that follows every Plumbline convention: problem documents, strict collection queries, content negotiation (JSON, XML; en, de), path versioning with deprecation headers, API keys and bearer JWTs, idempotent POSTs.',
    },
    servers: [{ url: '/' }],
    tags: [
      { name: 'projects' },
      { name: 'tasks' },
      { name: 'comments' },
      { name: 'auth' },
      { name: 'service' },
    ],
    paths: { ...versionPaths(ctx, 1), ...versionPaths(ctx, 2), ...neutralPaths() },
    components: {
      securitySchemes: {
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description: 'plk_ API key; access level read or read-write',
        },
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        oauth2: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: '/oauth/token', scopes } } },
      },
      parameters: {
        IdempotencyKeyRequired: {
          name: 'Idempotency-Key',
          in: 'header',
          required: true,
          description:
            'A unique key per logical operation (1-255 visible ASCII); retries with the same key replay the first result for 24 h',
          schema: { type: 'string', minLength: 1, maxLength: 255 },
        },
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description: 'Optional here; makes the POST safe to retry',
          schema: { type: 'string', minLength: 1, maxLength: 255 },
        },
        Prefer: {
          name: 'Prefer',
          in: 'header',
          required: false,
          description: '`count=exact` adds page.total and a last link',
          schema: { type: 'string', enum: ['count=exact'] },
        },
      },
      headers: {
        ApiSupportedVersions: {
          description: 'Versions this API serves',
          schema: { type: 'string', example: '1, 2' },
        },
        XRequestId: {
          description: 'The request id (also request_id in problems)',
          schema: { type: 'string' },
        },
        Deprecation: {
          description: 'RFC 9745: when this version was deprecated (@<unix seconds>)',
          schema: { type: 'string' },
        },
        Sunset: {
          description: 'RFC 8594: after this HTTP-date the version answers 410',
          schema: { type: 'string' },
        },
        DeprecationLink: {
          description: 'rel="deprecation", rel="sunset" and rel="successor-version" links',
          schema: { type: 'string' },
        },
        Location: {
          description: 'URI of the created resource',
          schema: { type: 'string', format: 'uri-reference' },
        },
      },
      responses: Object.fromEntries(
        Object.entries(ERROR_RESPONSES).map(([status, description]) => [
          `Error${status}`,
          { description, content: problemContent },
        ]),
      ),
      schemas: {
        Problem: {
          type: 'object',
          required: ['type', 'title', 'status', 'detail', 'error_code', 'message'],
          properties: {
            type: { type: 'string', format: 'uri-reference' },
            title: { type: 'string' },
            status: { type: 'integer', minimum: 400, maximum: 599 },
            detail: { type: 'string' },
            instance: { type: 'string' },
            error_code: { type: 'string', enum: [...ERROR_CODES] },
            message: { type: 'string' },
            request_id: { type: 'string' },
            errors: {
              type: 'array',
              items: {
                type: 'object',
                required: ['error_code', 'detail'],
                properties: {
                  pointer: { type: 'string' },
                  parameter: { type: 'string' },
                  header: { type: 'string' },
                  error_code: { type: 'string' },
                  detail: { type: 'string' },
                },
              },
            },
          },
        },
        PageMeta: {
          type: 'object',
          required: ['has_more'],
          properties: {
            limit: { type: 'integer' },
            offset: { type: 'integer' },
            page: { type: 'integer' },
            size: { type: 'integer' },
            has_more: { type: 'boolean' },
            next_cursor: { type: 'string' },
            total: { type: 'integer' },
          },
        },
        PageLinks: {
          type: 'object',
          required: ['self'],
          properties: Object.fromEntries(
            ['self', 'first', 'prev', 'next', 'last'].map((rel) => [rel, { type: 'string' }]),
          ),
        },
        SearchBody: {
          type: 'object',
          description:
            'The collection query as JSON: filter, q, sort, limit/offset, page/size, cursor, fields',
          properties: {
            filter: { type: 'object' },
            q: { type: 'string' },
            sort: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
            limit: { type: 'integer' },
            offset: { type: 'integer' },
            page: { type: 'integer' },
            size: { type: 'integer' },
            cursor: { type: 'string' },
            fields: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
          },
        },
        TokenResponse: {
          type: 'object',
          required: ['access_token', 'token_type', 'expires_in'],
          properties: {
            access_token: { type: 'string' },
            token_type: { const: 'Bearer' },
            expires_in: { type: 'integer' },
            scope: { type: 'string' },
            refresh_token: { type: 'string' },
          },
        },
        OAuthError: {
          type: 'object',
          required: ['error'],
          properties: { error: { type: 'string' }, error_description: { type: 'string' } },
        },
        ProjectV1: schema(projectOutput[1], 'output'),
        ProjectV2: schema(projectOutput[2], 'output'),
        ProjectInputV1: schema(projectInput[1], 'input'),
        ProjectInputV2: schema(projectInput[2], 'input'),
        Task: schema(taskOutput, 'output'),
        TaskInput: schema(taskInput, 'input'),
        Comment: schema(commentOutput, 'output'),
        CommentInput: schema(commentInput, 'input'),
      },
    },
  });
}
