/**
 * Standard Schema glue: run any validator that implements the spec (zod 4, valibot, arktype, ...)
 * and read its issues as JSON Pointers; ask it for JSON Schema through the Standard JSON Schema
 * extension. Nothing here knows a particular validator.
 */
import { jsonPointer } from '@plumbline/errors';
import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';

export type { StandardJSONSchemaV1 };

/**
 * Any Standard Schema value (zod 4, valibot, arktype, effect/schema, ...).
 *
 * @example
 * ```ts
 * const schema: AnySchema = z.object({ name: z.string() });
 * ```
 */
export type AnySchema = StandardSchemaV1<unknown, unknown>;

/**
 * The value a schema accepts.
 *
 * @example
 * ```ts
 * type ProjectInput = InputOf<typeof Project>;
 * ```
 */
export type InputOf<S> = S extends StandardSchemaV1<infer I, unknown> ? I : never;
/**
 * The value a schema produces (defaults filled, coercions applied).
 *
 * @example
 * ```ts
 * type ProjectRow = OutputOf<typeof Project>;
 * ```
 */
export type OutputOf<S> = S extends StandardSchemaV1<unknown, infer O> ? O : never;

/**
 * One problem a schema found: where (path segments from the validated value) and the validator's message.
 *
 * @example
 * ```ts
 * const issue: SchemaIssue = { path: ['budget'], message: 'Too small: expected number to be >=0' };
 * ```
 */
export interface SchemaIssue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/**
 * A schema's verdict: the parsed value or every issue.
 *
 * @example
 * ```ts
 * const result: SchemaResult<number> = { ok: false, issues: [{ path: [], message: 'Expected number' }] };
 * ```
 */
export type SchemaResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly issues: readonly SchemaIssue[] };

/**
 * Whether `value` is a Standard Schema (has a `~standard` member with `validate`).
 *
 * @example
 * ```ts
 * isStandardSchema(z.string()); // true
 * isStandardSchema({ type: 'string' }); // false: a JSON Schema, not a validator
 * ```
 */
export function isStandardSchema(value: unknown): value is AnySchema {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const props = (value as { '~standard'?: { validate?: unknown; version?: unknown } })['~standard'];
  return (
    typeof props === 'object' && props !== null && typeof props.validate === 'function' && props.version === 1
  );
}

function segments(path: StandardSchemaV1.Issue['path']): PropertyKey[] {
  if (path === undefined) return [];
  return path.map((segment) => (typeof segment === 'object' && segment !== null ? segment.key : segment));
}

function toResult<T>(result: StandardSchemaV1.Result<unknown>): SchemaResult<T> {
  if (result.issues === undefined) return { ok: true, value: (result as { value: T }).value };
  const issues: SchemaIssue[] = [];
  for (const issue of result.issues) {
    const path = segments(issue.path);
    // zod reports all unknown members of an object as one issue at the object; one per member
    // gives each its own pointer, as valibot and arktype do.
    const keys = (issue as { code?: unknown; keys?: unknown }).keys;
    if (
      (issue as { code?: unknown }).code === 'unrecognized_keys' &&
      Array.isArray(keys) &&
      keys.length > 0
    ) {
      for (const key of keys)
        issues.push({ path: [...path, String(key)], message: 'This member is not allowed.' });
    } else issues.push({ path, message: issue.message });
  }
  return { ok: false, issues };
}

/**
 * Runs a schema; synchronous validators stay synchronous (no promise per request), asynchronous ones
 * (an async refinement) return a promise.
 *
 * @example
 * ```ts
 * const result = await runSchema(z.coerce.number(), '42'); // { ok: true, value: 42 } (sync validators answer at once)
 * ```
 */
export function runSchema<T>(schema: AnySchema, value: unknown): SchemaResult<T> | Promise<SchemaResult<T>> {
  const result = schema['~standard'].validate(value);
  return result instanceof Promise ? result.then((r) => toResult<T>(r)) : toResult<T>(result);
}

/**
 * The JSON Pointer (URI fragment form, `#/a/0/b`) of an issue's path below `prefix`.
 *
 * @example
 * ```ts
 * pointerOf(['items', 0, 'name']); // '#/items/0/name'
 * pointerOf(['name'], ['data', 3]); // '#/data/3/name'
 * ```
 */
export function pointerOf(path: readonly PropertyKey[], prefix: readonly PropertyKey[] = []): string {
  return jsonPointer(
    [...prefix, ...path].map((key) => (typeof key === 'symbol' ? String(key.description) : key)),
  );
}

/**
 * Whether a schema can describe itself as JSON Schema (the Standard JSON Schema extension).
 *
 * @example
 * ```ts
 * if (hasJsonSchema(schema)) document.components.schemas.Project = jsonSchemaOf(schema, 'output');
 * ```
 */
export function hasJsonSchema(schema: AnySchema): schema is AnySchema & StandardJSONSchemaV1 {
  const props = schema['~standard'] as Partial<StandardJSONSchemaV1.Props>;
  return (
    typeof props.jsonSchema === 'object' &&
    props.jsonSchema !== null &&
    typeof props.jsonSchema.input === 'function'
  );
}

/**
 * The JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1) of what a schema accepts (`input`) or
 * produces (`output`), without the `$schema` member.
 *
 * @example
 * ```ts
 * jsonSchemaOf(z.object({ name: z.string() }), 'input');
 * // { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }
 * ```
 */
export function jsonSchemaOf(schema: AnySchema, io: 'input' | 'output'): Record<string, unknown> {
  if (!hasJsonSchema(schema)) {
    throw new TypeError(
      `@plumbline/contract: the ${schema['~standard'].vendor} schema cannot describe itself as JSON Schema; ` +
        'use a validator that implements Standard JSON Schema (zod >= 4.2, arktype >= 2.1.28, valibot through @valibot/to-json-schema toStandardJsonSchema())',
    );
  }
  const { $schema: _ignored, ...rest } = schema['~standard'].jsonSchema[io]({ target: 'draft-2020-12' });
  return rest;
}
