/**
 * A nested collection's `scope` (`collection: { definition, scope }`), held to one behaviour table
 * on Express 5, Express 4, Fastify 5 and Hono: the parent filters the rows server-side, is bound
 * into cursors (a cursor made under one parent is refused under another with the query parser's
 * 400), and never appears in links; a client filter on the scope field is answered as the query
 * parser defines. The OpenAPI document is the same with and without the scope.
 */
import type { HttpError } from '@plumbline/errors';
import { defineCollection } from '@plumbline/query-parser';
import { type AdapterCase, describeAdapters, type Framework, frameworkRunners } from '@plumbline/test-utils';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Fixture, fixture, frameworkApps, READ_KEY } from './__fixtures__/apps.js';
import { compileRoutes, route, toOpenApi, validateParams, validateRequest } from './index.js';

interface Case extends AdapterCase {
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly status: number;
  readonly expectHeaders?: Record<string, string | null>;
  /** A problem's whole body, exactly (`request_id` checked apart); required for 4xx. */
  readonly expectBody?: unknown;
}

const read = { 'x-api-key': READ_KEY };
const CURSOR = '{cursor of project 1}';
const invalidCursor = {
  type: '/errors/invalid_cursor',
  title: 'Bad Request',
  status: 400,
  detail: 'The cursor is invalid, expired or belongs to another query.',
  error_code: 'invalid_cursor',
  message: 'The cursor is invalid, expired or belongs to another query.',
  errors: [
    {
      parameter: 'cursor',
      error_code: 'invalid_cursor',
      detail: 'The cursor is invalid, expired or belongs to another query.',
    },
  ],
};

const notFilterable = (instance: string) => {
  const detail = 'Field "project_id" cannot be filtered; filterable: done.';
  return {
    type: '/errors/field_not_filterable',
    title: 'Bad Request',
    status: 400,
    detail,
    instance,
    error_code: 'field_not_filterable',
    message: detail,
    errors: [{ parameter: 'project_id', error_code: 'field_not_filterable', detail }],
  };
};

const CASES: readonly Case[] = [
  {
    name: "a scoped list: only the parent's rows, the scope in neither links nor Link",
    path: '/projects/1/tasks?limit=1',
    headers: read,
    status: 200,
    expectHeaders: {
      link: '</projects/1/tasks?sort=id&limit=1&offset=0>; rel="self", </projects/1/tasks?sort=id&limit=1&offset=0>; rel="first", </projects/1/tasks?sort=id&limit=1&offset=1>; rel="next"',
    },
  },
  {
    name: 'its cursor under its own parent: the next page',
    path: `/projects/1/tasks?limit=1&cursor=${CURSOR}`,
    headers: read,
    status: 200,
  },
  {
    name: 'the same cursor under another parent: 400 invalid_cursor',
    path: `/projects/2/tasks?limit=1&cursor=${CURSOR}`,
    headers: read,
    status: 400,
    expectBody: { ...invalidCursor, instance: '/projects/2/tasks' },
  },
  {
    name: 'attacker: the cursor under another parent with a filter that names the first one',
    path: `/projects/2/tasks?limit=1&project_id=1&cursor=${CURSOR}`,
    headers: read,
    status: 400,
    expectBody: notFilterable('/projects/2/tasks'),
  },
  {
    name: "the other parent: its own rows, whatever the client's page",
    path: '/projects/2/tasks',
    headers: read,
    status: 200,
  },
  {
    name: 'a client filter on the scope field (not filterable): 400, as the query parser answers it',
    path: '/projects/1/tasks?project_id=2',
    headers: read,
    status: 400,
    expectBody: notFilterable('/projects/1/tasks'),
  },
  {
    name: 'attacker: a tampered cursor under its own parent: 400 invalid_cursor',
    path: `/projects/1/tasks?limit=1&cursor=${CURSOR}x`,
    headers: read,
    status: 400,
    expectBody: { ...invalidCursor, instance: '/projects/1/tasks' },
  },
  {
    name: 'a client filter beside the scope: AND-ed with it',
    path: '/projects/2/tasks?done=true',
    headers: read,
    status: 200,
  },
];

const fixtures = new Map<Framework, Fixture>();
const fixtureOf = (framework: Framework) => {
  let f = fixtures.get(framework);
  if (!f) {
    f = fixture();
    fixtures.set(framework, f);
  }
  return f;
};
const cursors = new Map<string, string>();
const seen = new Map<string, unknown>();

