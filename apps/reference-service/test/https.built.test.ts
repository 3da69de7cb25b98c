/**
 * docs/conventions.md 5 (1): TLS_CERT_FILE/TLS_KEY_FILE serve HTTPS with HSTS, from the built entry
 * point as `pnpm start` runs it.
 * A `*.built.test.ts` file runs in `pnpm test:all`, after the build; `pnpm test` leaves it out.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const main = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'main.mjs');

describe('TLS_CERT_FILE / TLS_KEY_FILE', () => {
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
