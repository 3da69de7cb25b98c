/**
 * The Hono adapter's search POST after a middleware that read the body through `c.req` (a JSON
 * parser, the idempotency middleware): the stream is spent then, and the query comes from Hono's
 * body cache, on the Fetch API and on @hono/node-server alike.
 */
import { getRequestListener } from '@hono/node-server';
import { problemDetails } from '@plumbline/errors/hono';
import { listen, send } from '@plumbline/test-utils';
import { Hono } from 'hono';
import { afterAll, describe, expect, it } from 'vitest';
import { collectionQuery, getCollectionQuery } from '../src/hono.js';
import { tasks } from './fixtures.js';

function app(): Hono {
  const hono = new Hono();
  const problems = problemDetails({ onError: () => {} });
  hono.use(problems.middleware);
  hono.onError(problems.onError);
  hono.post(
    '/tasks/search',
    async (c, next) => {
      await c.req.text();
      await next();
    },
    collectionQuery(tasks),
    (c) => c.json(getCollectionQuery(c, tasks).pagination),
  );
  return hono;
}

const body = JSON.stringify({ limit: 3 });
const headers = { 'Content-Type': 'application/json' };

describe('Hono search POST after the body was read', () => {
  const server = listen(getRequestListener(app().fetch));
  afterAll(async () => (await server).close());

  it('parses the cached body (Fetch API)', async () => {
    const res = await app().request('/tasks/search', { method: 'POST', headers, body });
    expect([res.status, await res.json()]).toEqual([200, { mode: 'offset', limit: 3, offset: 0 }]);
  });

  it('parses the cached body (@hono/node-server)', async () => {
    const reply = await send((await server).port, { method: 'POST', path: '/tasks/search', headers, body });
    expect([reply.status, reply.body]).toEqual([200, { mode: 'offset', limit: 3, offset: 0 }]);
  });
});
