/**
 * Breaking changes between two versions of an OpenAPI document: what a client written against the
 * old document would trip over when the server follows the new one.
 *
 * Operations are matched by path template (parameter names ignored: `/p/{id}` is `/p/{projectId}`)
 * and method. `$ref`s are resolved within each document; `allOf` is merged (properties, required,
 * type, enum); a schema that refers to itself is compared once per pair of schemas, so cycles end.
 */
import { deref, isObject, type JsonObject, operationsOf, parsePath } from './openapi.js';

/**
 * How a change is reported: `error` a breaking change (the gate fails), `warning` a breaking change
 * that an excuse covers (the gate passes), `info` a change no existing client notices.
 */
export type ChangeLevel = 'error' | 'warning' | 'info';

/** What a client sees change; `breaking` kinds are reported at `error` unless excused. */
interface KindInfo {
  readonly breaking: boolean;
  readonly title: string;
}

/**
 * Every kind of change `diff` reports, with whether it breaks clients and a one-line title. The
 * kind is the SARIF rule id.
 *
 * @example
 * ```ts
 * CHANGE_KINDS['response-property-removed'].breaking; // true
 * ```
 */
export const CHANGE_KINDS = {
  'path-removed': { breaking: true, title: 'A path was removed' },
  'operation-removed': { breaking: true, title: 'An operation (method of a path) was removed' },
  'response-status-removed': { breaking: true, title: 'A response status was removed' },
  'response-property-removed': { breaking: true, title: 'A response property was removed' },
  'response-property-became-optional': {
    breaking: true,
    title: 'A response property is no longer required (clients may get it absent)',
  },
  'request-property-became-required': {
    breaking: true,
    title: 'An optional request property became required',
  },
  'request-required-property-added': { breaking: true, title: 'A required request property was added' },
  'request-body-became-required': { breaking: true, title: 'The request body became required' },
  'parameter-became-required': { breaking: true, title: 'An optional parameter became required' },
  'required-parameter-added': { breaking: true, title: 'A required parameter was added' },
  'type-changed': { breaking: true, title: 'A type changed or was narrowed' },
  'request-enum-value-removed': { breaking: true, title: 'A request enum lost a value' },
  'response-enum-value-added': {
    breaking: true,
    title: 'A response enum gained a value (clients that switch on it meet an unknown value)',
  },
  'request-media-type-removed': { breaking: true, title: 'A request media type was dropped' },
  'response-media-type-removed': { breaking: true, title: 'A response media type was dropped' },
  'security-added': { breaking: true, title: 'A security requirement was added' },
  'request-max-length-narrowed': {
    breaking: true,
    title: 'A request maxLength was lowered or set where there was none',
  },
  'request-maximum-narrowed': {
    breaking: true,
    title: 'A request maximum was lowered or set where there was none',
  },
  'path-added': { breaking: false, title: 'A path was added' },
  'operation-added': { breaking: false, title: 'An operation was added' },
  'response-status-added': { breaking: false, title: 'A response status was added' },
  'response-property-added': { breaking: false, title: 'A response property was added' },
  'response-enum-value-removed': { breaking: false, title: 'A response enum lost a value' },
  'request-property-added': { breaking: false, title: 'An optional request property was added' },
  'request-property-removed': { breaking: false, title: 'A request property was removed' },
  'request-property-became-optional': {
    breaking: false,
    title: 'A required request property became optional',
  },
  'request-enum-value-added': { breaking: false, title: 'A request enum gained a value' },
  'parameter-added': { breaking: false, title: 'An optional parameter was added' },
  'parameter-removed': { breaking: false, title: 'A parameter was removed' },
  'type-widened': { breaking: false, title: 'A type was widened where clients cannot notice' },
  'media-type-added': { breaking: false, title: 'A media type was added' },
  'security-relaxed': {
    breaking: false,
    title: 'A security requirement was removed or an alternative added',
  },
  'description-changed': { breaking: false, title: 'A summary or description changed' },
} as const satisfies Record<string, KindInfo>;

