import { bench, describe } from 'vitest';
import {
  createIdempotency,
  createMemoryStore,
  fingerprintRequest,
  parseIdempotencyKey,
} from '../src/index.js';

const headers = {
  'idempotency-key': '"8e03978e-40d5-43e8-bc93-6894a57f9324"',
  'content-type': 'application/json',
};
const body = { sku: 'abc-123', qty: 2, address: { street: 'Main St 1', city: 'Springfield', zip: '12345' } };
const response = {
  status: 201,
  headers: {
    'content-type': 'application/json; charset=utf-8',
    location: '/orders/1',
    'set-cookie': ['a=1'],
  },
  body: Buffer.from(JSON.stringify({ id: 1, ...body })),
};

describe('core per-request work', () => {
  bench('parseIdempotencyKey', () => {
    parseIdempotencyKey(headers);
  });
  bench('fingerprintRequest (small JSON body)', () => {
    fingerprintRequest({ method: 'POST', path: '/orders', query: 'a=1', body });
  });

  const idem = createIdempotency({ store: createMemoryStore({ maxEntries: 100_000 }) });
  let n = 0;
  bench('begin + complete, new key (memory store)', async () => {
    n += 1;
    const decision = await idem.begin({
      method: 'POST',
      path: '/orders',
      headers: { 'idempotency-key': `k${n}` },
      body,
    });
    if (decision.action === 'execute') await decision.claim.complete(response);
  });
  bench('begin, replay (memory store)', async () => {
    await idem.begin({ method: 'POST', path: '/orders', headers: { 'idempotency-key': 'k1' }, body });
  });
});
