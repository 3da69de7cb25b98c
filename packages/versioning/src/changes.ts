import { HttpError } from '@plumbline/errors';
import { compareVersions, isDateVersion, parseVersion } from './version.js';

/**
 * Documentation links sent in the `Link` header of responses of one version.
 *
 * @example
 * ```ts
 * const links: VersionLinks = { deprecation: 'https://docs.example.com/v1-deprecation' };
 * ```
 */
export interface VersionLinks {
  /** Sent as `rel="deprecation"` (RFC 9745): what is deprecated and how to migrate. */
  readonly deprecation?: string;
  /** Sent as `rel="sunset"` (RFC 8594): the retirement policy. */
  readonly sunset?: string;
  /** Sent as `rel="successor-version"` (RFC 5829). Derived from `successor` and the request path when absent. */
  readonly successor?: string;
}

/**
 * One supported version and its lifecycle.
 *
 * @example
 * ```ts
 * const v1: VersionDefinition = {
 *   version: '1',
 *   deprecatedAt: '2026-01-01T00:00:00Z',
 *   sunsetAt: '2026-07-01T00:00:00Z',
 *   successor: '2',
 *   links: { deprecation: 'https://docs.example.com/migrate-to-v2' },
 * };
 * ```
 */
export interface VersionDefinition {
  /** `1`, `2` or `major.minor` such as `2.1`; no `v`, no leading zeros. */
  readonly version: string;
  /** Deprecated without a date: responses carry `Deprecation: true`. Implied by `deprecatedAt`. */
  readonly deprecated?: boolean;
  /** When the version is (or will be) deprecated: a `Date` or an ISO 8601 string. `Deprecation: @<unix seconds>`. */
  readonly deprecatedAt?: Date | string;
  /** When the version is (or will be) retired: a `Date` or an ISO 8601 string. `Sunset: <IMF-fixdate>`. */
  readonly sunsetAt?: Date | string;
  /** The version that replaces this one; must be another supported version. */
  readonly successor?: string;
  readonly links?: VersionLinks;
}

/**
 * One endpoint, as a route declares it: the method and the path template (`/projects/{id}`), and
 * the names of the schemas its bodies use, so changes declared against a schema find it.
 *
 * @example
 * ```ts
 * const endpoint: Endpoint = { method: 'GET', path: '/projects', schemas: ['Project'], collection: 'data' };
 * ```
 */
export interface Endpoint {
  readonly method: string;
  readonly path: string;
  /** The schemas this endpoint's request and response bodies use (`['Project']`). */
  readonly schemas?: readonly string[];
  /**
   * The response is a collection page: the property that holds its items (`'data'`). Response
   * changes then apply to each item. A response that is a JSON array is always read item by item.
   */
  readonly collection?: string;
}

/**
 * What a version change is about: a schema by name, or an endpoint by method and path template.
 *
 * @example
 * ```ts
 * const affects: readonly ChangeTarget[] = ['Project', { method: 'POST', path: '/projects' }];
 * ```
 */
export type ChangeTarget = string | { readonly method: string; readonly path: string };

/**
 * A changelog text: one string, or one per language tag (`{ en: '...', fr: '...' }`).
 *
 * @example
 * ```ts
 * const description: ChangeDescription = { en: 'budget is now money', fr: 'budget est un montant' };
 * ```
 */
export type ChangeDescription = string | Readonly<Record<string, string>>;

/**
 * Where a migration runs: the endpoint being served and, for requests, which part is migrated.
 *
 * @example
 * ```ts
 * const context: MigrationContext = { endpoint: { method: 'POST', path: '/projects' }, part: 'body' };
 * ```
 */
export interface MigrationContext {
  readonly endpoint: Endpoint;
  /** `body` or `query` for requests; always `body` for responses and problem documents. */
  readonly part: 'body' | 'query';
}

/**
 * A JSON Schema object, as far as the schema moves need it.
 *
 * @example
 * ```ts
 * const schema: JsonSchema = { type: 'object', properties: { budget: { type: 'number' } }, required: ['budget'] };
 * ```
 */
export type JsonSchema = Readonly<Record<string, unknown>>;

/**
 * The kind of a version change: `custom` for {@link versionChange}, one per helper otherwise.
 *
 * @example
 * ```ts
 * const kind: ChangeKind = 'field-renamed';
 * ```
 */
export type ChangeKind =
  | 'custom'
  | 'field-renamed'
  | 'field-shape-changed'
  | 'field-became-required'
  | 'enum-value-added'
  | 'endpoint-added'
  | 'endpoint-removed';

/**
 * One migration step of a version change: takes a body (or query, or problem document) and
 * returns the migrated value. It must not mutate its input.
 *
 * @example
 * ```ts
 * const down: Migration = (body) => ({ ...(body as object), legacy: true });
 * ```
 */
export type Migration = (value: unknown, context: MigrationContext) => unknown;

/**
 * What {@link versionChange} accepts: the changelog text, what the change affects, and the
 * migrations. `request` goes up (older → newer) before the handler; `response` goes down
 * (newer → older) after it, once per item of a collection page; `errors` goes down on problem
 * documents.
 *
 * @example
 * ```ts
 * const definition: VersionChangeDefinition = {
 *   description: 'Project.archived is now Project.status',
 *   affects: ['Project'],
 *   response: (body) => body,
 * };
 * ```
 */
export interface VersionChangeDefinition {
  readonly description: ChangeDescription;
  readonly affects: readonly ChangeTarget[];
  readonly request?: Migration;
  readonly response?: Migration;
  readonly errors?: Migration;
  /** Turns the JSON Schema of the newer version into the older one's, for per-version documents. */
  readonly schemaDown?: (schema: JsonSchema) => JsonSchema;
}

