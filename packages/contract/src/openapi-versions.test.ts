/**
 * toOpenApi with `changes`: one route table (the newest version) and the declared version changes
 * of @plumbline/versioning give one document per version. The affected component schemas are the
 * older ones exactly, the paths are the ones each version serves, unaffected schemas are the same
 * bytes in every version, and an older version's document passes the linters.
 */
import { formatTable, lint, scoreFindings } from '@plumbline/conformance';
import { defineCollection } from '@plumbline/query-parser';
import {
  endpointAdded,
  endpointRemoved,
  enumValueAdded,
  fieldRenamed,
  fieldShapeChanged,
  versions,
} from '@plumbline/versioning';
import { Document, Spectral } from '@stoplight/spectral-core';
import parsers from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type OpenApiDocument,
  type OpenApiOptions,
  RouteDefinitionError,
  route,
  toOpenApi,
} from './index.js';

// The newest version (3): `title`, and `budget` as money.
const Money = z.object({ amount: z.number().min(0), currency: z.string().length(3) });
const Project = z.object({ id: z.number().int(), title: z.string().min(1), budget: Money });
const ProjectInput = z.strictObject({ title: z.string().min(1), budget: Money });
const Report = z.object({ total: z.number() }).meta({ title: 'Report' });
const ProjectParams = z.object({ id: z.coerce.number().int().positive() });
const project = { id: 1, title: 'alpha', budget: { amount: 1200, currency: 'EUR' } };

const projects = defineCollection({
  fields: { id: { type: 'int', sort: true }, title: { type: 'string', search: true } },
  defaultSort: 'id',
  cursorSecret: 'contract-versions-secret-contract-versions-secret',
});

const routes = [
  route({
    method: 'GET',
    path: '/projects',
    collection: projects,
    responses: { 200: Project },
    handler: async () => ({ status: 200, rows: [project] }),
  }),
  route({
    method: 'DELETE',
    path: '/projects/{id}',
    params: ProjectParams,
    responses: { 204: null },
    handler: async () => ({ status: 204 }),
  }),
  route({
    method: 'GET',
    path: '/projects/{id}',
    params: ProjectParams,
    responses: { 200: Project },
    handler: async () => ({ status: 200, body: project }),
  }),
  route({
    method: 'POST',
    path: '/projects',
    body: ProjectInput,
    responses: { 201: Project },
    handler: async () => ({ status: 201, body: project, location: '/projects/1' }),
  }),
  route({
    method: 'POST',
    path: '/projects/{id}/archive',
    params: ProjectParams,
    responses: { 200: Project },
    handler: async () => ({ status: 200, body: project }),
  }),
  route({
    method: 'GET',
    path: '/reports',
    responses: { 200: Report },
    handler: async () => ({ status: 200, body: { total: 1 } }),
  }),
];

const budgetWasNumber = { type: 'number', minimum: 0 };
const api = versions([
  { version: '1' },
  {
    version: '2',
    changes: [
      fieldShapeChanged({
        schema: 'Project',
        field: 'budget',
        up: (amount: number) => ({ amount, currency: 'EUR' }),
        down: (money: { amount: number }) => money.amount,
        oldSchema: budgetWasNumber,
      }),
      fieldShapeChanged({
        schema: 'ProjectInput',
        field: 'budget',
        up: (amount: number) => ({ amount, currency: 'EUR' }),
        down: (money: { amount: number }) => money.amount,
        oldSchema: budgetWasNumber,
      }),
      endpointAdded({ method: 'POST', path: '/projects/{id}/archive' }),
    ],
  },
  {
    version: '3',
    changes: [
      fieldRenamed({ schema: 'Project', from: 'name', to: 'title' }),
      fieldRenamed({ schema: 'ProjectInput', from: 'name', to: 'title' }),
      endpointRemoved({ method: 'GET', path: '/reports' }),
    ],
  },
]);

// Without `changes`: the table as declared, with `version` as info.version.
const plainOptions = (version: string): OpenApiOptions => ({
  info: { title: 'Projects API', version },
  pathPrefix: `/v${version}`,
});
const options = (version: string): OpenApiOptions => ({
  ...plainOptions(version),
  info: { title: 'Projects API', version: 'replaced by changes.version' },
  changes: { api, version },
});
const documents: Record<string, OpenApiDocument> = {
  '1': toOpenApi(routes, options('1')),
  '2': toOpenApi(routes, options('2')),
  '3': toOpenApi(routes, options('3')),
};

const money = {
  type: 'object',
  properties: {
    amount: { type: 'number', minimum: 0 },
    currency: { type: 'string', minLength: 3, maxLength: 3 },
  },
  required: ['amount', 'currency'],
  additionalProperties: false,
};
const { additionalProperties: _closed, ...moneyInput } = money;
const id = { type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 };
const title = { type: 'string', minLength: 1 };

