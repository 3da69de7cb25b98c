/**
 * The bin runs the built CLI. A `*.built.test.ts` file runs in `pnpm test:all`, after the build; the
 * contributor loop (`pnpm test`) leaves it out.
 */
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');

describe('package', () => {
  it('the bin runs the built CLI', async () => {
    const { stdout } = await run(process.execPath, [join(root, 'bin/plumbline-conformance.mjs'), '--help']);
    expect(stdout).toMatch(/^Usage:\n {2}plumbline-conformance lint/);
  });
});
