/**
 * `pnpm template <framework> <dir>` as a team starting a service would use it, once per framework:
 * the script of the release copy (whose packages carry the versions this run published) writes the
 * project outside the repository, npm installs it from the local registry, and then its own scripts
 * run as its README says: typecheck, build, start (answering /health on a free loopback port, with
 * the framework named in its banner), and test. No Redis or PostgreSQL: the copy's defaults.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { projectDir, runOk, userEnv } from './support.js';

const registry = inject('registry');
const published = inject('published');
const releaseDir = inject('releaseDir');

const FRAMEWORKS = ['express', 'fastify', 'hono'] as const;
const BANNER_NAMES = { express: 'Express 5', fastify: 'Fastify 5', hono: 'Hono 4 (@hono/node-server)' };

/** A user's shell without this machine's database and Redis: the copy must run on its defaults. */
function env(): NodeJS.ProcessEnv {
  const { DATABASE_URL: _db, REDIS_URL: _redis, ...rest } = userEnv(registry);
  return rest;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

interface VitestReport {
  success: boolean;
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  testResults: { name: string; status: string }[];
}

describe.each(FRAMEWORKS)('pnpm template %s, installed from the registry', (framework) => {
  const dir = join(projectDir(registry, 'templates'), `my-${framework}-api`);

  it('writes the project with the published @plumbline/* versions', async () => {
    await runOk(process.execPath, [join(releaseDir, 'scripts/template.mjs'), framework, dir], {
      cwd: releaseDir,
      env: env(),
    });
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    const plumbline = Object.entries({ ...manifest.dependencies, ...manifest.devDependencies }).filter(
      ([name]) => name.startsWith('@plumbline/'),
    );
    expect(plumbline.length).toBeGreaterThan(5);
    expect(plumbline.filter(([name, range]) => range !== `^${published[name]}`)).toEqual([]);
  });

  it('installs with npm, type-checks and builds', async () => {
    // The npm cache and Verdaccio's storage are kept between runs (support.ts), so only the first
    // install of a run downloads the third-party packages.
    await runOk('npm', ['install'], { cwd: dir, env: env(), timeoutMs: 600_000 });
    await runOk('npm', ['run', 'typecheck'], { cwd: dir, env: env(), timeoutMs: 300_000 });
    await runOk('npm', ['run', 'build'], { cwd: dir, env: env(), timeoutMs: 300_000 });
  });

  it('starts with npm start, names its framework and answers /health and the API', async () => {
    const port = await freePort();
    // Its own process group, so SIGTERM reaches the service under npm and sh.
    const child = spawn('npm', ['start'], {
      cwd: dir,
      env: { ...env(), PORT: String(port), HOST: '127.0.0.1', NODE_ENV: 'development', LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    // 'close': every holder of the pipes is gone, the service under npm included, not only npm.
    const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
    try {
      const base = `http://127.0.0.1:${port}`;
      const deadline = Date.now() + 60_000;
      let health: Response | undefined;
      while (!health && Date.now() < deadline) {
        if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${output}`);
        health = await fetch(`${base}/health`).catch(() => undefined);
        if (!health) await new Promise((resolve) => setTimeout(resolve, 250));
      }
      if (!health) throw new Error(`no answer on ${base}/health within 60 s:\n${output}`);
      expect([health.status, await health.text()]).toEqual([200, '{"status":"ok"}']);
      // The banner is printed once the server listens, which /health answering proves.
      expect(output).toContain(`Framework: ${BANNER_NAMES[framework]}; storage: SQLite`);
      const apiKey = /API key, read-write:\s+(\S+)/.exec(output)?.[1];
      expect(apiKey, output).toBeDefined();
      const projects = await fetch(`${base}/v2/projects`, { headers: { 'x-api-key': apiKey ?? '' } });
      expect(projects.status).toBe(200);
      expect(((await projects.json()) as { data: unknown[] }).data.length).toBeGreaterThan(0);
    } finally {
      const signal = (name: NodeJS.Signals) => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, name);
        } catch {
          // the group is already gone
        }
      };
      signal('SIGTERM');
      const timer = setTimeout(() => signal('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }
    expect(output).toContain('SIGTERM received');
  });

  it('passes its own tests with npm test', async () => {
    const report = join(dir, 'vitest-report.json');
    await runOk('npm', ['test', '--', '--reporter=json', `--outputFile=${report}`], {
      cwd: dir,
      env: env(),
      timeoutMs: 600_000,
    });
    const result = JSON.parse(readFileSync(report, 'utf8')) as VitestReport;
    expect(result.testResults.map((file) => [file.name.slice(dir.length + 1), file.status]).sort()).toEqual([
      ['test/conformance.test.ts', 'passed'],
      ['test/e2e.test.ts', 'passed'],
      ['test/readme.test.ts', 'passed'],
    ]);
    expect([result.success, result.numFailedTests, result.numPendingTests]).toEqual([true, 0, 0]);
    expect(result.numPassedTests).toBeGreaterThan(50);
  });
});
