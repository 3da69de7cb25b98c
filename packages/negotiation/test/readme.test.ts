// The README's Fastify and Hono examples run as written (only the port is made ephemeral).
import { readmeFrameworkExamples, send } from '@plumbline/test-utils';
import { describe, expect, it } from 'vitest';

const here = new URL('.', import.meta.url);
const readme = new URL('../README.md', import.meta.url);
const examples = readmeFrameworkExamples(here, readme, 'negotiation');

describe.each(examples)('README %s example', (_name, start) => {
  const port = start();

  it('represents a project as XML in German', async () => {
    const outcome = await send(await port, {
      path: '/projects/7',
      headers: { Accept: 'application/xml', 'Accept-Language': 'de-DE' },
    });
    expect(outcome.status).toBe(200);
    expect(outcome.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(outcome.headers['content-language']).toBe('de');
    expect(outcome.headers['vary']).toBe('Accept, Accept-Language');
    expect(outcome.body).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><data><id>7</id><name>Bridge</name><language>de</language></data>',
    );
  });

  it('answers text/html with 406 listing the available types', async () => {
    const outcome = await send(await port, { path: '/projects/7', headers: { Accept: 'text/html' } });
    expect(outcome.status).toBe(406);
    expect(outcome.body).toMatchObject({
      error_code: 'not_acceptable',
      available: ['application/json', 'application/xml'],
    });
  });

  it('creates with JSON, and refuses a text body with 415 and Accept-Post', async () => {
    const created = await send(await port, {
      method: 'POST',
      path: '/projects',
      headers: { 'Content-Type': 'application/json' },
      body: '{"name":"Dam"}',
    });
    expect([created.status, created.headers['location'], created.body]).toEqual([
      201,
      '/projects/8',
      { id: 8, name: 'Dam' },
    ]);
    const refused = await send(await port, {
      method: 'POST',
      path: '/projects',
      headers: { 'Content-Type': 'text/plain' },
      body: 'Dam',
    });
    expect([refused.status, refused.headers['accept-post']]).toEqual([415, 'application/json']);
  });
});
