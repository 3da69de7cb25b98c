import { errorHandler } from '@plumbline/errors/express';
import { coreOutcome, describeAdapters, EXPRESS_VERSIONS, fromSupertest } from '@plumbline/test-utils';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { testApp } from '../test/app.js';
import { tasks } from '../test/fixtures.js';
import { collectionQuery, getCollectionQuery, sendPage } from './express.js';
import {
  applyToArray,
  buildPage,
  countInArray,
  defineCollection,
  parseQuery,
  parseSearchBody,
} from './index.js';

const rows = Array.from({ length: 12 }, (_, i) => ({
  id: i + 1,
  name: `task ${String(i + 1).padStart(2, '0')}`,
  status: i % 2 === 0 ? 'active' : 'done',
  priority: i % 4,
  created_at: new Date(Date.UTC(2024, 0, 1, i)).toISOString(),
  project_id: (i % 3) + 1,
  password_hash: 'never-sent',
}));

interface PageCase {
  readonly name: string;
  readonly path: string;
  readonly query: string;
  readonly prefer?: string;
  readonly scope?: Record<string, unknown>;
  readonly ids: readonly number[];
  readonly page: Record<string, unknown>;
  readonly links: Record<string, string>;
}

const CASES: readonly PageCase[] = [
  {
    name: 'filters, sort and offset pagination',
    path: '/tasks',
    query: 'status=active&sort=name:desc&limit=2&offset=2',
    ids: [7, 5],
    page: { limit: 2, offset: 2, has_more: true, next_cursor: expect.any(String) },
    links: {
      self: '/tasks?status=active&sort=-name&limit=2&offset=2',
      first: '/tasks?status=active&sort=-name&limit=2&offset=0',
      prev: '/tasks?status=active&sort=-name&limit=2&offset=0',
      next: '/tasks?status=active&sort=-name&limit=2&offset=4',
    },
  },
  {
    name: 'page and size with a total (Prefer: count=exact)',
    path: '/tasks',
    query: 'priority[gte]=2&sort=id&page=2&size=2',
    prefer: 'count=exact',
    ids: [7, 8],
    page: { page: 2, size: 2, has_more: true, total: 6, next_cursor: expect.any(String) },
    links: {
      self: '/tasks?priority[gte]=2&sort=id&page=2&size=2',
      first: '/tasks?priority[gte]=2&sort=id&page=1&size=2',
      prev: '/tasks?priority[gte]=2&sort=id&page=1&size=2',
      next: '/tasks?priority[gte]=2&sort=id&page=3&size=2',
      last: '/tasks?priority[gte]=2&sort=id&page=3&size=2',
    },
  },
  {
    name: 'parent-scoped collection',
    path: '/projects/2/tasks',
    scope: { project_id: '2' },
    query: 'sort=-id&fields=name',
    ids: [11, 8, 5, 2],
    page: { limit: 20, offset: 0, has_more: false },
    links: {
      self: '/projects/2/tasks?sort=-id&limit=20&offset=0&fields=id,name',
      first: '/projects/2/tasks?sort=-id&limit=20&offset=0&fields=id,name',
    },
  },
  {
    name: 'search',
    path: '/tasks',
    query: 'q=TASK+1&sort=id',
    ids: [10, 11, 12],
    page: { limit: 20, offset: 0, has_more: false },
    links: {
      self: '/tasks?q=TASK%201&sort=id&limit=20&offset=0',
      first: '/tasks?q=TASK%201&sort=id&limit=20&offset=0',
    },
  },
];

const apps = EXPRESS_VERSIONS.map(([name, express]) => [name, testApp(express, tasks, rows).app] as const);

