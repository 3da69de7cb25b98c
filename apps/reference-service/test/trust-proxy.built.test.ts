/**
 * TRUST_PROXY=true stops the built service at start with the configuration's message (the message
 * itself is asserted in trust-proxy.test.ts). A `*.built.test.ts` file runs in `pnpm test:all`, after
 * the build; `pnpm test` leaves it out.
 */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/service/config.js';

function refusal(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error(`loadConfig(${JSON.stringify(env)}) did not refuse`);
}

describe('TRUST_PROXY configuration', () => {
  it('the built service refuses TRUST_PROXY=true at start, exiting 2 with the message', async () => {
    const main = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'main.mjs');
    const child = spawn(process.execPath, [main], {
      env: { ...process.env, PORT: '0', LOG_LEVEL: 'silent', TRUST_PROXY: 'true' },
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout.resume();
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain(`Configuration error: ${refusal({ TRUST_PROXY: 'true' })}\n`);
  });
});
