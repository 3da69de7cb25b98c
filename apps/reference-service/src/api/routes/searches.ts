/**
 * The searches of the service declared once with `@plumbline/contract`: `POST <collection>/search`
 * takes the collection query as a JSON body (docs/conventions.md 4.2 (7)) and answers the page its
 * collection's `GET` answers (`projects.list`, `tasks.list`), links and page headers included. On
 * the contract a `POST …/search` collection route is a search: scopes → the route's `before` step
 * (no query string, then the project exists) → Content-Type 415 → JSON body 400/413 → idempotency
 * (an optional key, the shared store) → the query read from the body → handler. Each framework
 * mounts this table first (http/<framework>/routes.ts): `/projects/search` and `/tasks/search` also
 * fit the member paths `/projects/{projectId}` and `/tasks/{taskId}`, and a search neither carries
 * their `Accept-Patch` nor is answered by their routes (another method on a search is 405, `Allow: POST`).
 */
import { type Route, route } from '@plumbline/contract';
import { z } from 'zod';
import type { AppContext } from '../../service/context.js';
import { projectHandlers } from '../resources/projects.js';
import { taskHandlers } from '../resources/tasks.js';
import { noQueryStep, Representation, replyOf, routeVersion } from './common.js';

const ProjectParams = z.object({ projectId: z.string() });

/** A search POST keeps its `Idempotency-Key` (optional) in the shared store: it writes nothing. */
const idempotent = { required: false, transaction: false } as const;

/** The three searches, for every version (the version comes from the mount's `context`). */
export function searchRoutes(ctx: AppContext): readonly Route[] {
  const { api, collections } = ctx;
  const deps = { repo: ctx.repo, db: ctx.db, links: api };
  const projects = projectHandlers(deps);
  const tasks = taskHandlers(deps);
  const noProjectQuery = noQueryStep(api, collections.projects);
  const noTaskQuery = noQueryStep(api, collections.tasks);
  const summary = (listed: string) => `Search ${listed} with the collection query as a JSON body`;
  return [
    route({
      method: 'POST',
      path: '/projects/search',
      operationId: 'search_projects',
      summary: summary('projects'),
      tags: ['projects'],
      collection: collections.projects,
      responses: { 200: { body: Representation, description: 'A page of projects' } },
      scopes: ['read:projects'],
      idempotent,
      before: noProjectQuery,
      handler: async ({ query, path, context }) =>
        replyOf(200, await projects.list({ version: routeVersion(context), params: {}, query, path }), query),
    }),
    route({
      method: 'POST',
      path: '/projects/{projectId}/tasks/search',
      operationId: 'search_project_tasks',
      summary: summary('project_tasks'),
      tags: ['tasks'],
      params: ProjectParams,
      collection: { definition: collections.tasks, scope: ({ params }) => tasks.projectScope(params) },
      responses: { 200: { body: Representation, description: 'A page of project_tasks' } },
      scopes: ['read:tasks'],
      idempotent,
      before: async (input) => {
        noTaskQuery(input);
        await tasks.requireProject(input.params);
      },
      handler: async ({ params, query, path, context }) =>
        replyOf(200, await tasks.list({ version: routeVersion(context), params, query, path }), query),
    }),
    route({
      method: 'POST',
      path: '/tasks/search',
      operationId: 'search_tasks',
      summary: summary('tasks'),
      tags: ['tasks'],
      collection: collections.tasks,
      responses: { 200: { body: Representation, description: 'A page of tasks' } },
      scopes: ['read:tasks'],
      idempotent,
      before: noTaskQuery,
      handler: async ({ query, path, context }) =>
        replyOf(200, await tasks.list({ version: routeVersion(context), params: {}, query, path }), query),
    }),
  ];
}
