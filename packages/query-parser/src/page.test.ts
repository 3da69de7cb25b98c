import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { tasks } from '../test/fixtures.js';
import {
  applyToArray,
  buildPage,
  defineCollection,
  parseQuery,
  toOpenApiParameters,
  toQueryString,
  toSql,
} from './index.js';

const items = defineCollection({
  fields: {
    id: { type: 'int', sort: true },
    title: { type: 'string', sort: true, search: true, filter: ['eq', 'gt'], column: 'title_text' },
    done: { type: 'boolean', filter: true },
    rank: { type: 'int', sort: true, nullable: true },
  },
  maxOffset: 50,
  cursorSecret: 'items-secret-of-at-least-32-bytes!!',
});
// The same fields with a NOT NULL rank: keyset pagination only runs over sort keys that are never null.
const rankedItems = defineCollection({
  fields: {
    id: { type: 'int', sort: true },
    title: { type: 'string', sort: true, search: true, filter: ['eq', 'gt'], column: 'title_text' },
    done: { type: 'boolean', filter: true },
    rank: { type: 'int', sort: true },
  },
  maxOffset: 50,
  cursorSecret: 'items-secret-of-at-least-32-bytes!!',
});
const rows = Array.from({ length: 7 }, (_, i) => ({
  id: i + 1,
  title: `t${i + 1}`,
  done: i % 2 === 0,
  rank: i,
}));

describe('buildPage', () => {
  it.each([
    [
      'first offset page with total',
      'limit=3',
      7,
      {
        page: { limit: 3, offset: 0, has_more: true, next_cursor: expect.any(String), total: 7 },
        links: {
          self: '/i?limit=3&offset=0',
          first: '/i?limit=3&offset=0',
          next: '/i?limit=3&offset=3',
          last: '/i?limit=3&offset=6',
        },
      },
    ],
    [
      'last offset page',
      'limit=3&offset=6',
      7,
      {
        page: { limit: 3, offset: 6, has_more: false, total: 7 },
        links: {
          self: '/i?limit=3&offset=6',
          first: '/i?limit=3&offset=0',
          prev: '/i?limit=3&offset=3',
          last: '/i?limit=3&offset=6',
        },
      },
    ],
    [
      'prev never goes below 0',
      'limit=5&offset=2',
      undefined,
      {
        page: { limit: 5, offset: 2, has_more: false },
        links: { self: '/i?limit=5&offset=2', first: '/i?limit=5&offset=0', prev: '/i?limit=5&offset=0' },
      },
    ],
    [
      'last page of pages with total',
      'page=3&size=3',
      7,
      {
        page: { page: 3, size: 3, has_more: false, total: 7 },
        links: {
          self: '/i?page=3&size=3',
          first: '/i?page=1&size=3',
          prev: '/i?page=2&size=3',
          last: '/i?page=3&size=3',
        },
      },
    ],
  ])('%s', (_name, query, total, expected) => {
    const parsed = parseQuery(items, query);
    const { body } = buildPage(parsed, applyToArray(parsed, rows), { baseUrl: '/i', total });
    expect(body).toMatchObject(expected);
    expect(body.page).toEqual(expected.page);
    expect(body.links).toEqual(expected.links);
  });

  it('no next link past maxOffset', () => {
    const many = Array.from({ length: 80 }, (_, i) => ({ id: i + 1, title: 'x', done: true, rank: 1 }));
    const parsed = parseQuery(items, 'limit=10&offset=50');
    const { body } = buildPage(parsed, applyToArray(parsed, many), { baseUrl: '/i', total: 80 });
    expect(body.page.has_more).toBe(true);
    expect(body.links.next).toBeUndefined();
    expect(body.links.last).toBe('/i?limit=10&offset=50');
  });

  it('cursor pages link self, first and next; the last page has no next', () => {
    const cursorItems = defineCollection({
      fields: { id: { type: 'int', sort: true } },
      pagination: ['cursor'],
      cursorSecret: 'items-secret-of-at-least-32-bytes!!',
    });
    let query = parseQuery(cursorItems, 'limit=4');
    const first = buildPage(query, applyToArray(query, rows), { baseUrl: '/c' });
    expect(first.body.page).toEqual({ limit: 4, has_more: true, next_cursor: expect.any(String) });
    expect(first.body.links).toEqual({
      self: '/c?limit=4',
      first: '/c?limit=4',
      next: `/c?limit=4&cursor=${first.body.page.next_cursor}`,
    });
    query = parseQuery(cursorItems, first.body.links.next!.split('?')[1]!);
    const second = buildPage(query, applyToArray(query, rows), { baseUrl: '/c' });
    expect(second.body.data.map((r) => r['id'])).toEqual([5, 6, 7]);
    expect(second.body.page).toEqual({ limit: 4, has_more: false });
    expect(second.link).toBe(
      `</c?limit=4&cursor=${first.body.page.next_cursor}>; rel="self", </c?limit=4>; rel="first"`,
    );
  });

  it('projects rows to the selected fields and normalizes driver values', () => {
    const parsed = parseQuery(items, 'fields=done');
    const { body } = buildPage(parsed, [{ id: '3', title: 'x', done: 1, rank: 2, secret: 's' }], {
      baseUrl: '/i',
    });
    expect(body.data).toEqual([{ id: 3, done: true }]);
  });

  it('refuses a bad total and a NULL cursor key', () => {
    const parsed = parseQuery(items, '');
    expect(() => buildPage(parsed, [], { baseUrl: '/i', total: -1 })).toThrow(TypeError);
    expect(() => buildPage(parsed, [], { baseUrl: '/i', total: 'many' })).toThrow(TypeError);
    expect(buildPage(parsed, [], { baseUrl: '/i', total: '5' }).body.page.total).toBe(5);
    const byRank = parseQuery(items, 'sort=rank&limit=1');
    const page = buildPage(
      byRank,
      [
        { id: 1, rank: null },
        { id: 2, rank: 1 },
      ],
      { baseUrl: '/i' },
    );
    expect(page.body.page.next_cursor).toBeUndefined();
  });
});

