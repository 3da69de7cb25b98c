import { isHttpError, toProblem } from '@plumbline/errors';
import { describe, expect, it } from 'vitest';
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
    ['missing name', projectInput[2], {}, [{ pointer: '#/name', detail: 'This field is required.' }]],
    [
      'empty name',
      projectInput[2],
      { name: '' },
      [{ pointer: '#/name', detail: 'Must be at least 1 character.' }],
    ],
    [
      'long name',
      projectInput[2],
      { name: 'x'.repeat(101) },
      [{ pointer: '#/name', detail: 'Must be at most 100 characters.' }],
    ],
    [
      'bad status and v1 budget in v2',
      projectInput[2],
      { name: 'a', status: 'deleted', budget: 5 },
      [
        { pointer: '#/status', detail: 'Must be one of: active, archived.' },
        { pointer: '#/budget', detail: 'Must be of type object.' },
      ],
    ],
    [
      'v2 budget with an unknown currency',
      projectInput[2],
      { name: 'a', budget: { amount: 1, currency: 'XXX' } },
      [{ pointer: '#/budget/currency', detail: 'Must be one of: EUR, USD, GBP, CHF, JPY.' }],
    ],
    [
      'negative v1 budget',
      projectInput[1],
      { name: 'a', budget: -1 },
      [{ pointer: '#/budget', detail: 'Must be at least 0.' }],
    ],
    [
      'unknown field, with a pointer-escaped name',
      projectInput[1],
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

  it('accepts read-only fields (a GET body can be PUT back) and trims strings', () => {
    expect(
      validateBody(projectInput[2], {
        id: 'x',
        created_at: 'y',
        updated_at: 'z',
        name: '  Apollo ',
        budget: { amount: 5, currency: 'USD' },
      }),
    ).toMatchObject({ name: 'Apollo', budget: { amount: 5, currency: 'USD' } });
  });
});
