import { afterEach, describe, expect, it, vi } from 'vitest';
import { postgresAvailable, redisAvailable, uniquePrefix } from './index.js';

// Port 1 on loopback is never a Redis or PostgreSQL server.
const closed = { redis: 'redis://127.0.0.1:1', postgres: 'postgres://postgres@127.0.0.1:1/test' };

describe('service helpers', () => {
  afterEach(() => vi.unstubAllEnvs());

  it.each([
    ['redis', redisAvailable],
    ['postgres', postgresAvailable],
  ] as const)('%s: a closed port is reported as unavailable outside CI', async (name, check) => {
    vi.stubEnv('CI', '');
    await expect(check(closed[name])).resolves.toBe(false);
  });

  it.each([
    ['redis', redisAvailable, /Redis is not reachable/],
    ['postgres', postgresAvailable, /PostgreSQL is not reachable/],
  ] as const)('%s: a closed port fails loudly when CI=true', async (name, check, message) => {
    vi.stubEnv('CI', 'true');
    await expect(check(closed[name])).rejects.toThrow(message);
  });

  it('the machine services answer (and must, in CI)', async () => {
    const redis = await redisAvailable();
    const postgres = await postgresAvailable();
    if (process.env['CI'] === 'true') expect([redis, postgres]).toEqual([true, true]);
    else expect(typeof redis && typeof postgres).toBe('boolean');
  });

  it('gives unique prefixes', () => {
    expect(uniquePrefix('a')).not.toBe(uniquePrefix('a'));
    expect(uniquePrefix('idem')).toMatch(/^idem_[a-z0-9]+_\d+$/);
  });
});