describeAdapters(
  'pages through the core and through Express',
  CASES,
  {
    core: (c) =>
      coreOutcome(() => {
        const query = parseQuery(tasks, c.query, {
          count: c.prefer !== undefined,
          ...(c.scope ? { scope: c.scope } : {}),
        });
        const total = query.count ? countInArray(query, rows) : undefined;
        const page = buildPage(query, applyToArray(query, rows), { baseUrl: c.path, total });
        return page.body;
      }),
    ...Object.fromEntries(
      apps.map(([name, app]) => [
        name,
        (c: PageCase) => {
          const req = request(app).get(`${c.path}?${c.query}`);
          return (c.prefer ? req.set('Prefer', c.prefer) : req).then(fromSupertest);
        },
      ]),
    ),
  },
  (outcome, c, adapter) => {
    const body = outcome.body as { data: Record<string, unknown>[]; page: unknown; links: unknown };
    expect(outcome.status).toBe(200);
    expect(body.data.map((r) => r['id'])).toEqual(c.ids);
    expect(body.data.every((r) => !('password_hash' in r))).toBe(true);
    expect(body.page).toEqual(c.page);
    expect(body.links).toEqual(c.links);
    if (adapter === 'core') return;
    expect(outcome.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(outcome.headers['vary']).toBe('Prefer');
    const expectedLink = Object.entries(c.links)
      .map(([rel, url]) => `<${url}>; rel="${rel}"`)
      .join(', ');
    expect(outcome.headers['link']).toBe(expectedLink);
    expect(outcome.headers['preference-applied']).toBe(c.prefer);
  },
);

describe.each(EXPRESS_VERSIONS)('collectionQuery on %s', (_name, express) => {
  const plain = testApp(express, tasks, rows).app;
  const parsed = testApp(express, tasks, rows, { jsonParser: true }).app;

  it('reads the raw query string, not req.query (same on 4 and 5)', async () => {
    const res = await request(plain).get('/tasks?status[in]=active&sort=id&limit=1');
    expect(res.status).toBe(200);
    expect(res.body.data.map((r: { id: number }) => r.id)).toEqual([1]);
  });

  it.each([
    ['without a JSON parser', plain],
    ['after express.json()', parsed],
  ])('POST /tasks/search %s takes the query as a JSON body', async (_label, app) => {
    const res = await request(app)
      .post('/tasks/search')
      .send({ filter: { status: 'done', id: { in: [2, 4, 10, 12] } }, sort: ['-id'], limit: 2 });
    expect(res.status).toBe(200);
    expect(res.body.data.map((r: { id: number }) => r.id)).toEqual([12, 10]);
    expect(res.body.links.next).toBe('/tasks?id[in]=2,4,10,12&status=done&sort=-id&limit=2&offset=2');
  });

  it.each([
    ['text/plain', 'status=done', 415, 'unsupported_media_type'],
    ['application/json', '{"filter":', 400, 'malformed_json'],
    ['application/json', '{"filter":{"status":"nope"}}', 400, 'invalid_value'],
    ['application/json', '[1]', 400, 'invalid_value'],
  ])('POST %s %s → %i %s', async (type, payload, status, code) => {
    const res = await request(plain).post('/tasks/search').set('Content-Type', type).send(payload);
    expect(res.status).toBe(status);
    expect(res.body.error_code).toBe(code);
    if (status === 415) expect(res.headers['accept-post']).toBe('application/json');
  });

  it('refuses a body over 1 MiB with 413', async () => {
    const res = await request(plain)
      .post('/tasks/search')
      .set('Content-Type', 'application/json')
      .send(`{"q":"${'a'.repeat(1024 * 1024)}"}`);
    expect(res.status).toBe(413);
    expect(res.body.error_code).toBe('payload_too_large');
  });

  it('an invalid parent id in the scope is 404', async () => {
    const res = await request(plain).get('/projects/abc/tasks');
    expect(res.status).toBe(404);
    expect(res.body.error_code).toBe('not_found');
  });

  it('getCollectionQuery refuses a request parsed for another collection, or not parsed at all', async () => {
    const other = defineCollection({ fields: { id: { type: 'int' } } });
    const app = express();
    app.get('/wrong', collectionQuery(tasks), (req, res) => {
      res.json({ ok: Boolean(getCollectionQuery(req, other)) });
    });
    app.get('/none', (req, res) => {
      res.json({ ok: Boolean(getCollectionQuery(req, tasks)) });
    });
    app.use(errorHandler({ onError: () => {} }));
    expect((await request(app).get('/wrong')).status).toBe(500);
    expect((await request(app).get('/none')).status).toBe(500);
  });

  it('sendPage keeps Link values set earlier (a deprecation link) and adds the page links', async () => {
    const app = express();
    app.get('/t', collectionQuery(tasks), (req, res) => {
      res.setHeader('Link', '</docs/v1>; rel="deprecation"');
      sendPage(res, buildPage(getCollectionQuery(req, tasks), [], { baseUrl: '/t' }));
    });
    const res = await request(app).get('/t');
    expect(res.headers['link']).toBe(
      '</docs/v1>; rel="deprecation", </t?sort=-created_at&limit=20&offset=0>; rel="self", </t?sort=-created_at&limit=20&offset=0>; rel="first"',
    );
  });

  it('sendPage works without a total and sends no Preference-Applied', async () => {
    const app = express();
    app.get('/t', collectionQuery(tasks), (req, res) => {
      const query = getCollectionQuery(req, tasks);
      sendPage(res, buildPage(query, [], { baseUrl: '/t' }));
    });
    const res = await request(app).get('/t').set('Prefer', 'count=exact');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [],
      page: { limit: 20, offset: 0, has_more: false },
      links: {
        self: '/t?sort=-created_at&limit=20&offset=0',
        first: '/t?sort=-created_at&limit=20&offset=0',
      },
    });
    expect(res.headers['preference-applied']).toBeUndefined();
  });
});

describe('parseSearchBody and parseQuery agree', () => {
  it('for the same query', () => {
    expect(parseSearchBody(tasks, { sort: '-name', page: 2, size: 5, q: 'task' })).toEqual(
      parseQuery(tasks, 'sort=-name&page=2&size=5&q=task'),
    );
  });
});
