/**
 * The README's three framework examples run as written (only the port is made ephemeral), and the
 * request the README shows gets the answer it shows, on each. The route-table block runs too.
 */
import { listen, readmeBlock, readmeFrameworkExamples, runReadmeExample, send } from '@plumbline/test-utils';
import type { Express } from 'express';
import { afterAll, describe, expect, it } from 'vitest';

const here = new URL('.', import.meta.url);
const readme = new URL('../README.md', import.meta.url);
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

const express = async (): Promise<number> => {
  const { app } = await runReadmeExample<{ app: Express }>(
    here,
    'contract-express',
    readmeBlock(readme, '### Express'),
    [],
  );
  const server = await listen(app);
  closers.push(server.close);
  return server.port;
};
const examples: [string, () => Promise<number>][] = [
  ['Express', express],
  ...readmeFrameworkExamples(here, readme, 'contract'),
];

describe.each(examples)('README %s example', (_name, start) => {
  const port = start();
  const post = async (body: unknown) =>
    send(await port, {
      method: 'POST',
      path: '/projects',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('an empty name: the 400 the README shows', async () => {
    const outcome = await post({ name: '' });
    expect(outcome.status).toBe(400);
    expect(outcome.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    const { request_id, ...problem } = outcome.body as Record<string, unknown>;
    expect(request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(problem).toEqual({
      type: '/errors/validation_failed',
      title: 'Bad Request',
      status: 400,
      detail: 'The request has 1 invalid value.',
      instance: '/projects',
      error_code: 'validation_failed',
      message: 'The request has 1 invalid value.',
      errors: [
        {
          pointer: '#/name',
          error_code: 'invalid_value',
          detail: 'Too small: expected string to have >=1 characters',
        },
      ],
    });
  });

  it('a valid project: 201 with Location', async () => {
    const outcome = await post({ name: 'Gemini' });
    expect([outcome.status, outcome.headers['location'], outcome.body]).toEqual([
      201,
      '/projects/2',
      { id: 2, name: 'Gemini' },
    ]);
  });
});

it('the route-table block: the routes compile and the document describes them', async () => {
  const { document } = await runReadmeExample<{
    document: { paths: Record<string, Record<string, unknown>> };
  }>(here, 'contract-routes', readmeBlock(readme, '### What a route declares'), []);
  expect(Object.keys(document.paths)).toEqual(['/v2/tasks', '/v2/tasks/{taskId}']);
  expect(Object.keys(document.paths['/v2/tasks']!)).toEqual(['get', 'post']);
});