/**
 * The kind of a change: a key of {@link CHANGE_KINDS}.
 *
 * @example
 * ```ts
 * const kind: ChangeKind = 'path-removed';
 * ```
 */
export type ChangeKind = keyof typeof CHANGE_KINDS;

/**
 * One change between the documents.
 *
 * @example
 * ```ts
 * const change: Change = {
 *   kind: 'path-removed',
 *   level: 'error',
 *   location: 'paths./v1/projects',
 *   message: 'path /v1/projects was removed',
 * };
 * ```
 */
export interface Change {
  /** What changed; the SARIF rule id. */
  readonly kind: ChangeKind;
  /** `error` breaking, `warning` breaking but excused, `info` not breaking. */
  readonly level: ChangeLevel;
  /** JSON-pointer-like location, e.g. `paths./projects/{id}.patch.requestBody.content.application/json.schema.properties.name`. */
  readonly location: string;
  /** What changed, in words: `request property name became required`. */
  readonly message: string;
  /** Why a breaking change passes (level `warning`), e.g. `new API version v2 (no /v2 path in the old document)`. */
  readonly excuse?: string;
}

/**
 * The result of {@link diff}: every change, breaking ones first, and the counts.
 *
 * @example
 * ```ts
 * const result: DiffResult = diff(oldDocument, newDocument);
 * if (!result.ok) console.error(`${result.breaking} breaking changes`);
 * ```
 */
export interface DiffResult {
  /** Where the old document came from (a file, URL or name). */
  readonly old: string;
  /** Where the new document came from. */
  readonly new: string;
  /** Errors, then warnings (excused), then info; by location within each level. */
  readonly changes: readonly Change[];
  /** Unexcused breaking changes (level `error`). */
  readonly breaking: number;
  /** Excused breaking changes (level `warning`). */
  readonly excused: number;
  /** Non-breaking changes (level `info`). */
  readonly info: number;
  /** True when there is no unexcused breaking change. */
  readonly ok: boolean;
}

/**
 * Options of {@link diff}.
 *
 * @example
 * ```ts
 * diff(before, after, { oldSource: 'main:openapi.yaml', newSource: 'openapi.yaml' });
 * ```
 */
export interface DiffOptions {
  /** Name of the old document in the report. Default `old`. */
  readonly oldSource?: string;
  /** Name of the new document in the report. Default `new`. */
  readonly newSource?: string;
}

type Direction = 'request' | 'response';

/** A change found inside a schema, located relative to the schema. */
interface Found {
  readonly kind: ChangeKind;
  readonly at: string;
  readonly message: string;
}

