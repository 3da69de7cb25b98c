import { errorHandler } from '@plumbline/errors/express';
import { EXPRESS_VERSIONS } from '@plumbline/test-utils';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { testApp } from '../test/app.js';
import { tasks } from '../test/fixtures.js';
import { collectionQuery, getCollectionQuery, sendPage } from './express.js';
import { buildPage, defineCollection, parseQuery, parseSearchBody } from './index.js';

const rows = Array.from({ length: 12 }, (_, i) => ({
  id: i + 1,
  name: `task ${String(i + 1).padStart(2, '0')}`,
  status: i % 2 === 0 ? 'active' : 'done',
  priority: i % 4,
  created_at: new Date(Date.UTC(2024, 0, 1, i)).toISOString(),
  project_id: (i % 3) + 1,
  password_hash: 'never-sent',
}));

// The behaviour every framework shares is the table in test/frameworks.test.ts; this file keeps
// what only Express has (Express 4 and 5 query parsing, running with or without express.json()).
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
