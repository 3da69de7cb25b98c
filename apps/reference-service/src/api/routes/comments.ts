/**
 * The comment routes (`/tasks/{taskId}/comments`, `/tasks/{taskId}/comments/{commentId}`) declared
 * once with `@plumbline/contract`: each framework mounts this table with its contract adapter
 * (http/<framework>/routes.ts), in the service's step order: scopes → the route's `before` step (no
 * query on a write, then the task exists) → Content-Type 415 → JSON body 400/413 → idempotency →
 * preconditions → handler. The handlers are the neutral ones of resources/comments.ts; the version
 * a router serves reaches them as the mount's `context` (`RouteContext`, reply.ts).
 */
import { type Route, route } from '@plumbline/contract';
import { type Collection, parseMemberQuery } from '@plumbline/query-parser';
import { z } from 'zod';
import { commentRepresentation } from '../../domain/model.js';
import { commentOutput } from '../../domain/schemas.js';
import type { AppContext } from '../../service/context.js';
import type { Db } from '../../storage/db.js';
import { commentHandlers } from '../resources/comments.js';
import { assertNoQuery, memberFields } from '../resources/common.js';
import { replyOf, routeVersion, urlOf } from './reply.js';

const TaskParams = z.object({ taskId: z.string() });
const CommentParams = z.object({ taskId: z.string(), commentId: z.string() });
/** Any JSON: the handler validates the body itself, so its 400 names each field as the service does. */
const AnyJson = z.unknown();
/** A representation as the client asked for it (`fields=`, the page envelope): a JSON object. */
const Representation = z.record(z.string(), z.unknown());

/** `fields=` of a member read, checked by the `before` step; the handler reads the selection again from it. */
const MemberQuery = z.object({ fields: z.string().optional() });

function selection(collection: Collection, fields: string | undefined): readonly string[] | undefined {
  if (fields === undefined) return undefined;
  return parseMemberQuery(collection, `fields=${encodeURIComponent(fields)}`).fields;
}

/** The comment routes of the service, for every version (the version comes from the mount's `context`). */
export function commentRoutes(ctx: AppContext): readonly Route[] {
  const { api, collections } = ctx;
  const collection = collections.comments;
  const comments = commentHandlers({ repo: ctx.repo, db: ctx.db, links: api });
  const noQuery = (input: { path: string; rawQuery: string }) =>
    assertNoQuery(api, collection, urlOf(input.path, input.rawQuery));
  return [
    route({
      method: 'GET',
      path: '/tasks/{taskId}/comments',
      params: TaskParams,
      collection: { definition: collection, scope: ({ params }) => comments.taskScope(params) },
      responses: { 200: Representation },
      scopes: ['read:comments'],
      before: ({ params }) => comments.requireTask(params),
      handler: async ({ params, query, path, context }) =>
        replyOf(200, await comments.list({ version: routeVersion(context), params, query, path }), query),
    }),
    route({
      method: 'POST',
      path: '/tasks/{taskId}/comments',
      params: TaskParams,
      body: { schema: AnyJson, mediaTypes: ['application/json'] },
      responses: { 201: commentOutput },
      scopes: ['write:comments'],
      idempotent: { required: false },
      before: async (input) => {
        noQuery(input);
        await comments.requireTask(input.params);
      },
      handler: async ({ params, body, principal, transaction, context }) =>
        replyOf<201, z.input<typeof commentOutput>>(
          201,
          await comments.create({
            version: routeVersion(context),
            params,
            // An empty JSON body is `{}` to the service (express.json's reading), so its 400 names the fields.
            body: body ?? {},
            principal: principal?.clientId,
            transaction: transaction as Db | undefined,
          }),
        ),
    }),
    route({
      method: 'GET',
      path: '/tasks/{taskId}/comments/{commentId}',
      params: CommentParams,
      query: MemberQuery,
      responses: { 200: Representation },
      scopes: ['read:comments'],
      // `fields=` only, as on every member read: anything else is 400 unknown_parameter.
      before: ({ path, rawQuery }) => {
        memberFields(api, collection, urlOf(path, rawQuery));
      },
      handler: async ({ params, query, context }) =>
        replyOf(
          200,
          await comments.read({
            version: routeVersion(context),
            params,
            fields: selection(collection, query.fields),
          }),
        ),
    }),
    route({
      method: 'DELETE',
      path: '/tasks/{taskId}/comments/{commentId}',
      params: CommentParams,
      responses: { 204: null },
      scopes: ['write:comments'],
      before: noQuery,
      preconditions: {
        load: ({ params }) => comments.member.load(params),
        // A comment is the same in every version.
        represent: (row) => commentRepresentation(row),
        modified: comments.member.modified,
      },
      handler: async ({ params, current, conditional, context }) =>
        replyOf(
          204,
          await comments.remove({
            version: routeVersion(context),
            params,
            checked: { row: current, conditional },
          }),
        ),
    }),
  ];
}
