/**
 * The project routes declared once with `@plumbline/contract`: the collection (`/projects`: list,
 * and create with a required idempotency key) and one project (`/projects/{projectId}`: read,
 * replace, merge-patch, delete under preconditions). Each framework mounts this table with its
 * contract adapter, in the service's step order: scopes → the route's `before` step (`fields=`
 * only on a read, no query on a write) → Content-Type 415 → JSON body 400/413 → idempotency →
 * preconditions → handler. A project's representation differs by version (v1 sends the budget as a
 * number, v2 as `{ amount, currency }`), so the preconditions take the version from the mount's
 * `context` and the ETag is that of what the version's GET sends. The member path sends
 * `Accept-Patch` on every answer: the wirings add it (http/<framework>/routes.ts). The search
 * (`/projects/search`) is api/routes/searches.ts.
 */
import { type Route, route } from '@plumbline/contract';
import { z } from 'zod';
import type { ProjectRow } from '../../domain/model.js';
import type { AppContext } from '../../service/context.js';
import type { Db } from '../../storage/db.js';
import { projectHandlers } from '../resources/projects.js';
import { AnyJson, memberRoutes, noQueryStep, Representation, replyOf, routeVersion } from './common.js';

const ProjectParams = z.object({ projectId: z.string() });

/** The path of one project. */
const PROJECT_MEMBER_PATH = '/projects/{projectId}';

/** The project routes of the service but the search (api/routes/searches.ts), for every version (the version comes from the mount's `context`). */
export function projectRoutes(ctx: AppContext): readonly Route[] {
  const { api, collections } = ctx;
  const collection = collections.projects;
  const projects = projectHandlers({ repo: ctx.repo, db: ctx.db, links: api });
  const noQuery = noQueryStep(api, collection);
  return [
    route({
      method: 'GET',
      path: '/projects',
      operationId: 'list_projects',
      summary: 'List projects',
      tags: ['projects'],
      collection,
      responses: { 200: { body: Representation, description: 'A page of projects' } },
      scopes: ['read:projects'],
      handler: async ({ query, path, context }) =>
        replyOf(200, await projects.list({ version: routeVersion(context), params: {}, query, path }), query),
    }),
    route({
      method: 'POST',
      path: '/projects',
      operationId: 'create_project',
      summary: 'Create a project',
      tags: ['projects'],
      body: { schema: AnyJson, mediaTypes: ['application/json'] },
      responses: { 201: { body: Representation, description: 'The created project' } },
      scopes: ['write:projects'],
      idempotent: { required: true },
      before: noQuery,
      handler: async ({ body, principal, transaction, context }) =>
        replyOf(
          201,
          await projects.create({
            version: routeVersion(context),
            params: {},
            body,
            principal: principal?.clientId,
            transaction: transaction as Db | undefined,
          }),
        ),
    }),
    ...memberRoutes<ProjectRow>({
      name: 'project',
      path: PROJECT_MEMBER_PATH,
      params: ProjectParams,
      resource: 'projects',
      links: api,
      collection,
      output: Representation,
      preconditions: {
        load: ({ params }) => projects.member.load(params),
        // The representation of the request's version: v1 and v2 differ in the budget, so do their ETags.
        represent: (row, context) => projects.member.represent(row, routeVersion(context)),
        modified: (row) => projects.member.modified(row),
      },
      handlers: projects,
    }),
  ];
}
