/**
 * The pieces that keep the service answering when a dependency stalls: the configuration of every
 * deadline, and /ready with Redis gone. The rate limiter's local fallback (FallbackStore) is tested
 * where it lives, in @plumbline/rate-limit (src/fallback-store.test.ts).
 */
import { redisAvailable } from '@plumbline/test-utils';
import { describe, expect, it } from 'vitest';
import { ConfigError, helpText, loadConfig } from '../src/service/config.js';
import { startService } from './harness.js';

describe('deadlines and idempotency settings', () => {
  it('defaults', () => {
    const config = loadConfig({});
    expect([config.timeouts, config.idempotencyStore, config.idempotencyLeaseMs]).toEqual([
      { redisCommandMs: 1000, redisConnectMs: 2000, databaseStatementMs: 5000, databaseConnectMs: 2000 },
      'database',
      60_000,
    ]);
  });

  it.each([
    ['REDIS_COMMAND_TIMEOUT_MS', '250', (c: ReturnType<typeof loadConfig>) => c.timeouts.redisCommandMs, 250],
    ['REDIS_CONNECT_TIMEOUT_MS', '750', (c: ReturnType<typeof loadConfig>) => c.timeouts.redisConnectMs, 750],
    [
      'DATABASE_STATEMENT_TIMEOUT_MS',
      '3000',
      (c: ReturnType<typeof loadConfig>) => c.timeouts.databaseStatementMs,
      3000,
    ],
    [
      'DATABASE_CONNECT_TIMEOUT_MS',
      '1500',
      (c: ReturnType<typeof loadConfig>) => c.timeouts.databaseConnectMs,
      1500,
    ],
    ['IDEMPOTENCY_STORE', 'shared', (c: ReturnType<typeof loadConfig>) => c.idempotencyStore, 'shared'],
    ['IDEMPOTENCY_LEASE_MS', '5000', (c: ReturnType<typeof loadConfig>) => c.idempotencyLeaseMs, 5000],
  ] as const)('%s=%s is read', (name, value, pick, expected) => {
    expect(pick(loadConfig({ [name]: value }))).toBe(expected);
  });

  it.each([
    ['REDIS_COMMAND_TIMEOUT_MS', '0'],
    ['REDIS_COMMAND_TIMEOUT_MS', '1s'],
    ['DATABASE_STATEMENT_TIMEOUT_MS', '-5'],
    ['DATABASE_CONNECT_TIMEOUT_MS', '9999999'],
    ['IDEMPOTENCY_STORE', 'redis'],
    ['IDEMPOTENCY_LEASE_MS', '50'],
  ])('%s=%s stops the start with a message naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  it('--help lists every new setting with its default', () => {
    const help = helpText();
    for (const [name, value] of [
      ['REDIS_COMMAND_TIMEOUT_MS', '1000'],
      ['REDIS_CONNECT_TIMEOUT_MS', '2000'],
      ['DATABASE_STATEMENT_TIMEOUT_MS', '5000'],
      ['DATABASE_CONNECT_TIMEOUT_MS', '2000'],
      ['IDEMPOTENCY_STORE', 'database'],
      ['IDEMPOTENCY_LEASE_MS', '60000'],
    ]) {
      expect(help).toMatch(new RegExp(`${name} .*\\(default: ${value}\\)`));
    }
  });
});

const redisUp = await redisAvailable();

describe.skipIf(!redisUp)('/ready with Redis gone', () => {
  it('503 problem naming the dependency that is down; /health stays 200', async () => {
    const svc = await startService({ name: 'sqlite + redis', postgres: false, redis: true });
    try {
      svc.ctx.redis?.disconnect();
      const ready = await fetch(`${svc.url}/ready`);
      const health = await fetch(`${svc.url}/health`);
      const body = (await ready.json()) as Record<string, unknown>;
      expect([ready.status, ready.headers.get('retry-after'), ready.headers.get('content-type')]).toEqual([
        503,
        '1',
        'application/problem+json; charset=utf-8',
      ]);
      expect([body['error_code'], body['checks']]).toEqual([
        'service_unavailable',
        { database: 'ok', redis: 'down' },
      ]);
      expect(health.status).toBe(200);
    } finally {
      await svc.ctx.redis?.connect().catch(() => {});
      await svc.stop().catch(() => {});
    }
  });
});
