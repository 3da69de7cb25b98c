/**
 * The task routes declared once with `@plumbline/contract`: the tasks of a project
 * (`/projects/{projectId}/tasks`), all tasks (`/tasks`), and one task, addressed under its project
 * or directly (`/tasks/{taskId}`; a task of another project is 404). Each framework mounts this
 * table with its contract adapter, in the service's step order: scopes → the route's `before` step
 * (no query on a write, then the project exists) → Content-Type 415 → JSON body 400/413 →
 * idempotency → preconditions → handler. The member paths send `Accept-Patch` on every answer: the
 * wirings add it (http/<framework>/routes.ts). The searches (`…/search`) are api/routes/searches.ts.
 */
import { type Route, route } from '@plumbline/contract';
import { z } from 'zod';
import { type TaskRow, taskRepresentation } from '../../domain/model.js';
import { taskOutput } from '../../domain/schemas.js';
import type { AppContext } from '../../service/context.js';
import type { Db } from '../../storage/db.js';
import { taskHandlers } from '../resources/tasks.js';
import { AnyJson, memberRoutes, noQueryStep, Representation, replyOf, routeVersion } from './common.js';

const ProjectParams = z.object({ projectId: z.string() });
const ProjectTaskParams = z.object({ projectId: z.string(), taskId: z.string() });
const TaskParams = z.object({ taskId: z.string() });

/** The paths of one task: nested under its project, and on its own. */
const TASK_MEMBER_PATHS = ['/projects/{projectId}/tasks/{taskId}', '/tasks/{taskId}'] as const;

/** The task routes of the service, for every version (the version comes from the mount's `context`). */
export function taskRoutes(ctx: AppContext): readonly Route[] {
  const { api, collections } = ctx;
  const collection = collections.tasks;
  const tasks = taskHandlers({ repo: ctx.repo, db: ctx.db, links: api });
  const noQuery = noQueryStep(api, collection);
  const preconditions = {
    load: ({ params }: { readonly params: Record<string, string> }) => tasks.member.load(params),
    // A task is the same in every version.
    represent: (row: TaskRow) => taskRepresentation(row),
    modified: tasks.member.modified,
  };
  /** One task: read (`fields=`), replace, merge-patch, delete; the writes under preconditions. */
  const member = (name: string, path: string, params: typeof ProjectTaskParams | typeof TaskParams) =>
    memberRoutes<TaskRow>({
      name,
      path,
      params,
      resource: 'tasks',
      links: api,
      collection,
      output: taskOutput,
      preconditions,
      handlers: tasks,
    });

  return [
    route({
      method: 'GET',
      path: '/projects/{projectId}/tasks',
      operationId: 'list_project_tasks',
      summary: 'List project_tasks',
      tags: ['tasks'],
      params: ProjectParams,
      collection: { definition: collection, scope: ({ params }) => tasks.projectScope(params) },
      responses: { 200: { body: Representation, description: 'A page of project_tasks' } },
      scopes: ['read:tasks'],
      before: ({ params }) => tasks.requireProject(params),
      handler: async ({ params, query, path, context }) =>
        replyOf(200, await tasks.list({ version: routeVersion(context), params, query, path }), query),
    }),
    route({
      method: 'POST',
      path: '/projects/{projectId}/tasks',
      operationId: 'create_task',
      summary: 'Create a task',
      tags: ['tasks'],
      params: ProjectParams,
      body: { schema: AnyJson, mediaTypes: ['application/json'] },
      responses: { 201: { body: taskOutput, description: 'The created task' } },
      scopes: ['write:tasks'],
      idempotent: { required: false },
      before: async (input) => {
        noQuery(input);
        await tasks.requireProject(input.params);
      },
      handler: async ({ params, body, principal, transaction, context }) =>
        replyOf<201, z.input<typeof taskOutput>>(
          201,
          await tasks.create({
            version: routeVersion(context),
            params,
            body,
            principal: principal?.clientId,
            transaction: transaction as Db | undefined,
          }),
        ),
    }),
    ...member('project_task', TASK_MEMBER_PATHS[0], ProjectTaskParams),
    route({
      method: 'GET',
      path: '/tasks',
      operationId: 'list_tasks',
      summary: 'List tasks',
      tags: ['tasks'],
      collection,
      responses: { 200: { body: Representation, description: 'A page of tasks' } },
      scopes: ['read:tasks'],
      handler: async ({ query, path, context }) =>
        replyOf(200, await tasks.list({ version: routeVersion(context), params: {}, query, path }), query),
    }),
    ...member('task', TASK_MEMBER_PATHS[1], TaskParams),
  ];
}
