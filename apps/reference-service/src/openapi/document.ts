/**
 * The OpenAPI 3.1 document of the service, generated at start from the same sources the service
 * runs on: the route table for the versioned paths (openapi/api-paths.ts), zod schemas for bodies,
 * the query-parser collections for query parameters, the version policy for deprecation headers,
 * the declared version changes for older versions' schemas, and the error catalogue for problem responses.
 */
import { ERROR_CODES } from '@plumbline/errors';
import { z } from 'zod';
import {
  commentInput,
  commentOutput,
  projectInput,
  projectOutput,
  taskInput,
  taskOutput,
} from '../domain/schemas.js';
import { API_VERSIONS, SUPPORTED_VERSIONS } from '../domain/versions.js';
import type { AppContext } from '../service/context.js';
import { MAX_LINK_HEADER_BYTES, MAX_QUERY_BYTES } from '../service/limits.js';
import { COLLECTION_SCOPES } from '../service/seed.js';
import { commonResponseHeaders, errorResponses, header, ref, versionPaths } from './api-paths.js';
import { withConditionalRequests } from './conditional.js';
import { withFrontDoor as addFrontDoor } from './front.js';
import { withUnversionedResponses } from './unversioned.js';

type Json = Record<string, unknown>;

const withFrontDoor = (document: Json): Json => withUnversionedResponses(addFrontDoor(document));

function schema(zodSchema: z.ZodType, io: 'input' | 'output'): Json {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(zodSchema, { io, unrepresentable: 'any' }) as Json;
  return rest;
}

/**
 * `ProjectV<n>` and `ProjectInputV<n>` for every declared version: written once for the newest
 * version (domain/schemas.ts) and turned into each older version's through the declared changes
 * (`schemaAt`, domain/versions.ts), so a version's document cannot drift from its migrations.
 */
function projectSchemas(): Json {
  const output = schema(projectOutput, 'output');
  const input = schema(projectInput, 'input');
  const each = (prefix: string, json: Json) =>
    API_VERSIONS.versions.map((version) => [
      `${prefix}V${version}`,
      API_VERSIONS.schemaAt(version, 'Project', json),
    ]);
  return Object.fromEntries([...each('Project', output), ...each('ProjectInput', input)]);
}

/** 401 of the token and revocation endpoints: an RFC 6749 body and, like every 401, a challenge. */
const oauthInvalidClient = {
  description: 'invalid_client',
  headers: {
    'WWW-Authenticate': { description: 'Basic realm="plumbline"', schema: { type: 'string' } },
  },
  content: { 'application/json': { schema: ref('OAuthError') } },
};
/** A store (refresh tokens, revocations, clients) unreachable: RFC 6749's error shape, not a problem. */
const oauthUnavailable = {
  description: 'temporarily_unavailable: a backing store is unreachable (with Retry-After)',
  headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } },
  content: { 'application/json': { schema: ref('OAuthError') } },
};
const problemContent = {
  'application/problem+json': { schema: ref('Problem') },
  'application/problem+xml': { schema: ref('Problem') },
};

const ERROR_RESPONSES: Readonly<Record<string, string>> = {
  '400':
    'Malformed request, invalid value, unknown or invalid query parameter, query string or search body too long',
  '401': 'Missing or invalid credentials (with WWW-Authenticate)',
  '403': 'Authenticated but not permitted (insufficient scope)',
  '404': 'The resource does not exist',
  '405': 'Method not allowed (with Allow)',
  '406': 'No requested media type can be served',
  '409': 'Conflict (a unique name is taken, or the idempotency key is in use)',
  '410': 'The resource was deleted',
  '412':
    'A precondition (If-Match, If-None-Match, If-Unmodified-Since) failed: the member changed since it was read',
  '428': 'The service requires If-Match or If-Unmodified-Since on writes (REQUIRE_PRECONDITIONS=true)',
  '413': 'Request body too large',
  '415': 'Unsupported request body media type (with Accept-Post / Accept-Patch)',
  '422': 'The idempotency key was used with a different request',
  '429': 'Too many requests (with Retry-After)',
  '500': 'Server-side failure (generic message, no details)',
  '503': 'A backing service is unavailable (with Retry-After)',
};

