/**
 * Resource schemas of the project tracker. One zod schema per payload validates requests and, through
 * `z.toJSONSchema`, produces the OpenAPI document, so the two cannot drift apart.
 */
import { z } from 'zod';

export const PROJECT_STATUSES = ['active', 'archived'] as const;
export const TASK_STATUSES = ['todo', 'in_progress', 'done'] as const;
const CURRENCIES = ['EUR', 'USD', 'GBP', 'CHF', 'JPY'] as const;

/** Fields a client may send but the server owns: accepted (so a GET body can be PUT back) and ignored. */
const readOnly = {
  id: z.string().optional(),
  created_at: z.string().optional(),
  updated_at: z.string().optional(),
};

const name = z.string().trim().min(1).max(100);
/** The project's summary (`description` before v3, domain/versions.ts; the column keeps that name). */
const summary = z.string().max(2000).nullable();
const projectStatus = z.enum(PROJECT_STATUSES);

/**
 * The budget: amount and currency (the breaking change of v2). Written against the newest version
 * only; v1's bare amount is derived from it by the declared change (domain/versions.ts).
 */
const budget = z
  .object({ amount: z.number().finite().min(0).max(1e12), currency: z.enum(CURRENCIES) })
  .strict()
  .nullable();

/** Body of POST and PUT for projects (the newest version; an older version's body is migrated up before it). */
export const projectInput = z
  .object({
    ...readOnly,
    name,
    summary: summary.optional(),
    status: projectStatus.optional(),
    budget: budget.optional(),
  })
  .strict();

const title = z.string().trim().min(3).max(200);
const taskStatus = z.enum(TASK_STATUSES);
const priority = z.number().int().min(1).max(5);
const dueDate = z.iso.date().nullable();

/** Body of POST and PUT for tasks (the same in both versions). */
export const taskInput = z
  .object({
    ...readOnly,
    project_id: z.string().optional(),
    title,
    status: taskStatus.optional(),
    priority: priority.optional(),
    due_date: dueDate.optional(),
  })
  .strict();

/** Body of POST for comments. */
export const commentInput = z
  .object({
    ...readOnly,
    task_id: z.string().optional(),
    author: z.string().optional(),
    body: z.string().trim().min(1).max(5000),
  })
  .strict();

/** Response representations, for the OpenAPI document (the newest version; the older ones' are generated from them). */
export const projectOutput = z.object({
  id: z.uuid(),
  name,
  summary,
  status: projectStatus,
  budget,
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});

export const taskOutput = z.object({
  id: z.uuid(),
  project_id: z.uuid(),
  title,
  status: taskStatus,
  priority,
  due_date: dueDate,
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});

export const commentOutput = z.object({
  id: z.uuid(),
  task_id: z.uuid(),
  body: z.string(),
  author: z.string(),
  created_at: z.iso.datetime(),
});