/**
 * One declared breaking change. Made by {@link versionChange} or a helper ({@link fieldRenamed},
 * {@link fieldShapeChanged}, {@link fieldBecameRequired}, {@link enumValueAdded},
 * {@link endpointAdded}, {@link endpointRemoved}); helpers say what they do in `details`.
 *
 * @example
 * ```ts
 * const change: VersionChange = fieldRenamed({ schema: 'Project', from: 'name', to: 'title' });
 * change.kind; // 'field-renamed'
 * ```
 */
export interface VersionChange extends VersionChangeDefinition {
  readonly kind: ChangeKind;
  /** What a helper was given (`{ schema, from, to }`), for changelogs and document generators. */
  readonly details: Readonly<Record<string, unknown>>;
}

function fail(message: string): never {
  throw new TypeError(`@plumbline/versioning: ${message}`);
}

function checkTargets(affects: unknown): readonly ChangeTarget[] {
  if (!Array.isArray(affects) || affects.length === 0) fail('a version change must list what it affects');
  for (const target of affects) {
    const ok =
      (typeof target === 'string' && target !== '') ||
      (typeof target === 'object' &&
        target !== null &&
        typeof target.method === 'string' &&
        typeof target.path === 'string');
    if (!ok) fail(`affects takes schema names and { method, path }, got ${JSON.stringify(target)}`);
  }
  return affects as readonly ChangeTarget[];
}

function checkDescription(description: unknown): ChangeDescription {
  if (typeof description === 'string' && description !== '') return description;
  if (
    typeof description === 'object' &&
    description !== null &&
    Object.keys(description).length > 0 &&
    Object.values(description).every((text) => typeof text === 'string')
  ) {
    return description as ChangeDescription;
  }
  return fail('a version change needs a description: a string or { [language]: string }');
}

function make(kind: ChangeKind, definition: VersionChangeDefinition, details = {}): VersionChange {
  for (const name of ['request', 'response', 'errors', 'schemaDown'] as const) {
    const value = definition[name];
    if (value !== undefined && typeof value !== 'function') fail(`${name} must be a function`);
  }
  return Object.freeze({
    ...definition,
    kind,
    description: checkDescription(definition.description),
    affects: Object.freeze([...checkTargets(definition.affects)]),
    details: Object.freeze({ ...details }),
  });
}

/**
 * Declares one breaking change between a version and the one before it. Business logic sees only
 * the newest version: `request` migrates an older client's body or query up, `response` migrates
 * the newest representation down (once per item of a collection page), `errors` migrates problem
 * documents down.
 *
 * @example
 * ```ts
 * const budgetBecameMoney = versionChange({
 *   description: { en: 'Project.budget is now { amount, currency }', fr: 'Project.budget devient { amount, currency }' },
 *   affects: ['Project'],
 *   request: (body) => ({ ...(body as object), budget: { amount: (body as { budget: number }).budget, currency: 'EUR' } }),
 *   response: (body) => ({ ...(body as object), budget: (body as { budget: { amount: number } }).budget.amount }),
 * });
 * ```
 */
