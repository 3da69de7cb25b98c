/**
 * A small API declared once with the contract (projects, their tasks), used by the behaviour table
 * on every framework: a collection, a nested collection, an idempotent POST, preconditions on
 * writes, a query schema, a header schema, a parent checked before the body (`before`), and a route
 * whose reply breaks its own contract.
 */
import { HttpError } from '@plumbline/errors';
import { applyToArray, countInArray, defineCollection } from '@plumbline/query-parser';
import { z } from 'zod';
import { type Route, route } from '../index.js';

const Project = z.object({
  id: z.number().int(),
  name: z.string().min(1).max(100),
  budget: z.number().min(0).nullable(),
  updated_at: z.string(),
});
const ProjectInput = z.strictObject({
  name: z.string().trim().min(1).max(100),
  budget: z.number().min(0).nullable().optional(),
});
const ProjectPatch = z.strictObject({
  name: z.string().trim().min(1).max(100).optional(),
  budget: z.number().min(0).nullable().optional(),
});
const Task = z.object({
  id: z.number().int(),
  project_id: z.number().int(),
  title: z.string(),
  done: z.boolean(),
});
const TaskInput = z.strictObject({ title: z.string().min(3).max(200), done: z.boolean().default(false) });

const projectsCollection = defineCollection({
  fields: {
    id: { type: 'int', sort: true },
    name: { type: 'string', sort: true, search: true, filter: ['eq'] },
    budget: { type: 'number', nullable: true, filter: ['gte', 'lte'] },
    updated_at: { type: 'date-time' },
  },
  defaultSort: 'id',
  cursorSecret: 'contract-test-secret-contract-test-secret',
});
const tasksCollection = defineCollection({
  fields: {
    id: { type: 'int', sort: true },
    project_id: { type: 'int' },
    title: { type: 'string', search: true, sort: true },
    done: { type: 'boolean', filter: ['eq'] },
  },
  defaultSort: 'id',
  cursorSecret: 'contract-test-tasks-secret-contract-test-tasks',
});

type ProjectRow = z.infer<typeof Project>;
type TaskRow = z.infer<typeof Task>;

/** The in-memory store behind the routes, and how often each handler ran. */
export interface Store {
  readonly projects: Map<number, ProjectRow>;
  readonly tasks: Map<number, TaskRow>;
  readonly runs: Map<string, number>;
  next: number;
}

export function createStore(): Store {
  const store: Store = { projects: new Map(), tasks: new Map(), runs: new Map(), next: 1 };
  for (const name of ['alpha', 'beta', 'gamma']) {
    const id = store.next++;
    store.projects.set(id, { id, name, budget: id * 100, updated_at: '2026-01-0' + id + 'T00:00:00.000Z' });
  }
  store.tasks.set(1, { id: 1, project_id: 1, title: 'first', done: false });
  store.tasks.set(2, { id: 2, project_id: 1, title: 'second', done: true });
  store.tasks.set(101, { id: 101, project_id: 2, title: 'of beta', done: false });
  store.tasks.set(102, { id: 102, project_id: 2, title: 'also of beta', done: true });
  return store;
}

const ProjectParams = z.object({ id: z.coerce.number().int().positive() });

