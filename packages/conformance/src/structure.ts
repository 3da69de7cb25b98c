/**
 * What a document's structure says about its paths, so the vocabulary rules do not decide from a
 * word alone: which paths are collections (they have members, page, or answer with a list), and
 * which fields a collection's items have (a path segment naming one is a filter, not a resource).
 * Computed once per document.
 */
import {
  deref,
  isObject,
  type JsonObject,
  operationsOf,
  paginationStyle,
  parametersOf,
  parsePath,
  pathsOf,
} from './openapi.js';

/** The structural facts about a document's paths. */
export interface DocumentStructure {
  /** Path templates that are collections. */
  readonly collections: ReadonlySet<string>;
  /** Path templates that have members (`<path>/{id}` exists). */
  readonly withMembers: ReadonlySet<string>;
  /** Per collection path: its filterable fields (query parameters and boolean/enum item properties). */
  readonly fields: ReadonlyMap<string, ReadonlySet<string>>;
  /** Per collection path: the enum values of its items' properties (e.g. `active`, `archived`). */
  readonly states: ReadonlyMap<string, ReadonlySet<string>>;
  /**
   * Segment names the document manages as collections: listed (a collection by the rules above) and
   * addressed by member (`<segment>/{id}` read or written with GET, PUT, PATCH or DELETE), such as
   * `import-export-file` or authentik's `user_delete` stages. Such a name is a noun wherever it stands.
   */
  readonly managed: ReadonlySet<string>;
}

/** Methods that read or write a member. */
const MEMBER_METHODS = ['get', 'put', 'patch', 'delete'] as const;

/**
 * Whether a path's GET answers one value, not a list: the JSON schema of its first 2xx response
 * (or of `default` without one) is a scalar (Signal K's default provider id) or an object without a
 * list member (see `listItems`).
 *
 * @example
 * ```ts
 * answersOneValue(openapi, openapi.paths['/me']); // true: { id, name, email }
 * ```
 */
export function answersOneValue(document: unknown, item: JsonObject | undefined): boolean {
  const get = item?.['get'];
  if (!isObject(get)) return false;
  let schema = successSchema(document, get);
  if (schema === undefined) {
    const responses = deref(document, get['responses']);
    const fallback = isObject(responses) ? deref(document, responses['default']) : undefined;
    const content = isObject(fallback) ? deref(document, fallback['content']) : undefined;
    const media = isObject(content)
      ? Object.entries(content).find(([type]) => /json/i.test(type))?.[1]
      : undefined;
    const resolved = isObject(media) ? deref(document, media['schema']) : undefined;
    schema = isObject(resolved) ? resolved : undefined;
  }
  if (schema === undefined || schema['type'] === 'array') return false;
  if (['string', 'number', 'integer', 'boolean'].includes(String(schema['type']))) return true;
  return isObject(schema['properties']) && listItems(document, schema, '') === undefined;
}

/** A path without its trailing slash (authentik writes `/stages/user_delete/`). */
const trimmed = (path: string): string => path.replace(/(.)\/+$/, '$1');

/** Whether the document treats a path as a collection, with or without a trailing slash. */
function isListed(structure: DocumentStructure, path: string): boolean {
  return (
    structure.collections.has(path) ||
    structure.collections.has(`${trimmed(path)}/`) ||
    structure.collections.has(trimmed(path))
  );
}

const LIST_MEMBERS = new Set(['data', 'items', 'results', 'records', 'entries', 'values', 'nodes', 'list']);
const cache = new WeakMap<object, DocumentStructure>();

/**
 * The JSON schema of an operation's first 2xx response that has one.
 *
 * @example
 * ```ts
 * successSchema(openapi, openapi.paths['/v2/projects'].get); // { type: 'object', properties: { data: ... } }
 * ```
 */
