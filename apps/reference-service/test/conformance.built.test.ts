/**
 * The conformance README's commands, run as written against the reference service: its CI example
 * with the packaged binary, and its Spectral commands with Spectral's own CLI against the packed
 * package, installed outside the workspace, as a user would. Both need the built package: a
 * `*.built.test.ts` file runs in `pnpm test:all`, after the build; `pnpm test` leaves it out.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, startService } from './harness.js';

const run = promisify(execFile);
const conformanceDir = join(dirname(fileURLToPath(import.meta.url)), '../../../packages/conformance');
const spectralBin = join(
  dirname(createRequire(import.meta.url).resolve('@stoplight/spectral-cli/package.json')),
  'dist/index.js',
);

async function spectral(cwd: string, args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [spectralBin, ...args], { cwd });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

describe("the conformance README's CI example, with the packaged binary", () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService({ name: 'sqlite + memory', postgres: false, redis: false });
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it("the conformance README's CI commands pass with the packaged binary", async () => {
    // The two commands of the README's CI example, run as written, against this service.
    const readme = await readFile(join(conformanceDir, 'README.md'), 'utf8');
    const ci = /### In CI\n[\s\S]*?```yaml\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const commands = [...ci.matchAll(/run: npx plumbline-conformance (.+)$/gm)].map((m) => m[1]!);
    expect(commands).toHaveLength(2);
    const work = await mkdtemp(join(tmpdir(), 'plumbline-ci-'));
    try {
      for (const command of commands) {
        const args = command.replaceAll('http://127.0.0.1:3000', svc.url).split(' ');
        const { stderr } = await run(
          process.execPath,
          [join(conformanceDir, 'bin/plumbline-conformance.mjs'), ...args, '--rps', '200', '--quiet'],
          { cwd: work, env: { ...process.env, PLUMBLINE_API_KEY: svc.credentials.apiKeys.readWrite } },
        );
        expect(stderr).toBe('');
      }
      const sarif = JSON.parse(await readFile(join(work, 'lint.sarif'), 'utf8'));
      expect([sarif.version, sarif.runs[0].results]).toEqual(['2.1.0', []]);
      expect(await readFile(join(work, 'conformance.html'), 'utf8')).toContain('<strong>100%</strong>');
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("the conformance README's Spectral commands, on the packed package", () => {
  let svc: RunningService;
  let project: string;
  beforeAll(async () => {
    svc = await startService({ name: 'sqlite + memory', postgres: false, redis: false });
    // A project outside the workspace with the tarball unpacked where npm puts it (the ruleset
    // files import only each other, so no dependency has to be installed for Spectral).
    project = await mkdtemp(join(tmpdir(), 'plumbline-spectral-'));
    await run('pnpm', ['pack', '--pack-destination', project], { cwd: conformanceDir });
    const tarball = (await readdir(project)).find((name) => name.endsWith('.tgz'))!;
    const installed = join(project, 'node_modules/@plumbline/conformance');
    await mkdir(installed, { recursive: true });
    await run('tar', ['-xzf', join(project, tarball), '-C', installed, '--strip-components=1']);
    const document = await (await fetch(`${svc.url}/openapi.json`)).text();
    await writeFile(join(project, 'openapi.json'), document);
  }, 120_000);
  afterAll(async () => {
    await svc?.stop();
    if (project) await rm(project, { recursive: true, force: true });
  });

  it('spectral lint --ruleset node_modules/@plumbline/conformance/dist/ruleset.mjs: no problem', async () => {
    const result = await spectral(project, [
      'lint',
      'openapi.json',
      '--ruleset',
      'node_modules/@plumbline/conformance/dist/ruleset.mjs',
    ]);
    expect(result.output).toContain('No results with a severity of');
    expect(result.output).not.toContain('Error running Spectral');
    expect(result.code).toBe(0);
  }, 60_000);

  it('the .spectral.mjs example (createRuleset with an extra ignored path): no problem', async () => {
    await writeFile(
      join(project, '.spectral.mjs'),
      [
        "import { createRuleset } from '@plumbline/conformance/ruleset';",
        "export default createRuleset({ ignorePaths: [/^\\/internal\\//], disable: ['plumbline-sunset-header'] });",
        '',
      ].join('\n'),
    );
    const result = await spectral(project, ['lint', 'openapi.json']);
    expect(result.output).toContain('No results with a severity of');
    expect(result.code).toBe(0);
    // The same ruleset still finds problems: a document with a verb path fails.
    await writeFile(
      join(project, 'bad.json'),
      JSON.stringify({
        openapi: '3.1.0',
        info: { title: 'bad', version: '1' },
        paths: { '/v1/getProjects': { get: { responses: { '200': { description: 'ok' } } } } },
      }),
    );
    const bad = await spectral(project, ['lint', 'bad.json']);
    expect(bad.output).toContain('plumbline-path-no-verbs');
    expect(bad.code).toBe(1);
  }, 60_000);
});
