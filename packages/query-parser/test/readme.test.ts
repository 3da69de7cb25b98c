// The README's Fastify and Hono examples run as written (only the port is made ephemeral).
import { readmeFrameworkExamples, send } from '@plumbline/test-utils';
import { describe, expect, it } from 'vitest';

const here = new URL('.', import.meta.url);
const readme = new URL('../README.md', import.meta.url);
const examples = readmeFrameworkExamples(here, readme, 'query-parser');

describe.each(examples)('README %s example', (_name, start) => {
  const port = start();

  it('pages a filtered, sorted collection with Link and Vary', async () => {
    const outcome = await send(await port, { path: '/v1/tasks?status=open&sort=-id&limit=1' });
    expect(outcome.status).toBe(200);
    expect(outcome.body).toEqual({
      data: [{ id: 3, title: 'Send the invoice', status: 'open' }],
      page: { limit: 1, offset: 0, has_more: true, next_cursor: expect.any(String) },
      links: {
        self: '/v1/tasks?status=open&sort=-id&limit=1&offset=0',
        first: '/v1/tasks?status=open&sort=-id&limit=1&offset=0',
        next: '/v1/tasks?status=open&sort=-id&limit=1&offset=1',
      },
    });
    expect(outcome.headers['vary']).toBe('Prefer');
    expect(outcome.headers['link']).toContain('rel="next"');
  });

  it('takes the same query as a JSON search body', async () => {
    const outcome = await send(await port, {
      method: 'POST',
      path: '/v1/tasks/search',
      headers: { 'Content-Type': 'application/json' },
      body: '{"q":"report","sort":"title"}',
    });
    expect((outcome.body as { data: { id: number }[] }).data.map((row) => row.id)).toEqual([2, 1]);
  });

  it('refuses an unknown parameter with a problem', async () => {
    const outcome = await send(await port, { path: '/v1/tasks?colour=red' });
    expect([outcome.status, (outcome.body as { error_code: string }).error_code]).toEqual([
      400,
      'unknown_parameter',
    ]);
    expect(outcome.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  });
});
