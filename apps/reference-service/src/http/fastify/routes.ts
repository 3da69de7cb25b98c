/**
 * The versioned API on Fastify 5: the routes of http/express/routes.ts, in the same order, each as
 * route → Plumbline hooks → neutral handler (resources/*.ts) → send. The steps run in Express's
 * order per route: `onRequest` hooks (scopes, query check, parent exists, body type) before the
 * body is parsed, `preHandler` hooks (idempotency, collection query, preconditions) after it.
 *
 * One plugin per version: http/fastify/app.ts registers it under `/v1`, `/v2` (path strategy) or with
 * the `apiVersion` route constraint (the other strategies), so both versions share their paths.
 * Every path answers its other methods with 405 (OPTIONS 204) after the version's own hooks, and
 * a path no route matches is 404 there too, as the Express version router does. The project, task
 * and comment routes (api/routes/projects.ts, tasks.ts, comments.ts) are mounted with
 * `@plumbline/contract`'s adapter, under the same constraint; the searches stay written out here.
 */
import { getPrincipal, requireScopes } from '@plumbline/auth/fastify';
import { mount } from '@plumbline/contract/fastify';
import { HttpError } from '@plumbline/errors';
import { idempotency } from '@plumbline/idempotency/fastify';
import { requireContentType } from '@plumbline/negotiation/fastify';
import type { Collection } from '@plumbline/query-parser';
import {
  type CollectionQueryOptions,
  collectionQuery,
  getCollectionQuery,
  setPageHeaders,
} from '@plumbline/query-parser/fastify';
import type {
  FastifyInstance,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
  RouteOptions,
} from 'fastify';
import type { Params } from '../../api/preconditions.js';
import type { Outcome } from '../../api/representation.js';
import {
  assertNoQuery,
  idempotencyStores,
  type ListInput,
  type RouteInput,
} from '../../api/resources/common.js';
import { projectHandlers } from '../../api/resources/projects.js';
import { taskHandlers } from '../../api/resources/tasks.js';
import { commentRoutes } from '../../api/routes/comments.js';
import { colonPath, mountOptions } from '../../api/routes/common.js';
import { PROJECT_MEMBER_PATH, projectRoutes } from '../../api/routes/projects.js';
import { TASK_MEMBER_PATHS, taskRoutes } from '../../api/routes/tasks.js';
import type { ApiVersion } from '../../domain/model.js';
import type { AppContext } from '../../service/context.js';
import { expressBodies, otherMethods, withoutVersionParameter } from './http.js';

type Hook = onRequestHookHandler;
type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
const params = (request: FastifyRequest) => request.params as Params;

/** Sends a handler's outcome: 204 empty, else the body in the negotiated type, after Location or the page headers. */
function send(reply: FastifyReply, outcome: Outcome): FastifyReply {
  if (outcome.status === 204) return reply.code(204).send();
  if (outcome.status === 201) reply.header('Location', outcome.location);
  else if (outcome.page) setPageHeaders(reply, outcome.page);
  return reply.represent(outcome.body, outcome.status);
}

/** The route's handler: reads the neutral input from the request, runs the handler, sends its outcome. */
const handle =
  <I>(input: (request: FastifyRequest) => I, handler: (input: I) => Promise<Outcome>): Handler =>
  async (request, reply) =>
    send(reply, await handler(input(request)));

/**
 * The routes of one API version as a Fastify plugin. The scope registering it has the version's
 * prefix (path strategy), negotiation, authentication and per-principal rate limit; `route` adds
 * the version's constraint (the other strategies) to every route.
 */
