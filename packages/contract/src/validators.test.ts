/**
 * One route, one body schema written three times: zod 4, valibot (through @valibot/to-json-schema's
 * `toStandardJsonSchema`) and arktype. For each, through the contract's core steps: a bad body is one
 * 400 `validation_failed` listing every invalid value with its JSON Pointer, a good body reaches the
 * handler parsed (defaults filled), and `toOpenApi` writes the schema's JSON Schema.
 */

import { isHttpError, toProblem } from '@plumbline/errors';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type AnySchema, compileRoutes, respond, route, toOpenApi, validateRequest } from './index.js';
import { type ContractRequest, handlerInput } from './run.js';

const zodOrder = z.strictObject({
  title: z.string().min(1).max(50),
  quantity: z.number().int().min(1),
  express: z.boolean().default(false),
  tags: z.array(z.string()).max(3),
  address: z.object({ city: z.string().min(1), zip: z.string().regex(/^[0-9]{5}$/) }),
});

const valibotOrder = toStandardJsonSchema(
  v.strictObject({
    title: v.pipe(v.string(), v.minLength(1), v.maxLength(50)),
    quantity: v.pipe(v.number(), v.integer(), v.minValue(1)),
    express: v.optional(v.boolean(), false),
    tags: v.pipe(v.array(v.string()), v.maxLength(3)),
    address: v.object({
      city: v.pipe(v.string(), v.minLength(1)),
      zip: v.pipe(v.string(), v.regex(/^[0-9]{5}$/)),
    }),
  }),
);

const arktypeOrder = type({
  '+': 'reject',
  title: '0 < string <= 50',
  quantity: 'number.integer >= 1',
  express: 'boolean = false',
  tags: 'string[] <= 3',
  address: { city: 'string > 0', zip: /^[0-9]{5}$/ },
});

const BAD = {
  title: '',
  quantity: 0,
  tags: ['a', 'b', 'c', 'd'],
  address: { city: '', zip: '1234' },
  colour: 'red',
};
const GOOD = { title: 'Bolts', quantity: 12, tags: ['m4'], address: { city: 'Basel', zip: '40510' } };

interface Case {
  readonly name: string;
  readonly schema: AnySchema;
  /** The `errors` of the 400 problem: every invalid value, where, and the validator's own words. */
  readonly errors: readonly {
    readonly pointer: string;
    readonly error_code: string;
    readonly detail: string;
  }[];
  /** The JSON Schema of the request body in the document. */
  readonly jsonSchema: Record<string, unknown>;
}

const invalid = (pointer: string, detail: string) => ({ pointer, error_code: 'invalid_value', detail });
const ADDRESS = {
  type: 'object',
  properties: { city: { type: 'string', minLength: 1 }, zip: { type: 'string', pattern: '^[0-9]{5}$' } },
  required: ['city', 'zip'],
};

