import { describe, expect, it } from 'vitest';
import { ContractValidator, type Exchange, recordExchanges } from './contract.js';
import { listen, send } from './http.js';

const item = {
  type: 'object',
  xml: { name: 'item' },
  additionalProperties: false,
  required: ['id', 'name'],
  properties: { id: { type: 'string' }, name: { type: 'string' }, size: { type: 'integer' } },
};
const document = {
  openapi: '3.1.0',
  paths: {
    '/items/{id}': {
      get: {
        parameters: [
          {
            name: 'fields',
            in: 'query',
            style: 'form',
            explode: false,
            schema: { type: 'array', items: { enum: ['name', 'size'] } },
          },
        ],
        responses: {
          '200': {
            description: 'ok',
            headers: {
              ETag: { schema: { type: 'string' } },
              'X-Request-Id': { required: true, schema: { type: 'string' } },
            },
            content: {
              'application/json': { schema: { $ref: '#/components/schemas/Item' } },
              'application/xml': { schema: { $ref: '#/components/schemas/Item' } },
            },
          },
          '404': { $ref: '#/components/responses/NotFound' },
        },
      },
    },
    '/pairs': {
      get: {
        responses: {
          '200': {
            description: 'ok, one shape per API version',
            content: {
              'application/xml': {
                schema: {
                  anyOf: [{ $ref: '#/components/schemas/Item' }, { $ref: '#/components/schemas/Pair' }],
                },
              },
            },
          },
        },
      },
    },
    '/items/search': {
      post: {
        requestBody: {
          content: {
            'application/json': {
              schema: { type: 'object', properties: { q: { type: 'string' } }, additionalProperties: false },
            },
          },
        },
        responses: { '200': { description: 'ok' } },
      },
    },
  },
  components: {
    schemas: {
      Item: item,
      Pair: {
        type: 'object',
        xml: { name: 'pair' },
        additionalProperties: false,
        required: ['left'],
        properties: { left: { type: 'string' } },
      },
      Problem: { type: 'object', required: ['status'], properties: { status: { type: 'integer' } } },
    },
    responses: {
      NotFound: {
        description: 'no',
        content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
      },
    },
  },
};

const ok: Exchange = {
  method: 'GET',
  url: '/items/1',
  requestHeaders: {},
  requestBody: '',
  status: 200,
  responseHeaders: {
    'content-type': 'application/json; charset=utf-8',
    'x-request-id': 'r',
    'content-length': '22',
  },
  responseBody: JSON.stringify({ id: '1', name: 'a' }),
};