export function versionRoutes(
  ctx: AppContext,
  version: ApiVersion,
  route: (options: RouteOptions) => RouteOptions,
): FastifyPluginAsync {
  return async (app) => {
    const { collections } = ctx;
    // Links and the version parameter follow VERSIONING_STRATEGY (service/versioning.ts).
    const { api } = ctx;
    const deps = { repo: ctx.repo, db: ctx.db, links: api };
    const projects = projectHandlers(deps);
    const tasks = taskHandlers(deps);
    // The route tables (api/routes/) get the version of this plugin as their `context`.
    const routeOptions = { ...mountOptions(ctx), context: () => ({ version }) };

    // Bodies as express.json reads them (http/fastify/http.ts), up to BODY_LIMIT_BYTES.
    const strictSearch = expressBodies(app, ctx.config.bodyLimitBytes);

    // The Plumbline hooks, configured once.
    const parsedQuery = (collection: Collection, options?: CollectionQueryOptions) =>
      withoutVersionParameter(api, collectionQuery(collection, options));
    const noQuery =
      (collection: Collection): Hook =>
      async (request) => {
        assertNoQuery(api, collection, request.url);
      };
    const jsonBody = requireContentType('application/json');
    const principal = (request: FastifyRequest) => getPrincipal(request)?.clientId;
    const stores = idempotencyStores(ctx);
    const idempotent = { ...stores.shared, principal };
    const acceptPatch: Hook = async (_request, reply) => {
      reply.header('Accept-Patch', 'application/merge-patch+json, application/json');
    };
    // The handlers' inputs, read from the request once the hooks ran.
    const input = (request: FastifyRequest): RouteInput => ({ version, params: params(request) });
    const listing =
      (collection: Collection) =>
      (request: FastifyRequest): ListInput => ({
        ...input(request),
        query: getCollectionQuery(request, collection),
        path: request.url.split('?', 1)[0] ?? '/',
      });

    const add = (scope: FastifyInstance, options: RouteOptions) => scope.route(route(options));
    const refuse = (
      scope: FastifyInstance,
      url: string,
      allowed: readonly string[],
      onRequest: Hook[] = [],
    ) => otherMethods(scope, url, allowed, route({ method: [], url, handler: async () => {}, onRequest }));

    /** POST …/search: a collection query in the body, read like a GET's query string. */
    const searchRoute = (
      url: string,
      scope: string,
      collection: Collection,
      list: (input: ListInput) => Promise<Outcome>,
      before: Hook[] = [],
      options?: CollectionQueryOptions,
    ) => {
      const query = parsedQuery(collection, options);
      app.register(async (search) => {
        await search.register(idempotency, idempotent);
        add(search, {
          method: 'POST',
          url,
          onRequest: [requireScopes(scope), noQuery(collection), ...before, jsonBody, query.onRequest],
          preValidation: strictSearch,
          preHandler: query.preHandler,
          handler: handle(listing(collection), list),
        });
      });
      refuse(app, url, ['POST']);
    };

    // Projects: the search (its query is read from the body after the idempotency key is taken),
    // and the routes declared once in api/routes/projects.ts, where every answer on one project
    // carries Accept-Patch.

    searchRoute('/projects/search', 'read:projects', collections.projects, projects.list);
    // The member paths of the route tables: every answer there (405 included) carries Accept-Patch.
    const members = new Set([PROJECT_MEMBER_PATH, ...TASK_MEMBER_PATHS].map(colonPath));
    const withAcceptPatch = (options: RouteOptions): RouteOptions => {
      const versioned = route(options);
      if (!members.has(options.url)) return versioned;
      const hooks = versioned.onRequest ?? [];
      return { ...versioned, onRequest: [acceptPatch, ...(Array.isArray(hooks) ? hooks : [hooks])] };
    };
    await mount(app, projectRoutes(ctx), { ...routeOptions, routeOptions: withAcceptPatch });

    // Tasks: the searches (their query is read from the body after the idempotency key is taken),
    // and the routes declared once in api/routes/tasks.ts, where every answer on one task carries
    // Accept-Patch. A task of another project is 404.

    const existingProject: Hook = async (request) => tasks.requireProject(params(request));
    const ofProject = { scope: (request: FastifyRequest) => tasks.projectScope(params(request)) };
    searchRoute(
      '/projects/:projectId/tasks/search',
      'read:tasks',
      collections.tasks,
      tasks.list,
      [existingProject],
      ofProject,
    );
    searchRoute('/tasks/search', 'read:tasks', collections.tasks, tasks.list);
    await mount(app, taskRoutes(ctx), { ...routeOptions, routeOptions: withAcceptPatch });

    // Comments on a task (nesting stays at two levels: /tasks/{id}/comments, docs/conventions.md 4.1 (2)),
    // declared once in api/routes/comments.ts.
    await mount(app, commentRoutes(ctx), { ...routeOptions, routeOptions: route });

    // Any other path of the version: 404, after the version's negotiation and authentication.
    add(app, {
      method: app.supportedMethods,
      url: '/*',
      exposeHeadRoute: false,
      handler: async () => {
        throw new HttpError('not_found');
      },
    });
  };
}
