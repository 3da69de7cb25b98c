import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { compliantApp } from './__fixtures__/compliant-app.js';
import { listen, type Started } from './__fixtures__/listen.js';
import { badOpenApi, goodOpenApi } from './__fixtures__/openapi.js';
import { wrongApp } from './__fixtures__/wrong-app.js';
import { EXIT, runCli, USAGE } from './run-cli.js';

let dir = '';
let good: Started;
let wrong: Started;
let apiKey = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plumbline-conformance-'));
  await writeFile(join(dir, 'good.json'), JSON.stringify(goodOpenApi()));
  await writeFile(join(dir, 'bad.yaml'), stringify(badOpenApi()));
  const compliant = compliantApp();
  apiKey = compliant.apiKey;
  good = await listen(compliant.app);
  wrong = await listen(wrongApp('secret'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await good.close();
  await wrong.close();
});

async function cli(args: string[], env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env });
  return { code, stdout, stderr };
}

const FAST = ['--rps', '1000'];

describe('plumbline-conformance CLI', () => {
  it('lint of a conforming file exits 0', async () => {
    const { code, stdout } = await cli(['lint', join(dir, 'good.json')]);
    expect(code).toBe(EXIT.ok);
    expect(stdout.split('\n')[0]).toBe(
      `plumbline-conformance lint ${join(dir, 'good.json')}: 100% (15 passed, 0 failed, 0 skipped) OK`,
    );
  });

  it('lint of a non-conforming YAML file exits 1 and reports as JUnit', async () => {
    const { code, stdout } = await cli(['lint', join(dir, 'bad.yaml'), '--format', 'junit']);
    expect(code).toBe(EXIT.failed);
    expect(stdout).toContain('tests="15" failures="15" skipped="0"');
  });

  it('lint reads a URL', async () => {
    const { code, stdout } = await cli(['lint', `${good.url}/openapi.json`, '--format', 'json']);
    expect(code).toBe(EXIT.ok);
    expect(JSON.parse(stdout)).toMatchObject({ mode: 'lint', ok: true, percent: 100 });
  });

  it('probe of the compliant fixture exits 0 (API key from the environment)', async () => {
    const { code, stdout } = await cli(['probe', good.url, '--allow-writes', '--format', 'json', ...FAST], {
      PLUMBLINE_API_KEY: apiKey,
    });
    expect(code).toBe(EXIT.ok);
    expect(JSON.parse(stdout)).toMatchObject({
      mode: 'probe',
      ok: true,
      percent: 100,
      failed: 0,
      skipped: 0,
    });
  });

  it('probe of the wrong fixture exits 1 and writes the report to --output', async () => {
    const output = join(dir, 'report.xml');
    const args = [
      'probe',
      wrong.url,
      '--collection',
      '/api/v2/items',
      '--token',
      'secret',
      '--format',
      'junit',
    ];
    const { code, stdout } = await cli([...args, '--output', output, ...FAST]);
    expect(code).toBe(EXIT.failed);
    expect(stdout).toBe('');
    expect(await readFile(output, 'utf8')).toContain('<failure message="[error] docs/conventions.md 4.5 (3)');
  });

  it('probe with --openapi from a file', async () => {
    const { code } = await cli([
      'probe',
      good.url,
      '--openapi',
      join(dir, 'good.json'),
      '--api-key',
      apiKey,
      ...FAST,
    ]);
    expect(code).toBe(EXIT.ok);
  });

  it('--help prints the usage', async () => {
    expect(await cli(['--help'])).toEqual({ code: EXIT.ok, stdout: USAGE, stderr: '' });
  });

  it.each([
    [[], 'expected a command and one target'],
    [['lint'], 'expected a command and one target'],
    [['lint', 'a.json', 'b.json'], 'expected a command and one target'],
    [['frobnicate', 'x'], 'unknown command frobnicate'],
    [['lint', 'x.json', '--format', 'pdf'], 'unknown format pdf'],
    [['lint', 'x.json', '--min-score', '101'], '--min-score must be an integer from 0 to 100'],
    [
      ['probe', 'http://127.0.0.1:1', '--dry-run'],
      '--dry-run sends nothing: pass --openapi <file|url> or --collection',
    ],
    [['lint', '/nonexistent/openapi.json'], 'cannot read /nonexistent/openapi.json: ENOENT'],
    [['probe', 'http://127.0.0.1:1', '--rps', '0'], '--rps must be a positive number'],
    [['probe', 'not a url'], 'base URL must be http(s): not a url'],
    [
      ['probe', 'http://127.0.0.1:1', '--token', 't', '--api-key', 'k'],
      'pass either a token or an API key, not both',
    ],
    [['lint', 'x', '--nope'], "Unknown option '--nope'"],
  ])('usage error %j exits 2', async (args, message) => {
    const { code, stderr, stdout } = await cli(args);
    expect(code).toBe(EXIT.usage);
    expect(stdout).toBe('');
    expect(stderr).toContain(message);
  });
});