const CASES: readonly Case[] = [
  {
    name: 'zod 4',
    schema: zodOrder,
    errors: [
      invalid('#/title', 'Too small: expected string to have >=1 characters'),
      invalid('#/quantity', 'Too small: expected number to be >=1'),
      invalid('#/tags', 'Too big: expected array to have <=3 items'),
      invalid('#/address/city', 'Too small: expected string to have >=1 characters'),
      invalid('#/address/zip', 'Invalid string: must match pattern /^[0-9]{5}$/'),
      // zod reports the unknown keys of an object in one issue; the contract gives each its pointer.
      invalid('#/colour', 'This member is not allowed.'),
    ],
    jsonSchema: {
      type: 'object',
      properties: {
        title: { type: 'string', minLength: 1, maxLength: 50 },
        quantity: { type: 'integer', minimum: 1, maximum: 9007199254740991 },
        express: { default: false, type: 'boolean' },
        tags: { maxItems: 3, type: 'array', items: { type: 'string' } },
        // A non-strict zod object strips unknown keys: its input admits them.
        address: ADDRESS,
      },
      required: ['title', 'quantity', 'tags', 'address'],
      additionalProperties: false,
    },
  },
  {
    name: 'valibot',
    schema: valibotOrder,
    errors: [
      invalid('#/title', 'Invalid length: Expected >=1 but received 0'),
      invalid('#/quantity', 'Invalid value: Expected >=1 but received 0'),
      invalid('#/tags', 'Invalid length: Expected <=3 but received 4'),
      invalid('#/address/city', 'Invalid length: Expected >=1 but received 0'),
      invalid('#/address/zip', 'Invalid format: Expected /^[0-9]{5}$/ but received "1234"'),
      invalid('#/colour', 'Invalid key: Expected never but received "colour"'),
    ],
    jsonSchema: {
      type: 'object',
      properties: {
        title: { type: 'string', minLength: 1, maxLength: 50 },
        quantity: { type: 'integer', minimum: 1 },
        express: { type: 'boolean', default: false },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
        address: ADDRESS,
      },
      required: ['title', 'quantity', 'tags', 'address'],
      additionalProperties: false,
    },
  },
  {
    name: 'arktype',
    schema: arktypeOrder,
    errors: [
      invalid('#/address/city', 'address.city must be non-empty'),
      invalid('#/address/zip', 'address.zip must be matched by ^[0-9]{5}$ (was "1234")'),
      invalid('#/quantity', 'quantity must be at least 1 (was 0)'),
      invalid('#/tags', 'tags must be at most length 3 (was 4)'),
      invalid('#/title', 'title must be non-empty'),
      invalid('#/colour', 'colour must be removed'),
    ],
    jsonSchema: {
      type: 'object',
      properties: {
        address: ADDRESS,
        express: { type: 'boolean' },
        quantity: { type: 'integer', minimum: 1 },
        tags: { type: 'array', maxItems: 3, items: { type: 'string' } },
        title: { type: 'string', maxLength: 50, minLength: 1 },
      },
      required: ['address', 'quantity', 'tags', 'title'],
      additionalProperties: false,
    },
  },
];

function post(body: unknown): ContractRequest {
  return {
    method: 'POST',
    path: '/orders',
    params: {},
    rawQuery: '',
    header: () => undefined,
    headers: () => ({}),
    body,
    principal: undefined,
  };
}

describe.each(CASES)('one body schema in $name', ({ schema, errors, jsonSchema }) => {
  const received: unknown[] = [];
  const orders = route({
    method: 'POST',
    path: '/orders',
    summary: 'Place an order',
    body: schema,
    responses: { 201: { description: 'The order', body: z.object({ id: z.number() }) } },
    handler: async ({ body }) => {
      received.push(body);
      return { status: 201, body: { id: 1 }, location: '/orders/1' };
    },
  });
  const [compiled] = compileRoutes([orders]);

  it('a bad body is one 400 listing every invalid value with its JSON Pointer', () => {
    let thrown: unknown;
    try {
      validateRequest(compiled!, post(BAD), {});
    } catch (error) {
      thrown = error;
    }
    expect(isHttpError(thrown) && thrown.status).toBe(400);
    const problem = toProblem(thrown, { instance: '/orders' });
    expect(problem).toEqual({
      type: '/errors/validation_failed',
      title: 'Bad Request',
      status: 400,
      detail: problem.detail,
      instance: '/orders',
      error_code: 'validation_failed',
      message: problem.detail,
      errors,
    });
    expect(problem.detail).toBe('The request has 6 invalid values.');
    expect(received).toEqual([]);
  });

  it('a good body reaches the handler parsed, and the reply is checked', async () => {
    const valid = await validateRequest(compiled!, post(GOOD), {});
    const response = await respond(compiled!, handlerInput(post(GOOD), {}, valid, {}), {
      responseValidation: true,
    });
    expect(response).toEqual({ status: 201, headers: { Location: '/orders/1' }, body: { id: 1 } });
    // The default is filled in by each validator: the handler sees the schema's output.
    expect(received).toEqual([{ ...GOOD, express: false }]);
  });

  it('toOpenApi writes the JSON Schema of the body', () => {
    const document = toOpenApi([orders], { info: { title: 'Orders', version: '1' }, pathPrefix: '/v1' });
    const operation = document.paths['/v1/orders']!.post!;
    expect(operation.requestBody).toEqual({
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/OrderInput' } } },
    });
    expect(document.components.schemas['OrderInput']).toEqual(jsonSchema);
    expect(Object.keys(operation.responses)).toEqual(['201', '400', '406', '413', '415', '500']);
  });
});
