/**
 * The API versions and the breaking changes between them, declared once with
 * @plumbline/versioning: handlers, schemas and the representation know only the newest version
 * (v3); an older client's request body is migrated up before validation, and its responses and
 * field errors are migrated down after the handler. The older versions' OpenAPI schemas are
 * generated from the newest ones through the same changes (`schemaAt`), and the changelog is
 * written from them.
 */
import { type FieldIssue, HttpError, isHttpError } from '@plumbline/errors';
import {
  type Endpoint,
  fieldRenamed,
  type JsonSchema,
  type VersionChange,
  type VersionEntry,
  versionChange,
  versions,
} from '@plumbline/versioning';

/**
 * An endpoint of a project route as the migrations see it. `currency` is the stored currency of the
 * project being written: a v1 client cannot see or set one, so its amount keeps it (EUR for a new budget).
 */
export interface ProjectEndpoint extends Endpoint {
  readonly currency?: string | null;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * v2's budget schema turned into v1's: the `{ amount, currency }` object becomes its `amount`
 * (same bounds), the `null` branch stays.
 */
function amountOnly(budget: JsonSchema): JsonSchema {
  const branches = budget['anyOf'];
  if (Array.isArray(branches))
    return { ...budget, anyOf: branches.map((branch: JsonSchema) => amountOnly(branch)) };
  const amount = isObject(budget['properties']) ? budget['properties']['amount'] : undefined;
  return isObject(amount) ? amount : budget;
}

/** A field error pointing into the money object (`#/budget/amount`) points at the v1 number (`#/budget`). */
function budgetPointer(issue: Json): Json {
  const pointer = issue['pointer'];
  if (typeof pointer !== 'string') return issue;
  const match = /^(#?\/budget)\//.exec(pointer);
  return match ? { ...issue, pointer: match[1] } : issue;
}

/**
 * v2: `Project.budget` is `{ amount, currency }` instead of the bare amount.
 *
 * - request (v1 → v2): a v1 amount becomes `{ amount, currency }` with the project's stored currency
 *   (EUR for a new budget); `null` stays `null`. A value that is not a number is carried as the
 *   amount, so v2's validation rejects it with the message v1 gave ("Must be of type number.").
 * - response (v2 → v1): the money object becomes its amount.
 * - errors (v2 → v1): pointers into the money object (`#/budget/amount`) become `#/budget`.
 * - schemaDown: the JSON Schema of the v1 budget is the v2 amount's, nullable as before.
 */
const budgetBecameMoney = versionChange({
  description: {
    en: 'Project.budget is now { amount, currency }; v1 shows and writes the bare amount, in the stored currency (EUR for a new budget).',
    de: 'Project.budget ist jetzt { amount, currency }; v1 zeigt und schreibt den bloßen Betrag, in der gespeicherten Währung (EUR für ein neues Budget).',
  },
  affects: ['Project'],
  request: (body, { endpoint, part }) => {
    if (part !== 'body' || !isObject(body) || !Object.hasOwn(body, 'budget')) return body;
    const amount = body['budget'];
    if (amount === null) return body;
    const currency = (endpoint as ProjectEndpoint).currency ?? 'EUR';
    return { ...body, budget: { amount, currency } };
  },
  response: (body) => {
    if (!isObject(body) || !isObject(body['budget'])) return body;
    return { ...body, budget: body['budget']['amount'] };
  },
  errors: (problem) => {
    if (!isObject(problem) || !Array.isArray(problem['errors'])) return problem;
    return {
      ...problem,
      errors: problem['errors'].map((issue) => (isObject(issue) ? budgetPointer(issue) : issue)),
    };
  },
  schemaDown: (schema) => {
    const properties = schema['properties'];
    if (!isObject(properties) || !isObject(properties['budget'])) return schema;
    return { ...schema, properties: { ...properties, budget: amountOnly(properties['budget']) } };
  },
});

/**
 * v3: `Project.description` is now `Project.summary` (the column stays `description`). A v1 or v2
 * body's `description` is renamed up (its `summary`, a member v1 and v2 do not have, is set aside by
 * `fieldRenamed` and stays an unknown member: 400 at `#/summary`), responses rename it back, and so
 * do the collection query's `fields=` entries (`queryField`: the grammar knows both names,
 * domain/collections.ts, and each version accepts only its own, {@link queryFieldsOf}) and field
 * errors (`#/description`).
 */
const descriptionBecameSummary: VersionChange = fieldRenamed({
  schema: 'Project',
  from: 'description',
  to: 'summary',
  queryField: true,
  description: {
    en: 'Project.description is now Project.summary (also in fields=); v1 and v2 keep description.',
    de: 'Project.description heißt jetzt Project.summary (auch in fields=); v1 und v2 behalten description.',
  },
});

/**
 * The API versions, oldest first, with the changes that lead to each and their lifecycle: v1 is
 * deprecated and has a sunset date (docs/design.md#d-versioning), its successor is v2. The version
 * policy (service/versioning.ts) sends Deprecation, Sunset and Link from these same entries, and the
 * changelog lists them. This list is the one place the versions are named: the type
 * {@link ApiVersion}, the routers of every framework, the OpenAPI documents and the changelog
 * follow it, so a new version is one more entry here (and its changes).
 */
const ENTRIES = [
  {
    version: '1',
    deprecated: '2026-06-01T00:00:00Z',
    sunset: '2027-06-30T00:00:00Z',
    link: { deprecation: '/docs/deprecations/v1', sunset: '/docs/sunset-policy' },
  },
  { version: '2', changes: [budgetBecameMoney] },
  { version: '3', changes: [descriptionBecameSummary] },
] as const satisfies readonly VersionEntry[];

export const API_VERSIONS = versions(ENTRIES);

/**
 * The version served when a request names none (query, header and media-type strategies; the path
 * strategy has no unversioned API paths): v2, not the newest. A new version is opt-in, so a client
 * that never named a version sees no change when one is added; move the default on deliberately.
 */
export const DEFAULT_VERSION = '2';

/** An API version as the routers carry it: one of the declared versions, as a number (`1`, `2`). */
export type ApiVersion = (typeof ENTRIES)[number]['version'] extends `${infer N extends number}` ? N : never;

/** The declared versions as numbers, oldest first. */
export const SUPPORTED_VERSIONS: readonly ApiVersion[] = API_VERSIONS.versions.map(
  (version) => Number(version) as ApiVersion,
);

/** Whether `value` is one of the declared versions (as the routers' `context` carries it). */
export const isApiVersion = (value: unknown): value is ApiVersion =>
  (SUPPORTED_VERSIONS as readonly unknown[]).includes(value);

/** The declared versions that are deprecated or have a sunset date: they answer with Deprecation and Sunset. */
const RETIRING = new Set(
  API_VERSIONS.definitions
    .filter(
      (definition) =>
        definition.deprecated === true ||
        definition.deprecatedAt !== undefined ||
        definition.sunsetAt !== undefined,
    )
    .map((definition) => definition.version),
);

/** Whether `version` is deprecated (or has a sunset date). */
export const isDeprecatedVersion = (version: ApiVersion | string): boolean => RETIRING.has(String(version));

/** A request body of `version`, in the newest version's shape. */
export const bodyUp = (version: ApiVersion, body: unknown, endpoint: Endpoint): unknown =>
  API_VERSIONS.migrateRequest(String(version), body, endpoint);

/** A response body of the newest version, in the shape of `version` (a collection page item by item). */
export const bodyDown = (version: ApiVersion, body: Json, endpoint: Endpoint): Json =>
  API_VERSIONS.migrateResponse(String(version), body, endpoint) as Json;

/** An error thrown while serving `version`, its field errors pointed as that version names the fields. */
export function errorDown(version: ApiVersion, error: unknown, endpoint: Endpoint): unknown {
  if (!isHttpError(error) || error.errors.length === 0) return error;
  const migrated = API_VERSIONS.migrateError(String(version), { errors: error.errors }, endpoint) as {
    errors: readonly FieldIssue[];
  };
  if (migrated.errors === error.errors) return error;
  return new HttpError(error.code, {
    status: error.status,
    params: error.params,
    ...(error.detail === undefined ? {} : { detail: error.detail }),
    errors: migrated.errors,
    headers: error.headers,
    extensions: error.extensions,
    expose: error.expose,
    ...(error.cause === undefined ? {} : { cause: error.cause }),
  });
}

interface QueryRename {
  readonly from: string;
  readonly to: string;
}

/** The query-field renames (`fieldRenamed` with `queryField`) of each version, oldest first. */
const QUERY_RENAMES: readonly (readonly QueryRename[])[] = API_VERSIONS.entries.map((entry) =>
  (entry.changes ?? []).flatMap((change) => {
    const { from, to, queryField } = change.details as Partial<QueryRename> & { queryField?: boolean };
    return change.kind === 'field-renamed' && queryField === true && from !== undefined && to !== undefined
      ? [{ from, to }]
      : [];
  }),
);

/** Every older name of a renamed query field: the grammar knows them, only the older versions accept them. */
const OLDER_NAMES = new Set(QUERY_RENAMES.flat().map((rename) => rename.from));

/** A collection field's newest name (`summary`) as a client of `version` names it (`description` before v3). */
export function queryFieldAt(version: ApiVersion, name: string): string {
  const later = QUERY_RENAMES.slice(API_VERSIONS.versions.indexOf(String(version)) + 1);
  let current = name;
  for (const renames of [...later].reverse())
    for (const rename of renames) if (rename.to === current) current = rename.from;
  return current;
}

/**
 * The collection fields a client of `version` may name, out of the grammar's `selectable` list
 * (which holds every version's name of a renamed field, domain/collections.ts): the newest names,
 * each as `version` names it, in the grammar's order.
 */
export function queryFieldsOf(version: ApiVersion, selectable: readonly string[]): readonly string[] {
  return selectable.filter((name) => !OLDER_NAMES.has(name)).map((name) => queryFieldAt(version, name));
}
