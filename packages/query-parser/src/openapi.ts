import type { Collection, CompiledField } from './collection.js';

/**
 * An OpenAPI 3.1 parameter object (the subset this package writes).
 *
 * @example
 * ```ts
 * const p: OpenApiParameter = { name: 'limit', in: 'query', required: false, schema: { type: 'integer' } };
 * ```
 */
export interface OpenApiParameter {
  readonly name: string;
  readonly in: 'query';
  readonly required: false;
  readonly description: string;
  readonly schema: Readonly<Record<string, unknown>>;
  readonly style?: 'form';
  readonly explode?: boolean;
}

function schemaOf(field: CompiledField): Record<string, unknown> {
  switch (field.type) {
    case 'string':
      return { type: 'string', minLength: 1 };
    case 'int':
      return { type: 'integer' };
    case 'number':
      return { type: 'number' };
    case 'boolean':
      return { type: 'boolean' };
    case 'date':
      return { type: 'string', format: 'date' };
    case 'date-time':
      return { type: 'string', format: 'date-time' };
    case 'enum':
      return { type: 'string', enum: [...(field.values ?? [])] };
    case 'uuid':
      return { type: 'string', format: 'uuid' };
  }
}

/**
 * The `sort` schema: exactly the values `parseQuery` accepts, in one `pattern` — one to
 * `maxSortKeys` keys, each a sortable field in one of the three shapes (never a sign together with
 * a direction suffix), and no field twice (`name,-name`). The "no field twice" part is a negative
 * lookahead with a backreference: ECMA-262 regular expressions, the dialect JSON Schema's `pattern`
 * is written in (draft 2020-12 section 6.4). A validator with another regex engine that cannot
 * compile it answers nothing wrong: the parser's 400 stays the authority.
 */
function sortSchema(collection: Collection): Record<string, unknown> {
  const fields = collection.sortable.join('|');
  const names = `(?:${fields})`;
  const direction = '(?:[:_](?:asc|desc))';
  const key = `(?:[-+]?${names}|${names}${direction})`;
  // From the start, skip whole keys (`[^,]*,`), find a key on some field, skip more keys, and find a
  // key on the same field (`\1`) that ends at a comma or the end: then the value repeats a field.
  const repeated = `(?:[^,]*,)*[-+]?(${fields})${direction}?,(?:[^,]*,)*[-+]?\\1${direction}?(?:,|$)`;
  return {
    type: 'string',
    pattern: `^(?!${repeated})${key}(?:,${key}){0,${collection.maxSortKeys - 1}}$`,
  };
}

const OP_TEXT = { ne: 'not equal to', gt: 'greater than', gte: 'at least', lt: 'less than', lte: 'at most' };

/**
 * OpenAPI 3.1 query parameter objects for a collection: one per allowed filter (`status`,
 * `priority[gte]`, `status[in]` as a comma list), `q`, `sort` (with the sortable fields),
 * the pagination parameters of the enabled modes with their limits, and `fields`.
 *
 * @example
 * ```ts
 * const spec = { paths: { '/tasks': { get: { parameters: toOpenApiParameters(tasks) } } } };
 * ```
 */
export function toOpenApiParameters(collection: Collection): OpenApiParameter[] {
  const out: OpenApiParameter[] = [];
  const p = (name: string, description: string, schema: Record<string, unknown>, extra = {}) =>
    out.push({ name, in: 'query', required: false, description, schema, ...extra });
  for (const name of collection.filterable) {
    const field = collection.fields.get(name)!;
    const schema = schemaOf(field);
    for (const op of field.operators) {
      if (op === 'eq') {
        if (field.repeatable) {
          p(
            name,
            `Only items whose ${name} equals one of the values (repeat the parameter).`,
            {
              type: 'array',
              items: schema,
              maxItems: collection.maxInValues,
            },
            { style: 'form', explode: true },
          );
        } else p(name, `Only items whose ${name} equals the value.`, schema);
      } else if (op === 'in') {
        p(
          `${name}[in]`,
          `Only items whose ${name} is one of the comma-separated values.`,
          {
            type: 'array',
            items: schema,
            minItems: 1,
            maxItems: collection.maxInValues,
          },
          { style: 'form', explode: false },
        );
      } else p(`${name}[${op}]`, `Only items whose ${name} is ${OP_TEXT[op]} the value.`, schema);
    }
  }
  if (collection.searchable.length > 0) {
    p('q', `Literal, case-insensitive search in ${collection.searchable.join(', ')}.`, {
      type: 'string',
      minLength: collection.searchMinLength,
      maxLength: collection.searchMaxLength,
    });
  }
  if (collection.sortable.length > 0) {
    p(
      'sort',
      `Up to ${collection.maxSortKeys} comma-separated keys, each field at most once: -field or +field, field:asc|desc, field_asc|desc, or a bare field (ascending). Sortable: ${collection.sortable.join(', ')}.`,
      sortSchema(collection),
    );
  }
  const modes = collection.pagination;
  const limit = {
    type: 'integer',
    minimum: 1,
    maximum: collection.maxLimit,
    default: collection.defaultLimit,
  };
  if (modes.includes('offset') || modes.includes('cursor')) p('limit', 'Items per page.', limit);
  if (modes.includes('offset'))
    p('offset', 'Items to skip.', { type: 'integer', minimum: 0, maximum: collection.maxOffset, default: 0 });
  if (modes.includes('page')) {
    p('page', 'Page number, from 1.', { type: 'integer', minimum: 1, default: 1 });
    p('size', 'Items per page (with page).', limit);
  }
  if (modes.includes('cursor')) p('cursor', 'Opaque cursor from page.next_cursor.', { type: 'string' });
  out.push(fieldsParameter(collection));
  return out;
}

function fieldsParameter(collection: Collection): OpenApiParameter {
  return {
    name: 'fields',
    in: 'query',
    required: false,
    description: `Comma-separated fields to return (${collection.id} is always returned).`,
    schema: { type: 'array', items: { type: 'string', enum: [...collection.selectable] }, uniqueItems: true },
    style: 'form',
    explode: false,
  };
}

/**
 * OpenAPI 3.1 query parameters of a single member of the collection (what `parseMemberQuery`
 * accepts): `fields` only.
 *
 * @example
 * ```ts
 * const spec = { paths: { '/tasks/{id}': { get: { parameters: toOpenApiMemberParameters(tasks) } } } };
 * ```
 */
export function toOpenApiMemberParameters(collection: Collection): OpenApiParameter[] {
  return [fieldsParameter(collection)];
}