describe('ContractValidator', () => {
  const validator = new ContractValidator(document);
  it.each<[string, Partial<Exchange>, string[]]>([
    ['a conforming response', {}, []],
    [
      'an XML body read back through the xml objects',
      {
        responseHeaders: { ...ok.responseHeaders, 'content-type': 'application/xml' },
        responseBody: '<item><id>1</id><name>a</name><size>3</size></item>',
      },
      [],
    ],
    [
      'an XML body missing a required member',
      {
        responseHeaders: { ...ok.responseHeaders, 'content-type': 'application/xml' },
        responseBody: '<item><id>1</id></item>',
      },
      ["XML (root) must have required property 'name' (missingProperty: name)"],
    ],
    [
      'an undeclared header',
      { responseHeaders: { ...ok.responseHeaders, 'x-powered-by': 'Express' } },
      ['undeclared response header x-powered-by'],
    ],
    [
      'a missing required header',
      { responseHeaders: { 'content-type': 'application/json' } },
      ['required response header x-request-id is missing'],
    ],
    ['an undeclared status', { status: 201 }, ['status 201 is not declared (declared: 200, 404)']],
    [
      'an extra member',
      { responseBody: JSON.stringify({ id: '1', name: 'a', secret: 1 }) },
      ['body (root) must NOT have additional properties (additionalProperty: secret)'],
    ],
    [
      'an undeclared media type',
      { responseHeaders: { ...ok.responseHeaders, 'content-type': 'text/csv' } },
      ['media type text/csv is not declared (application/json, application/xml)'],
    ],
    ['an undeclared query parameter', { url: '/items/1?sort=name' }, ['undeclared query parameter sort']],
    [
      'a query value outside its schema',
      { url: '/items/1?fields=name,colour' },
      ['query parameter fields=name,colour: /1 must be equal to one of the allowed values'],
    ],
    ['an undocumented route that answers 200', { url: '/other' }, ['undocumented route: 200']],
    [
      'an XML body conforming to the second schema of anyOf',
      {
        url: '/pairs',
        responseHeaders: { 'content-type': 'application/xml' },
        responseBody: '<pair><left>l</left></pair>',
      },
      [],
    ],
    [
      'an XML body conforming to no schema of anyOf',
      {
        url: '/pairs',
        responseHeaders: { 'content-type': 'application/xml' },
        responseBody: '<item><id>1</id></item>',
      },
      ["XML (root) must have required property 'name' (missingProperty: name)"],
    ],
    [
      'OPTIONS * with the server-wide Allow',
      {
        method: 'OPTIONS',
        url: '*',
        status: 204,
        responseHeaders: { allow: 'GET, POST, OPTIONS' },
        responseBody: '',
      },
      [],
    ],
    [
      'a CORS preflight answered 204 by the CORS layer (no Allow), CORS headers unchecked',
      {
        method: 'OPTIONS',
        url: '/items/1',
        requestHeaders: { origin: 'https://app.example', 'access-control-request-method': 'PATCH' },
        status: 204,
        responseHeaders: {
          'access-control-allow-origin': 'https://app.example',
          'access-control-max-age': '600',
        },
        responseBody: '',
      },
      [],
    ],
    [
      'an OPTIONS with Access-Control-Request-Method answered by the API is checked as an OPTIONS',
      {
        method: 'OPTIONS',
        url: '/items/1',
        requestHeaders: { 'access-control-request-method': 'PATCH' },
        status: 204,
        responseHeaders: { allow: 'GET, POST' },
        responseBody: '',
      },
      ['OPTIONS Allow get,post ≠ documented get'],
    ],
    [
      'an OPTIONS refused by authentication (401) before any method is looked at',
      {
        method: 'OPTIONS',
        url: '/items/1',
        status: 401,
        responseHeaders: { 'content-type': 'application/problem+json' },
        responseBody: '{"status":401}',
      },
      [],
    ],
    [
      'CORS headers on an answer are not the API’s headers',
      {
        url: '/items/1',
        responseHeaders: {
          'content-type': 'application/json',
          'x-request-id': 'r1',
          'access-control-allow-origin': 'https://app.example',
          'access-control-expose-headers': 'Link, ETag',
        },
        responseBody: '{"id":"1","name":"n"}',
      },
      [],
    ],
    [
      'OPTIONS * without Allow',
      { method: 'OPTIONS', url: '*', status: 204, responseHeaders: {}, responseBody: '' },
      ['OPTIONS * without an Allow header'],
    ],
    [
      'GET * answered 200',
      { method: 'GET', url: '*', status: 200 },
      ['request target * with GET answered 200'],
    ],
    [
      'GET * answered with a problem',
      {
        method: 'GET',
        url: '*',
        status: 404,
        responseHeaders: { 'content-type': 'application/problem+json' },
        responseBody: '{"status":404}',
      },
      [],
    ],
    [
      'an undocumented route that answers 404',
      {
        url: '/other',
        status: 404,
        responseHeaders: { 'content-type': 'application/problem+json' },
        responseBody: '{"status":404}',
      },
      [],
    ],
    [
      'an undocumented method answered 405 with Allow',
      { method: 'DELETE', status: 405, responseHeaders: { allow: 'GET' }, responseBody: '' },
      [],
    ],
    [
      'a 405 without Allow',
      { method: 'DELETE', status: 405, responseHeaders: {}, responseBody: '' },
      ['405 without an Allow header'],
    ],
    [
      'a declared problem response',
      {
        status: 404,
        responseHeaders: { 'content-type': 'application/problem+json' },
        responseBody: '{"status":"x"}',
      },
      ['body /status must be integer (type: integer)'],
    ],
    [
      'a literal path before a template',
      {
        method: 'POST',
        url: '/items/search',
        requestHeaders: { 'content-type': 'application/json' },
        requestBody: '{"q":1}',
        responseHeaders: {},
        responseBody: '',
      },
      ['request body /q must be string (type: string)'],
    ],
  ])('%s', (_name, change, problems) => {
    expect(validator.check({ ...ok, ...change })).toEqual(problems);
  });
});

describe('recordExchanges', () => {
  it('records the headers handed to writeHead, which getHeaders() does not list', async () => {
    const recorder = recordExchanges((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': 2, 'X-Request-Id': 'r1' });
      res.end('{}');
    });
    const server = await listen(recorder.handler);
    try {
      await send(server.port, { path: '/x' });
    } finally {
      await server.close();
    }
    expect(recorder.exchanges[0]?.responseHeaders).toMatchObject({
      'x-request-id': 'r1',
      'content-type': 'application/json',
      'content-length': '2',
    });
  });
});
