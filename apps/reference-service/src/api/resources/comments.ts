/**
 * Comments on a task (`/tasks/{id}/comments`, `/tasks/{id}/comments/{id}`; nesting stays at two
 * levels, docs/conventions.md 4.1 (2)). Comments never change: there is no PUT or PATCH.
 * Framework-neutral: each handler takes plain values and returns an {@link Outcome} (common.ts).
 */
import { HttpError } from '@plumbline/errors';
import { type CommentRow, commentRepresentation, selectFields } from '../../domain/model.js';
import { commentInput } from '../../domain/schemas.js';
import { validateBody } from '../../domain/validation.js';
import type { Member, Params } from '../preconditions.js';
import { created, noContent, type Outcome, represented } from '../representation.js';
import {
  type CreateInput,
  found,
  idParam,
  type ListInput,
  listPage,
  type ReadInput,
  type ResourceDeps,
  type WriteInput,
  writer,
} from './common.js';

const asComment = (row: Record<string, unknown>) => commentRepresentation(row as unknown as CommentRow);

/** The comment handlers, made once per app. */
export function commentHandlers(deps: ResourceDeps) {
  const { repo, links } = deps;
  const sql = { dialect: deps.db.dialect, table: 'comments' } as const;

  /** One comment; a comment of another task is 404. */
  const load = async (params: Params): Promise<CommentRow> => {
    const comment = found(await repo.getComment(idParam(params, 'commentId')));
    if (comment.task_id !== idParam(params, 'taskId')) throw new HttpError('not_found');
    return comment;
  };
  /** What the preconditions of a DELETE are evaluated against. */
  const member: Member<CommentRow> = {
    load,
    represent: commentRepresentation,
    modified: (row) => row.created_at,
  };

  return {
    member,

    /** Before anything else on `/tasks/{taskId}/comments`: the task exists (404, or 410 when deleted). */
    async requireTask(params: Params): Promise<void> {
      found(await repo.getTask(idParam(params, 'taskId')));
    },

    /** The server-side filter of a task's comments, for the collection query. */
    taskScope: (params: Params) => ({ task_id: idParam(params, 'taskId') }),

    /** GET /tasks/{taskId}/comments. */
    list: (input: ListInput): Promise<Outcome> => listPage(deps, sql, input, asComment),

    /** POST /tasks/{taskId}/comments: the author is the principal's client id. */
    async create({ version, params, body, principal, transaction }: CreateInput): Promise<Outcome> {
      const input = validateBody(commentInput, body);
      const author = principal ?? 'anonymous';
      const comment = await writer(repo, transaction).createComment(
        idParam(params, 'taskId'),
        input.body,
        author,
      );
      return created(
        links.link(version, `/tasks/${comment.task_id}/comments/${comment.id}`),
        commentRepresentation(comment),
      );
    },

    /** GET /tasks/{taskId}/comments/{commentId}. */
    async read({ params, fields }: ReadInput): Promise<Outcome> {
      return represented(selectFields(commentRepresentation(await load(params)), fields));
    },

    /** DELETE /tasks/{taskId}/comments/{commentId}. */
    async remove({ checked }: WriteInput<CommentRow>): Promise<Outcome> {
      // Comments never change, so there is no version to race on: the first DELETE wins, the next is 410.
      const { id } = checked.row;
      if (!(await repo.deleteComment(id))) found(await repo.getComment(id));
      return noContent;
    },
  };
}