/** `/projects/{id}` and `/projects/{projectId}` are one path. */
function pathKey(path: string): string {
  return path.replace(/\{[^{}]*\}/g, '{}');
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function strings(value: unknown): string[] {
  return list(value).filter((item): item is string => typeof item === 'string');
}

function show(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

/** Compares two documents; one instance per call, holding the per-document caches. */
class Differ {
  private readonly merged = new WeakMap<object, JsonObject>();
  private readonly ids = new Map<object, number>();
  private readonly memo = new Map<string, Found[]>();
  private readonly active = new Set<string>();
  readonly changes: Change[] = [];

  constructor(
    readonly before: JsonObject,
    readonly after: JsonObject,
  ) {}

  add(kind: ChangeKind, location: string, message: string, excuse?: string): void {
    const breaking = CHANGE_KINDS[kind].breaking;
    const level: ChangeLevel = !breaking ? 'info' : excuse === undefined ? 'error' : 'warning';
    this.changes.push({
      kind,
      level,
      location,
      message,
      ...(breaking && excuse !== undefined ? { excuse } : {}),
    });
  }

  /** A schema with `$ref`s followed and `allOf` merged; not a schema: undefined. */
  schema(document: JsonObject, value: unknown): JsonObject | undefined {
    const resolved = deref(document, value);
    if (!isObject(resolved)) return undefined;
    if (!Array.isArray(resolved['allOf'])) return resolved;
    const cached = this.merged.get(resolved);
    if (cached !== undefined) return cached;
    const { allOf, ...rest } = resolved;
    const result: JsonObject = { ...rest };
    // Placed first: an allOf that reaches itself sees the partial merge, not an endless loop.
    this.merged.set(resolved, result);
    const properties: JsonObject = isObject(rest['properties']) ? { ...rest['properties'] } : {};
    const required = new Set(strings(rest['required']));
    for (const part of list(allOf)) {
      const schema = this.schema(document, part);
      if (schema === undefined) continue;
      if (isObject(schema['properties'])) Object.assign(properties, schema['properties']);
      for (const name of strings(schema['required'])) required.add(name);
      for (const key of ['type', 'enum', 'items', 'maxLength', 'maximum', 'nullable'])
        if (result[key] === undefined && schema[key] !== undefined) result[key] = schema[key];
    }
    if (Object.keys(properties).length > 0) result['properties'] = properties;
    if (required.size > 0) result['required'] = [...required];
    return result;
  }

  /**
   * The types a schema allows: its `type` (with `nullable`), or else the union of its `oneOf` or
   * `anyOf` branches (`anyOf: [{ type: string }, { type: 'null' }]` is `string|null`); undefined: any.
   */
  types(document: JsonObject, schema: JsonObject, depth = 0): Set<string> | undefined {
    const own = typesOf(schema);
    if (own !== undefined || depth > 8) return own;
    const branches = Array.isArray(schema['oneOf']) ? schema['oneOf'] : schema['anyOf'];
    if (!Array.isArray(branches) || branches.length === 0) return undefined;
    const union = new Set<string>();
    for (const branch of branches) {
      const resolved = this.schema(document, branch);
      const types = resolved === undefined ? undefined : this.types(document, resolved, depth + 1);
      if (types === undefined) return undefined;
      for (const type of types) union.add(type);
    }
    return union;
  }

  /** Changes between two schemas as seen from `direction`, memoised per pair (cycles stop at the pair in progress). */
  compareSchemas(direction: Direction, oldSchema: JsonObject, newSchema: JsonObject): Found[] {
    const key = `${direction} ${this.id(oldSchema)} ${this.id(newSchema)}`;
    const known = this.memo.get(key);
    if (known !== undefined) return known;
    if (this.active.has(key)) return [];
    this.active.add(key);
    const found = this.schemaChanges(direction, oldSchema, newSchema);
    this.active.delete(key);
    this.memo.set(key, found);
    return found;
  }

  private id(value: object): number {
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.ids.size + 1;
      this.ids.set(value, id);
    }
    return id;
  }

  private schemaChanges(direction: Direction, a: JsonObject, b: JsonObject): Found[] {
    const found: Found[] = [];
    const add = (kind: ChangeKind, at: string, message: string): void => {
      found.push({ kind, at, message });
    };
    typeChanges(direction, this.types(this.before, a), this.types(this.after, b), add);
    enumChanges(direction, a, b, add);
    if (direction === 'request') {
      for (const [key, kind] of [
        ['maxLength', 'request-max-length-narrowed'],
        ['maximum', 'request-maximum-narrowed'],
      ] as const) {
        const before = typeof a[key] === 'number' ? a[key] : undefined;
        const after = typeof b[key] === 'number' ? b[key] : undefined;
        if (after !== undefined && (before === undefined || after < before))
          add(kind, '', `${key} ${before === undefined ? 'set' : `lowered from ${before}`} to ${after}`);
      }
    }
    if (
      typeof a['description'] === 'string' &&
      typeof b['description'] === 'string' &&
      a['description'] !== b['description']
    )
      add('description-changed', '', 'the description changed');
    const oldProps = isObject(a['properties']) ? a['properties'] : {};
    const newProps = isObject(b['properties']) ? b['properties'] : {};
    const oldRequired = new Set(strings(a['required']));
    const newRequired = new Set(strings(b['required']));
    for (const name of Object.keys(oldProps)) {
      const at = `.properties.${name}`;
      if (!(name in newProps)) {
        if (direction === 'response')
          add('response-property-removed', at, `response property ${name} was removed`);
        else add('request-property-removed', at, `request property ${name} was removed`);
        continue;
      }
      if (direction === 'request' && !oldRequired.has(name) && newRequired.has(name))
        add('request-property-became-required', at, `request property ${name} became required`);
      if (direction === 'request' && oldRequired.has(name) && !newRequired.has(name))
        add('request-property-became-optional', at, `request property ${name} became optional`);
      if (direction === 'response' && oldRequired.has(name) && !newRequired.has(name))
        add('response-property-became-optional', at, `response property ${name} is no longer required`);
      const before = this.schema(this.before, oldProps[name]);
      const after = this.schema(this.after, newProps[name]);
      if (before !== undefined && after !== undefined)
        for (const inner of this.compareSchemas(direction, before, after))
          found.push({ ...inner, at: at + inner.at });
    }
    for (const name of Object.keys(newProps)) {
      if (name in oldProps) continue;
      const at = `.properties.${name}`;
      if (direction === 'response') add('response-property-added', at, `response property ${name} was added`);
      else if (newRequired.has(name))
        add('request-required-property-added', at, `required request property ${name} was added`);
      else add('request-property-added', at, `optional request property ${name} was added`);
    }
    const oldItems = this.schema(this.before, a['items']);
    const newItems = this.schema(this.after, b['items']);
    if (oldItems !== undefined && newItems !== undefined)
      for (const inner of this.compareSchemas(direction, oldItems, newItems))
        found.push({ ...inner, at: `.items${inner.at}` });
    return found;
  }

  /** Reports the changes between two schemas at `location`. */
  schemaAt(
    direction: Direction,
    location: string,
    oldValue: unknown,
    newValue: unknown,
    excuse: string | undefined,
  ): void {
    const before = this.schema(this.before, oldValue);
    const after = this.schema(this.after, newValue);
    if (before === undefined || after === undefined) return;
    for (const found of this.compareSchemas(direction, before, after))
      this.add(found.kind, location + found.at, found.message, excuse);
  }
}

/** The types a schema allows (OpenAPI 3.0 `nullable` and 3.1 type arrays); undefined: any. */
function typesOf(schema: JsonObject): Set<string> | undefined {
  const type = schema['type'];
  const types = typeof type === 'string' ? [type] : strings(type);
  if (types.length === 0) return undefined;
  if (schema['nullable'] === true) types.push('null');
  return new Set(types);
}

/** True when every value of type `inner` is a value of one of `outer` (an integer is a number). */
function covered(inner: string, outer: Set<string>): boolean {
  return outer.has(inner) || (inner === 'integer' && outer.has('number'));
}

function typeChanges(
  direction: Direction,
  before: Set<string> | undefined,
  after: Set<string> | undefined,
  add: (kind: ChangeKind, at: string, message: string) => void,
): void {
  if (before === undefined && after === undefined) return;
  const text = (types: Set<string> | undefined): string =>
    types === undefined ? 'any' : [...types].join('|');
  const same =
    before !== undefined &&
    after !== undefined &&
    before.size === after.size &&
    [...before].every((t) => after.has(t));
  if (same) return;
  // A request must still accept everything it accepted; a response must send nothing new.
  const [from, to] = direction === 'request' ? [before, after] : [after, before];
  const compatible = to === undefined || (from !== undefined && [...from].every((type) => covered(type, to)));
  add(
    compatible ? 'type-widened' : 'type-changed',
    '',
    `type changed from ${text(before)} to ${text(after)}`,
  );
}

function enumChanges(
  direction: Direction,
  a: JsonObject,
  b: JsonObject,
  add: (kind: ChangeKind, at: string, message: string) => void,
): void {
  if (!Array.isArray(a['enum']) && !Array.isArray(b['enum'])) return;
  const before = new Set(list(a['enum']).map(show));
  const after = new Set(list(b['enum']).map(show));
  if (!Array.isArray(b['enum'])) {
    // The enum was dropped: a request accepts any value, a response may send any value.
    if (direction === 'request')
      add('request-enum-value-added', '', 'the enum was dropped: any value is accepted');
    else add('response-enum-value-added', '', 'the enum was dropped: any value may be sent');
    return;
  }
  const removed = [...before].filter((value) => !after.has(value));
  const added = Array.isArray(a['enum']) ? [...after].filter((value) => !before.has(value)) : [];
  if (!Array.isArray(a['enum']) && direction === 'request') {
    add(
      'request-enum-value-removed',
      '',
      `an enum was set on a request value: only ${[...after].join(', ')}`,
    );
    return;
  }
  for (const value of removed)
    add(
      direction === 'request' ? 'request-enum-value-removed' : 'response-enum-value-removed',
      '',
      `enum value ${value} was removed`,
    );
  for (const value of added)
    add(
      direction === 'request' ? 'request-enum-value-added' : 'response-enum-value-added',
      '',
      `enum value ${value} was added`,
    );
}

interface Operation {
  readonly path: string;
  readonly method: string;
  readonly operation: JsonObject;
  readonly pathItem: JsonObject;
}

/** A parameter as the diff sees it. */
interface Parameter {
  /** `query.limit`, `header.x-tenant` (header names lower-cased). */
  readonly location: string;
  readonly label: string;
  readonly required: boolean;
  readonly schema: unknown;
}

function parameters(document: JsonObject, op: Operation): Map<string, Parameter> {
  // Path parameters are matched by position: renaming `{id}` to `{projectId}` changes nothing.
  const positions = [...op.path.matchAll(/\{([^{}]*)\}/g)].map((match) => match[1]);
  const byKey = new Map<string, Parameter>();
  for (const source of [op.pathItem['parameters'], op.operation['parameters']])
    for (const raw of list(source)) {
      const parameter = deref(document, raw);
      if (
        !isObject(parameter) ||
        typeof parameter['name'] !== 'string' ||
        typeof parameter['in'] !== 'string'
      )
        continue;
      const name = parameter['in'] === 'header' ? parameter['name'].toLowerCase() : parameter['name'];
      const key =
        parameter['in'] === 'path'
          ? `path#${positions.indexOf(parameter['name'])}`
          : `${parameter['in']}.${name}`;
      byKey.set(key, {
        location: `${parameter['in']}.${name}`,
        label: `${parameter['in']} parameter ${parameter['name']}`,
        required: parameter['required'] === true || parameter['in'] === 'path',
        schema: parameter['schema'],
      });
    }
  return byKey;
}

function content(document: JsonObject, value: unknown): JsonObject {
  const resolved = deref(document, value);
  return isObject(resolved) && isObject(resolved['content']) ? resolved['content'] : {};
}

/** An operation's security alternatives, each a set of `scheme:scope` (and `scheme`) tokens. */
function security(document: JsonObject, operation: JsonObject): string[][] {
  const requirements = operation['security'] ?? document['security'];
  const alternatives = list(requirements).filter(isObject);
  if (alternatives.length === 0) return [[]];
  return alternatives.map((requirement) =>
    Object.entries(requirement).flatMap(([scheme, scopes]) => [
      scheme,
      ...strings(scopes).map((s) => `${scheme}:${s}`),
    ]),
  );
}

/** `bearer`, `oauth2 (read, write) + apiKey`, or `none`. */
function requirementText(tokens: readonly string[]): string {
  if (tokens.length === 0) return 'none';
  return tokens
    .filter((token) => !token.includes(':'))
    .map((scheme) => {
      const scopes = tokens
        .filter((token) => token.startsWith(`${scheme}:`))
        .map((t) => t.slice(scheme.length + 1));
      return scopes.length === 0 ? scheme : `${scheme} (${scopes.join(', ')})`;
    })
    .join(' + ');
}

/** True when an operation declares a `Deprecation` or `Sunset` response header. */
function announcesDeprecation(document: JsonObject, operation: JsonObject | undefined): boolean {
  if (operation === undefined) return false;
  const responses = isObject(operation['responses']) ? operation['responses'] : {};
  return Object.values(responses).some((raw) => {
    const response = deref(document, raw);
    if (!isObject(response) || !isObject(response['headers'])) return false;
    return Object.keys(response['headers']).some((name) => /^(deprecation|sunset)$/i.test(name));
  });
}

function operationIndex(document: JsonObject): Map<string, Operation> {
  const byKey = new Map<string, Operation>();
  for (const op of operationsOf(document)) byKey.set(`${pathKey(op.path)} ${op.method}`, op);
  return byKey;
}

/** Versions (`2` of `/v2/...`) used by the paths of a document. */
function versionsOf(document: JsonObject): Set<string> {
  const versions = new Set<string>();
  for (const path of Object.keys(isObject(document['paths']) ? document['paths'] : {})) {
    const version = parsePath(path).version;
    if (version !== undefined) versions.add(version.toLowerCase());
  }
  return versions;
}

/** `/v2/projects/{}` → `/projects/{}` (the path after its version prefix), keyed with the method. */
function unversionedKey(path: string, method: string): string {
  return `${parsePath(path)
    .segments.map((segment) => (segment.param ? '{}' : segment.text))
    .join('/')} ${method}`;
}

function compareOperations(d: Differ, a: Operation, b: Operation, excuse: string | undefined): void {
  const at = `paths.${b.path}.${b.method}`;
  for (const key of ['summary', 'description'])
    if (
      typeof a.operation[key] === 'string' &&
      typeof b.operation[key] === 'string' &&
      a.operation[key] !== b.operation[key]
    )
      d.add('description-changed', `${at}.${key}`, `the operation's ${key} changed`);

  // Parameters.
  const oldParams = parameters(d.before, a);
  const newParams = parameters(d.after, b);
  for (const [key, before] of oldParams) {
    const after = newParams.get(key);
    const location = `${at}.parameters.${(after ?? before).location}`;
    if (after === undefined) {
      d.add('parameter-removed', location, `${before.label} was removed`);
      continue;
    }
    if (!before.required && after.required)
      d.add('parameter-became-required', location, `${after.label} became required`, excuse);
    d.schemaAt('request', `${location}.schema`, before.schema, after.schema, excuse);
  }
  for (const [key, after] of newParams) {
    if (oldParams.has(key)) continue;
    const location = `${at}.parameters.${after.location}`;
    if (after.required)
      d.add('required-parameter-added', location, `required ${after.label} was added`, excuse);
    else d.add('parameter-added', location, `optional ${after.label} was added`);
  }

  // Request body.
  const oldBody = deref(d.before, a.operation['requestBody']);
  const newBody = deref(d.after, b.operation['requestBody']);
  if (
    isObject(newBody) &&
    newBody['required'] === true &&
    !(isObject(oldBody) && oldBody['required'] === true)
  )
    d.add('request-body-became-required', `${at}.requestBody`, 'the request body became required', excuse);
  const oldRequest = content(d.before, oldBody);
  const newRequest = content(d.after, newBody);
  for (const type of Object.keys(oldRequest)) {
    const location = `${at}.requestBody.content.${type}`;
    const after = newRequest[type];
    if (!isObject(after)) {
      if (isObject(newBody))
        d.add(
          'request-media-type-removed',
          location,
          `request media type ${type} is no longer accepted`,
          excuse,
        );
      continue;
    }
    const before = oldRequest[type];
    if (isObject(before))
      d.schemaAt('request', `${location}.schema`, before['schema'], after['schema'], excuse);
  }
  for (const type of Object.keys(newRequest))
    if (!(type in oldRequest) && Object.keys(oldRequest).length > 0)
      d.add('media-type-added', `${at}.requestBody.content.${type}`, `request media type ${type} was added`);

  // Responses.
  const oldResponses = isObject(a.operation['responses']) ? a.operation['responses'] : {};
  const newResponses = isObject(b.operation['responses']) ? b.operation['responses'] : {};
  for (const status of Object.keys(oldResponses)) {
    const location = `${at}.responses.${status}`;
    if (!(status in newResponses)) {
      d.add('response-status-removed', location, `response ${status} was removed`, excuse);
      continue;
    }
    const oldContent = content(d.before, oldResponses[status]);
    const newContent = content(d.after, newResponses[status]);
    for (const type of Object.keys(oldContent)) {
      const after = newContent[type];
      if (!isObject(after)) {
        d.add(
          'response-media-type-removed',
          `${location}.content.${type}`,
          `response ${status} is no longer sent as ${type}`,
          excuse,
        );
        continue;
      }
      const before = oldContent[type];
      if (isObject(before))
        d.schemaAt(
          'response',
          `${location}.content.${type}.schema`,
          before['schema'],
          after['schema'],
          excuse,
        );
    }
    for (const type of Object.keys(newContent))
      if (!(type in oldContent))
        d.add(
          'media-type-added',
          `${location}.content.${type}`,
          `response ${status} may now be sent as ${type}`,
        );
  }
  for (const status of Object.keys(newResponses))
    if (!(status in oldResponses))
      d.add('response-status-added', `${at}.responses.${status}`, `response ${status} was added`);

  // Security: every old alternative must still be met by a new alternative that asks for no more.
  const oldSecurity = security(d.before, a.operation);
  const newSecurity = security(d.after, b.operation);
  const now = newSecurity.map(requirementText).join(' or ');
  const unmet = oldSecurity.filter(
    (alternative) =>
      !newSecurity.some((candidate) => candidate.every((token) => alternative.includes(token))),
  );
  for (const alternative of unmet)
    d.add(
      'security-added',
      `${at}.security`,
      `a client authenticating with ${requirementText(alternative)} is no longer enough; now: ${now}`,
      excuse,
    );
  const same = (x: string[][], y: string[][]): boolean =>
    x.length === y.length && x.every((alternative) => y.some((other) => other.join() === alternative.join()));
  if (unmet.length === 0 && !same(oldSecurity, newSecurity))
    d.add('security-relaxed', `${at}.security`, `security is now: ${now}`);
}

/**
 * Compares two OpenAPI 3.x documents (as returned by `readOpenApi`) and reports every change that
 * breaks existing clients (level `error`), breaking changes an excuse covers (`warning`, with
 * `excuse`), and non-breaking changes (`info`). Excuses:
 *
 * - a new API version: an operation under a version prefix the old document has no path under
 *   (`/v2/...`) is compared with the same method and path under the highest old version
 *   (`/v1/...`); its breaking changes are excused, as clients opt in by changing the URL. Removing
 *   or changing the old operation is not excused by this.
 * - announced deprecation: breaking changes to an operation marked `deprecated: true` in the new
 *   document that declares a `Deprecation` or `Sunset` response header (in either document) are
 *   excused; removing an operation is excused when the old document already had it deprecated with
 *   such a header.
 *
 * @example
 * ```ts
 * const result = diff(readOpenApi(oldText, 'main.yaml'), readOpenApi(newText, 'openapi.yaml'), {
 *   oldSource: 'main.yaml',
 *   newSource: 'openapi.yaml',
 * });
 * process.exitCode = result.ok ? 0 : 1;
 * ```
 */
export function diff(
  oldDocument: JsonObject,
  newDocument: JsonObject,
  options: DiffOptions = {},
): DiffResult {
  const d = new Differ(oldDocument, newDocument);
  const before = operationIndex(oldDocument);
  const after = operationIndex(newDocument);
  const oldPaths = new Map(
    Object.keys(isObject(oldDocument['paths']) ? oldDocument['paths'] : {}).map((p) => [pathKey(p), p]),
  );
  const newPaths = new Map(
    Object.keys(isObject(newDocument['paths']) ? newDocument['paths'] : {}).map((p) => [pathKey(p), p]),
  );

  const deprecatedInOld = (op: Operation): boolean =>
    op.operation['deprecated'] === true && announcesDeprecation(oldDocument, op.operation);
  const removalExcuse = (op: Operation): string | undefined =>
    deprecatedInOld(op)
      ? `deprecated with a Deprecation/Sunset header in the old document before ${op.method.toUpperCase()} ${op.path} was removed`
      : undefined;

  for (const [key, path] of oldPaths) {
    if (newPaths.has(key)) continue;
    const ops = [...before.values()].filter((op) => pathKey(op.path) === key);
    const excused = ops.length > 0 && ops.every(deprecatedInOld);
    d.add(
      'path-removed',
      `paths.${path}`,
      `path ${path} was removed`,
      excused
        ? `every operation of ${path} was deprecated with a Deprecation/Sunset header in the old document`
        : undefined,
    );
  }
  for (const [key, path] of newPaths)
    if (!oldPaths.has(key)) d.add('path-added', `paths.${path}`, `path ${path} was added`);

  for (const [key, op] of before) {
    const next = after.get(key);
    if (next === undefined) {
      if (newPaths.has(pathKey(op.path)))
        d.add(
          'operation-removed',
          `paths.${op.path}.${op.method}`,
          `${op.method.toUpperCase()} ${op.path} was removed`,
          removalExcuse(op),
        );
      continue;
    }
    const announced =
      next.operation['deprecated'] === true &&
      (announcesDeprecation(newDocument, next.operation) || announcesDeprecation(oldDocument, op.operation));
    compareOperations(
      d,
      op,
      next,
      announced
        ? `${op.method.toUpperCase()} ${next.path} is deprecated in the new document and announces it with a Deprecation/Sunset header`
        : undefined,
    );
  }

  // New version prefixes: compare each new operation with its predecessor under the highest old version.
  const oldVersions = versionsOf(oldDocument);
  const predecessors = new Map<string, Operation>();
  for (const op of [...before.values()].sort((x, y) =>
    (parsePath(x.path).version ?? '').localeCompare(parsePath(y.path).version ?? '', 'en', { numeric: true }),
  ))
    predecessors.set(unversionedKey(op.path, op.method), op);
  for (const [key, op] of after) {
    if (before.has(key)) continue;
    if (oldPaths.has(pathKey(op.path)))
      d.add(
        'operation-added',
        `paths.${op.path}.${op.method}`,
        `${op.method.toUpperCase()} ${op.path} was added`,
      );
    const version = parsePath(op.path).version?.toLowerCase();
    if (version === undefined || oldVersions.has(version)) continue;
    const previous = predecessors.get(unversionedKey(op.path, op.method));
    if (previous !== undefined)
      compareOperations(
        d,
        previous,
        op,
        `new API version v${version} (the old document has no /v${version} path; compared with ${previous.method.toUpperCase()} ${previous.path})`,
      );
  }

  const order: Record<ChangeLevel, number> = { error: 0, warning: 1, info: 2 };
  const changes = d.changes.sort(
    (x, y) =>
      order[x.level] - order[y.level] || (x.location < y.location ? -1 : x.location > y.location ? 1 : 0),
  );
  const count = (level: ChangeLevel): number => changes.filter((change) => change.level === level).length;
  return {
    old: options.oldSource ?? 'old',
    new: options.newSource ?? 'new',
    changes,
    breaking: count('error'),
    excused: count('warning'),
    info: count('info'),
    ok: count('error') === 0,
  };
}