describeAdapters(
  'contract: a nested collection scoped by its parent, the same on every framework',
  CASES,
  frameworkRunners(frameworkApps(fixtureOf), (c: Case) => ({
    path: c.path.replace(CURSOR, encodeURIComponent(cursors.get('project 1') ?? 'none')),
    headers: c.headers ?? {},
  })),
  (outcome, c, adapter) => {
    expect(outcome.status, JSON.stringify(outcome.body)).toBe(c.status);
    for (const [name, value] of Object.entries(c.expectHeaders ?? {}))
      expect(outcome.headers[name] ?? null, name).toBe(value);
    const body = outcome.body as Record<string, unknown>;
    if (c.status === 200) {
      expect(outcome.headers['link']).not.toMatch(/project_id/);
      expect(JSON.stringify(body['links'])).not.toMatch(/project_id/);
    }
    if (c.name.startsWith('a scoped list')) {
      expect(body['data']).toEqual([{ id: 1, project_id: 1, title: 'first', done: false }]);
      const page = body['page'] as Record<string, unknown>;
      expect(page).toEqual({ limit: 1, offset: 0, has_more: true, next_cursor: expect.any(String) });
      cursors.set('project 1', page['next_cursor'] as string);
    }
    if (c.name.startsWith('its cursor'))
      expect(body['data']).toEqual([{ id: 2, project_id: 1, title: 'second', done: true }]);
    if (c.name.startsWith('the other parent'))
      expect((body['data'] as { id: number }[]).map((t) => t.id)).toEqual([101, 102]);
    if (c.name.startsWith('a client filter beside'))
      expect(body['data']).toEqual([{ id: 102, project_id: 2, title: 'also of beta', done: true }]);
    if (c.status >= 400) {
      expect(outcome.headers['content-type']).toMatch(/^application\/problem\+json/);
      const { request_id, ...problem } = body;
      expect(request_id).toEqual(expect.any(String));
      expect(problem).toEqual(c.expectBody);
      // The same problem on every framework (the first adapter's answer is the reference).
      const key = c.name;
      if (!seen.has(key)) seen.set(key, problem);
      else expect(problem, `${adapter} against the first framework`).toEqual(seen.get(key));
    }
  },
);

describe('scope in the core and the document', () => {
  const tasks = defineCollection({
    fields: {
      id: { type: 'int', sort: true },
      project_id: { type: 'int', filter: ['eq'] },
      title: { type: 'string', search: true },
    },
    defaultSort: 'id',
  });
  const Params = z.object({ projectId: z.coerce.number().int() });
  const Task = z.object({ id: z.number().int(), project_id: z.number().int(), title: z.string() });
  const list = (
    scoped: boolean,
    scope = (p: { projectId: number }): Record<string, unknown> => ({ project_id: p.projectId }),
  ) =>
    route({
      method: 'GET',
      path: '/projects/{projectId}/tasks',
      params: Params,
      collection: scoped ? { definition: tasks, scope: ({ params }) => scope(params) } : tasks,
      responses: { 200: Task },
      handler: () => ({ status: 200, rows: [] }),
    });
  const request = (rawQuery: string) => ({
    method: 'GET',
    path: '/projects/7/tasks',
    params: { projectId: '7' },
    rawQuery,
    header: () => undefined,
    headers: () => ({}),
    body: undefined,
    principal: undefined,
  });

  it('the handler gets the scope in `query.scope`; a filterable scope field from the client is AND-ed', async () => {
    const [compiled] = compileRoutes([list(true)]);
    const params = await validateParams(compiled!, { projectId: '7' });
    const valid = await validateRequest(compiled!, request('project_id=8'), {}, params);
    const query = valid.query as { scope: unknown; filters: unknown };
    expect(query.scope).toEqual([{ field: 'project_id', op: 'eq', value: 7 }]);
    expect(query.filters).toEqual([{ field: 'project_id', op: 'eq', value: 8 }]);
  });

  it('a scope value that cannot be of its field type is 404 not_found (no such parent)', () => {
    const [compiled] = compileRoutes([list(true, () => ({ project_id: 'seven' }))]);
    expect(() => validateRequest(compiled!, request(''), {}, { projectId: 7 })).toThrowError(
      expect.objectContaining({ code: 'not_found' }) as unknown as HttpError,
    );
  });

  it('the OpenAPI document is the same with and without the scope (it is server-side)', () => {
    const info = { title: 'Tasks', version: '1' };
    expect(toOpenApi([list(true)], { info })).toEqual(toOpenApi([list(false)], { info }));
  });

  it('a `collection` that is neither a collection nor `{ definition, scope }` is refused at start-up', () => {
    const bad = (collection: unknown) => () =>
      compileRoutes([{ ...list(true), collection } as unknown as ReturnType<typeof route>]);
    expect(bad({ definition: tasks })).toThrow(
      '`collection.scope` must be a function of the path parameters',
    );
    expect(bad({ scope: () => ({}) })).toThrow(
      '`collection` is not a @plumbline/query-parser collection (or `{ definition, scope }`)',
    );
  });
});