/** What a status adds to the common headers of a problem response (docs/design.md#d-errors). */
const PROBLEM_HEADERS: Readonly<Record<string, Json>> = {
  // RFC 6750 3.1: a bearer request refused for a bad request or a missing scope is challenged too.
  '400': { 'WWW-Authenticate': header('BearerChallenge') },
  '401': { 'WWW-Authenticate': header('WWWAuthenticate') },
  '403': { 'WWW-Authenticate': header('BearerChallenge') },
  '405': { Allow: header('Allow') },
  // 409 idempotency_key_in_use: the first request with the key is still running; retry after a second.
  '409': { 'Retry-After': header('RetryAfter') },
  // A 415 names what the method accepts: Accept-Post (POST), Accept-Patch (PATCH), Accept (PUT; RFC 9110 12.5.1).
  '415': { 'Accept-Post': header('AcceptPost'), Accept: header('AcceptPut') },
  '429': { 'Retry-After': header('RetryAfter') },
  '503': { 'Retry-After': header('RetryAfter') },
};

/**
 * The shared problem responses, `Error<status>`: the problem document in JSON and XML with the
 * common headers, what the status adds (`WWW-Authenticate`, `Allow`, `Retry-After`,
 * `Accept-Post`), and `Accept-Patch`, which every response of a member resource advertises.
 */
function problemResponses(): Json {
  return Object.fromEntries(
    Object.entries(ERROR_RESPONSES).map(([status, description]) => [
      `Error${status}`,
      {
        description,
        headers: {
          ...commonResponseHeaders(),
          'Accept-Patch': header('AcceptPatch'),
          // A 4xx answered to a request with an Idempotency-Key is stored and replayed (d-idempotency).
          ...(status.startsWith('4')
            ? {
                'Idempotent-Replayed': header('IdempotentReplayed'),
                'Replayed-By-Request-Id': header('ReplayedByRequestId'),
              }
            : {}),
          ...PROBLEM_HEADERS[status],
        },
        content: problemContent,
      },
    ]),
  );
}

/** The header components `commonResponseHeaders` and `problemResponses` refer to. */
function headerComponents(): Json {
  const text = (description: string, extra: Json = {}) => ({
    description,
    schema: { type: 'string', ...extra },
  });
  return {
    ApiSupportedVersions: text('Versions this API serves', { example: API_VERSIONS.versions.join(', ') }),
    ApiDeprecatedVersions: text('Versions that are deprecated (still served until their sunset)', {
      example: '1',
    }),
    XRequestId: text(
      'The request id (also request_id in problems): the client’s own X-Request-Id when it is 1 to 128 of A-Z a-z 0-9 . _ : @ + = / -, else a new one',
      { maxLength: 128 },
    ),
    ContentLanguage: text('Language of the representation (en or de)'),
    Vary: text('Request headers the representation depends on (Accept, Accept-Language, ...)'),
    ETag: text('Validator of this representation; send it back in If-None-Match for a 304'),
    RateLimit: text('draft-ietf-httpapi-ratelimit-headers: the quota left in the current window'),
    RateLimitPolicy: text('draft-ietf-httpapi-ratelimit-headers: the quota policy'),
    RetryAfter: text('Seconds to wait before retrying', { pattern: '^[0-9]+$' }),
    WWWAuthenticate: { ...text('The authentication challenge(s) (RFC 9110 11.6.1)'), required: true },
    Allow: { ...text('The methods this resource supports'), required: true },
    BearerChallenge: text('RFC 6750 3.1: error="invalid_request" or error="insufficient_scope" (scope=...)'),
    AcceptPost: text('Media types a POST accepts (on 415)'),
    AcceptPut: text('Media types a PUT accepts (on 415)'),
    AcceptPatch: text('Media types a PATCH accepts (member resources)'),
    Deprecation: text('RFC 9745: when this version was deprecated (@<unix seconds>); v1 only'),
    Sunset: text('RFC 8594: after this HTTP-date the version answers 410; v1 only'),
    Link: text(
      `RFC 8288 links: the page relations (self, next, prev, first, last) on collections, each with the query in canonical form (at most ${MAX_QUERY_BYTES} bytes); on v1 also rel="deprecation", rel="sunset" and rel="successor-version". At most ${MAX_LINK_HEADER_BYTES} bytes`,
      { maxLength: MAX_LINK_HEADER_BYTES },
    ),
    PreferenceApplied: text('RFC 7240: the preferences applied (count=exact)'),
    IdempotentReplayed: text('true when this is the stored response of an earlier request with the same key'),
    ReplayedByRequestId: text(
      'On a replay: the request id of this retry (X-Request-Id and the body keep the original request’s)',
      { maxLength: 128 },
    ),
    Location: {
      description: 'URI of the created resource',
      schema: { type: 'string', format: 'uri-reference' },
    },
  };
}

/**
 * `POST /session` and `DELETE /session`, when `SESSION_KEYS` is set (otherwise the service has no such
 * path): the same-site browser app's session cookie (`openSessionEndpoint` and
 * `closeSessionEndpoint` of @plumbline/auth).
 */