export function versionChange(definition: VersionChangeDefinition): VersionChange {
  if (typeof definition !== 'object' || definition === null) fail('versionChange needs a definition');
  return make('custom', definition);
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Common options of the schema helpers. */
interface FieldOptions {
  /** The schema the field belongs to (`Project`). */
  readonly schema: string;
  /** Overrides the generated changelog text. */
  readonly description?: ChangeDescription;
  /** Request part the field lives in. Default `body`. */
  readonly in?: 'body' | 'query';
}

// A helper touches only the request part it is declared for; responses are always bodies.
function onPart(part: 'body' | 'query', migrate: (value: JsonObject) => JsonObject): Migration {
  return (value, context) => (context.part === part && isObject(value) ? migrate(value) : value);
}

function onBody(migrate: (value: JsonObject) => JsonObject): Migration {
  return (value) => (isObject(value) ? migrate(value) : value);
}

function renameKey(value: JsonObject, from: string, to: string): JsonObject {
  if (!Object.hasOwn(value, from)) return value;
  // Keeps the key's position, so a migrated body serialises in the declared order. fromEntries
  // defines own properties: a client's `"__proto__"` key stays data, never a prototype.
  return Object.fromEntries(
    Object.keys(value)
      .filter((key) => key !== to)
      .map((key) => [key === from ? to : key, value[key]]),
  );
}

/**
 * The name an older request's member named like the newer field is carried under: a name no schema
 * declares, so the newer version's validation answers it as the unknown member it is in the older
 * version (a strict schema: 400 at it; a lenient one: dropped), never as the renamed field.
 */
function foreignName(name: string): string {
  return `\u0000${name}`;
}

// An older request's `from` renamed to `to`; a member it sent named `to` is not the newer field
// but one its version does not have, so it is set aside under foreignName(to), in its place.
function renameUp(value: JsonObject, from: string, to: string): JsonObject {
  if (!Object.hasOwn(value, to)) return renameKey(value, from, to);
  const foreign = foreignName(to);
  return Object.fromEntries(
    Object.keys(value).map((key) => [key === from ? to : key === to ? foreign : key, value[key]]),
  );
}

function properties(schema: JsonSchema): JsonObject {
  return isObject(schema['properties']) ? schema['properties'] : {};
}

function required(schema: JsonSchema): string[] {
  return Array.isArray(schema['required'])
    ? (schema['required'] as unknown[]).filter((name): name is string => typeof name === 'string')
    : [];
}

/**
 * Options of {@link fieldRenamed}.
 *
 * @example
 * ```ts
 * const options: FieldRenamedOptions = { schema: 'Project', from: 'name', to: 'title' };
 * ```
 */
export interface FieldRenamedOptions extends FieldOptions {
  /** The name in the older version. */
  readonly from: string;
  /** The name in the newer version. */
  readonly to: string;
  /**
   * The field is also a field of a collection query (`@plumbline/query-parser`): an older client's
   * query (`part: 'query'`) gets its filters (`from=…`, `from[gte]=…`), its `sort` keys (`-from`,
   * `+from`, `from:desc`, `from_desc`, `from`) and its `fields` entries renamed too. Default `false`.
   */
  readonly queryField?: boolean;
}

const SORT_SUFFIXES = [':asc', ':desc', '_asc', '_desc'];

// One `sort` key or `fields` entry: the field's name replaced, its sign or direction kept.
function renameListItem(item: string, list: 'sort' | 'fields', from: string, to: string): string {
  if (item === from) return to;
  if (list === 'fields') return item;
  const sign = item[0] === '-' || item[0] === '+' ? item[0] : '';
  const rest = item.slice(sign.length);
  if (rest === from) return sign + to;
  const suffix = SORT_SUFFIXES.find((end) => rest === from + end);
  return suffix === undefined ? item : sign + to + suffix;
}

function renameList(value: unknown, list: 'sort' | 'fields', from: string, to: string): unknown {
  const rename = (text: string) =>
    text
      .split(',')
      .map((item) => renameListItem(item, list, from, to))
      .join(',');
  if (typeof value === 'string') return rename(value);
  if (Array.isArray(value)) return value.map((item) => (typeof item === 'string' ? rename(item) : item));
  return value;
}

// A collection query of an older client: filter keys, `sort` and `fields` renamed. fromEntries keeps
// a client's `"__proto__"` parameter data, as renameKey does.
function renameInCollectionQuery(query: JsonObject, from: string, to: string): JsonObject {
  const operator = `${from}[`;
  const renamed = Object.keys(query).map((key): [string, unknown] => {
    const value = query[key];
    if (key === 'sort' || key === 'fields') return [key, renameList(value, key, from, to)];
    if (key === from) return [to, value];
    if (key.startsWith(operator) && key.endsWith(']')) return [to + key.slice(from.length), value];
    return [key, value];
  });
  return Object.fromEntries(renamed);
}

/** A top-level member's JSON Pointer in URI fragment form (`#/a%20b`), as problem documents write it. */
function memberPointer(name: string): string {
  return `#/${encodeURIComponent(name.replace(/~/g, '~0').replace(/\//g, '~1'))}`;
}

// A problem document's field errors of an older client: a `pointer` at the renamed member (or
// inside it) and, for a query field, a `parameter` naming it (`to`, `to[gte]`) use the older name.
function renameInProblem(
  problem: JsonObject,
  from: string,
  to: string,
  options: { body: boolean; query: boolean },
) {
  const errors = problem['errors'];
  if (!Array.isArray(errors)) return problem;
  const newer = memberPointer(to);
  const older = memberPointer(from);
  const foreign = memberPointer(foreignName(to));
  const within = (pointer: string, member: string) => pointer === member || pointer.startsWith(`${member}/`);
  let changed = false;
  const renamed = errors.map((issue: unknown) => {
    if (!isObject(issue)) return issue;
    const { pointer, parameter } = issue;
    // The member the client sent as `to` (set aside by renameUp) is named as sent.
    if (typeof pointer === 'string' && within(pointer, foreign)) {
      changed = true;
      return { ...issue, pointer: newer + pointer.slice(foreign.length) };
    }
    if (parameter === foreignName(to)) {
      changed = true;
      return { ...issue, parameter: to };
    }
    if (options.body && typeof pointer === 'string' && within(pointer, newer)) {
      changed = true;
      return { ...issue, pointer: older + pointer.slice(newer.length) };
    }
    if (
      options.query &&
      typeof parameter === 'string' &&
      (parameter === to || parameter.startsWith(`${to}[`))
    ) {
      changed = true;
      return { ...issue, parameter: from + parameter.slice(to.length) };
    }
    return issue;
  });
  return changed ? { ...problem, errors: renamed } : problem;
}

/**
 * A field renamed: requests of older clients get `from` renamed to `to`, responses to them get
 * `to` renamed back to `from`, and so do the field errors of their problem documents (a `pointer`
 * at `#/to`, and with `queryField` a `parameter` named `to`). Top-level fields of the schema's object.
 *
 * An older client that sends a member named `to` sends a member its version does not have: it is
 * not taken for the renamed field (nor dropped in favour of `from` when both are sent) but carried
 * under a name no schema declares, so your validation treats it like any unknown member, and a
 * field error about it points at `#/to` again. With a strict schema, an older client's `to` is a
 * 400 at `#/to`, as any other member its version lacks.
 *
 * @example
 * ```ts
 * const nameBecameTitle = fieldRenamed({ schema: 'Project', from: 'name', to: 'title' });
 * nameBecameTitle.schemaDown!({ properties: { title: { type: 'string' } }, required: ['title'] });
 * // { properties: { name: { type: 'string' } }, required: ['name'] }
 * ```
 */
export function fieldRenamed(options: FieldRenamedOptions): VersionChange {
  const { schema, from, to } = options;
  if (from === to) fail(`fieldRenamed: "${from}" is renamed to itself`);
  return make(
    'field-renamed',
    {
      description: options.description ?? `${schema}: the field \`${from}\` was renamed to \`${to}\`.`,
      affects: [schema],
      request: (value, context) => {
        if (!isObject(value)) return value;
        if (options.queryField === true && context.part === 'query')
          return renameInCollectionQuery(value, from, to);
        return context.part === (options.in ?? 'body') ? renameUp(value, from, to) : value;
      },
      response: onBody((value) => renameKey(value, to, from)),
      errors: onBody((problem) =>
        renameInProblem(problem, from, to, {
          body: (options.in ?? 'body') === 'body',
          query: options.queryField === true || options.in === 'query',
        }),
      ),
      schemaDown: (json) => {
        const props = properties(json);
        if (!Object.hasOwn(props, to)) return json;
        return {
          ...json,
          properties: renameKey(props, to, from),
          ...(json['required'] === undefined
            ? {}
            : { required: required(json).map((name) => (name === to ? from : name)) }),
        };
      },
    },
    { schema, from, to, in: options.in ?? 'body', queryField: options.queryField === true },
  );
}

/**
 * Options of {@link fieldShapeChanged}.
 *
 * @example
 * ```ts
 * const options: FieldShapeChangedOptions<number, { amount: number; currency: string }> = {
 *   schema: 'Project',
 *   field: 'budget',
 *   up: (amount) => ({ amount, currency: 'EUR' }),
 *   down: (money) => money.amount,
 *   oldSchema: { type: 'number' },
 * };
 * ```
 */
export interface FieldShapeChangedOptions<Old = unknown, New = unknown> extends FieldOptions {
  readonly field: string;
  /** Older value → newer value (requests). */
  readonly up: (value: Old) => New;
  /** Newer value → older value (responses). */
  readonly down: (value: New) => Old;
  /** The field's JSON Schema in the older version, for {@link VersionChange.schemaDown}. */
  readonly oldSchema?: JsonSchema;
}

/**
 * A field whose shape changed (`budget: 1200` became `budget: { amount, currency }`): `up` runs on
 * older requests that carry the field, `down` on responses that carry it.
 *
 * @example
 * ```ts
 * const budgetBecameMoney = fieldShapeChanged({
 *   schema: 'Project',
 *   field: 'budget',
 *   up: (amount: number) => ({ amount, currency: 'EUR' }),
 *   down: (money: { amount: number }) => money.amount,
 *   oldSchema: { type: 'number' },
 * });
 * ```
 */
export function fieldShapeChanged<Old, New>(options: FieldShapeChangedOptions<Old, New>): VersionChange {
  const { schema, field, up, down, oldSchema } = options;
  if (typeof up !== 'function' || typeof down !== 'function')
    fail('fieldShapeChanged needs up and down functions');
  const replace = (value: JsonObject, fn: (v: never) => unknown) =>
    Object.hasOwn(value, field) ? { ...value, [field]: fn(value[field] as never) } : value;
  return make(
    'field-shape-changed',
    {
      description: options.description ?? `${schema}: the field \`${field}\` changed shape.`,
      affects: [schema],
      request: onPart(options.in ?? 'body', (value) => replace(value, up)),
      response: onBody((value) => replace(value, down)),
      ...(oldSchema === undefined
        ? {}
        : {
            schemaDown: (json: JsonSchema) => {
              const props = properties(json);
              if (!Object.hasOwn(props, field)) return json;
              return { ...json, properties: { ...props, [field]: oldSchema } };
            },
          }),
    },
    { schema, field, in: options.in ?? 'body', ...(oldSchema === undefined ? {} : { oldSchema }) },
  );
}

/**
 * Options of {@link fieldBecameRequired}.
 *
 * @example
 * ```ts
 * const options: FieldBecameRequiredOptions = { schema: 'Project', field: 'currency', default: 'EUR' };
 * ```
 */
export interface FieldBecameRequiredOptions extends FieldOptions {
  readonly field: string;
  /** What an older client's request gets when it leaves the field out. */
  readonly default: unknown;
}

/**
 * A field that became required: an older client's request without it gets `default`. Responses
 * are unchanged (the field was already allowed).
 *
 * @example
 * ```ts
 * const currencyRequired = fieldBecameRequired({ schema: 'Project', field: 'currency', default: 'EUR' });
 * currencyRequired.schemaDown!({ required: ['name', 'currency'] }); // { required: ['name'] }
 * ```
 */
export function fieldBecameRequired(options: FieldBecameRequiredOptions): VersionChange {
  const { schema, field } = options;
  if (!Object.hasOwn(options, 'default')) fail('fieldBecameRequired needs a default for older clients');
  const fallback = options.default;
  return make(
    'field-became-required',
    {
      description:
        options.description ??
        `${schema}: the field \`${field}\` is now required (older versions default it to ${JSON.stringify(fallback)}).`,
      affects: [schema],
      request: onPart(options.in ?? 'body', (value) =>
        Object.hasOwn(value, field) ? value : { ...value, [field]: structuredClone(fallback) },
      ),
      schemaDown: (json) =>
        json['required'] === undefined
          ? json
          : { ...json, required: required(json).filter((name) => name !== field) },
    },
    { schema, field, default: fallback, in: options.in ?? 'body' },
  );
}

/**
 * Options of {@link enumValueAdded}.
 *
 * @example
 * ```ts
 * const options: EnumValueAddedOptions = { schema: 'Project', field: 'status', value: 'paused', downTo: 'active' };
 * ```
 */
export interface EnumValueAddedOptions extends FieldOptions {
  readonly field: string;
  /** The value the newer version added. */
  readonly value: string | number;
  /** What older clients see instead: a value their version knows. */
  readonly downTo: string | number;
}

/**
 * A value added to an enum field: older clients never send it, and responses to them show
 * `downTo` in its place.
 *
 * @example
 * ```ts
 * const paused = enumValueAdded({ schema: 'Project', field: 'status', value: 'paused', downTo: 'active' });
 * paused.schemaDown!({ properties: { status: { enum: ['active', 'paused'] } } });
 * // { properties: { status: { enum: ['active'] } } }
 * ```
 */
export function enumValueAdded(options: EnumValueAddedOptions): VersionChange {
  const { schema, field, value, downTo } = options;
  if (value === downTo) fail(`enumValueAdded: "${value}" cannot map down to itself`);
  return make(
    'enum-value-added',
    {
      description:
        options.description ??
        `${schema}: the field \`${field}\` can be ${JSON.stringify(value)} (older versions see ${JSON.stringify(downTo)}).`,
      affects: [schema],
      response: onBody((body) => (body[field] === value ? { ...body, [field]: downTo } : body)),
      schemaDown: (json) => {
        const props = properties(json);
        const property = props[field];
        if (!isObject(property) || !Array.isArray(property['enum'])) return json;
        const values = (property['enum'] as unknown[]).filter((item) => item !== value);
        return { ...json, properties: { ...props, [field]: { ...property, enum: values } } };
      },
    },
    { schema, field, value, downTo },
  );
}

/**
 * Options of {@link endpointAdded} and {@link endpointRemoved}.
 *
 * @example
 * ```ts
 * const options: EndpointChangeOptions = { method: 'POST', path: '/projects/{id}/archive' };
 * ```
 */
export interface EndpointChangeOptions {
  readonly method: string;
  /** The path template, as the route declares it. */
  readonly path: string;
  readonly description?: ChangeDescription;
}

/**
 * An endpoint that exists from this version on: older versions answer 404 `not_found`.
 *
 * @example
 * ```ts
 * const archive = endpointAdded({ method: 'POST', path: '/projects/{id}/archive' });
 * ```
 */
export function endpointAdded(options: EndpointChangeOptions): VersionChange {
  const method = options.method.toUpperCase();
  return make(
    'endpoint-added',
    {
      description: options.description ?? `\`${method} ${options.path}\` was added.`,
      affects: [{ method, path: options.path }],
    },
    { method, path: options.path },
  );
}

/**
 * An endpoint that no longer exists from this version on (older versions keep it): this version
 * and later ones answer 404 `not_found`.
 *
 * @example
 * ```ts
 * const legacyExport = endpointRemoved({ method: 'GET', path: '/projects/export.csv' });
 * ```
 */
export function endpointRemoved(options: EndpointChangeOptions): VersionChange {
  const method = options.method.toUpperCase();
  return make(
    'endpoint-removed',
    {
      description: options.description ?? `\`${method} ${options.path}\` was removed.`,
      affects: [{ method, path: options.path }],
    },
    { method, path: options.path },
  );
}

/**
 * One entry of {@link versions}: the version name, the changes that lead to it from the one
 * before (the first version has none), and its lifecycle. The lifecycle is what a version policy
 * made from the declarations (`createVersionPolicy({ strategy, versions: api })`) sends as
 * `Deprecation`, `Sunset` and `Link`, and what the changelog lists.
 *
 * @example
 * ```ts
 * const v1: VersionEntry = {
 *   version: '1',
 *   deprecated: '2026-06-01T00:00:00Z',
 *   sunset: '2027-06-30T00:00:00Z',
 *   link: '/docs/migrate-to-v2',
 * };
 * const entry: VersionEntry = { version: '2', changes: [budgetBecameMoney] };
 * ```
 */
export interface VersionEntry {
  /** `1`, `2.1`, or a date `2026-11-01`; all numbers or all dates. */
  readonly version: string;
  readonly changes?: readonly VersionChange[];
  /** Deprecated: `true` (no date, `Deprecation: true`) or since when (a `Date` or an ISO 8601 string, `Deprecation: @<unix seconds>`). */
  readonly deprecated?: true | Date | string;
  /** When the version is retired (a `Date` or an ISO 8601 string): `Sunset: <IMF-fixdate>`, and 410 after it. */
  readonly sunset?: Date | string;
  /**
   * Documentation of the lifecycle: one URI sent as `rel="deprecation"` when deprecated and as
   * `rel="sunset"` when a sunset is declared, or `{ deprecation?, sunset?, successor? }` for separate pages.
   */
  readonly link?: string | VersionLinks;
  /** The version that replaces this one. Default: the next declared version, for a deprecated or sunset version. */
  readonly successor?: string;
}

/**
 * The declared versions, oldest first, with their changes, and the migrations between them. Made
 * by {@link versions}; pure and framework-free.
 *
 * @example
 * ```ts
 * const api: VersionChanges = versions([{ version: '1' }, { version: '2', changes: [budgetBecameMoney] }]);
 * api.newest; // '2'
 * ```
 */
export interface VersionChanges {
  /** Version names, oldest first. */
  readonly versions: readonly string[];
  readonly newest: string;
  /** The entries as declared. */
  readonly entries: readonly VersionEntry[];
  /**
   * The versions with their lifecycle as a version policy takes them: `createVersionPolicy` accepts
   * the `versions()` object itself and reads this list.
   */
  readonly definitions: readonly VersionDefinition[];
  /** A new list with `entry` appended as the newest version: `v2 = v1.add({ version: '2', changes })`. */
  add(entry: VersionEntry): VersionChanges;
  /** Migrates a request body (or query, `part: 'query'`) from `from` up to the newest version. 404 `not_found` for an endpoint `from` does not have. */
  migrateRequest(from: string, value: unknown, endpoint: Endpoint, part?: 'body' | 'query'): unknown;
  /** Migrates a response body from the newest version down to `to`; collection items one by one. */
  migrateResponse(to: string, body: unknown, endpoint: Endpoint): unknown;
  /** Migrates a problem document from the newest version down to `to` with the changes' `errors`. */
  migrateError(to: string, problem: unknown, endpoint: Endpoint): unknown;
  /** Whether `version` serves `endpoint` (not added later, not removed by then). */
  hasEndpoint(version: string, endpoint: Pick<Endpoint, 'method' | 'path'>): boolean;
  /** The JSON Schema of `schema` in `version`, from the newest one through every `schemaDown`. */
  schemaAt(version: string, schema: string, json: JsonSchema): JsonSchema;
}

function compareNames(a: string, b: string): number {
  if (isDateVersion(a)) return a < b ? -1 : a > b ? 1 : 0;
  return compareVersions(parseVersion(a)!, parseVersion(b)!);
}

function sameEndpoint(a: { method: string; path: string }, b: { method: string; path: string }): boolean {
  return a.method.toUpperCase() === b.method.toUpperCase() && a.path === b.path;
}

function applies(change: VersionChange, endpoint: Endpoint): boolean {
  return change.affects.some((target) =>
    typeof target === 'string' ? (endpoint.schemas ?? []).includes(target) : sameEndpoint(target, endpoint),
  );
}

function checkEntries(entries: readonly VersionEntry[]): VersionEntry[] {
  if (!Array.isArray(entries) || entries.length === 0) fail('versions needs at least one version');
  const names = entries.map((entry) => entry?.version);
  const dated = names.every((name) => typeof name === 'string' && isDateVersion(name));
  if (!dated && !names.every((name) => typeof name === 'string' && parseVersion(name) !== undefined)) {
    fail(`versions must all be "<major>[.<minor>]" or all be dates "YYYY-MM-DD", got ${names.join(', ')}`);
  }
  for (let i = 1; i < names.length; i++) {
    if (compareNames(names[i - 1]!, names[i]!) >= 0)
      fail(`versions must be listed oldest first without repeats: ${names[i - 1]} then ${names[i]}`);
  }
  if ((entries[0]!.changes ?? []).length > 0)
    fail(`the first version (${names[0]}) has nothing before it to change from`);
  return entries.map((entry) => ({
    ...checkLifecycle(entry),
    version: entry.version,
    changes: Object.freeze([...(entry.changes ?? [])]),
  }));
}

function isTime(value: unknown): value is Date | string {
  const time =
    value instanceof Date ? value.getTime() : typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return Number.isFinite(time);
}

// The lifecycle of one entry, checked here so a bad date fails at declaration, not in the changelog.
function checkLifecycle(entry: VersionEntry): Omit<VersionEntry, 'version' | 'changes'> {
  const { deprecated, sunset, link, successor } = entry;
  if (deprecated !== undefined && deprecated !== true && !isTime(deprecated))
    fail(`version ${entry.version}: deprecated must be true or a date, got ${JSON.stringify(deprecated)}`);
  if (sunset !== undefined && !isTime(sunset))
    fail(`version ${entry.version}: sunset must be a date, got ${JSON.stringify(sunset)}`);
  if (link !== undefined && typeof link !== 'string' && (typeof link !== 'object' || link === null))
    fail(`version ${entry.version}: link must be a URI or { deprecation?, sunset?, successor? }`);
  if (successor !== undefined && typeof successor !== 'string')
    fail(`version ${entry.version}: successor must be a version name`);
  return {
    ...(deprecated === undefined ? {} : { deprecated }),
    ...(sunset === undefined ? {} : { sunset }),
    ...(link === undefined ? {} : { link }),
    ...(successor === undefined ? {} : { successor }),
  };
}

// One entry as the version policy takes it: lifecycle renamed, a single link spread over the
// relations the lifecycle has, the successor defaulting to the next version.
function toDefinition(entry: VersionEntry, next: string | undefined): VersionDefinition {
  const { deprecated, sunset, link } = entry;
  const retiring = deprecated !== undefined || sunset !== undefined;
  const links: VersionLinks | undefined =
    typeof link === 'string'
      ? {
          ...(deprecated === undefined ? {} : { deprecation: link }),
          ...(sunset === undefined ? {} : { sunset: link }),
        }
      : link;
  const successor = entry.successor ?? (retiring ? next : undefined);
  return {
    version: entry.version,
    ...(deprecated === true
      ? { deprecated: true }
      : deprecated === undefined
        ? {}
        : { deprecatedAt: deprecated }),
    ...(sunset === undefined ? {} : { sunsetAt: sunset }),
    ...(successor === undefined ? {} : { successor }),
    ...(links === undefined || Object.keys(links).length === 0 ? {} : { links }),
  };
}

/**
 * Declares the versions, oldest first, each with the changes that lead to it, and returns the
 * pure migrations between them. Versions are all numbers (`1`, `2`, `2.1`) or all dates
 * (`2026-11-01`). An unknown version is a `TypeError`: resolve it with the policy first.
 *
 * @example
 * ```ts
 * const api = versions([{ version: '1' }, { version: '2', changes: [budgetBecameMoney] }]);
 * const project = { id: 7, budget: { amount: 1200, currency: 'EUR' } };
 * const GET = { method: 'GET', path: '/projects/{id}', schemas: ['Project'] };
 * api.migrateResponse('1', project, GET); // { id: 7, budget: 1200 }
 * ```
 */
export function versions(entries: readonly VersionEntry[]): VersionChanges {
  const list = checkEntries(entries);
  const names = list.map((entry) => entry.version);
  const indexOf = (version: string): number => {
    const index = names.indexOf(version);
    if (index === -1) fail(`version "${version}" is not declared (declared: ${names.join(', ')})`);
    return index;
  };
  // Changes between `version` and the newest, oldest first.
  const after = (version: string): VersionChange[] =>
    list.slice(indexOf(version) + 1).flatMap((entry) => entry.changes ?? []);
  const hasEndpoint = (version: string, endpoint: Pick<Endpoint, 'method' | 'path'>): boolean => {
    const index = indexOf(version);
    for (let i = 1; i < list.length; i++) {
      for (const change of list[i]!.changes ?? []) {
        const target = change.affects[0];
        if (typeof target !== 'object' || !sameEndpoint(target, endpoint)) continue;
        if (change.kind === 'endpoint-added' && index < i) return false;
        if (change.kind === 'endpoint-removed' && index >= i) return false;
      }
    }
    return true;
  };
  const down = (to: string, value: unknown, endpoint: Endpoint, pick: 'response' | 'errors') => {
    const changes = after(to)
      .filter((change) => change[pick] !== undefined && applies(change, endpoint))
      .reverse();
    const context: MigrationContext = { endpoint, part: 'body' };
    const item = (one: unknown) => changes.reduce((current, change) => change[pick]!(current, context), one);
    if (changes.length === 0) return value;
    if (pick === 'errors') return item(value);
    if (Array.isArray(value)) return value.map(item);
    const key = endpoint.collection;
    if (key !== undefined && isObject(value) && Array.isArray(value[key]))
      return { ...value, [key]: (value[key] as unknown[]).map(item) };
    return item(value);
  };
  const result: VersionChanges = {
    versions: Object.freeze(names),
    newest: names.at(-1)!,
    entries: Object.freeze(list),
    definitions: Object.freeze(list.map((entry, i) => toDefinition(entry, names[i + 1]))),
    add: (entry) => versions([...list, entry]),
    migrateRequest(from, value, endpoint, part = 'body') {
      if (!hasEndpoint(from, endpoint)) throw new HttpError('not_found');
      const context: MigrationContext = { endpoint, part };
      return after(from)
        .filter((change) => change.request !== undefined && applies(change, endpoint))
        .reduce((current, change) => change.request!(current, context), value);
    },
    migrateResponse: (to, body, endpoint) => down(to, body, endpoint, 'response'),
    migrateError: (to, problem, endpoint) => down(to, problem, endpoint, 'errors'),
    hasEndpoint,
    schemaAt(version, schema, json) {
      return after(version)
        .filter((change) => change.schemaDown !== undefined && change.affects.includes(schema))
        .reverse()
        .reduce((current, change) => change.schemaDown!(current), json);
    },
  };
  return Object.freeze(result);
}

/**
 * Options of {@link changelog} and {@link changelogMarkdown}.
 *
 * @example
 * ```ts
 * const options: ChangelogOptions = { language: 'fr-CA' };
 * ```
 */
export interface ChangelogOptions {
  /** Language tag of the texts: exact tag, then its primary language, then `en`, then the first given. Default `en`. */
  readonly language?: string;
  /**
   * The words of {@link changelogMarkdown}'s lifecycle lines. Default: the built-in ones of
   * `language` (English and German), English for any other language.
   */
  readonly words?: ChangelogWords;
}

/**
 * The words {@link changelogMarkdown} writes a version's lifecycle with:
 * `- {deprecated} {since} <date>; {successor}: <version>` and `- {sunsetOn} <date>`.
 *
 * @example
 * ```ts
 * const french: ChangelogWords = { deprecated: 'Obsolète', since: 'depuis le', successor: 'successeur', sunsetOn: 'Retrait le' };
 * changelogMarkdown(api, { language: 'fr', words: french });
 * ```
 */
export interface ChangelogWords {
  readonly deprecated: string;
  readonly since: string;
  readonly successor: string;
  readonly sunsetOn: string;
}

const CHANGELOG_WORDS: Readonly<Record<string, ChangelogWords>> = {
  en: { deprecated: 'Deprecated', since: 'since', successor: 'successor', sunsetOn: 'Sunset on' },
  de: { deprecated: 'Veraltet', since: 'seit', successor: 'Nachfolger', sunsetOn: 'Abschaltung am' },
};

/**
 * One version of a {@link changelog}.
 *
 * @example
 * ```ts
 * const entry: ChangelogEntry = { version: '2', changes: [{ kind: 'custom', description: 'budget is money', affects: ['Project'] }] };
 * ```
 */
export interface ChangelogEntry {
  readonly version: string;
  /** Deprecated: `true`, or since when as `Date.prototype.toISOString` writes it. Absent when not deprecated. */
  readonly deprecated?: true | string;
  /** When the version is retired, as `Date.prototype.toISOString` writes it. */
  readonly sunset?: string;
  /** The lifecycle's documentation, as the `Link` header sends it (`deprecation`, `sunset`, `successor`). */
  readonly links?: VersionLinks;
  /** The version that replaces this one (declared, or the next one for a deprecated or sunset version). */
  readonly successor?: string;
  readonly changes: readonly {
    readonly kind: ChangeKind;
    readonly description: string;
    readonly affects: readonly ChangeTarget[];
  }[];
}

function textIn(description: ChangeDescription, language: string): string {
  if (typeof description === 'string') return description;
  const entries = Object.entries(description);
  const wanted = language.toLowerCase();
  const primary = wanted.split('-')[0]!;
  const find = (tag: string) => entries.find(([key]) => key.toLowerCase() === tag)?.[1];
  return find(wanted) ?? find(primary) ?? find('en') ?? entries[0]![1];
}

/**
 * The changelog of every version that has changes or a lifecycle (deprecated, sunset), newest
 * first, in one language: JSON, from the same declarations the migrations and the version headers run.
 *
 * @example
 * ```ts
 * changelog(api, { language: 'fr' });
 * // [{ version: '2', changes: [{ kind: 'custom', description: 'Project.budget devient ...', affects: ['Project'] }] }]
 * ```
 */
export function changelog(declared: VersionChanges, options: ChangelogOptions = {}): ChangelogEntry[] {
  const language = options.language ?? 'en';
  const iso = (value: Date | string) => new Date(value).toISOString();
  return declared.entries
    .map((entry, index): ChangelogEntry | undefined => {
      const { deprecated, sunset } = entry;
      if ((entry.changes ?? []).length === 0 && deprecated === undefined && sunset === undefined)
        return undefined;
      const { links, successor } = declared.definitions[index]!;
      return {
        version: entry.version,
        ...(deprecated === undefined ? {} : { deprecated: deprecated === true ? true : iso(deprecated) }),
        ...(sunset === undefined ? {} : { sunset: iso(sunset) }),
        ...(links === undefined ? {} : { links }),
        ...(successor === undefined ? {} : { successor }),
        changes: (entry.changes ?? []).map((change) => ({
          kind: change.kind,
          description: textIn(change.description, language),
          affects: change.affects,
        })),
      };
    })
    .filter((entry) => entry !== undefined)
    .reverse();
}

/**
 * The {@link changelog} as Markdown: a `## <version>` section per version, a bullet per change,
 * after `- Deprecated since <date>; successor: <version>` and `- Sunset on <date>` bullets (with
 * their documentation links) for a version that declares a lifecycle, in the words of
 * `options.language` (English and German built in; `options.words` for any other).
 *
 * @example
 * ```ts
 * changelogMarkdown(api);
 * // '## 2\n\n- Project.budget is now { amount, currency } (Project)\n'
 * ```
 */
export function changelogMarkdown(declared: VersionChanges, options: ChangelogOptions = {}): string {
  const target = (item: ChangeTarget) => (typeof item === 'string' ? item : `${item.method} ${item.path}`);
  const see = (uri: string | undefined) => (uri === undefined ? '' : ` ([${uri}](${uri}))`);
  const language = (options.language ?? 'en').toLowerCase();
  const words =
    options.words ??
    CHANGELOG_WORDS[language] ??
    CHANGELOG_WORDS[language.split('-')[0]!] ??
    CHANGELOG_WORDS['en']!;
  return changelog(declared, options)
    .map((entry) => {
      const lines = [
        ...(entry.deprecated === undefined
          ? []
          : [
              `- ${words.deprecated}${entry.deprecated === true ? '' : ` ${words.since} ${entry.deprecated}`}${entry.successor === undefined ? '' : `; ${words.successor}: ${entry.successor}`}${see(entry.links?.deprecation)}`,
            ]),
        ...(entry.sunset === undefined
          ? []
          : [`- ${words.sunsetOn} ${entry.sunset}${see(entry.links?.sunset)}`]),
        ...entry.changes.map(
          (change) => `- ${change.description} (${change.affects.map(target).join(', ')})`,
        ),
      ];
      return `## ${entry.version}\n\n${lines.join('\n')}\n`;
    })
    .join('\n');
}

/**
 * Options of {@link roundTrip}.
 *
 * @example
 * ```ts
 * const options: RoundTripOptions = {
 *   version: '1',
 *   body: { name: 'Roof', budget: 1200 },
 *   endpoint: { method: 'POST', path: '/projects', schemas: ['Project'] },
 * };
 * ```
 */
export interface RoundTripOptions {
  /** The older version the client speaks. */
  readonly version: string;
  /** A request body valid in `version`. */
  readonly body: Readonly<Record<string, unknown>>;
  /** The endpoint the body is sent to (its `schemas` decide which changes apply). */
  readonly endpoint: Endpoint;
  /** What the handler answers for the migrated request, in the newest version. Default: the request itself. */
  readonly respond?: (request: unknown) => unknown;
  /** Top-level fields the crossed changes rewrite beyond those the helpers name (a custom change's fields). */
  readonly touched?: readonly string[];
}

/**
 * What {@link roundTrip} saw: the request after migrating it up, the response after migrating it
 * down, the fields the crossed changes touch, and the untouched fields that did not come back as sent.
 *
 * @example
 * ```ts
 * const result: RoundTripResult = { request: {}, response: {}, touched: ['budget'], differences: [] };
 * ```
 */
export interface RoundTripResult {
  readonly request: unknown;
  readonly response: unknown;
  /** Fields named by the crossed changes (`field`, `from`, `to` of the helpers) and by `touched`. */
  readonly touched: readonly string[];
  /** Top-level fields of `body` not in `touched` whose value differs after the round trip (or is gone), in body order. */
  readonly differences: readonly string[];
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) !== Array.isArray(b) || typeof a !== 'object' || typeof b !== 'object') return false;
  if (a === null || b === null) return false;
  if (Array.isArray(a))
    return a.length === (b as unknown[]).length && a.every((x, i) => sameJson(x, (b as unknown[])[i]));
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length &&
    keys.every((key) => Object.hasOwn(b, key) && sameJson((a as JsonObject)[key], (b as JsonObject)[key]))
  );
}

