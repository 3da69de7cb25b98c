/**
 * Issue #24 (3): a replay is the original response, so its body `request_id` and its `X-Request-Id`
 * both name the original request; the retry's own id is in `Replayed-By-Request-Id`. Through the
 * service, with the key kept in the database transaction (the default) and in the shared store.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, startService } from './harness.js';

describe.each([
  ['in the database transaction', {}],
  ['in the shared store', { IDEMPOTENCY_STORE: 'shared' }],
])('replayed request ids, key kept %s', (_name, env) => {
  let svc: RunningService;
  let auth: Record<string, string>;
  beforeAll(async () => {
    svc = await startService({ name: 'sqlite + memory', postgres: false, redis: false }, env);
    auth = { 'x-api-key': svc.credentials.apiKeys.readWrite };
  });
  afterAll(async () => {
    await svc?.stop();
  });

  /** POSTs the same key and body twice, each with its own request id. */
  async function twice(body: unknown) {
    const key = randomUUID();
    const send = async (requestId: string) => {
      const res = await fetch(`${svc.url}/v2/projects`, {
        method: 'POST',
        headers: {
          ...auth,
          'content-type': 'application/json',
          'idempotency-key': key,
          'x-request-id': requestId,
        },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as { request_id?: string; error_code?: string };
      return { status: res.status, headers: res.headers, json };
    };
    const original = `orig-${key}`;
    const retry = `retry-${key}`;
    return { original, retry, first: await send(original), again: await send(retry) };
  }

  it('a replayed 4xx: body request_id and X-Request-Id agree on the original; the retry id is its own header', async () => {
    const { original, retry, first, again } = await twice({ name: '' });
    expect([first.status, first.json.request_id, first.headers.get('x-request-id')]).toEqual([
      400,
      original,
      original,
    ]);
    expect([
      again.status,
      again.json.error_code,
      again.headers.get('idempotent-replayed'),
      again.json.request_id,
      again.headers.get('x-request-id'),
      again.headers.get('replayed-by-request-id'),
    ]).toEqual([400, first.json.error_code, 'true', original, original, retry]);
  });

  it('a replayed 201: X-Request-Id names the original; the retry id is in Replayed-By-Request-Id', async () => {
    const { original, retry, first, again } = await twice({ name: `Replay ${randomUUID()}` });
    expect([
      first.status,
      first.headers.get('x-request-id'),
      first.headers.get('replayed-by-request-id'),
    ]).toEqual([201, original, null]);
    expect([
      again.status,
      again.json,
      again.headers.get('idempotent-replayed'),
      again.headers.get('x-request-id'),
      again.headers.get('replayed-by-request-id'),
    ]).toEqual([201, first.json, 'true', original, retry]);
  });
});
