// The README's Fastify and Hono examples run as written (only the port is made ephemeral).
import { readmeFrameworkExamples, send } from '@plumbline/test-utils';
import { describe, expect, it } from 'vitest';

const here = new URL('.', import.meta.url);
const readme = new URL('../README.md', import.meta.url);
const examples = readmeFrameworkExamples(here, readme, 'errors');

describe.each(examples)('README %s example', (_name, start) => {
  const port = start();

  it('serves a project with its request id', async () => {
    const outcome = await send(await port, { path: '/projects/1', headers: { 'X-Request-Id': 'readme-1' } });
    expect([outcome.status, outcome.body]).toEqual([200, { id: '1', requestId: 'readme-1' }]);
  });

  it('answers a missing one with a problem, in German when asked', async () => {
    const outcome = await send(await port, {
      path: '/projects/2',
      headers: { 'X-Request-Id': 'readme-2', 'Accept-Language': 'de' },
    });
    expect(outcome.status).toBe(404);
    expect(outcome.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(outcome.body).toEqual({
      type: '/errors/not_found',
      title: 'Not Found',
      status: 404,
      detail: 'Die angeforderte Ressource existiert nicht.',
      instance: '/projects/2',
      error_code: 'not_found',
      message: 'Die angeforderte Ressource existiert nicht.',
      request_id: 'readme-2',
    });
  });

  it('answers a wrong method with 405 and Allow', async () => {
    const outcome = await send(await port, { method: 'DELETE', path: '/projects/1' });
    expect([outcome.status, outcome.headers['allow']]).toEqual([405, 'GET, HEAD, OPTIONS']);
    expect(outcome.body).toMatchObject({ error_code: 'method_not_allowed' });
  });
});
