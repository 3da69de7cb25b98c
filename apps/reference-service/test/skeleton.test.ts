import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXPRESS_VERSIONS } from '@plumbline/test-utils';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { ConfigError, helpText, loadConfig } from '../src/config.js';

const app = createApp();
const PROBLEM_MEMBERS = [
  'detail',
  'error_code',
  'instance',
  'message',
  'request_id',
  'status',
  'title',
  'type',
];

describe('reference service skeleton', () => {
  it('GET /health → 200 {"status":"ok"}', async () => {
    const res = await request(app).get('/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it.each([
    ['GET', '/nope', 404, 'not_found'],
    ['POST', '/health', 405, 'method_not_allowed'],
    ['DELETE', '/health', 405, 'method_not_allowed'],
  ] as const)('%s %s → %i %s problem with every member', async (method, path, status, code) => {
    const res = await request(app)[method.toLowerCase() as 'get' | 'post' | 'delete'](path);
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(Object.keys(res.body).sort()).toEqual(PROBLEM_MEMBERS);
    expect(res.body).toMatchObject({ status, error_code: code, instance: path, type: `/errors/${code}` });
    if (status === 405) expect(res.headers['allow']).toBe('GET, HEAD, OPTIONS');
  });

  it('answers problem+xml when XML is preferred', async () => {
    const res = await request(app).get('/nope').set('Accept', 'application/xml');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toBe('application/problem+xml; charset=utf-8');
    expect(res.text).toContain('<error_code>not_found</error_code>');
  });

  it.each([
    [{}, { port: 3000, host: '127.0.0.1' }],
    [
      { PORT: '0', HOST: '::1' },
      { port: 0, host: '::1' },
    ],
  ])('loadConfig(%j)', (env, config) => {
    expect(loadConfig(env)).toEqual(config);
  });

  it.each([['abc'], ['70000'], ['-1'], ['3000.5']])('rejects PORT=%s with a clear message', (port) => {
    expect(() => loadConfig({ PORT: port })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: port })).toThrow(/PORT must be an integer from 0 to 65535/);
  });

  it('lists every variable in --help', () => {
    expect(helpText()).toMatch(/PORT .*default: 3000/);
    expect(helpText()).toMatch(/HOST .*default: 127\.0\.0\.1/);
  });

  it('uses Express 5', () => {
    expect(EXPRESS_VERSIONS[0][0]).toBe('express5');
  });
});

// The built entry point, exactly as `pnpm start` runs it.
const main = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'main.mjs');

describe.skipIf(!existsSync(main) && process.env['CI'] !== 'true')('pnpm start (built service)', () => {
  it('listens, answers /health, and exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, [main], { env: { ...process.env, PORT: '0', HOST: '127.0.0.1' } });
    let output = '';
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listen line: ${output}`)), 10_000);
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /listening on (http:\/\/[^\s]+)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${output}`)));
    });
    const res = await fetch(`${url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
    const exit = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  });

  it('refuses an invalid PORT with exit code 2 and names the variable', async () => {
    const child = spawn(process.execPath, [main], { env: { ...process.env, PORT: 'abc' } });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toMatch(/PORT must be an integer/);
  });
});
