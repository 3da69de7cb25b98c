/**
 * FRAMEWORK: which values it takes, what a wrong one says, and that `--help` lists it. That the
 * built service starts on it is framework.built.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, helpText, loadConfig } from '../src/service/config.js';

describe('FRAMEWORK', () => {
  it.each([
    [{}, 'express'],
    [{ FRAMEWORK: 'express' }, 'express'],
    [{ FRAMEWORK: 'fastify' }, 'fastify'],
    [{ FRAMEWORK: ' hono ' }, 'hono'],
    [{ FRAMEWORK: '' }, 'express'],
  ])('%j → %s', (env, framework) => {
    expect(loadConfig(env).framework).toBe(framework);
  });

  it.each(['koa', 'Express', 'fastify,hono', 'next'])('%s is refused, naming the choices', (value) => {
    expect(() => loadConfig({ FRAMEWORK: value })).toThrow(
      new ConfigError(`FRAMEWORK must be one of express, fastify, hono, got "${value}"`),
    );
  });

  it('--help lists it with its default', () => {
    expect(helpText()).toMatch(/FRAMEWORK .*express \| fastify \| hono.*\(default: express\)/);
  });
});
