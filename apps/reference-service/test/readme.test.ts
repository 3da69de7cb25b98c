/**
 * The README's Tour is executable documentation: every ```sh block of the Tour section runs, in order,
 * against a fresh service, and every `# → NNN` annotation must match the status the call answered.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, startService } from './harness.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const tour = readme.slice(readme.indexOf('## Tour'), readme.indexOf('\n## ', readme.indexOf('## Tour') + 1));
const blocks = [...tour.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);

describe('README Tour', () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService({ name: 'sqlite + memory', postgres: false, redis: false });
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('has commands to run', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(10);
  });

  // Async: the service answers from this same process, so the event loop must stay free.
  it('every command answers the status the README says', async () => {
    for (const block of blocks) {
      const expected = [...block.matchAll(/# → (\d{3})/g)].map((m) => Number(m[1]));
      const script = `set -euo pipefail\n${block.replaceAll('http://127.0.0.1:3000', svc.url)}`;
      const { stdout: output } = await promisify(execFile)('bash', ['-c', script], {
        env: {
          ...process.env,
          API_KEY: svc.credentials.apiKeys.readWrite,
          RO_KEY: svc.credentials.apiKeys.readOnly,
          CLIENT_SECRET: svc.credentials.clients.readWrite.clientSecret,
        },
        encoding: 'utf8',
        timeout: 30_000,
      });
      // Bodies do not end with a newline, so a status line can follow one directly.
      const statuses = [...output.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
      expect(statuses, block).toEqual(expected);
    }
  });
});