export function successSchema(document: unknown, operation: JsonObject): JsonObject | undefined {
  const responses = deref(document, operation['responses']);
  if (!isObject(responses)) return undefined;
  for (const [status, raw] of Object.entries(responses)) {
    if (!/^2/.test(status)) continue;
    const response = deref(document, raw);
    const content = isObject(response) ? deref(document, response['content']) : undefined;
    if (!isObject(content)) continue;
    const media = Object.entries(content).find(([type]) => /json|\*\/\*/i.test(type))?.[1];
    const schema = isObject(media) ? deref(document, media['schema']) : undefined;
    if (isObject(schema)) return schema;
  }
  return undefined;
}

/**
 * Whether an operation's success response is a list: a JSON array, or an object wrapping one under
 * a list member (`data`, `items`) or a member named like the path's last segment (see `listItems`).
 *
 * @example
 * ```ts
 * answersList(openapi, openapi.paths['/v2/projects'].get, 'projects'); // true: { data: [...] }
 * ```
 */
export function answersList(document: unknown, operation: JsonObject, name: string): boolean {
  return listItems(document, successSchema(document, operation), name) !== undefined;
}

/** The last word of a name (`workflow_runs` → runs, `hosted-runners` → runners, `checkRuns` → runs). */
function lastWord(name: string): string {
  return (
    normalize(name)
      .split('_')
      .filter((word) => word !== '')
      .at(-1) ?? ''
  );
}

/** Members that count the items of a list wrapped in an object (`{total_count, workflow_runs: [...]}`). */
const COUNT_MEMBERS = new Set(['total_count', 'total', 'count', 'total_items', 'total_results']);

/**
 * The item schema of a list response: the array itself, or an array member named like a list
 * (`data`, `items`) or like the segment (`/templates` → `templates`, `/runs` → `workflow_runs`).
 */
function listItems(document: unknown, schema: JsonObject | undefined, name: string): JsonObject | undefined {
  if (schema === undefined) return undefined;
  if (schema['type'] === 'array') {
    const items = deref(document, schema['items']);
    return isObject(items) ? items : {};
  }
  const properties = deref(document, schema['properties']);
  if (!isObject(properties)) return undefined;
  const arrays: [string, JsonObject][] = [];
  for (const [key, raw] of Object.entries(properties)) {
    const property = deref(document, raw);
    if (isObject(property) && property['type'] === 'array') arrays.push([key, property]);
  }
  const head = lastWord(name);
  // A member named like the segment is the list when the object holds little else (a count, a
  // link): `{total_count, workflow_runs: [...]}` is a page of runs, while `{url, strict, checks: [...]}`
  // (GitHub's required status checks) is one object that has a list.
  const keys = Object.keys(properties);
  const wrapper = keys.length <= 3 || keys.some((key) => COUNT_MEMBERS.has(normalize(key)));
  const list = arrays.find(
    ([key]) =>
      LIST_MEMBERS.has(key) || (wrapper && (key === name || (head !== '' && lastWord(key) === head))),
  );
  if (list === undefined) return undefined;
  const items = deref(document, list[1]['items']);
  return isObject(items) ? items : {};
}

function propertiesOf(document: unknown, schema: JsonObject | undefined): [string, JsonObject][] {
  if (schema === undefined) return [];
  const parts = [schema, ...(Array.isArray(schema['allOf']) ? schema['allOf'] : [])];
  return parts.flatMap((part) => {
    const resolved = deref(document, part);
    const properties = isObject(resolved) ? deref(document, resolved['properties']) : undefined;
    if (!isObject(properties)) return [];
    return Object.entries(properties).flatMap(([name, raw]) => {
      const property = deref(document, raw);
      return isObject(property) ? [[name, property] as [string, JsonObject]] : [];
    });
  });
}

function normalize(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[-\s]+/g, '_');
}

/**
 * The structure of a document (cached per document object).
 *
 * @example
 * ```ts
 * structureOf(openapi).collections.has('/v2/projects'); // true when it has members, pages or lists
 * ```
 */