describe('toSql', () => {
  it('writes PostgreSQL with numbered placeholders, quoted identifiers and a keyset predicate', () => {
    const first = parseQuery(rankedItems, 'title[gt]=a&done=true&q=50%25_off&sort=-rank,title&limit=2');
    const cursor = buildPage(first, [rows[0]!, rows[1]!, rows[2]!], { baseUrl: '/i' }).body.page.next_cursor!;
    const query = parseQuery(
      rankedItems,
      `title[gt]=a&done=true&q=50%25_off&sort=-rank,title&limit=2&cursor=${cursor}`,
    );
    expect(toSql(query, { dialect: 'postgres', table: 'app.items' })).toEqual({
      text:
        'SELECT "id", "title_text" AS "title", "done", "rank" FROM "app"."items" WHERE "title_text" COLLATE "C" > $1 ' +
        `AND "done" = $2 AND LOWER("title_text") LIKE $3 ESCAPE '\\' AND "rank" <= $4 AND ("rank" < $5 OR ("rank" = $6 AND ` +
        '"title_text" COLLATE "C" > $7) OR ("rank" = $8 AND "title_text" COLLATE "C" = $9 AND "id" > $10)) ' +
        'ORDER BY "rank" DESC, "title_text" COLLATE "C" ASC, "id" ASC LIMIT $11',
      params: ['a', true, '%50\\%\\_off%', 1, 1, 1, 't2', 1, 't2', 2, 3],
      countText:
        'SELECT COUNT(*) AS "total" FROM "app"."items" WHERE "title_text" COLLATE "C" > $1 AND "done" = $2 ' +
        `AND LOWER("title_text") LIKE $3 ESCAPE '\\'`,
      countParams: ['a', true, '%50\\%\\_off%'],
    });
  });

  it('writes SQLite with ? placeholders, 0/1 booleans and NULLS clauses only for nullable fields', () => {
    const query = parseQuery(items, 'done=false&sort=rank,-title&fields=title&limit=5&offset=10');
    expect(toSql(query, { dialect: 'sqlite', table: 'items', columns: { title: 'name' } })).toEqual({
      text:
        'SELECT "id", "name" AS "title", "rank" FROM "items" WHERE "done" = ? ' +
        'ORDER BY "rank" ASC NULLS LAST, "name" DESC, "id" ASC LIMIT ? OFFSET ?',
      params: [0, 6, 10],
      countText: 'SELECT COUNT(*) AS "total" FROM "items" WHERE "done" = ?',
      countParams: [0],
    });
  });

  it('selects extra columns under their own names, whatever fields= asked for', () => {
    const query = parseQuery(items, 'fields=title&limit=5');
    expect(
      toSql(query, { dialect: 'sqlite', table: 'items', extraColumns: ['owner_id', 'title'] }).text,
    ).toBe(
      'SELECT "id", "title_text" AS "title", "owner_id" FROM "items" ORDER BY "id" ASC LIMIT ? OFFSET ?',
    );
  });

  it.each([
    [
      'an extra column with a quote',
      { dialect: 'sqlite', table: 'items', extraColumns: ['x" FROM secrets --'] },
    ],
    ['a table with a quote', { dialect: 'sqlite', table: 'items"; DROP TABLE x; --' }],
    ['a column with a space', { dialect: 'sqlite', table: 'items', columns: { title: 'a b' } }],
    ['an unknown dialect', { dialect: 'mysql', table: 'items' }],
    ['a bad collation', { dialect: 'postgres', table: 'items', collate: 'C" --' }],
  ])('refuses %s', (_name, options) => {
    expect(() => toSql(parseQuery(items, ''), options as Parameters<typeof toSql>[1])).toThrow(TypeError);
  });

  it('orders NULLs like applyToArray on SQLite for nullable fields', () => {
    const db = new DatabaseSync(':memory:');
    db.exec('CREATE TABLE items (id INTEGER PRIMARY KEY, title_text TEXT, done INTEGER, rank INTEGER)');
    const data = [
      { id: 1, title: 'a', done: true, rank: null },
      { id: 2, title: 'b', done: true, rank: 2 },
      { id: 3, title: 'c', done: false, rank: null },
      { id: 4, title: 'd', done: false, rank: 1 },
    ];
    for (const r of data)
      db.prepare('INSERT INTO items VALUES (?, ?, ?, ?)').run(r.id, r.title, Number(r.done), r.rank);
    for (const sort of ['rank', '-rank']) {
      const query = parseQuery(items, `sort=${sort}`);
      const sql = toSql(query, { dialect: 'sqlite', table: 'items' });
      const fromSql = (db.prepare(sql.text).all(...(sql.params as SQLInputValue[])) as { id: number }[]).map(
        (r) => r.id,
      );
      expect(fromSql).toEqual(applyToArray(query, data).map((r) => r.id));
    }
    db.close();
  });
});

