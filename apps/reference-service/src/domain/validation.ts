/**
 * Request-body validation: every problem in one 400 `validation_failed`, each with an RFC 6901
 * pointer (URI fragment form, `#/name`, as everywhere) to the offending member (docs/design.md#d-errors, `errors`).
 */
import { type FieldIssue, HttpError, jsonPointer as pointer } from '@plumbline/errors';
import type { z } from 'zod';

type Issue = z.core.$ZodIssue;

// zod does not report the input by default, so presence is read from the body itself.
function present(body: unknown, path: readonly PropertyKey[]): boolean {
  let value = body;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return false;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value !== undefined;
}

const characters = (n: unknown) => `${String(n)} ${Number(n) === 1 ? 'character' : 'characters'}`;

function expectation(issue: Issue, body: unknown): string {
  switch (issue.code) {
    case 'invalid_type':
      if (!present(body, issue.path)) return 'This field is required.';
      return issue.expected === 'int' ? 'Must be an integer.' : `Must be of type ${issue.expected}.`;
    case 'too_small':
      return issue.origin === 'string'
        ? `Must be at least ${characters(issue.minimum)}.`
        : `Must be ${issue.inclusive ? 'at least' : 'greater than'} ${issue.minimum}.`;
    case 'too_big':
      return issue.origin === 'string'
        ? `Must be at most ${characters(issue.maximum)}.`
        : `Must be ${issue.inclusive ? 'at most' : 'less than'} ${issue.maximum}.`;
    case 'invalid_value':
      return `Must be one of: ${issue.values.map((v) => String(v)).join(', ')}.`;
    case 'invalid_format':
      return issue.format === 'date' ? 'Must be a date (YYYY-MM-DD).' : `Must be a valid ${issue.format}.`;
    default:
      return 'Invalid value.';
  }
}

function toFieldIssues(issue: Issue, body: unknown): FieldIssue[] {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({
      pointer: pointer([...issue.path, key]),
      code: 'invalid_value',
      detail: 'This field is not part of the resource.',
    }));
  }
  return [{ pointer: pointer(issue.path), code: 'invalid_value', detail: expectation(issue, body) }];
}

/**
 * Parses `body` with `schema` or throws one `HttpError('validation_failed')` listing every problem.
 *
 * @example
 * ```ts
 * const input = validateBody(taskInput, req.body);
 * ```
 */
export function validateBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HttpError('validation_failed', {
      params: { count: 1 },
      errors: [{ pointer: '#', code: 'invalid_value', detail: 'The body must be a JSON object.' }],
    });
  }
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const errors = result.error.issues.flatMap((issue) => toFieldIssues(issue, body));
  throw new HttpError('validation_failed', { params: { count: errors.length }, errors });
}