export function structureOf(document: unknown): DocumentStructure {
  if (isObject(document) && cache.has(document)) return cache.get(document)!;
  const items = pathsOf(document);
  const paths = items.map(([path]) => path);
  const byPath = new Map(items);
  const withMembers = new Set<string>();
  for (const [path, item] of items) {
    const cut = path.lastIndexOf('/');
    if (cut <= 0 || !/^\{[^{}]+\}$/.test(path.slice(cut + 1))) continue;
    // A singleton's action keyed by an id is not a member: GET /_providers/_default answers the one
    // default provider and POST /_providers/_default/{id} changes it; GET /state answers the current
    // state and POST /state/{transition} runs a transition.
    const parent = path.slice(0, cut);
    if (
      !MEMBER_METHODS.some((method) => isObject(item[method])) &&
      answersOneValue(document, byPath.get(parent))
    )
      continue;
    withMembers.add(parent);
  }
  const collections = new Set<string>();
  const fields = new Map<string, Set<string>>();
  const states = new Map<string, Set<string>>();
  for (const op of operationsOf(document)) {
    const shape = parsePath(op.path);
    const last = shape.segments.at(-1);
    if (last === undefined || last.param || op.method !== 'get') continue;
    const query = parametersOf(document, op).filter((p) => p.in === 'query');
    const items = listItems(document, successSchema(document, op.operation), last.text);
    const isCollection =
      withMembers.has(op.path) ||
      paginationStyle(query.map((p) => p.name)) !== undefined ||
      items !== undefined;
    if (!isCollection) continue;
    collections.add(op.path);
    const names = new Set(query.map((p) => normalize(p.name)));
    const values = new Set<string>();
    for (const p of query) for (const value of enumOf(p.schema)) values.add(value);
    for (const [name, property] of propertiesOf(document, items)) {
      const enumValues = enumOf(property);
      if (property['type'] === 'boolean' || enumValues.length > 0) names.add(normalize(name));
      for (const value of enumValues) values.add(value);
    }
    fields.set(op.path, names);
    states.set(op.path, values);
  }
  // A path with members is a collection when it ends in a static segment (/projects with
  // /projects/{id}); /gists/{gist_id} with /gists/{gist_id}/{sha} is a member with versions.
  for (const path of withMembers)
    if (paths.includes(path) && parsePath(path).segments.at(-1)?.param === false) collections.add(path);
  // Names listed by a GET whose members are written (PUT, PATCH, DELETE) are managed collections.
  const managed = new Set<string>();
  const structure = { collections, withMembers, fields, states, managed };
  for (const [path, item] of items) {
    const segments = parsePath(path).segments;
    const [before, last] = segments.slice(-2);
    if (last?.param !== true || before?.param !== false) continue;
    if (!['put', 'patch', 'delete'].some((method) => isObject(item[method]))) continue;
    const collection = prefixOf(path, segments.length - 2);
    const listing = byPath.get(collection) ?? byPath.get(`${collection}/`);
    if (isObject(listing?.['get']) && isListed(structure, collection)) managed.add(before.text);
  }
  if (isObject(document)) cache.set(document, structure);
  return structure;
}

function enumOf(schema: JsonObject | undefined): string[] {
  const list = schema?.['enum'];
  return Array.isArray(list)
    ? list.filter((value): value is string => typeof value === 'string').map(normalize)
    : [];
}

/**
 * The template of a path up to (and including) its segment `index` (counted after the version
 * prefix), e.g. `/v1/projects/{id}/tasks`, 0 → `/v1/projects`.
 *
 * @example
 * ```ts
 * prefixOf('/v1/projects/{id}/tasks', 0); // '/v1/projects'
 * ```
 */
export function prefixOf(path: string, index: number): string {
  const raw = path.split('/').filter((part) => part !== '');
  const offset = raw.length - parsePath(path).segments.length;
  return `/${raw.slice(0, offset + index + 1).join('/')}`;
}

export { normalize as normalizeName };