describe('applyToArray string order', () => {
  // Code-point order (SQLite BINARY, PostgreSQL "C"): U+1F600 is stored as the surrogates D83D DE00,
  // which a plain `<` puts before U+E000–U+FFFF.
  const titles = ['\u{1F600}', '\uFFFF', 'b', '\uE000', 'a', '\u00E9', '\uD7FF', 'ab', '\u{10000}'];
  const byCodePoint = ['a', 'ab', 'b', '\u00E9', '\uD7FF', '\uE000', '\uFFFF', '\u{10000}', '\u{1F600}'];
  const data = titles.map((title, i) => ({ id: i + 1, title, done: false, rank: i }));

  it.each([
    ['title', byCodePoint],
    ['-title', [...byCodePoint].reverse()],
  ])('sort=%s orders by code point, as SQLite does', (sort, expected) => {
    const query = parseQuery(items, `sort=${sort}`);
    expect(applyToArray(query, data).map((r) => r.title)).toEqual(expected);
    const db = new DatabaseSync(':memory:');
    db.exec('CREATE TABLE items (id INTEGER PRIMARY KEY, title_text TEXT, done INTEGER, rank INTEGER)');
    for (const r of data) db.prepare('INSERT INTO items VALUES (?, ?, 0, ?)').run(r.id, r.title, r.rank);
    const sql = toSql(query, { dialect: 'sqlite', table: 'items' });
    const fromSql = db.prepare(sql.text).all(...(sql.params as SQLInputValue[])) as { title: string }[];
    db.close();
    expect(fromSql.map((r) => r.title)).toEqual(expected);
  });

  it('filters with gt by code point', () => {
    const query = parseQuery(items, `title[gt]=${encodeURIComponent('\uFFFF')}&sort=title`);
    expect(applyToArray(query, data).map((r) => r.title)).toEqual(['\u{10000}', '\u{1F600}']);
  });
});

