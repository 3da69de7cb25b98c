/** The framework-free steps: exact 400/404 problems, typed parsed input, and the reply check. */
import { HttpError, toProblem } from '@plumbline/errors';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type CompiledRoute,
  type ContractRequest,
  compileRoutes,
  type ResponseMismatch,
  respond,
  route,
  validateParams,
  validateRequest,
} from './index.js';

function request(overrides: Partial<ContractRequest> = {}): ContractRequest {
  const headers: Record<string, string> = {
    'accept-language': 'de',
    ...(overrides as { h?: Record<string, string> }).h,
  };
  return {
    method: 'POST',
    path: '/things/7',
    params: { id: '7' },
    rawQuery: '',
    header: (name) => headers[name],
    headers: () => headers,
    body: undefined,
    principal: undefined,
    ...overrides,
  };
}

const slowUnique = z.string().refine(async (name) => name !== 'taken', 'is taken');
const [things] = compileRoutes([
  route({
    method: 'POST',
    path: '/things/{id}',
    params: z.object({ id: z.coerce.number().int() }),
    query: z.strictObject({ dry: z.enum(['true', 'false']).optional(), tag: z.array(z.string()).optional() }),
    body: z.strictObject({ name: slowUnique, size: z.number().int().min(1) }),
    responses: { 201: z.object({ id: z.number() }), 200: z.object({ id: z.number() }) },
    handler: ({ body, params }) =>
      body.size > 100
        ? { status: 201 as const, body: { id: params.id }, location: '' }
        : { status: 200 as const, body: { id: params.id } },
  }),
]) as [CompiledRoute];

async function problem(run: () => unknown) {
  try {
    await run();
  } catch (error) {
    const http = error as HttpError;
    return { ...toProblem(http, { instance: '/things/7', language: 'de' }), status: http.status };
  }
  throw new Error('expected a problem');
}

describe('validateParams', () => {
  it('parses path parameters with the schema', async () => {
    expect(await validateParams(things, { id: '7' })).toEqual({ id: 7 });
  });
  it('a parameter that does not fit names no resource: 404', async () => {
    expect((await problem(() => validateParams(things, { id: 'x' }))).error_code).toBe('not_found');
  });
});

describe('validateRequest', () => {
  it('every problem of query and body in one 400, async refinements included, localized detail', async () => {
    const p = await problem(() =>
      validateRequest(
        things,
        request({ rawQuery: 'dry=maybe', body: { name: 'taken', size: 0, extra: 1 } }),
        {},
      ),
    );
    expect(p.status).toBe(400);
    expect(p.error_code).toBe('validation_failed');
    expect(p.detail).toBe('Die Anfrage enthält 4 ungültige Werte.');
    expect(p.errors?.map((e) => [e.pointer ?? e.parameter, e.error_code])).toEqual([
      ['dry', 'invalid_value'],
      ['#/size', 'invalid_value'],
      ['#/extra', 'invalid_value'],
      ['#/name', 'invalid_value'],
    ]);
  });
  it('issueMessage answers in the negotiated language', async () => {
    const p = await problem(() =>
      validateRequest(things, request({ body: { name: 'ok', size: 0 } }), {
        issueMessage: (issue, language) => `${language}:${issue.location}:${issue.path.join('.')}`,
      }),
    );
    expect(p.errors).toEqual([{ pointer: '#/size', error_code: 'invalid_value', detail: 'de:body:size' }]);
  });
  it('repeated query parameters reach the schema as a list; ignored parameters are removed', async () => {
    const valid = await validateRequest(
      things,
      request({ rawQuery: 'tag=a&tag=b&version=2', body: { name: 'n', size: 1 } }),
      { ignoredParameters: ['version'] },
    );
    expect(valid).toEqual({ query: { tag: ['a', 'b'] }, headers: undefined, body: { name: 'n', size: 1 } });
  });
  it('without a query schema any parameter is unknown', async () => {
    const [bare] = compileRoutes([
      route({ method: 'GET', path: '/x', responses: { 204: null }, handler: () => ({ status: 204 }) }),
    ]);
    const p = await problem(() =>
      validateRequest(bare!, request({ method: 'GET', rawQuery: 'a=1&b=2' }), {}),
    );
    expect([p.error_code, p.errors?.map((e) => e.parameter)]).toEqual(['unknown_parameter', ['a', 'b']]);
  });
});

describe('respond', () => {
  const input = (body: unknown) => ({
    method: 'POST',
    path: '/things/7',
    params: { id: 7 },
    query: {},
    headers: undefined,
    body,
    principal: undefined,
    current: undefined,
    conditional: false,
    transaction: undefined,
  });
  it('a declared reply is sent as is', async () => {
    expect(await respond(things, input({ name: 'a', size: 1 }), { responseValidation: true })).toEqual({
      status: 200,
      headers: {},
      body: { id: 7 },
    });
  });
  it('a 201 without a location is a mismatch even with validation off', async () => {
    const seen: ResponseMismatch[] = [];
    const p = await problem(() =>
      respond(things, input({ name: 'a', size: 101 }), {
        responseValidation: false,
        onResponseMismatch: (m) => seen.push(m),
      }),
    );
    expect([p.status, p.error_code, p.detail]).toEqual([
      500,
      'internal_error',
      'Ein unerwarteter Fehler ist aufgetreten.',
    ]);
    expect(seen).toEqual([
      {
        route: 'POST /things/{id}',
        status: 201,
        pointer: '#',
        message: 'a 201 reply needs `location` (sent as Location)',
      },
    ]);
  });
  it('a sampling rate of 0 checks nothing, 1 checks everything', async () => {
    const [wrong] = compileRoutes([
      route({
        method: 'GET',
        path: '/w',
        responses: { 200: z.object({ n: z.number() }) },
        handler: () => ({ status: 200, body: { n: 'x' as never } }),
      }),
    ]);
    const get = { ...input(undefined), method: 'GET', path: '/w' };
    expect((await respond(wrong!, get, { responseValidation: 0 })).body).toEqual({ n: 'x' });
    const seen: ResponseMismatch[] = [];
    expect(() =>
      respond(wrong!, get, { responseValidation: 1, onResponseMismatch: (m) => seen.push(m) }),
    ).toThrow(HttpError);
    expect(seen[0]).toEqual({
      route: 'GET /w',
      status: 200,
      pointer: '#/n',
      message: 'Invalid input: expected number, received string',
    });
  });
});
