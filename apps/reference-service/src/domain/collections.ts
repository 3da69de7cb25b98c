/**
 * The collections' query grammar, declared once with @plumbline/query-parser: what may be filtered
 * (and with which operators), sorted, searched and selected. Anything else is a 400, never ignored
 * (docs/conventions.md 4.4 (3) to (5)).
 */
import { defineCollection } from '@plumbline/query-parser';
import { PROJECT_STATUSES, TASK_STATUSES } from './schemas.js';

export function defineCollections(cursorSecret: string | undefined) {
  const shared = {
    pagination: ['offset', 'page', 'cursor'] as const,
    defaultSort: '-created_at',
    ...(cursorSecret ? { cursorSecret } : {}),
  };
  const projects = defineCollection({
    ...shared,
    fields: {
      id: { type: 'uuid', sort: true },
      name: { type: 'string', filter: ['eq'], sort: true, search: true },
      summary: { type: 'string', column: 'description', search: true, nullable: true },
      status: { type: 'enum', values: PROJECT_STATUSES, filter: ['eq', 'ne', 'in'] },
      budget: { type: 'number', column: 'budget_amount', sort: true, filter: ['gte', 'lte'], nullable: true },
      created_at: { type: 'date-time', sort: true, filter: ['gte', 'lt'] },
      updated_at: { type: 'date-time', sort: true },
      // v1 and v2 name `summary` `description` (domain/versions.ts): the grammar knows both names,
      // each version accepts only its own (`queryFieldsOf`, checked by the project handlers).
      description: { type: 'string', nullable: true },
    },
  });
  const tasks = defineCollection({
    ...shared,
    fields: {
      id: { type: 'uuid', sort: true },
      project_id: { type: 'uuid', filter: ['eq', 'in'] },
      title: { type: 'string', sort: true, search: true },
      status: { type: 'enum', values: TASK_STATUSES, filter: ['eq', 'ne', 'in'] },
      priority: { type: 'int', filter: ['eq', 'gte', 'gt', 'lte', 'lt'], sort: true },
      due_date: { type: 'date', filter: ['eq', 'gte', 'lte'], sort: true, nullable: true },
      created_at: { type: 'date-time', sort: true, filter: ['gte', 'lt'] },
      updated_at: { type: 'date-time', sort: true },
    },
  });
  const comments = defineCollection({
    ...shared,
    fields: {
      id: { type: 'uuid', sort: true },
      task_id: { type: 'uuid' },
      body: { type: 'string', search: true },
      author: { type: 'string', filter: ['eq'] },
      created_at: { type: 'date-time', sort: true, filter: ['gte', 'lt'] },
    },
  });
  return { projects, tasks, comments };
}

export type Collections = ReturnType<typeof defineCollections>;
