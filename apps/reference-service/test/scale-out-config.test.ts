/**
 * Scale-out settings: `REDIS_CLUSTER_NODES` (a Redis Cluster instead of one Redis) and
 * `DATABASE_POOL_SIZE`, read and validated at start.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, helpText, loadConfig } from '../src/service/config.js';

describe('REDIS_CLUSTER_NODES', () => {
  it.each([
    ['127.0.0.1:7000', [{ host: '127.0.0.1', port: 7000 }]],
    [
      'redis-a:7000,redis-b:7001, redis-c.internal:7002 ',
      [
        { host: 'redis-a', port: 7000 },
        { host: 'redis-b', port: 7001 },
        { host: 'redis-c.internal', port: 7002 },
      ],
    ],
    ['[::1]:6379', [{ host: '::1', port: 6379 }]],
    ['', undefined],
  ])('%j is read as %j', (value, expected) => {
    expect(loadConfig({ REDIS_CLUSTER_NODES: value }).redisClusterNodes).toEqual(expected);
  });

  it.each([
    ['127.0.0.1', 'REDIS_CLUSTER_NODES must be host:port entries separated by commas, got "127.0.0.1"'],
    ['127.0.0.1:0', 'REDIS_CLUSTER_NODES must be host:port entries separated by commas, got "127.0.0.1:0"'],
    ['a:70000', 'REDIS_CLUSTER_NODES must be host:port entries separated by commas, got "a:70000"'],
    ['a:7000,,b:7001', 'REDIS_CLUSTER_NODES must be host:port entries separated by commas, got ""'],
    [
      'redis://a:7000',
      'REDIS_CLUSTER_NODES must be host:port entries separated by commas, got "redis://a:7000"',
    ],
    [
      'a:7000;b:7001',
      'REDIS_CLUSTER_NODES must be host:port entries separated by commas, got "a:7000;b:7001"',
    ],
    [
      'user:pw@a:7000',
      'REDIS_CLUSTER_NODES must be host:port entries separated by commas, got "user:pw@a:7000"',
    ],
  ])('%j stops the start: %s', (value, message) => {
    expect(() => loadConfig({ REDIS_CLUSTER_NODES: value })).toThrow(new ConfigError(message));
  });

  it('is exclusive with REDIS_URL', () => {
    expect(() => loadConfig({ REDIS_CLUSTER_NODES: 'a:7000', REDIS_URL: 'redis://127.0.0.1:6379' })).toThrow(
      new ConfigError('REDIS_URL and REDIS_CLUSTER_NODES are exclusive: set one of them'),
    );
  });

  it('is unset by default', () => {
    expect([loadConfig({}).redisClusterNodes, loadConfig({}).redisUrl]).toEqual([undefined, undefined]);
  });
});

describe('DATABASE_POOL_SIZE', () => {
  it.each([
    [undefined, 10],
    ['1', 1],
    ['50', 50],
    ['1000', 1000],
  ])('%j is read as %d', (value, expected) => {
    expect(loadConfig(value === undefined ? {} : { DATABASE_POOL_SIZE: value }).databasePoolSize).toBe(
      expected,
    );
  });

  it.each(['0', '1001', '-1', '2.5', 'ten'])('%j stops the start with a message naming it', (value) => {
    expect(() => loadConfig({ DATABASE_POOL_SIZE: value })).toThrow(
      new ConfigError(`DATABASE_POOL_SIZE must be an integer from 1 to 1000, got "${value}"`),
    );
  });
});

it('--help lists both with their defaults', () => {
  const help = helpText();
  expect(help).toMatch(/REDIS_CLUSTER_NODES .*host:port,host:port.*\(default: \(unset\)\)/);
  expect(help).toMatch(/DATABASE_POOL_SIZE .*\(default: 10\)/);
});