function sessionPaths(ctx: AppContext): Json {
  if (!ctx.session) return {};
  const setCookie = (description: string) => ({
    'Set-Cookie': { description, required: true, schema: { type: 'string' } },
  });
  const problem = errorResponses(['401', '503']);
  return {
    '/session': {
      post: {
        operationId: 'openSession',
        summary:
          'Turns an access token this service accepts into the encrypted session cookie of a same-site browser app (no CSRF header needed: a browser never sends a bearer token by itself)',
        tags: ['auth'],
        security: [{ bearer: [] }],
        responses: {
          '204': {
            description:
              'Signed in: the __Host-session cookie (HttpOnly; Secure; SameSite=Lax; Path=/), with the token’s subject, client and scopes, ending no later than the token',
            headers: setCookie('The sealed session: __Host-session=<JWE>; Max-Age until its exp'),
          },
          ...problem,
        },
      },
      delete: {
        operationId: 'closeSession',
        summary:
          'Logout: revokes the session cookie (a copy replayed later is 401) and clears it; as an unsafe method it needs Sec-Fetch-Site: same-origin and X-Requested-With',
        tags: ['auth'],
        security: [{ session: [] }],
        responses: {
          '204': {
            description: 'Signed out',
            headers: setCookie('The clearing cookie: __Host-session=; Max-Age=0'),
          },
          ...problem,
        },
      },
    },
  };
}

