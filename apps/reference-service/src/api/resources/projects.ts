/**
 * Projects (`/projects`, `/projects/search`, `/projects/{id}`), framework-neutral: each handler
 * takes plain values and returns an {@link Outcome} (common.ts). The handlers are written once,
 * against the newest API version (v2, budget `{ amount, currency }`); the declared version changes
 * (domain/versions.ts) migrate an older client's body up before validation and the representation,
 * collection pages and field errors down after the handler.
 */

import { HttpError } from '@plumbline/errors';
import type { Endpoint } from '@plumbline/versioning';
import { defineCollections } from '../../domain/collections.js';
import { type ApiVersion, type ProjectRow, projectRepresentation, selectFields } from '../../domain/model.js';
import { asXmlSchema } from '../../domain/schema-name.js';
import { projectInput } from '../../domain/schemas.js';
import { validateBody } from '../../domain/validation.js';
import {
  bodyDown,
  bodyUp,
  errorDown,
  type ProjectEndpoint,
  queryFieldsOf,
  SUPPORTED_VERSIONS,
} from '../../domain/versions.js';
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

/** The project routes as the version changes see them: every body is a `Project`. */
const endpoint = (method: string, path: string, collection?: string): Endpoint => ({
  method,
  path,
  schemas: ['Project'],
  ...(collection === undefined ? {} : { collection }),
});
const LIST_ITEM = endpoint('GET', '/projects');
const SEARCH_ITEM = endpoint('POST', '/projects/search');
const CREATE = endpoint('POST', '/projects');
const READ = endpoint('GET', '/projects/{projectId}');
const REPLACE = endpoint('PUT', '/projects/{projectId}');
const PATCH = endpoint('PATCH', '/projects/{projectId}');

/** The project as a client of `version` sees it, marked with that version's XML schema (`ProjectV1`). */
function projectIn(version: ApiVersion, row: ProjectRow, at: Endpoint = READ): Record<string, unknown> {
  return asXmlSchema(`ProjectV${version}`, bodyDown(version, projectRepresentation(row), at));
}

/**
 * The row data a project body of `version` writes: the body migrated up to the newest version (a
 * v1 amount keeps `current`'s currency, EUR for a new budget), then validated; field errors point
 * at the members as the client's version names them.
 */
export function projectData(
  version: ApiVersion,
  body: unknown,
  current?: ProjectRow,
  at: Endpoint = current === undefined ? CREATE : REPLACE,
): ProjectData {
  const target: ProjectEndpoint = { ...at, currency: current?.budget_currency ?? null };
  let input: ReturnType<typeof validateBody<typeof projectInput>>;
  try {
    input = validateBody(projectInput, bodyUp(version, body, target));
  } catch (error) {
    throw errorDown(version, error, target);
  }
  return {
    name: input.name,
    description: input.summary ?? null,
    status: input.status ?? 'active',
    budget_amount: input.budget?.amount ?? null,
    budget_currency: input.budget?.currency ?? null,
  };
}

/** The fields the project grammar can select, every version's names (the cursor secret does not change them). */
const SELECTABLE = defineCollections(undefined).projects.selectable;
/** What each version may name in `fields=`, worked out once (not per request). */
const SELECTABLE_BY_VERSION = new Map(
  SUPPORTED_VERSIONS.map((version) => [version, queryFieldsOf(version, SELECTABLE)] as const),
);

/**
 * The grammar knows every version's name of a renamed field (domain/collections.ts): a `fields=`
 * entry that `version` does not name (`summary` on v2, `description` on v3) is 400
 * `field_not_selectable`, as the query parser answers an unknown one.
 */
function versionFields(version: ApiVersion, fields: readonly string[] | undefined) {
  if (fields === undefined) return fields;
  const allowed = SELECTABLE_BY_VERSION.get(version)!;
  const field = fields.find((name) => !allowed.includes(name));
  if (field === undefined) return fields;
  const params = { field, allowed };
  throw new HttpError('field_not_selectable', {
    params,
    errors: [{ parameter: 'fields', code: 'field_not_selectable', params }],
  });
}

/** A list row carries field names (`budget` is the `budget_amount` column) plus `budget_currency`. */
function projectFromListRow(row: Record<string, unknown>): ProjectRow {
  return {
    ...(row as unknown as ProjectRow),
    // The `description` column is selected as `summary` (and as `description`, its older name).
    description: (row['summary'] ?? row['description']) as string | null,
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
    represent: (row, version) => projectIn(version, row),
    modified: (row) => row.updated_at,
  };

  /** A PUT or PATCH: the row's new data, applied only to the version that was checked. */
  async function update(
    id: string,
    data: ProjectData,
    checked: Checked<ProjectRow>,
    version: ApiVersion,
    at: Endpoint,
  ) {
    const updated = await repo.updateProject(id, data, versionGuard(checked, checked.row.updated_at));
    return represented(
      projectIn(version, found(await afterWrite(checked, updated, () => repo.getProject(id))), at),
    );
  }

  return {
    member,

    /** GET /projects, POST /projects/search. */
    async list(input: ListInput): Promise<Outcome> {
      const { version, query } = input;
      versionFields(version, query.fields);
      // Each item is migrated down before `fields=` selects from it, so the selection names the
      // members as the client's version does; the page keeps its XML schema (`ProjectV1Page`).
      const at = input.path.replace(/\/$/, '').endsWith('/search') ? SEARCH_ITEM : LIST_ITEM;
      return listPage(deps, sql, input, (row) =>
        bodyDown(version, projectRepresentation(projectFromListRow(row)), at),
      );
    },

    /** POST /projects (Idempotency-Key required). */
    async create({ version, body, transaction }: CreateInput): Promise<Outcome> {
      const row = await writer(repo, transaction).createProject(projectData(version, body));
      return created(links.link(version, `/projects/${row.id}`), projectIn(version, row, CREATE));
    },

    /** GET /projects/{projectId}. */
    async read({ version, params, fields }: ReadInput): Promise<Outcome> {
      const row = found(await repo.getProject(idParam(params, 'projectId')));
      const selected = versionFields(version, fields);
      return represented(selectFields(projectIn(version, row), selected));
    },

    /** PUT /projects/{projectId}: the whole project. */
    async replace({ version, params, checked, body }: WriteInput<ProjectRow>): Promise<Outcome> {
      const id = idParam(params, 'projectId');
      return update(id, projectData(version, body, checked.row), checked, version, REPLACE);
    },

    /** PATCH /projects/{projectId}: a merge patch of the representation the client sees. */
    async patch({ version, params, checked, body }: WriteInput<ProjectRow>): Promise<Outcome> {
      const id = idParam(params, 'projectId');
      const current = checked.row;
      const merged = mergePatch(withoutReadOnly(projectIn(version, current, PATCH)), patchObject(body));
      return update(id, projectData(version, merged, current, PATCH), checked, version, PATCH);
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
