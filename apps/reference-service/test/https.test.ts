/**
 * docs/conventions.md 5 (1): all traffic uses HTTPS. Plain HTTP is refused (403 https_required) outside
 * development loopback, a trusted proxy's X-Forwarded-Proto counts, and TLS_CERT_FILE/TLS_KEY_FILE
 * serve HTTPS with HSTS.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
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

const main = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'main.mjs');

// The built entry point, as `pnpm start` runs it; `pnpm test` builds first, CI must run this.
describe.skipIf(!existsSync(main) && process.env['CI'] !== 'true')('TLS_CERT_FILE / TLS_KEY_FILE', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'plumbline-tls-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('serves HTTPS with Strict-Transport-Security', async () => {
    const child = spawn(process.execPath, [main], {
      env: {
        ...process.env,
        PORT: '0',
        NODE_ENV: 'production',
        SEED_DEMO_DATA: 'false',
        LOG_LEVEL: 'silent',
        TLS_CERT_FILE: join(dir, 'cert.pem'),
        TLS_KEY_FILE: join(dir, 'key.pem'),
      },
    });
    try {
      let output = '';
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no listen line: ${output}`)), 15_000);
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          const match = /listening on (https:\/\/\S+)/.exec(output);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        });
        child.once('exit', (code) => reject(new Error(`exited ${code}: ${output}`)));
      });
      const { status, hsts } = await new Promise<{ status: number; hsts: unknown }>((resolve, reject) => {
        httpsRequest(`${url}/health`, { rejectUnauthorized: false }, (res) => {
          res.resume();
          resolve({ status: res.statusCode ?? 0, hsts: res.headers['strict-transport-security'] });
        })
          .on('error', reject)
          .end();
      });
      expect(status).toBe(200);
      expect(hsts).toBe('max-age=31536000; includeSubDomains');
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });
});