/**
 * The round-trip check of declared changes, for a property test with any generator: migrates
 * `body` from `version` up to the newest version, lets `respond` answer it, migrates the answer
 * back down, and lists the fields the changes do not touch that did not come back as sent. A change
 * is sound for a valid older request when `differences` is empty. Pure; no test framework needed.
 *
 * @example
 * ```ts
 * const api = versions([{ version: '1' }, { version: '2', changes: [fieldRenamed({ schema: 'Project', from: 'name', to: 'title' })] }]);
 * const result = roundTrip(api, {
 *   version: '1',
 *   body: { name: 'Roof', budget: 5 },
 *   endpoint: { method: 'POST', path: '/projects', schemas: ['Project'] },
 * });
 * result.request; // { title: 'Roof', budget: 5 }
 * result.differences; // []
 * ```
 */
export function roundTrip(declared: VersionChanges, options: RoundTripOptions): RoundTripResult {
  const { version, body, endpoint } = options;
  const index = declared.versions.indexOf(version);
  if (index === -1) fail(`version "${version}" is not declared (declared: ${declared.versions.join(', ')})`);
  const touched = new Set(options.touched ?? []);
  for (const entry of declared.entries.slice(index + 1)) {
    for (const change of entry.changes ?? []) {
      if (!applies(change, endpoint)) continue;
      for (const name of ['field', 'from', 'to'] as const) {
        const field = change.details[name];
        if (typeof field === 'string') touched.add(field);
      }
    }
  }
  const request = declared.migrateRequest(version, body, endpoint);
  const answered = options.respond === undefined ? request : options.respond(request);
  const response = declared.migrateResponse(version, answered, endpoint);
  const back: JsonObject = isObject(response) ? response : {};
  const differences = Object.keys(body).filter(
    (key) => !touched.has(key) && !(Object.hasOwn(back, key) && sameJson(body[key], back[key])),
  );
  return { request, response, touched: [...touched], differences };
}