describe('one document per version', () => {
  it.each([
    { version: '1', name: 'name', budget: { output: budgetWasNumber, input: budgetWasNumber } },
    { version: '2', name: 'name', budget: { output: money, input: moneyInput } },
    { version: '3', name: 'title', budget: { output: money, input: moneyInput } },
  ])('version $version: the Project schemas of that version ($name, budget)', ({ version, name, budget }) => {
    const project = { id, [name]: title, budget: budget.output };
    const required = ['id', name, 'budget'];
    const { schemas } = documents[version]!.components;
    const { xml, ...output } = schemas['Project']!;
    expect([output, xml]).toEqual([
      { type: 'object', properties: project, required, additionalProperties: false },
      { name: 'data' },
    ]);
    expect(schemas['ProjectInput']).toEqual({
      type: 'object',
      properties: { [name]: title, budget: budget.input },
      required: [name, 'budget'],
      additionalProperties: false,
    });
    // The items of the collection page are Projects of that version too (only `id` always there).
    const page = schemas['ProjectPage']!['properties'] as Record<string, Record<string, unknown>>;
    expect(page['data']!['items']).toEqual({
      type: 'object',
      properties: project,
      required: ['id'],
      additionalProperties: false,
      xml: { name: 'i' },
    });
  });

  it.each([
    { version: '1', paths: ['/v1/projects', '/v1/projects/{id}', '/v1/reports'] },
    {
      version: '2',
      paths: ['/v2/projects', '/v2/projects/{id}', '/v2/projects/{id}/archive', '/v2/reports'],
    },
    { version: '3', paths: ['/v3/projects', '/v3/projects/{id}', '/v3/projects/{id}/archive'] },
  ])('version $version serves exactly its endpoints', ({ version, paths }) => {
    expect(Object.keys(documents[version]!.paths).sort()).toEqual(paths);
  });

  it.each(['1', '2', '3'])('version %s: info.version is the version', (version) => {
    expect(documents[version]!.info).toEqual({ title: 'Projects API', version });
  });

  it('unaffected schemas are the same bytes in every version', () => {
    const plain = toOpenApi(routes, plainOptions('2')).components.schemas;
    const unaffected = (doc: OpenApiDocument) => {
      const { Project: _p, ProjectInput: _i, ProjectPage: _page, ...rest } = doc.components.schemas;
      return rest;
    };
    expect(Object.keys(unaffected(documents['1']!))).toEqual(['Problem', 'PageMeta', 'PageLinks', 'Report']);
    for (const version of ['1', '2', '3']) {
      for (const [name, schema] of Object.entries(unaffected(documents[version]!)))
        expect(JSON.stringify(schema), `${name} in version ${version}`).toBe(JSON.stringify(plain[name]));
    }
    // Version 3 no longer serves GET /reports, so its schema is not in that document.
    expect(Object.keys(unaffected(documents['3']!))).toEqual(['Problem', 'PageMeta', 'PageLinks']);
  });

  it('the newest version is the table as declared, without the endpoints it removed', () => {
    const served = routes.filter((r) => r.path !== '/reports');
    expect(documents['3']).toEqual(toOpenApi(served, plainOptions('3')));
  });

  it('a version the changes do not declare is refused', () => {
    expect(() => toOpenApi(routes, options('4'))).toThrow(RouteDefinitionError);
  });
});

describe('an older version passes the linters', () => {
  const v1 = documents['1']!;
  it('@plumbline/conformance lint: every rule with something to judge passes', async () => {
    const card = scoreFindings(await lint(v1), 'openapi.json');
    const not = (outcome: string) => card.results.filter((r) => r.outcome === outcome).map((r) => r.id);
    expect(
      [card.results.filter((r) => r.outcome === 'fail' || r.outcome === 'skip'), not('not-applicable')],
      formatTable(card),
    ).toEqual([[], ['plumbline-deprecation-header', 'plumbline-sunset-header']]);
  });

  it('spectral:oas: no error', async () => {
    const spectral = new Spectral();
    spectral.setRuleset({ extends: [[oas as never, 'recommended']] } as never);
    const results = await spectral.run(
      new Document(JSON.stringify(v1, null, 2), parsers.Json, 'openapi.json'),
    );
    expect(
      results
        .filter((r) => r.severity === 0)
        .map((r) => `${String(r.code)} ${r.message} at ${r.path.join('.')}`),
    ).toEqual([]);
  }, 30_000);
});

describe('a schema named with zod .meta({ id }) is a component of its own, changed by that name', () => {
  const Currency = z.object({ code: z.enum(['EUR', 'USD', 'CHF']) }).meta({ id: 'Currency' });
  const Invoice = z.object({ id: z.number().int(), currency: Currency });
  const invoiceRoutes = [
    route({
      method: 'GET',
      path: '/invoices/{id}',
      params: ProjectParams,
      responses: { 200: Invoice },
      handler: async () => ({ status: 200, body: { id: 1, currency: { code: 'EUR' as const } } }),
    }),
  ];
  const invoices = versions([
    { version: '1' },
    {
      version: '2',
      changes: [enumValueAdded({ schema: 'Currency', field: 'code', value: 'CHF', downTo: 'EUR' })],
    },
  ]);
  const doc = (version: string) =>
    toOpenApi(invoiceRoutes, {
      info: { title: 'Invoices API', version },
      changes: { api: invoices, version },
    }).components.schemas;

  it.each([
    { version: '1', codes: ['EUR', 'USD'] },
    { version: '2', codes: ['EUR', 'USD', 'CHF'] },
  ])('version $version: Currency.code is one of $codes', ({ version, codes }) => {
    const schemas = doc(version);
    expect(schemas['Currency']).toEqual({
      type: 'object',
      properties: { code: { type: 'string', enum: codes } },
      required: ['code'],
      additionalProperties: false,
    });
    // The schema that uses it refers to it, and is the same in both versions.
    expect(JSON.stringify(schemas['Invoice'])).toBe(JSON.stringify(doc('2')['Invoice']));
    expect((schemas['Invoice']!['properties'] as Record<string, unknown>)['currency']).toEqual({
      $ref: '#/components/schemas/Currency',
    });
  });
});
