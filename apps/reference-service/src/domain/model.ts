/** Stored rows and their representations (in the newest API version's shape). */
import { asXmlSchema } from './schema-name.js';

/** The declared versions (domain/versions.ts) as numbers. */
export type { ApiVersion } from './versions.js';

/** A project as stored (one row of `projects`). */
export interface ProjectRow {
  id: string;
  name: string;
  description: string | null;
  status: 'active' | 'archived';
  budget_amount: number | null;
  budget_currency: string | null;
  created_at: string;
  updated_at: string;
}

export interface TaskRow {
  id: string;
  project_id: string;
  title: string;
  status: 'todo' | 'in_progress' | 'done';
  priority: number;
  due_date: string | null;
  created_at: string;
  updated_at: string;
}

export interface CommentRow {
  id: string;
  task_id: string;
  body: string;
  author: string;
  created_at: string;
}

/**
 * The project in the newest version's shape (budget `{ amount, currency }`, `summary`). Older versions get it
 * migrated down by the declared changes (domain/versions.ts); the caller marks its XML schema.
 */
export function projectRepresentation(row: ProjectRow): Record<string, unknown> {
  return {
    id: row.id,
    name: row.name,
    summary: row.description,
    status: row.status,
    budget:
      row.budget_amount === null
        ? null
        : { amount: row.budget_amount, currency: row.budget_currency ?? 'EUR' },
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function taskRepresentation(row: TaskRow): Record<string, unknown> {
  return asXmlSchema('Task', {
    id: row.id,
    project_id: row.project_id,
    title: row.title,
    status: row.status,
    priority: Number(row.priority),
    due_date: row.due_date,
    created_at: row.created_at,
    updated_at: row.updated_at,
  });
}

export function commentRepresentation(row: CommentRow): Record<string, unknown> {
  return asXmlSchema('Comment', {
    id: row.id,
    task_id: row.task_id,
    body: row.body,
    author: row.author,
    created_at: row.created_at,
  });
}

/** Keeps only the selected fields (`fields=`); `id` is always kept. */
export function selectFields(
  representation: Record<string, unknown>,
  fields: readonly string[] | undefined,
): Record<string, unknown> {
  if (!fields || fields.length === 0) return representation;
  const out: Record<PropertyKey, unknown> = { id: representation['id'] };
  for (const field of fields) if (Object.hasOwn(representation, field)) out[field] = representation[field];
  // The XML schema mark (a non-enumerable symbol) goes along, so a sparse member is still XML.
  for (const mark of Object.getOwnPropertySymbols(representation)) {
    Object.defineProperty(out, mark, {
      value: (representation as Record<symbol, unknown>)[mark],
      enumerable: false,
    });
  }
  return out as Record<string, unknown>;
}
