/** Requests the README examples' tests send: every example serves `POST /orders` with a required key. */
import { send } from '@plumbline/test-utils';

/** `POST /orders` with a JSON body, and the key when given. */
export const order = (key?: string, body = '{"sku":"A-1"}') => ({
  method: 'POST',
  path: '/orders',
  headers: { 'Content-Type': 'application/json', ...(key ? { 'Idempotency-Key': key } : {}) },
  body,
});

/** A request without a key, then `key` reused with another body: `[[status, error_code], ...]`. */
export async function refusals(port: number, key: string): Promise<unknown[]> {
  const missing = await send(port, order());
  const reused = await send(port, order(key, '{"sku":"B-2"}'));
  return [missing, reused].map((r) => [r.status, (r.body as { error_code?: string }).error_code]);
}

/** What `refusals` answers when the example refuses both as the README says. */
export const REFUSED = [
  [400, 'idempotency_key_missing'],
  [422, 'idempotency_key_reused'],
];
