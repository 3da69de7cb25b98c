import { HttpError } from '@plumbline/errors';
import express from 'express';
import request from 'supertest';
import { expect } from 'vitest';
import { coreOutcome, describeAdapters, fromSupertest } from './index.js';

// The helper itself: one table, run against a core function and an Express route over it.
function half(n: number): number {
  if (!Number.isInteger(n) || n % 2 !== 0)
    throw new HttpError('invalid_value', { params: { parameter: 'n', expected: 'an even integer' } });
  return n / 2;
}
const app = express();
app.get('/half', (req, res) => {
  res.json(half(Number(req.query['n'])));
});
app.use((err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
  const error = err as HttpError;
  res.status(error.status).json({ error_code: error.code });
});

describeAdapters(
  'describeAdapters runs each case through each adapter',
  [
    { name: 'even', n: 4, status: 200, body: 2 },
    { name: 'odd', n: 3, status: 400, code: 'invalid_value' },
  ],
  {
    core: (c) => coreOutcome(() => half(c.n)),
    express: async (c) => fromSupertest(await request(app).get(`/half?n=${c.n}`)),
  },
  (outcome, c) => {
    expect(outcome.status).toBe(c.status);
    if (c.status === 200) expect(outcome.body).toBe(c.body);
    else expect((outcome.body as { error_code: string }).error_code).toBe(c.code);
  },
);
