/**
 * Tasks of a project (`/projects/{id}/tasks`, its `/search`), all tasks (`/tasks`, `/tasks/search`)
 * and one task, addressed under its project or directly (`/tasks/{id}`). Framework-neutral: each
 * handler takes plain values and returns an {@link Outcome} (common.ts).
 */
import { HttpError } from '@plumbline/errors';
import { selectFields, type TaskRow, taskRepresentation } from '../../domain/model.js';
import { taskInput } from '../../domain/schemas.js';
import { validateBody } from '../../domain/validation.js';
import type { TaskData } from '../../storage/repository.js';
import { afterWrite, type Checked, type Member, type Params, versionGuard } from '../preconditions.js';
import { created, noContent, type Outcome, represented } from '../representation.js';
import {
  type CreateInput,
  found,
  idParam,
  type ListInput,
  listPage,
  mergePatch,
  patchObject,
  type ReadInput,
  type ResourceDeps,
  type WriteInput,
  withoutReadOnly,
  writer,
} from './common.js';

function taskData(body: unknown): TaskData {
  const input = validateBody(taskInput, body);
  return {
    title: input.title,
    status: input.status ?? 'todo',
    priority: input.priority ?? 3,
    due_date: input.due_date ?? null,
  };
}

const asTask = (row: Record<string, unknown>) => taskRepresentation(row as unknown as TaskRow);

/** The task handlers, made once per app. */
export function taskHandlers(deps: ResourceDeps) {
  const { repo, links } = deps;
  const sql = { dialect: deps.db.dialect, table: 'tasks' } as const;

  /** One task; under `/projects/{projectId}`, a task of another project is 404. */
  const load = async (params: Params): Promise<TaskRow> => {
    const task = found(await repo.getTask(idParam(params, 'taskId')));
    if (params['projectId'] !== undefined && task.project_id !== idParam(params, 'projectId')) {
      throw new HttpError('not_found');
    }
    return task;
  };
  /** What the preconditions of a task's writes are evaluated against. */
  const member: Member<TaskRow> = { load, represent: taskRepresentation, modified: (row) => row.updated_at };

  /** A PUT or PATCH: the task's new data, applied only to the version that was checked. */
  async function update(data: TaskData, checked: Checked<TaskRow>): Promise<Outcome> {
    const task = checked.row;
    const updated = await repo.updateTask(task.id, data, versionGuard(checked, task.updated_at));
    return represented(
      taskRepresentation(found(await afterWrite(checked, updated, () => repo.getTask(task.id)))),
    );
  }

  return {
    member,

    /** Before anything else on `/projects/{projectId}/tasks...`: the project exists (404, or 410 when deleted). */
    async requireProject(params: Params): Promise<void> {
      found(await repo.getProject(idParam(params, 'projectId')));
    },

    /** The server-side filter of a project's tasks, for the collection query. */
    projectScope: (params: Params) => ({ project_id: idParam(params, 'projectId') }),

    /** GET and POST .../search of `/projects/{projectId}/tasks` and of `/tasks`. */
    list: (input: ListInput): Promise<Outcome> => listPage(deps, sql, input, asTask),

    /** POST /projects/{projectId}/tasks. */
    async create({ version, params, body, transaction }: CreateInput): Promise<Outcome> {
      const task = await writer(repo, transaction).createTask(idParam(params, 'projectId'), taskData(body));
      return created(
        links.link(version, `/projects/${task.project_id}/tasks/${task.id}`),
        taskRepresentation(task),
      );
    },

    /** GET of a task. */
    async read({ params, fields }: ReadInput): Promise<Outcome> {
      return represented(selectFields(taskRepresentation(await load(params)), fields));
    },

    /** PUT of a task: the whole task. */
    async replace({ checked, body }: WriteInput<TaskRow>): Promise<Outcome> {
      return update(taskData(body), checked);
    },

    /** PATCH of a task: a merge patch of its representation. */
    async patch({ checked, body }: WriteInput<TaskRow>): Promise<Outcome> {
      const merged = mergePatch(withoutReadOnly(taskRepresentation(checked.row)), patchObject(body));
      return update(taskData(merged), checked);
    },

    /** DELETE of a task. */
    async remove({ checked }: WriteInput<TaskRow>): Promise<Outcome> {
      const task = checked.row;
      if (!(await repo.deleteTask(task.id, versionGuard(checked, task.updated_at)))) {
        found(await afterWrite(checked, undefined, () => repo.getTask(task.id)));
      }
      return noContent;
    },
  };
}
