import { isHttpError, toProblem } from '@plumbline/errors';
import { describe, expect, it } from 'vitest';
import { projectData } from '../src/api/resources/projects.js';
import type { ProjectRow } from '../src/domain/model.js';
import { commentInput, projectInput, taskInput } from '../src/domain/schemas.js';
import { validateBody } from '../src/domain/validation.js';

function problemOf(run: () => unknown) {
  try {
    run();
  } catch (error) {
    if (isHttpError(error)) return toProblem(error);
    throw error;
  }
  throw new Error('expected a validation error');
}

describe('validateBody', () => {
  it.each([
    ['missing name', projectInput, {}, [{ pointer: '#/name', detail: 'This field is required.' }]],
    [
      'empty name',
      projectInput,
      { name: '' },
      [{ pointer: '#/name', detail: 'Must be at least 1 character.' }],
    ],
    [
      'long name',
      projectInput,
      { name: 'x'.repeat(101) },
      [{ pointer: '#/name', detail: 'Must be at most 100 characters.' }],
    ],
    [
      'bad status and v1 budget in v2',
      projectInput,
      { name: 'a', status: 'deleted', budget: 5 },
      [
        { pointer: '#/status', detail: 'Must be one of: active, archived.' },
        { pointer: '#/budget', detail: 'Must be of type object.' },
      ],
    ],
    [
      'v2 budget with an unknown currency',
      projectInput,
      { name: 'a', budget: { amount: 1, currency: 'XXX' } },
      [{ pointer: '#/budget/currency', detail: 'Must be one of: EUR, USD, GBP, CHF, JPY.' }],
    ],
    [
      'unknown field, with a pointer-escaped name',
      projectInput,
      { name: 'a', 'x/y~z': 1 },
      [{ pointer: '#/x~1y~0z', detail: 'This field is not part of the resource.' }],
    ],
    [
      'task: short title, priority 6, float priority, impossible date',
      taskInput,
      { title: 'ab', priority: 6, due_date: '2024-13-45' },
      [
        { pointer: '#/title', detail: 'Must be at least 3 characters.' },
        { pointer: '#/priority', detail: 'Must be at most 5.' },
        { pointer: '#/due_date', detail: 'Must be a date (YYYY-MM-DD).' },
      ],
    ],
    [
      'task: fractional priority',
      taskInput,
      { title: 'abc', priority: 2.5 },
      [{ pointer: '#/priority', detail: 'Must be an integer.' }],
    ],
    [
      'comment: empty body',
      commentInput,
      { body: '   ' },
      [{ pointer: '#/body', detail: 'Must be at least 1 character.' }],
    ],
    ['an array', taskInput, [], [{ pointer: '#', detail: 'The body must be a JSON object.' }]],
    ['null', taskInput, null, [{ pointer: '#', detail: 'The body must be a JSON object.' }]],
    [
      'unknown member whose name needs percent-encoding in a URI fragment',
      taskInput,
      { title: 'abc', 'a b#c': 1 },
      [{ pointer: '#/a%20b%23c', detail: 'This field is not part of the resource.' }],
    ],
  ])('%s → 400 with every field error', (_name, schema, body, errors) => {
    const problem = problemOf(() => validateBody(schema as typeof taskInput, body));
    expect(problem.status).toBe(400);
    expect(problem.error_code).toBe('validation_failed');
    expect(problem.errors).toEqual(errors.map((e) => ({ ...e, error_code: 'invalid_value' })));
    expect(problem.detail).toBe(
      `The request has ${errors.length} invalid ${errors.length === 1 ? 'value' : 'values'}.`,
    );
  });

  // v1 has no schema of its own: its body is migrated up to v2 (domain/versions.ts) and validated,
  // and the field errors point at the members as v1 names them.
  it.each([
    [
      'negative v1 budget',
      { name: 'a', budget: -1 },
      [{ pointer: '#/budget', detail: 'Must be at least 0.' }],
    ],
    [
      'unknown field in v1, with a pointer-escaped name',
      { name: 'a', 'x/y~z': 1 },
      [{ pointer: '#/x~1y~0z', detail: 'This field is not part of the resource.' }],
    ],
    [
      'v2 budget in v1',
      { name: 'a', budget: { amount: 1, currency: 'EUR' } },
      [{ pointer: '#/budget', detail: 'Must be of type number.' }],
    ],
    [
      'v1 budget not a number',
      { name: 'a', budget: 'lots' },
      [{ pointer: '#/budget', detail: 'Must be of type number.' }],
    ],
  ])('%s → 400 with every field error', (_name, body, errors) => {
    const problem = problemOf(() => projectData(1, body));
    expect(problem.status).toBe(400);
    expect(problem.errors).toEqual(errors.map((e) => ({ ...e, error_code: 'invalid_value' })));
  });

  it('a v1 amount keeps the stored currency, EUR for a new budget; null stays null', () => {
    const current = { budget_currency: 'GBP' } as ProjectRow;
    expect(projectData(1, { name: 'a', budget: 12 }, current)).toMatchObject({
      budget_amount: 12,
      budget_currency: 'GBP',
    });
    expect(projectData(1, { name: 'a', budget: 12 })).toMatchObject({
      budget_amount: 12,
      budget_currency: 'EUR',
    });
    expect(projectData(1, { name: 'a', budget: null }, current)).toMatchObject({
      budget_amount: null,
      budget_currency: null,
    });
  });

  it('accepts read-only fields (a GET body can be PUT back) and trims strings', () => {
    expect(
      validateBody(projectInput, {
        id: 'x',
        created_at: 'y',
        updated_at: 'z',
        name: '  Apollo ',
        budget: { amount: 5, currency: 'USD' },
      }),
    ).toMatchObject({ name: 'Apollo', budget: { amount: 5, currency: 'USD' } });
  });
});
