import { isHttpError, toProblem } from '@plumbline/errors';
import { describe, expect, it } from 'vitest';
import { tasks } from '../test/fixtures.js';
import { defineCollection, parseMemberQuery, toOpenApiMemberParameters } from './index.js';

function outcome(raw: string, options?: { allowFields?: boolean }) {
  try {
    return { fields: parseMemberQuery(tasks, raw, options).fields };
  } catch (error) {
    if (!isHttpError(error)) throw error;
    const problem = toProblem(error);
    return {
      status: problem.status,
      code: problem.error_code,
      errors: problem.errors?.map((e) => [e.parameter, e.error_code]),
    };
  }
}

describe('parseMemberQuery', () => {
  it.each([
    ['', undefined, { fields: undefined }],
    ['?', undefined, { fields: undefined }],
    ['fields=name', undefined, { fields: ['id', 'name'] }],
    ['?fields=name,status', undefined, { fields: ['id', 'name', 'status'] }],
    ['fields=id,name', undefined, { fields: ['id', 'name'] }],
    [
      'fields=password_hash',
      undefined,
      { status: 400, code: 'field_not_selectable', errors: [['fields', 'field_not_selectable']] },
    ],
    [
      'fields=name,name',
      undefined,
      { status: 400, code: 'invalid_value', errors: [['fields', 'invalid_value']] },
    ],
    [
      'fields=name&fields=status',
      undefined,
      { status: 400, code: 'duplicate_parameter', errors: [['fields', 'duplicate_parameter']] },
    ],
    [
      'sort=name',
      undefined,
      { status: 400, code: 'unknown_parameter', errors: [['sort', 'unknown_parameter']] },
    ],
    [
      'status=active&limit=1',
      undefined,
      {
        status: 400,
        code: 'validation_failed',
        errors: [
          ['status', 'unknown_parameter'],
          ['limit', 'unknown_parameter'],
        ],
      },
    ],
    [
      'fields=name',
      { allowFields: false },
      { status: 400, code: 'unknown_parameter', errors: [['fields', 'unknown_parameter']] },
    ],
    ['a=%ZZ', undefined, { status: 400, code: 'invalid_value', errors: [['a', 'invalid_value']] }],
  ] as const)('%s %j → %j', (raw, options, expected) => {
    expect(outcome(raw, options)).toEqual(expected);
  });

  it('says which parameter a member takes', () => {
    let error: unknown;
    try {
      parseMemberQuery(tasks, 'colour=red');
    } catch (e) {
      error = e;
    }
    expect(isHttpError(error) && toProblem(error).detail).toBe(
      'Query parameter "colour" is not supported; supported: fields.',
    );
  });

  it('keeps unknown parameters when the collection passes them through', () => {
    const lenient = defineCollection({
      fields: { id: { type: 'int', sort: true } },
      unknownParameters: 'passthrough',
    });
    expect(parseMemberQuery(lenient, 'x=1&x=2&y=').extra).toEqual({ x: ['1', '2'], y: [''] });
  });

  it('is documented as one fields parameter', () => {
    expect(toOpenApiMemberParameters(tasks)).toEqual([
      expect.objectContaining({ name: 'fields', in: 'query', style: 'form', explode: false }),
    ]);
  });
});
