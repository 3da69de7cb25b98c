/**
 * The comment routes (`/tasks/{taskId}/comments`, `/tasks/{taskId}/comments/{commentId}`) declared
 * once with `@plumbline/contract`: each framework mounts this table with its contract adapter
 * (http/<framework>/routes.ts), in the service's step order: scopes → the route's `before` step (no
 * query on a write, then the task exists) → Content-Type 415 → JSON body 400/413 → idempotency →
 * preconditions → handler. The handlers are the neutral ones of resources/comments.ts; the version
 * a router serves reaches them as the mount's `context` (`RouteContext`, common.ts).
 */
import { type Route, route } from '@plumbline/contract';
import { z } from 'zod';
import { commentRepresentation } from '../../domain/model.js';
import { commentOutput } from '../../domain/schemas.js';
import type { AppContext } from '../../service/context.js';
import type { Db } from '../../storage/db.js';
import { commentHandlers } from '../resources/comments.js';
import {
  AnyJson,
  MemberQuery,
  memberDocs,
  memberQueryStep,
  noQueryStep,
  Representation,
  replyOf,
  routeVersion,
  selection,
} from './common.js';

const TaskParams = z.object({ taskId: z.string() });
const CommentParams = z.object({ taskId: z.string(), commentId: z.string() });

/** The comment routes of the service, for every version (the version comes from the mount's `context`). */
export function commentRoutes(ctx: AppContext): readonly Route[] {
  const { api, collections } = ctx;
  const collection = collections.comments;
  const comments = commentHandlers({ repo: ctx.repo, db: ctx.db, links: api });
  const noQuery = noQueryStep(api, collection);
  const docs = memberDocs('comment', 'comments');
  return [
    route({
      method: 'GET',
      path: '/tasks/{taskId}/comments',
      operationId: 'list_comments',
      summary: 'List comments',
      tags: ['comments'],
      params: TaskParams,
      collection: { definition: collection, scope: ({ params }) => comments.taskScope(params) },
      responses: { 200: { body: Representation, description: 'A page of comments' } },
      scopes: ['read:comments'],
      before: ({ params }) => comments.requireTask(params),
      handler: async ({ params, query, path, context }) =>
        replyOf(200, await comments.list({ version: routeVersion(context), params, query, path }), query),
    }),
    route({
      method: 'POST',
      path: '/tasks/{taskId}/comments',
      operationId: 'create_comment',
      summary: 'Create a comment',
      tags: ['comments'],
      params: TaskParams,
      body: { schema: AnyJson, mediaTypes: ['application/json'] },
      responses: { 201: { body: commentOutput, description: 'The created comment' } },
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
            body,
            principal: principal?.clientId,
            transaction: transaction as Db | undefined,
          }),
        ),
    }),
    route({
      method: 'GET',
      path: '/tasks/{taskId}/comments/{commentId}',
      ...docs.get,
      params: CommentParams,
      query: MemberQuery,
      responses: { 200: { body: Representation, description: docs.got } },
      scopes: ['read:comments'],
      before: memberQueryStep(api, collection),
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
      ...docs.delete,
      params: CommentParams,
      responses: { 204: { description: docs.deleted } },
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
