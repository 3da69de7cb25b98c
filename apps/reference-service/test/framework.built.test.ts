/**
 * The built service starts on the framework of this test project (vitest.config.ts runs this suite
 * once per framework) and says so in its start banner.
 * A `*.built.test.ts` file runs in `pnpm test:all`, after the build; `pnpm test` leaves it out.
 */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const main = join(dirname(fileURLToPath(import.meta.url)), '../dist/main.mjs');

describe('FRAMEWORK', () => {
  const framework = process.env['FRAMEWORK'] ?? 'express';
  const banner = { express: 'Express 5', fastify: 'Fastify 5', hono: 'Hono 4 (@hono/node-server)' };

  it(`the built service starts on ${framework}, names it in its banner and answers`, async () => {
    const child = spawn(process.execPath, [main], {
      env: { ...process.env, FRAMEWORK: framework, PORT: '0', SEED_DEMO_DATA: 'false', LOG_LEVEL: 'silent' },
    });
    try {
      let output = '';
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no banner: ${output}`)), 15_000);
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          const match = /listening on (http:\/\/\S+)\n[^\n]*shared state/.exec(output);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        });
        child.once('exit', (code) => reject(new Error(`exited ${code}: ${output}`)));
      });
      expect(output).toContain(`\nFramework: ${banner[framework as keyof typeof banner]}; storage: SQLite`);
      const res = await fetch(`${url}/health`);
      expect([res.status, await res.text()]).toEqual([200, '{"status":"ok"}']);
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });
});
