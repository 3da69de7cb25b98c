import { HttpError } from '@plumbline/errors';
import type { Request, Response } from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { expect } from 'vitest';
import { coreOutcome, describeAdapters, FRAMEWORKS, frameworkRunners } from './index.js';

// The helper itself: one table, run against a core function and the same route on each framework.
function half(n: number): number {
  if (!Number.isInteger(n) || n % 2 !== 0)
    throw new HttpError('invalid_value', { params: { parameter: 'n', expected: 'an even integer' } });
  return n / 2;
}

function answer(thrown: unknown): { status: number; body: { error_code: string } } {
  const error = thrown as HttpError;
  return { status: error.status, body: { error_code: error.code } };
}

const runners = frameworkRunners(
  {
    express: (express) => {
      const app = express();
      app.get('/half', (req: Request, res: Response) => {
        res.set('X-Framework', 'express').json(half(Number(req.query['n'])));
      });
      app.use((err: unknown, _req: Request, res: Response, _next: unknown) => {
        const { status, body } = answer(err);
        res.status(status).json(body);
      });
      return app;
    },
    fastify: () => {
      const app = Fastify();
      app.get<{ Querystring: { n: string } }>('/half', async (req, reply) => {
        reply.header('X-Framework', 'fastify');
        return half(Number(req.query.n));
      });
      app.setErrorHandler((err, _req, reply) => {
        const { status, body } = answer(err);
        return reply.code(status).send(body);
      });
      return app;
    },
    hono: () => {
      const app = new Hono();
      app.get('/half', (c) => c.json(half(Number(c.req.query('n'))), 200, { 'X-Framework': 'hono' }));
      app.onError((err, c) => {
        const { status, body } = answer(err);
        return c.json(body, status as 400);
      });
      return app;
    },
  },
  (c: { n: number }) => ({ path: `/half?n=${c.n}`, headers: { Accept: 'application/json' } }),
);

describeAdapters(
  'describeAdapters runs each case through the core and all four frameworks',
  [
    { name: 'even', n: 4, status: 200, body: 2 },
    { name: 'odd', n: 3, status: 400, code: 'invalid_value' },
  ],
  { core: (c) => coreOutcome(() => half(c.n)), ...runners },
  (outcome, c, adapter) => {
    expect(outcome.status).toBe(c.status);
    if (c.status === 200) {
      expect(outcome.body).toBe(c.body);
      if (adapter !== 'core') expect(outcome.headers['x-framework']).toBe(adapter.replace(/\d$/, ''));
    } else expect((outcome.body as { error_code: string }).error_code).toBe(c.code);
  },
);

describeAdapters(
  'frameworkRunners gives one runner per framework',
  [{ name: 'names' }],
  { list: () => ({ status: 200, headers: {}, body: Object.keys(runners) }) },
  (outcome) => expect(outcome.body).toEqual([...FRAMEWORKS]),
);
