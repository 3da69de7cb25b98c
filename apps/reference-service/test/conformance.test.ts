/**
 * The reference service scored by @plumbline/conformance: its OpenAPI document passes every lint
 * rule and the live probes (writes included) pass every rule, on each CI run. The README's Spectral
 * commands are run with Spectral's own CLI against the packed package, installed outside the
 * workspace, as a user would.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { formatTable, lint, probe, scoreFindings } from '@plumbline/conformance';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, startService } from './harness.js';

describe('conformance scorecard of the reference service', () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService({ name: 'sqlite + memory', postgres: false, redis: false });
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('lint: the OpenAPI document passes every rule', async () => {
    const document = (await (await fetch(`${svc.url}/openapi.json`)).json()) as object;
    const card = scoreFindings(await lint(document), `${svc.url}/openapi.json`);
    expect(
      card.results.filter((r) => r.outcome !== 'pass'),
      formatTable(card),
    ).toEqual([]);
  });

  it('probe: every live rule passes, writes included', async () => {
    const card = await probe({
      baseUrl: svc.url,
      apiKey: svc.credentials.apiKeys.readWrite,
      allowWrites: true,
      requestsPerSecond: 200,
    });
    expect(
      card.results.filter((r) => r.outcome !== 'pass'),
      formatTable(card, { verbose: true }),
    ).toEqual([]);
    expect(card.results.length).toBe(19);
  });
});

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
