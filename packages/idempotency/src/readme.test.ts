// The README's Fastify and Hono examples run as written (only the port is made ephemeral).
import { readmeFrameworkExamples, send } from '@plumbline/test-utils';
import { describe, expect, it } from 'vitest';

const here = new URL('.', import.meta.url);
const readme = new URL('../README.md', import.meta.url);
const examples = readmeFrameworkExamples(here, readme, 'idempotency');

describe.each(examples)('README %s example', (_name, start) => {
  const port = start();
  const order = (key?: string, body = '{"sku":"A-1"}') => ({
    method: 'POST',
    path: '/orders',
    headers: { 'Content-Type': 'application/json', ...(key ? { 'Idempotency-Key': key } : {}) },
    body,
  });

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
    const missing = await send(await port, order());
    const reused = await send(await port, order('readme-1', '{"sku":"B-2"}'));
    expect([missing.status, (missing.body as { error_code: string }).error_code]).toEqual([
      400,
      'idempotency_key_missing',
    ]);
    expect([reused.status, (reused.body as { error_code: string }).error_code]).toEqual([
      422,
      'idempotency_key_reused',
    ]);
  });
});
