/**
 * Projects (`/projects`, `/projects/search`, `/projects/{id}`), framework-neutral: each handler
 * takes plain values and returns an {@link Outcome} (common.ts). Both API versions read and write
 * the same rows; they differ only in `budget` (v1: a number, v2: `{ amount, currency }`).
 */
import { type ApiVersion, type ProjectRow, projectRepresentation, selectFields } from '../../domain/model.js';
import { projectInput } from '../../domain/schemas.js';
import { validateBody } from '../../domain/validation.js';
import type { ProjectData } from '../../storage/repository.js';
import { afterWrite, type Checked, type Member, versionGuard } from '../preconditions.js';
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

function projectData(version: ApiVersion, body: unknown, current?: ProjectRow): ProjectData {
  const base = { description: null, status: 'active' as const };
  if (version === 1) {
    const input = validateBody(projectInput[1], body);
    const amount = input.budget ?? null;
    return {
      ...base,
      name: input.name,
      description: input.description ?? null,
      status: input.status ?? 'active',
      budget_amount: amount,
      // v1 clients cannot see or set a currency: keep the stored one, EUR for a new budget.
      budget_currency: amount === null ? null : (current?.budget_currency ?? 'EUR'),
    };
  }
  const input = validateBody(projectInput[2], body);
  return {
    name: input.name,
    description: input.description ?? null,
    status: input.status ?? 'active',
    budget_amount: input.budget?.amount ?? null,
    budget_currency: input.budget?.currency ?? null,
  };
}

/** A list row carries field names (`budget` is the `budget_amount` column) plus `budget_currency`. */
function projectFromListRow(row: Record<string, unknown>): ProjectRow {
  return {
    ...(row as unknown as ProjectRow),
    budget_amount: (row['budget'] as number | null | undefined) ?? null,
  };
}

/** The project handlers, made once per app. */
export function projectHandlers(deps: ResourceDeps) {
  const { repo, links } = deps;
  const sql = { dialect: deps.db.dialect, table: 'projects', extraColumns: ['budget_currency'] } as const;

  /** The project `{projectId}` names; what the preconditions of its writes are evaluated against. */
  const member: Member<ProjectRow> = {
    load: async (params) => found(await repo.getProject(idParam(params, 'projectId'))),
    represent: projectRepresentation,
    modified: (row) => row.updated_at,
  };

  /** A PUT or PATCH: the row's new data, applied only to the version that was checked. */
  async function update(id: string, data: ProjectData, checked: Checked<ProjectRow>, version: ApiVersion) {
    const updated = await repo.updateProject(id, data, versionGuard(checked, checked.row.updated_at));
    return represented(
      projectRepresentation(found(await afterWrite(checked, updated, () => repo.getProject(id))), version),
    );
  }

  return {
    member,

    /** GET /projects, POST /projects/search. */
    list: (input: ListInput): Promise<Outcome> =>
      listPage(deps, sql, input, (row) => projectRepresentation(projectFromListRow(row), input.version)),

    /** POST /projects (Idempotency-Key required). */
    async create({ version, body, transaction }: CreateInput): Promise<Outcome> {
      const row = await writer(repo, transaction).createProject(projectData(version, body));
      return created(links.link(version, `/projects/${row.id}`), projectRepresentation(row, version));
    },

    /** GET /projects/{projectId}. */
    async read({ version, params, fields }: ReadInput): Promise<Outcome> {
      const row = found(await repo.getProject(idParam(params, 'projectId')));
      return represented(selectFields(projectRepresentation(row, version), fields));
    },

    /** PUT /projects/{projectId}: the whole project. */
    async replace({ version, params, checked, body }: WriteInput<ProjectRow>): Promise<Outcome> {
      const id = idParam(params, 'projectId');
      return update(id, projectData(version, body, checked.row), checked, version);
    },

    /** PATCH /projects/{projectId}: a merge patch of the representation the client sees. */
    async patch({ version, params, checked, body }: WriteInput<ProjectRow>): Promise<Outcome> {
      const id = idParam(params, 'projectId');
      const current = checked.row;
      const merged = mergePatch(withoutReadOnly(projectRepresentation(current, version)), patchObject(body));
      return update(id, projectData(version, merged, current), checked, version);
    },

    /** DELETE /projects/{projectId}. */
    async remove({ params, checked }: WriteInput<ProjectRow>): Promise<Outcome> {
      const id = idParam(params, 'projectId');
      if (!(await repo.deleteProject(id, versionGuard(checked, checked.row.updated_at)))) {
        found(await afterWrite(checked, undefined, () => repo.getProject(id)));
      }
      return noContent;
    },
  };
}
