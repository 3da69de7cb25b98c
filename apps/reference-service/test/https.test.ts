/**
 * docs/conventions.md 5 (1): all traffic uses HTTPS. Plain HTTP is refused (403 https_required) outside
 * development loopback, and a trusted proxy's X-Forwarded-Proto counts. TLS_CERT_FILE/TLS_KEY_FILE
 * (HTTPS with HSTS from the built service) are in https.built.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, startService } from './harness.js';

const sqlite = { name: 'sqlite + memory', postgres: false, redis: false };

describe('HTTPS enforcement', () => {
  let production: RunningService;
  let behindProxy: RunningService;
  beforeAll(async () => {
    production = await startService(sqlite, { NODE_ENV: 'production' });
    behindProxy = await startService(sqlite, { NODE_ENV: 'production', TRUST_PROXY: '1' });
  });
  afterAll(async () => {
    await production?.stop();
    await behindProxy?.stop();
  });

  it('refuses plain HTTP in production, even on loopback: 403 https_required', async () => {
    const res = await fetch(`${production.url}/health`);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error_code: string }).error_code).toBe('https_required');
  });

  it('accepts a request a trusted proxy received over HTTPS', async () => {
    const headers = { 'x-forwarded-proto': 'https', 'x-api-key': behindProxy.credentials.apiKeys.readOnly };
    expect((await fetch(`${behindProxy.url}/v2/projects?limit=1`, { headers })).status).toBe(200);
    expect(
      (
        await fetch(`${behindProxy.url}/v2/projects?limit=1`, {
          headers: { ...headers, 'x-forwarded-proto': 'http' },
        })
      ).status,
    ).toBe(403);
  });
});
