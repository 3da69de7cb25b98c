/**
 * OpenAPI fixtures: a document that follows every rule (it also describes the compliant fixture
 * server) and one that breaks each rule exactly once.
 */

type Json = Record<string, unknown>;

const problem = { $ref: '#/components/responses/Problem' };
const errors = { '4XX': problem, '5XX': problem };
const id = (name: string): Json => ({ name, in: 'path', required: true, schema: { type: 'integer' } });
const query = (name: string, type = 'string'): Json => ({ name, in: 'query', schema: { type } });
const paging = [query('limit', 'integer'), query('offset', 'integer'), query('sort'), query('q')];
const page = {
  description: 'A page',
  content: {
    'application/json': {
      schema: { type: 'object', properties: { data: { type: 'array', items: { type: 'object' } } } },
    },
  },
};
const item = { description: 'A member', content: { 'application/json': { schema: { type: 'object' } } } };
const body = {
  required: true,
  content: {
    'application/json': {
      schema: {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string', minLength: 1 } },
      },
      example: { name: 'Conformance check' },
    },
  },
};
const created = (deprecated = false): Json => ({
  description: 'Created',
  headers: {
    Location: { schema: { type: 'string' } },
    ...(deprecated
      ? { Deprecation: { schema: { type: 'string' } }, Sunset: { schema: { type: 'string' } } }
      : {}),
  },
  content: { 'application/json': { schema: { type: 'object' } } },
});
const deprecatedOk = {
  description: 'A page (deprecated version)',
  headers: { Deprecation: { schema: { type: 'string' } }, Sunset: { schema: { type: 'string' } } },
  content: { 'application/json': { schema: { type: 'object' } } },
};

function collection(createSchema = true): Json {
  return {
    get: { parameters: paging, responses: { '200': page, ...errors } },
    post: {
      parameters: [{ name: 'Idempotency-Key', in: 'header', required: true, schema: { type: 'string' } }],
      ...(createSchema ? { requestBody: body } : {}),
      responses: { '201': created(), ...errors },
    },
  };
}

function member(param: string): Json {
  return {
    parameters: [id(param)],
    get: { responses: { '200': item, ...errors } },
    patch: { requestBody: body, responses: { '200': item, ...errors } },
    delete: { responses: { '204': { description: 'Deleted' }, ...errors } },
  };
}

const components = {
  schemas: {
    Problem: {
      type: 'object',
      required: ['error_code', 'message'],
      properties: {
        type: { type: 'string' },
        title: { type: 'string' },
        status: { type: 'integer' },
        detail: { type: 'string' },
        error_code: { type: 'string' },
        message: { type: 'string' },
      },
    },
  },
  responses: {
    Problem: {
      description: 'An error',
      content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
    },
  },
  securitySchemes: {
    apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
    bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
  },
};

/**
 * A conforming document: path versioning with v1 deprecated, nested tasks, a POST search action,
 * meta endpoints that the path rules ignore. A fresh copy on every call (as is {@link badOpenApi}'s),
 * so a test that edits one leaves the others' untouched, whichever file ran first in the worker.
 */
export function goodOpenApi(): Json {
  return structuredClone({
    openapi: '3.1.0',
    info: { title: 'Fixture', version: '2.0.0' },
    security: [{ apiKey: [] }, { bearer: [] }],
    paths: {
      '/openapi.json': { get: { security: [], responses: { '200': page } } },
      '/health': { get: { security: [], responses: { '200': item } } },
      '/v1/projects': {
        get: { deprecated: true, parameters: paging, responses: { '200': deprecatedOk, ...errors } },
      },
      '/v2/projects': collection(),
      '/v2/projects/{project_id}': member('project_id'),
      '/v2/projects/{project_id}/tasks': collection(),
      '/v2/tasks': { get: { parameters: paging, responses: { '200': page, ...errors } } },
      '/v2/tasks/search': { post: { requestBody: body, responses: { '200': page, ...errors } } },
      '/v2/tasks/{task_id}': member('task_id'),
    },
    components,
  });
}

/** Breaks every lint rule exactly once; everything else is as in {@link goodOpenApi}. */
export function badOpenApi(): Json {
  const good = goodOpenApi();
  const ok = { '200': item, ...errors };
  return structuredClone({
    ...good,
    paths: {
      '/v2/projects': collection(),
      '/v2/projects/{project_id}': member('project_id'),
      // plural nouns
      '/v2/person/{person_id}': { parameters: [id('person_id')], get: { responses: ok } },
      // verbs
      '/v2/create-reports': { post: { responses: { '201': created(), ...errors } } },
      // casing
      '/v2/taskLists/{list_id}': { parameters: [id('list_id')], get: { responses: ok } },
      // nesting
      '/v2/projects/{project_id}/tasks/{task_id}/comments/{comment_id}': {
        parameters: [id('project_id'), id('task_id'), id('comment_id')],
        get: { responses: ok },
      },
      // extension
      '/v2/exports.csv': { get: { parameters: paging, responses: { '200': page, ...errors } } },
      // filter sub-path
      '/v2/projects/active': { get: { parameters: paging, responses: { '200': page, ...errors } } },
      // identifiers: PUT on a collection
      '/v2/labels': {
        get: { parameters: paging, responses: { '200': page, ...errors } },
        put: { requestBody: body, responses: ok },
      },
      // POST 201 + Location
      '/v2/teams': {
        get: { parameters: paging, responses: { '200': page, ...errors } },
        post: { requestBody: body, responses: { '200': item, ...errors } },
      },
      // DELETE 204
      '/v2/teams/{team_id}': {
        parameters: [id('team_id')],
        delete: { responses: { '200': item, ...errors } },
      },
      // error responses
      '/v2/teams/{team_id}/members': {
        parameters: [id('team_id')],
        get: { parameters: paging, responses: { '200': page, '400': problem } },
      },
      // pagination
      // (a list the API adds to: POST creates tags, so its GET must page)
      '/v2/tags': {
        get: { responses: { '200': page, ...errors } },
        post: { requestBody: body, responses: { '201': created(), ...errors } },
      },
      // version consistency: a header version parameter next to the path prefix
      '/v2/users/{user_id}': {
        parameters: [id('user_id'), { name: 'X-API-Version', in: 'header', schema: { type: 'string' } }],
        get: { responses: ok },
      },
      // deprecation + sunset headers
      '/v1/projects': {
        get: { deprecated: true, parameters: paging, responses: { '200': page, ...errors } },
      },
    },
    components: {
      ...components,
      securitySchemes: { apiKey: { type: 'apiKey', in: 'query', name: 'api_key' } },
    },
  });
}
