// The README's Fastify and Hono examples run as written (only the port is made ephemeral).
import { readmeFrameworkExamples, send } from '@plumbline/test-utils';
import { describe, expect, it } from 'vitest';
import { order, REFUSED, refusals } from './__fixtures__/readme.js';

const here = new URL('.', import.meta.url);
const readme = new URL('../README.md', import.meta.url);
const examples = readmeFrameworkExamples(here, readme, 'idempotency');

describe.each(examples)('README %s example', (_name, start) => {
  const port = start();

  it('creates once and replays the same bytes', async () => {
    const first = await send(await port, order('readme-1'));
    const again = await send(await port, order('readme-1'));
    expect([first.status, first.headers['location'], first.body]).toEqual([
      201,
      '/orders/1',
      { id: 1, sku: 'A-1' },
    ]);
    expect([
      again.status,
      again.headers['location'],
      again.body,
      again.headers['idempotent-replayed'],
    ]).toEqual([201, '/orders/1', { id: 1, sku: 'A-1' }, 'true']);
  });

  it('refuses a missing key and a reused one', async () => {
    expect(await refusals(await port, 'readme-1')).toEqual(REFUSED);
  });
});