export function apiRoutes(store: Store): readonly Route[] {
  const ran = (name: string) => store.runs.set(name, (store.runs.get(name) ?? 0) + 1);
  const load = (id: number): ProjectRow => {
    const project = store.projects.get(id);
    if (!project) throw new HttpError('not_found');
    return project;
  };
  return [
    route({
      method: 'GET',
      path: '/projects',
      summary: 'List projects',
      collection: projectsCollection,
      responses: { 200: Project },
      scopes: ['read:projects'],
      handler: async ({ query }) => {
        const all = [...store.projects.values()];
        // A total only when the client asked for one (Prefer: count=exact).
        return {
          status: 200,
          rows: applyToArray(query, all),
          ...(query.count ? { total: countInArray(query, all) } : {}),
        };
      },
    }),
    route({
      method: 'POST',
      path: '/projects',
      summary: 'Create a project',
      body: ProjectInput,
      responses: { 201: Project },
      scopes: ['write:projects'],
      idempotent: true,
      handler: async ({ body }) => {
        ran('create');
        const id = store.next++;
        const project = {
          id,
          name: body.name,
          budget: body.budget ?? null,
          updated_at: '2026-02-01T00:00:00.000Z',
        };
        store.projects.set(id, project);
        return { status: 201, body: project, location: `/projects/${id}` };
      },
    }),
    route({
      method: 'GET',
      path: '/projects/{id}',
      summary: 'Read a project',
      params: ProjectParams,
      responses: { 200: Project },
      scopes: ['read:projects'],
      preconditions: {
        load: ({ params }) => load(params.id),
        represent: (p) => p,
        modified: (p) => p.updated_at,
      },
      handler: async ({ current }) => ({ status: 200, body: current }),
    }),
    route({
      method: 'PATCH',
      path: '/projects/{id}',
      summary: 'Change a project',
      params: ProjectParams,
      body: ProjectPatch,
      responses: { 200: Project },
      scopes: ['write:projects'],
      preconditions: { load: ({ params }) => load(params.id), represent: (p) => p, required: true },
      handler: async ({ current, body }) => {
        const next = {
          ...current,
          name: body.name ?? current.name,
          budget: body.budget === undefined ? current.budget : body.budget,
          updated_at: '2026-03-01T00:00:00.000Z',
        };
        store.projects.set(next.id, next);
        return { status: 200, body: next };
      },
    }),
    route({
      method: 'DELETE',
      path: '/projects/{id}',
      params: ProjectParams,
      responses: { 204: null },
      scopes: ['write:projects'],
      handler: async ({ params }) => {
        load(params.id);
        store.projects.delete(params.id);
        return { status: 204 };
      },
    }),
    route({
      method: 'GET',
      path: '/projects/{id}/tasks',
      summary: 'List the tasks of a project',
      params: ProjectParams,
      // The parent's id filters the rows server-side, is bound into cursors, and is never in links.
      collection: { definition: tasksCollection, scope: ({ params }) => ({ project_id: params.id }) },
      responses: { 200: Task },
      scopes: ['read:projects'],
      // The parent exists before the query is parsed (a synchronous step).
      before: ({ params }) => {
        load(params.id);
      },
      handler: async ({ query }) => ({ status: 200, rows: applyToArray(query, [...store.tasks.values()]) }),
    }),
    route({
      method: 'POST',
      path: '/projects/{id}/tasks/search',
      summary: 'Search the tasks of a project',
      params: ProjectParams,
      // A search: the collection query is the JSON body, read after the optional idempotency key.
      collection: { definition: tasksCollection, scope: ({ params }) => ({ project_id: params.id }) },
      responses: { 200: Task },
      scopes: ['read:projects'],
      idempotent: { required: false },
      before: ({ params }) => {
        load(params.id);
      },
      handler: async ({ query }) => {
        ran('search');
        return { status: 200, rows: applyToArray(query, [...store.tasks.values()]) };
      },
    }),
    route({
      method: 'POST',
      path: '/projects/{id}/tasks',
      params: ProjectParams,
      body: TaskInput,
      headers: z.object({
        'x-trace': z
          .string()
          .regex(/^[a-z0-9]{1,16}$/)
          .optional(),
      }),
      responses: { 201: Task },
      scopes: ['write:projects'],
      idempotent: { required: true },
      // The parent exists before the body is read (an asynchronous step): 404 wins over 415 and 400.
      before: async ({ params }) => {
        load(params.id);
      },
      handler: async ({ params, body }) => {
        const id = store.next++;
        const task = { id, project_id: params.id, title: body.title, done: body.done };
        store.tasks.set(id, task);
        return { status: 201, body: task, location: `/projects/${params.id}/tasks/${id}` };
      },
    }),
    route({
      method: 'GET',
      path: '/stats',
      query: z.strictObject({ precision: z.coerce.number().int().min(0).max(3).default(0) }),
      responses: { 200: z.object({ projects: z.number(), average_budget: z.number() }) },
      handler: async ({ query }) => {
        const budgets = [...store.projects.values()].map((p) => p.budget ?? 0);
        const average = budgets.reduce((a, b) => a + b, 0) / Math.max(1, budgets.length);
        return {
          status: 200,
          body: { projects: budgets.length, average_budget: Number(average.toFixed(query.precision)) },
        };
      },
    }),
    route({
      method: 'GET',
      path: '/broken',
      responses: { 200: z.object({ ok: z.literal(true) }) },
      handler: async () => ({ status: 200, body: { ok: 'yes' } as never }),
    }),
    route({
      method: 'GET',
      path: '/undeclared',
      responses: { 200: z.object({ ok: z.boolean() }) },
      handler: async () => ({ status: 202 as never, body: { ok: true } }),
    }),
  ];
}

/** What the fixture apps' `context` option gives each request: the tenant named in `X-Tenant`. */
export interface Tenant {
  readonly tenant: string;
}

/** The one profile every tenant reads; `acme` is sent its budget as `{ amount, currency }`. */
const PROFILE = { name: 'plumbline', budget: 150, updated_at: '2026-01-01T00:00:00.000Z' };
const ProfileParams = z.object({ kind: z.enum(['profile']) });

/**
 * Routes that read the mount's `context`: `/tenant` in its `before` step (a closed tenant is 403
 * before the query is checked) and in its handler; `/tenant/{kind}` in its preconditions, where the
 * representation (and so the ETag) and Last-Modified depend on the tenant and `load` refuses the
 * tenant `nobody` (404).
 */
export function contextRoutes(): readonly Route[] {
  const tenantOf = (context: unknown) => (context as Tenant).tenant;
  const represent = (profile: typeof PROFILE, context: unknown) =>
    tenantOf(context) === 'acme'
      ? { name: profile.name, budget: { amount: profile.budget, currency: 'EUR' } }
      : { name: profile.name, budget: profile.budget };
  return [
    route({
      method: 'GET',
      path: '/tenant/{kind}',
      params: ProfileParams,
      responses: { 200: z.object({ name: z.string(), budget: z.unknown() }) },
      preconditions: {
        load: ({ context }) => {
          if (tenantOf(context) === 'nobody') throw new HttpError('not_found');
          return PROFILE;
        },
        represent,
        modified: (profile, context) => (tenantOf(context) === 'acme' ? profile.updated_at : undefined),
      },
      handler: ({ current, context }) => ({ status: 200, body: represent(current, context) }),
    }),
    route({
      method: 'GET',
      path: '/tenant',
      responses: { 200: z.object({ tenant: z.string() }) },
      before: ({ context }) => {
        if ((context as Tenant).tenant === 'closed') throw new HttpError('forbidden');
      },
      handler: ({ context }) => ({ status: 200, body: { tenant: (context as Tenant).tenant } }),
    }),
  ];
}
