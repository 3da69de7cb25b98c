import fc from 'fast-check';

/** Characters that stress ordering and LIKE escaping while staying ASCII (SQLite folds only ASCII). */
const NAME_CHARS = ['a', 'A', 'b', '%', '_', '\\', ' ', 'z'];
const STATUSES = ['active', 'paused', 'done'] as const;
const DATES = ['2024-01-01', '2024-01-02', '2024-02-29', '2024-03-10'];
const TIMES = [
  '2024-01-01T00:00:00.000Z',
  '2024-01-01T00:00:00.001Z',
  '2024-01-01T12:30:00.000Z',
  '2024-06-01T08:00:00.000Z',
];
const TAGS = ['red', 'green', 'blue'];
const OWNERS = ['0d3b2a6e-4f1c-4b8a-9e2d-7c6b5a4f3e21', 'f0000000-0000-4000-8000-000000000000'];

const text = (min: number, max: number) =>
  fc.array(fc.constantFrom(...NAME_CHARS), { minLength: min, maxLength: max }).map((a) => a.join(''));

/** Rows of the `tasks` test collection (ids unique, no NULLs: keyset pagination needs NOT NULL keys). */
export const rowsArb = fc
  .array(
    fc.record({
      name: text(0, 4),
      status: fc.constantFrom(...STATUSES),
      priority: fc.integer({ min: 0, max: 4 }),
      age: fc.integer({ min: -2, max: 2 }),
      score: fc.integer({ min: -4, max: 4 }).map((n) => n / 2),
      active: fc.boolean(),
      date: fc.constantFrom(...DATES),
      created_at: fc.constantFrom(...TIMES),
      owner_id: fc.constantFrom(...OWNERS),
      tag: fc.constantFrom(...TAGS),
      description: text(0, 6),
      project_id: fc.integer({ min: 1, max: 2 }),
    }),
    { maxLength: 25 },
  )
  .map((rows) => rows.map((row, i) => ({ id: i + 1, ...row, password_hash: 'x' })));

const enc = encodeURIComponent;
const pick = <T>(values: readonly T[]) => fc.constantFrom(...values);

/** One filter parameter the `tasks` collection accepts. */
const filterArb = fc.oneof(
  pick(STATUSES).map((s) => `status=${s}`),
  pick(STATUSES).map((s) => `status[ne]=${s}`),
  fc.uniqueArray(pick(STATUSES), { minLength: 1, maxLength: 3 }).map((s) => `status[in]=${s.join(',')}`),
  fc
    .tuple(pick(['eq', 'ne', 'gt', 'gte', 'lt', 'lte']), fc.integer({ min: -1, max: 5 }))
    .map(([op, n]) => (op === 'eq' ? `priority=${n}` : `priority[${op}]=${n}`)),
  text(1, 3).map((s) => `name=${enc(s)}`),
  text(1, 3).map((s) => `name[ne]=${enc(s)}`),
  fc.integer({ min: -2, max: 2 }).map((n) => `age=${n}`),
  fc.tuple(pick(['gte', 'lte']), fc.integer({ min: -5, max: 5 })).map(([op, n]) => `score[${op}]=${n / 2}`),
  fc.boolean().map((b) => `active=${b}`),
  fc
    .tuple(pick(['eq', 'gte', 'lt']), pick(DATES))
    .map(([op, d]) => (op === 'eq' ? `date=${d}` : `date[${op}]=${d}`)),
  fc.tuple(pick(['gte', 'lt']), pick(TIMES)).map(([op, t]) => `created_at[${op}]=${t}`),
  pick(OWNERS).map((o) => `owner_id=${o.toUpperCase()}`),
  fc.uniqueArray(pick(TAGS), { minLength: 2, maxLength: 3 }).map((t) => t.map((x) => `tag=${x}`).join('&')),
  fc.uniqueArray(pick(TAGS), { minLength: 1, maxLength: 3 }).map((t) => `tag[in]=${t.join(',')}`),
  fc
    .uniqueArray(fc.integer({ min: 1, max: 30 }), { minLength: 1, maxLength: 5 })
    .map((ids) => `id[in]=${ids.join(',')}`),
);

const SORTABLE = ['id', 'name', 'priority', 'score', 'active', 'date', 'created_at'];
const sortArb = fc
  .uniqueArray(
    fc.tuple(pick(SORTABLE), pick(['asc', 'desc'] as const), pick(['sign', 'colon', 'suffix'] as const)),
    {
      maxLength: 3,
      selector: ([field]) => field,
    },
  )
  .map((keys) =>
    keys
      .map(([field, dir, shape]) =>
        shape === 'sign'
          ? dir === 'desc'
            ? `-${field}`
            : field
          : shape === 'colon'
            ? `${field}:${dir}`
            : `${field}_${dir}`,
      )
      .join(','),
  );

/** Filters, search, sort and fields of a valid query (no pagination), as a query string. */
export const baseQueryArb = fc
  .record({
    filters: fc.uniqueArray(filterArb, { maxLength: 4, selector: (f) => f.split(/[=[]/)[0] }),
    q: fc.option(
      text(3, 4).filter((s) => s.trim().length >= 3),
      { nil: undefined },
    ),
    sort: fc.option(sortArb, { nil: undefined }),
    fields: fc.option(fc.uniqueArray(pick(['name', 'status', 'priority', 'tag']), { minLength: 1 }), {
      nil: undefined,
    }),
  })
  .map(({ filters, q, sort, fields }) => {
    const parts = [...filters];
    if (q !== undefined) parts.push(`q=${enc(q)}`);
    if (sort) parts.push(`sort=${enc(sort)}`);
    if (fields) parts.push(`fields=${fields.join(',')}`);
    return parts.join('&');
  });

/** Offset or page pagination parameters. */
export const paginationArb = fc.oneof(
  fc
    .record({ limit: fc.integer({ min: 1, max: 8 }), offset: fc.integer({ min: 0, max: 12 }) })
    .map(({ limit, offset }) => `limit=${limit}&offset=${offset}`),
  fc
    .record({ page: fc.integer({ min: 1, max: 4 }), size: fc.integer({ min: 1, max: 6 }) })
    .map(({ page, size }) => `page=${page}&size=${size}`),
);

/** Joins query-string parts, skipping empty ones. */
export function join(...parts: string[]): string {
  return parts.filter((p) => p !== '').join('&');
}
