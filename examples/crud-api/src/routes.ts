/**
 * The whole API, declared once: projects and their tasks, in two versions. Version 2 made one
 * breaking change: a project's `budget` is `{ amount, currency }` instead of a bare number. Each
 * framework file (express.ts, fastify.ts, hono.ts) only mounts these tables.
 */
import { type Route, route } from '@plumbline/contract';
import { HttpError } from '@plumbline/errors';
import { applyToArray, defineCollection } from '@plumbline/query-parser';
import { z } from 'zod';

// ---------------------------------------------------------------------------------------------
// Storage: in memory, so the example runs with nothing else installed. Swap for your database.

interface StoredProject {
  id: string;
  name: string;
  budget: { amount: number; currency: string } | null;
  updated_at: string;
}
// A type, not an interface: rows are records to the query-parser (an interface has no index signature).
type StoredTask = {
  id: string;
  project_id: string;
  title: string;
  done: boolean;
  updated_at: string;
};

export class Store {
  readonly projects = new Map<string, StoredProject>();
  readonly tasks = new Map<string, StoredTask>();
  #next = 0;
  #clock = Date.parse('2026-11-01T00:00:00Z');
  id(): string {
    this.#next += 1;
    return `00000000-0000-4000-8000-${String(this.#next).padStart(12, '0')}`;
  }
  /** A second later on every write, so `Last-Modified` moves. */
  now(): string {
    this.#clock += 1000;
    return new Date(this.#clock).toISOString();
  }
  project(id: string): StoredProject {
    const project = this.projects.get(id);
    if (!project) throw new HttpError('not_found');
    return project;
  }
  task(projectId: string, id: string): StoredTask {
    const task = this.tasks.get(id);
    if (!task || task.project_id !== projectId) throw new HttpError('not_found');
    return task;
  }
}

// ---------------------------------------------------------------------------------------------
// Schemas

const Id = z.uuid();
const Name = z.string().trim().min(1).max(100);
const Title = z.string().trim().min(3).max(200);
const Money = z.strictObject({
  amount: z.number().min(0).max(1e12),
  currency: z.enum(['EUR', 'USD', 'GBP']),
});

/** The budget as each version shows it. */
const budgets = {
  '1': z.number().min(0).max(1e12).nullable(),
  '2': Money.nullable(),
} as const;

export type Version = keyof typeof budgets;

const Task = z.object({
  id: Id,
  project_id: Id,
  title: Title,
  done: z.boolean(),
  updated_at: z.iso.datetime(),
});
const TaskInput = z.strictObject({ title: Title, done: z.boolean().default(false) });
const TaskPatch = z.strictObject({ title: Title.optional(), done: z.boolean().optional() });

const projects = defineCollection({
  fields: {
    id: { type: 'uuid', sort: true },
    name: { type: 'string', sort: true, search: true, filter: ['eq'] },
    updated_at: { type: 'date-time', sort: true, filter: ['gte', 'lt'] },
  },
  defaultSort: 'name',
});
const tasks = defineCollection({
  fields: {
    id: { type: 'uuid', sort: true },
    title: { type: 'string', sort: true, search: true },
    done: { type: 'boolean', filter: ['eq'] },
    updated_at: { type: 'date-time', sort: true },
  },
  defaultSort: 'title',
});

const ProjectParams = z.object({ projectId: Id });
const TaskParams = z.object({ projectId: Id, taskId: Id });

// ---------------------------------------------------------------------------------------------
// Routes

/** Every route of one API version, over one store. */
export function apiRoutes(version: Version, store: Store): readonly Route[] {
  const Budget = budgets[version];
  const Project = z.object({ id: Id, name: Name, budget: Budget, updated_at: z.iso.datetime() });
  const ProjectInput = z.strictObject({ name: Name, budget: Budget.optional() });
  const ProjectPatch = z.strictObject({ name: Name.optional(), budget: Budget.optional() });

  // Storage ↔ this version's representation.
  const show = (p: StoredProject): z.infer<typeof Project> => ({
    id: p.id,
    name: p.name,
    budget: p.budget === null ? null : ((version === '1' ? p.budget.amount : p.budget) as never),
    updated_at: p.updated_at,
  });
  const budgetOf = (value: unknown, current: StoredProject['budget']): StoredProject['budget'] => {
    if (value === undefined) return current;
    if (value === null) return null;
    return typeof value === 'number'
      ? { amount: value, currency: current?.currency ?? 'EUR' }
      : (value as StoredProject['budget']);
  };
  const projectPreconditions = {
    load: ({ params }: { params: { projectId: string } }) => store.project(params.projectId),
    represent: show,
    modified: (p: StoredProject) => p.updated_at,
  };
  const taskPreconditions = {
    load: ({ params }: { params: { projectId: string; taskId: string } }) =>
      store.task(params.projectId, params.taskId),
    represent: (t: StoredTask) => t,
    modified: (t: StoredTask) => t.updated_at,
  };

  return [
    route({
      method: 'GET',
      path: '/projects',
      summary: 'List projects',
      tags: ['projects'],
      collection: projects,
      responses: { 200: Project },
      scopes: ['read:projects'],
      handler: ({ query }) => ({
        status: 200,
        rows: applyToArray(query, [...store.projects.values()].map(show)),
      }),
    }),
    route({
      method: 'POST',
      path: '/projects',
      summary: 'Create a project',
      tags: ['projects'],
      body: ProjectInput,
      responses: { 201: Project },
      scopes: ['write:projects'],
      idempotent: true,
      handler: ({ body, path }) => {
        const project: StoredProject = {
          id: store.id(),
          name: body.name,
          budget: budgetOf(body.budget, null),
          updated_at: store.now(),
        };
        store.projects.set(project.id, project);
        return { status: 201, body: show(project), location: `${path}/${project.id}` };
      },
    }),
    route({
      method: 'GET',
      path: '/projects/{projectId}',
      summary: 'Read a project',
      tags: ['projects'],
      params: ProjectParams,
      responses: { 200: Project },
      scopes: ['read:projects'],
      preconditions: projectPreconditions,
      handler: ({ current }) => ({ status: 200, body: show(current) }),
    }),
    route({
      method: 'PUT',
      path: '/projects/{projectId}',
      summary: 'Replace a project',
      tags: ['projects'],
      params: ProjectParams,
      body: ProjectInput,
      responses: { 200: Project },
      scopes: ['write:projects'],
      preconditions: { ...projectPreconditions, required: true },
      handler: ({ current, body }) => {
        const project = {
          ...current,
          name: body.name,
          budget: budgetOf(body.budget ?? null, current.budget),
          updated_at: store.now(),
        };
        store.projects.set(project.id, project);
        return { status: 200, body: show(project) };
      },
    }),
    route({
      method: 'PATCH',
      path: '/projects/{projectId}',
      summary: 'Change a project',
      tags: ['projects'],
      params: ProjectParams,
      body: ProjectPatch,
      responses: { 200: Project },
      scopes: ['write:projects'],
      preconditions: { ...projectPreconditions, required: true },
      handler: ({ current, body }) => {
        const project = {
          ...current,
          name: body.name ?? current.name,
          budget: budgetOf(body.budget, current.budget),
          updated_at: store.now(),
        };
        store.projects.set(project.id, project);
        return { status: 200, body: show(project) };
      },
    }),
    route({
      method: 'DELETE',
      path: '/projects/{projectId}',
      summary: 'Delete a project and its tasks',
      tags: ['projects'],
      params: ProjectParams,
      responses: { 204: null },
      scopes: ['write:projects'],
      preconditions: projectPreconditions,
      handler: ({ current }) => {
        store.projects.delete(current.id);
        for (const task of store.tasks.values())
          if (task.project_id === current.id) store.tasks.delete(task.id);
        return { status: 204 };
      },
    }),
    route({
      method: 'GET',
      path: '/projects/{projectId}/tasks',
      summary: "List a project's tasks",
      tags: ['tasks'],
      params: ProjectParams,
      collection: tasks,
      responses: { 200: Task },
      scopes: ['read:projects'],
      handler: ({ params, query }) => {
        store.project(params.projectId);
        const rows = [...store.tasks.values()].filter((t) => t.project_id === params.projectId);
        return { status: 200, rows: applyToArray(query, rows) };
      },
    }),
    route({
      method: 'POST',
      path: '/projects/{projectId}/tasks',
      summary: 'Add a task to a project',
      tags: ['tasks'],
      params: ProjectParams,
      body: TaskInput,
      responses: { 201: Task },
      scopes: ['write:projects'],
      idempotent: { required: true },
      handler: ({ params, body, path }) => {
        store.project(params.projectId);
        const task: StoredTask = {
          id: store.id(),
          project_id: params.projectId,
          title: body.title,
          done: body.done,
          updated_at: store.now(),
        };
        store.tasks.set(task.id, task);
        return { status: 201, body: task, location: `${path}/${task.id}` };
      },
    }),
    route({
      method: 'GET',
      path: '/projects/{projectId}/tasks/{taskId}',
      summary: 'Read a task',
      tags: ['tasks'],
      params: TaskParams,
      responses: { 200: Task },
      scopes: ['read:projects'],
      preconditions: taskPreconditions,
      handler: ({ current }) => ({ status: 200, body: current }),
    }),
    route({
      method: 'PATCH',
      path: '/projects/{projectId}/tasks/{taskId}',
      summary: 'Change a task',
      tags: ['tasks'],
      params: TaskParams,
      body: TaskPatch,
      responses: { 200: Task },
      scopes: ['write:projects'],
      preconditions: { ...taskPreconditions, required: true },
      handler: ({ current, body }) => {
        const task = {
          ...current,
          title: body.title ?? current.title,
          done: body.done ?? current.done,
          updated_at: store.now(),
        };
        store.tasks.set(task.id, task);
        return { status: 200, body: task };
      },
    }),
    route({
      method: 'DELETE',
      path: '/projects/{projectId}/tasks/{taskId}',
      summary: 'Delete a task',
      tags: ['tasks'],
      params: TaskParams,
      responses: { 204: null },
      scopes: ['write:projects'],
      preconditions: taskPreconditions,
      handler: ({ current }) => {
        store.tasks.delete(current.id);
        return { status: 204 };
      },
    }),
  ];
}
