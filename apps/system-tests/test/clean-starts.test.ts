/**
 * Twenty starts in a row on this project's FRAMEWORK, each on the same SQLite file: the service must
 * come up, answer from the database and stop on SIGTERM with exit code 0 every time. A native SQLite
 * addon (better-sqlite3 12 on Node 24.19+) aborted some starts with SIGABRT in a statement's finalizer;
 * the service now uses Node's built-in node:sqlite, and this is the check that no start dies.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Credentials, environmentReady, request, startInstance } from './harness.js';

const ready = await environmentReady();
const STARTS = 20;

describe.skipIf(!ready)(`${STARTS} starts in a row on one SQLite file`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'plumbline-starts-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('every start answers and exits 0 on SIGTERM', async () => {
    const env = { DATABASE_FILE: join(dir, 'service.db') };
    const outcomes: string[] = [];
    let credentials: Credentials | undefined;
    for (let n = 1; n <= STARTS; n++) {
      // The first start seeds the file and prints the demo credentials; later ones reuse them.
      const started = await startInstance(env, { expectCredentials: n === 1 });
      credentials ??= started.credentials;
      const { instance } = started;
      const health = await request(`${instance.url}/health`);
      const projects = await request(`${instance.url}/v2/projects?limit=5`, {
        headers: { 'X-API-Key': credentials!.apiKey },
      });
      await instance.stop();
      const code = await instance.exited;
      const signal = instance.child.signalCode;
      const crashed = /Assertion failed|Segmentation fault|SIGABRT|core dumped/.test(instance.output());
      outcomes.push(
        `start ${n}: health ${health.status}, projects ${projects.status} (${projects.json<{ data?: unknown[] }>().data?.length ?? 0} rows), exit ${code}${signal ? ` by ${signal}` : ''}${crashed ? ', crash output' : ''}`,
      );
    }
    expect(outcomes).toEqual(
      Array.from({ length: STARTS }, (_, i) => `start ${i + 1}: health 200, projects 200 (5 rows), exit 0`),
    );
  });
});
