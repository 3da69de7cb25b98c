/**
 * `sendPage` on @hono/node-server answers with the server's plain header object (its fast path) while
 * Hono holds no header of its own, and through Hono otherwise; the page's Link and Vary join what
 * middleware set before the handler either way.
 */
import { getRequestListener } from '@hono/node-server';
import { problemDetails, responseParts, withResponseHeaders } from '@plumbline/errors/hono';
import { listen, send } from '@plumbline/test-utils';
import { Hono } from 'hono';
import { afterAll, describe, expect, it } from 'vitest';
import { collectionQuery, getCollectionQuery, sendPage } from '../src/hono.js';
import { buildPage } from '../src/index.js';
import { tasks } from './fixtures.js';

let plain: boolean | undefined;

const rows = Array.from({ length: 5 }, (_, i) => ({ id: i + 1, name: `task ${i + 1}` }));

function app(): Hono {
  const hono = new Hono();
  const problems = problemDetails({ onError: () => {} });
  hono.use(problems.middleware);
  hono.onError(problems.onError);
  hono.use(async (c, next) => {
    await next();
    const parts = responseParts(c.res);
    plain = Array.isArray(parts) && parts[2] !== undefined && !(parts[2] instanceof Headers);
  });
  hono.use((c, next) => withResponseHeaders(c, { Vary: 'Accept', Link: '</doc>; rel="help"' }, next));
  const page = (c: import('hono').Context) => {
    const query = getCollectionQuery(c, tasks);
    return sendPage(c, buildPage(query, rows.slice(0, query.pagination.limit + 1), { baseUrl: '/tasks' }));
  };
  hono.get('/tasks', collectionQuery(tasks), page);
  hono.get(
    '/tasks-after-header',
    (c, next) => {
      c.header('X-Mine', 'm');
      return next();
    },
    collectionQuery(tasks),
    page,
  );
  return hono;
}

describe('sendPage on @hono/node-server', () => {
  const server = listen(getRequestListener(app().fetch));
  afterAll(async () => (await server).close());

  it.each([
    ['while Hono holds no header: the plain header object', '/tasks?limit=2', true],
    ['after a c.header(): through Hono', '/tasks-after-header?limit=2', false],
  ])('%s', async (_label, path, plainHeaders) => {
    plain = undefined;
    const reply = await send((await server).port, { path });
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(reply.headers['vary']).toBe('Accept, Prefer');
    expect(reply.headers['link']).toBe(
      '</doc>; rel="help", </tasks?sort=-created_at&limit=2&offset=0>; rel="self", ' +
        '</tasks?sort=-created_at&limit=2&offset=0>; rel="first", </tasks?sort=-created_at&limit=2&offset=2>; rel="next"',
    );
    expect((reply.body as { data: unknown[] }).data).toHaveLength(2);
    expect(plain).toBe(plainHeaders);
  });
});