function neutralPaths(): Json {
  const problem = errorResponses(['400', '401', '413', '415', '429', '500', '503']);
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
            // A body that is not form-encoded is RFC 6749's invalid_request, naming the form type.
            headers: { 'Accept-Post': header('AcceptPost') },
            content: { 'application/json': { schema: ref('OAuthError') } },
          },
          '401': oauthInvalidClient,
          '413': problem['413'],
          '415': problem['415'],
          '429': problem['429'],
          '503': oauthUnavailable,
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
            // A body that is not form-encoded is RFC 6749's invalid_request, naming the form type.
            headers: { 'Accept-Post': header('AcceptPost') },
            content: { 'application/json': { schema: ref('OAuthError') } },
          },
          '401': oauthInvalidClient,
          '413': problem['413'],
          '415': problem['415'],
          '429': problem['429'],
          '503': oauthUnavailable,
        },
      },
    },
    '/openapi.json': {
      get: {
        operationId: 'openapi',
        summary: 'This OpenAPI 3.1 document, or with ?version= the document of one API version',
        tags: ['service'],
        security: [],
        parameters: [
          {
            name: 'version',
            in: 'query',
            required: false,
            description:
              'Which version’s document: that version’s operations and the version-neutral ones, in the shape that version serves (v1’s generated from v2’s through the declared changes). Without it, the document of every version.',
            schema: { type: 'string', enum: [...API_VERSIONS.versions] },
          },
        ],
        responses: {
          '200': {
            description: 'The document',
            content: { 'application/json': { schema: { type: 'object', required: ['openapi', 'paths'] } } },
          },
          ...errorResponses(['400']),
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

/** Member schemas under `fields=`: a `<Item>Selection` is `<Item>` with only `id` required. */
const SELECTIONS = [...API_VERSIONS.versions.map((version) => `ProjectV${version}`), 'Task', 'Comment'];

function withSelections(document: Json): Json {
  const schemas = (document['components'] as Json)['schemas'] as Record<string, Json>;
  for (const name of SELECTIONS) {
    const full = schemas[name]!;
    schemas[`${name}Selection`] = {
      ...full,
      description: `${name} as selected by \`fields=\`: every member optional but \`id\`, none other allowed`,
      required: ['id'],
    };
  }
  return document;
}

/**
 * Operations outside the versioned API (`/health`, `/oauth/token`, the front door, ...) declare
 * the common headers too: every response the service sends carries them. And the rejections that
 * come before any route (a query string over the limit, plain HTTP in production, the per-IP
 * rate limit, a failure) can answer any of them.
 */
function withCommonHeaders(document: Json): Json {
  for (const [path, item] of Object.entries(document['paths'] as Record<string, Json>)) {
    if (/^\/v\d+\//.test(path)) continue;
    for (const [method, operation] of Object.entries(item)) {
      const declared = ((operation as Json)['responses'] ?? {}) as Record<string, Json>;
      // A GET answers `If-None-Match: *` (any current representation) with 304 (RFC 9110 13.1.2).
      if (method === 'get' && declared['304'] === undefined)
        declared['304'] = { description: 'Not modified: If-None-Match is `*` (RFC 9110 13.1.2); no body' };
      (operation as Json)['responses'] = { ...errorResponses(['400', '403', '429', '500']), ...declared };
      for (const response of Object.values(declared)) {
        if (response['$ref'] !== undefined) continue;
        response['headers'] = { ...commonResponseHeaders(), ...((response['headers'] as Json) ?? {}) };
      }
    }
  }
  return document;
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
  const document = withFrontDoor({
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
    paths: {
      ...Object.assign({}, ...SUPPORTED_VERSIONS.map((version) => versionPaths(ctx, version))),
      ...neutralPaths(),
      ...sessionPaths(ctx),
    },
    components: {
      securitySchemes: {
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description: 'plk_ API key; access level read or read-write',
        },
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        ...(ctx.session
          ? {
              session: {
                type: 'apiKey',
                in: 'cookie',
                name: ctx.session.cookie.name,
                description:
                  'The encrypted session cookie POST /session sets (SESSION_KEYS); unsafe methods also need Sec-Fetch-Site: same-origin and X-Requested-With',
              },
            }
          : {}),
        oauth2: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: '/oauth/token', scopes } } },
        ...codeFlowScheme(ctx, scopes),
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
      headers: headerComponents(),
      responses: problemResponses(),
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
                  pointer: {
                    type: 'string',
                    pattern: '^#(/[^/]*)*$',
                    description: 'JSON Pointer into the body, URI fragment form (RFC 6901 §6): #/name',
                  },
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
            // What was served, as numbers, however the request wrote them (a search body may send
            // "10"): only SearchBody takes strings. Widening these was a breaking change of v2's
            // responses, found by `plumbline-conformance diff`.
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
          description: `The collection query as JSON: filter, q, sort, limit/offset, page/size, cursor, fields. Bounded as a query string: at most 100 values, and at most ${MAX_QUERY_BYTES} bytes as the query string it is equivalent to (else 400 query_too_long)`,
          properties: {
            filter: { type: 'object' },
            q: { type: 'string' },
            sort: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
            // Read like the GET query's values: a number or its decimal string.
            limit: { type: ['integer', 'string'] },
            offset: { type: ['integer', 'string'] },
            page: { type: ['integer', 'string'] },
            size: { type: ['integer', 'string'] },
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
        ...projectSchemas(),
        Task: schema(taskOutput, 'output'),
        TaskInput: schema(taskInput, 'input'),
        Comment: schema(commentOutput, 'output'),
        CommentInput: schema(commentInput, 'input'),
      },
    },
  });
  return withCommonHeaders(withSelections(withExtraSecurity(ctx, document)));
}

/** The name of the code flow's security scheme in the document (the `/docs` page's script reads it too). */
export const CODE_FLOW_SCHEME = 'authorizationCode';

/**
 * With `AUTH_AUTHORIZATION_URL` (and its companions), the external issuer's authorization code flow,
 * which `/docs` runs with PKCE as a public client; its tokens are the external issuer's JWTs, with the
 * same scopes. The endpoints are configured, not read from the issuer's discovery document, so a
 * start never depends on the issuer being up.
 */
function codeFlowScheme(ctx: AppContext, scopes: Json): Json {
  const external = ctx.config.externalIssuer;
  const flow = external?.codeFlow;
  if (!external || !flow) return {};
  return {
    [CODE_FLOW_SCHEME]: {
      type: 'oauth2',
      description: `Authorization code with PKCE (S256) at ${external.issuer}, for a public client such as /docs (client_id ${flow.clientId}); the access token is a JWT for the audience ${external.audience}, sent as a bearer token`,
      flows: {
        authorizationCode: {
          authorizationUrl: flow.authorizationUrl,
          tokenUrl: flow.tokenUrl,
          refreshUrl: flow.tokenUrl,
          scopes,
        },
      },
    },
  };
}

/**
 * Every versioned operation also takes, with the same scope as `oauth2`: the session cookie with
 * `SESSION_KEYS`, and the external issuer's code-flow token when the code flow is configured.
 */
function withExtraSecurity(ctx: AppContext, document: Json): Json {
  const schemes = [
    ...(ctx.session ? ['session'] : []),
    ...(ctx.config.externalIssuer?.codeFlow ? [CODE_FLOW_SCHEME] : []),
  ];
  if (schemes.length === 0) return document;
  for (const [path, item] of Object.entries(document['paths'] as Record<string, Json>)) {
    if (!/^\/v\d+\//.test(path)) continue;
    for (const operation of Object.values(item) as Json[]) {
      const security = operation['security'] as Json[] | undefined;
      const oauth2 = security?.find((entry) => entry['oauth2'] !== undefined);
      if (security && oauth2) {
        operation['security'] = [...security, ...schemes.map((scheme) => ({ [scheme]: oauth2['oauth2'] }))];
      }
    }
  }
  return document;
}