describe('toQueryString', () => {
  it('writes the canonical form', () => {
    const query = parseQuery(
      tasks,
      'fields=name&limit=5&sort=name_desc&q=caf%C3%A9%20au&tag=b&status=done&tag=a&priority[lt]=3&name=a%26b',
    );
    expect(toQueryString(query)).toBe(
      'name=a%26b&status=done&priority[lt]=3&tag[in]=b,a&q=caf%C3%A9%20au&sort=-name&limit=5&offset=0&fields=id,name',
    );
  });

  it('keeps repeats for an in-list whose values hold commas', () => {
    const query = parseQuery(tasks, 'tag=a%2Cb&tag=c');
    expect(toQueryString(query)).toBe('tag=a%2Cb&tag=c&sort=-created_at&limit=20&offset=0');
  });
});

describe('toOpenApiParameters', () => {
  it('lists filters, search, sort, pagination and fields with their limits', () => {
    const parameters = toOpenApiParameters(items);
    expect(parameters.map((p) => p.name)).toEqual([
      'title',
      'title[gt]',
      'done',
      'q',
      'sort',
      'limit',
      'offset',
      'page',
      'size',
      'cursor',
      'fields',
    ]);
    expect(parameters.find((p) => p.name === 'limit')?.schema).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: 100,
      default: 20,
    });
    expect(parameters.find((p) => p.name === 'q')?.schema).toEqual({
      type: 'string',
      minLength: 3,
      maxLength: 200,
    });
    expect(parameters.find((p) => p.name === 'done')?.schema).toEqual({ type: 'boolean' });
    const sort = parameters.find((p) => p.name === 'sort')!;
    const pattern = new RegExp(sort.schema['pattern'] as string);
    expect(['-rank,title', 'rank:desc', 'title_asc,id'].every((s) => pattern.test(s))).toBe(true);
    expect(['secret', 'rank,a,b,c', ''].some((s) => pattern.test(s))).toBe(false);
    expect(parameters.find((p) => p.name === 'fields')).toMatchObject({
      style: 'form',
      explode: false,
      schema: { type: 'array', items: { type: 'string', enum: ['id', 'title', 'done', 'rank'] } },
    });
  });

  it('describes repeatable filters, in-lists and enums', () => {
    const parameters = toOpenApiParameters(tasks);
    expect(parameters.find((p) => p.name === 'tag')).toMatchObject({
      style: 'form',
      explode: true,
      schema: { type: 'array', maxItems: 50 },
    });
    expect(parameters.find((p) => p.name === 'status[in]')).toMatchObject({
      explode: false,
      schema: { type: 'array', items: { type: 'string', enum: ['active', 'paused', 'done'] } },
    });
  });
});

describe('cursors and nullable sort keys', () => {
  const scores = defineCollection({
    fields: {
      id: { type: 'int', sort: true },
      score: { type: 'number', sort: true, nullable: true },
      name: { type: 'string', sort: true },
    },
    pagination: ['cursor', 'offset'],
    cursorSecret: 'a-test-secret-that-is-at-least-32-bytes-long',
  });
  const data = [
    { id: 1, score: 3, name: 'a' },
    { id: 2, score: null, name: 'b' },
    { id: 3, score: 1, name: 'c' },
  ];

  it('offers no next_cursor when the sort has a nullable field', () => {
    const query = parseQuery(scores, 'sort=score&limit=1&offset=0');
    const page = buildPage(query, applyToArray(query, data), { baseUrl: '/s' });
    expect(page.body.page).toEqual({ limit: 1, offset: 0, has_more: true });
  });

  it('refuses cursor mode with such a sort: 400 invalid_sort, not a 500', () => {
    expect(() => parseQuery(scores, 'sort=score&limit=1')).toThrow(
      expect.objectContaining({ status: 400, code: 'invalid_sort' }),
    );
  });

  it('still pages by cursor over non-null sort keys', () => {
    const query = parseQuery(scores, 'sort=name&limit=1');
    const page = buildPage(query, applyToArray(query, data), { baseUrl: '/s' });
    expect(page.body.page.next_cursor).toEqual(expect.any(String));
  });
});
