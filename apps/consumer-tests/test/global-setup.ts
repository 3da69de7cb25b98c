/**
 * The release, once per run: a Verdaccio registry on loopback with its own config and storage, a
 * throwaway copy of the repository (no node_modules, no .git), the real release path there
 * (`changeset version`, then `changeset publish` to that registry), and the registry left running for
 * the tests, which install what was published. Teardown stops Verdaccio and removes the copy.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import type { TestProject } from 'vitest/node';
import { cacheRoot, publicPackages, type Registry, repoRoot, runOk, userEnv } from './support.js';

declare module 'vitest' {
  export interface ProvidedContext {
    registry: Registry;
    /** name → version, as `changeset version` set them and the registry serves them. */
    published: Record<string, string>;
    /** The throwaway copy the release ran in (packed READMEs come from there). */
    releaseDir: string;
  }
}

// Ports of this project's range (17300-17399); the first free one is used.
const PORTS = [17301, 17302, 17303, 17304, 17305];
// Verdaccio's own script, run by this process's Node binary: through the node_modules/.bin shims the
// process would sit under a shell (the workspace's `node` shim does not exec), and SIGTERM would stop
// the shell and leave Verdaccio running.
const VERDACCIO = join(repoRoot, 'apps/consumer-tests/node_modules/verdaccio/bin/verdaccio');

function verdaccioConfig(storage: string): string {
  // @plumbline/* is served only from what this run publishes (anonymous publish allowed); everything
  // else is proxied from the public registry and kept (tarballs and metadata) for later runs.
  return `storage: ${JSON.stringify(storage)}
auth:
  htpasswd:
    file: ./htpasswd
    max_users: -1
uplinks:
  npmjs:
    url: https://registry.npmjs.org/
    maxage: 7d
    timeout: 60s
    max_fails: 5
packages:
  '@plumbline/*':
    access: $all
    publish: $anonymous
    unpublish: $anonymous
  '**':
    access: $all
    publish: $authenticated
    proxy: npmjs
server:
  keepAliveTimeout: 60
web:
  enable: false
log: { type: stdout, format: json, level: warn }
`;
}

async function waitForPing(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`Verdaccio exited (${child.exitCode}):\n${log()}`);
    try {
      const res = await fetch(`${url}-/ping`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`Verdaccio did not answer on ${url} within 30 s:\n${log()}`);
}

async function portFree(port: number): Promise<boolean> {
  try {
    await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(1000) });
    return false;
  } catch {
    return true;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const workRoot = mkdtempSync(join(tmpdir(), 'plumbline-consumers-'));
  const verdaccioDir = join(workRoot, 'verdaccio');
  const storage = join(cacheRoot, 'verdaccio-storage');
  // Only third-party packages are kept between runs; this run's @plumbline packages start from nothing.
  rmSync(join(storage, '@plumbline'), { recursive: true, force: true });
  mkdirSync(verdaccioDir, { recursive: true });
  mkdirSync(storage, { recursive: true });
  writeFileSync(join(verdaccioDir, 'config.yaml'), verdaccioConfig(storage));

  let port: number | undefined;
  for (const candidate of PORTS) {
    if (await portFree(candidate)) {
      port = candidate;
      break;
    }
  }
  if (port === undefined) throw new Error(`no free port among ${PORTS.join(', ')}`);
  const url = `http://127.0.0.1:${port}/`;
  let output = '';
  const child = spawn(
    process.execPath,
    [VERDACCIO, '--config', join(verdaccioDir, 'config.yaml'), '--listen', `127.0.0.1:${port}`],
    { cwd: verdaccioDir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  });
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  };

  try {
    await waitForPing(url, child, () => output);
    const host = url.replace(/^http:/, '');
    const npmrc = join(workRoot, 'npmrc');
    // Anonymous publishing is allowed by the config; npm still wants some token before it publishes.
    writeFileSync(npmrc, `registry=${url}\n${host}:_authToken=anonymous-consumer-tests\n`);
    const registry: Registry = { url, npmrc, npmCache: join(cacheRoot, 'npm'), workRoot };

    // The throwaway copy: the working tree as it is (uncommitted edits included), without installs,
    // build caches or git history; built dist/ folders come along (the script builds first).
    const releaseDir = join(workRoot, 'release');
    const skip = new Set(['node_modules', '.git', '.turbo']);
    cpSync(repoRoot, releaseDir, {
      recursive: true,
      filter: (source) => {
        const rel = relative(repoRoot, source);
        if (rel === join('.ci', 'out')) return false;
        return !rel.split(sep).some((part) => skip.has(part));
      },
    });
    for (const pkg of publicPackages()) {
      if (!existsSync(join(releaseDir, 'packages', pkg.dir, 'dist'))) {
        throw new Error(
          `packages/${pkg.dir}/dist is missing: run the build first (pnpm test:consumers does)`,
        );
      }
    }
    const env = userEnv(registry, { npm_config_registry: url, CI: 'true' });
    // Only the release tooling is needed; install scripts (native builds) are not.
    await runOk('pnpm', ['install', '--frozen-lockfile', '--prefer-offline', '--ignore-scripts'], {
      cwd: releaseDir,
      env: { ...env, npm_config_registry: 'https://registry.npmjs.org/' },
      timeoutMs: 600_000,
    });
    const changeset = join(releaseDir, 'node_modules/.bin/changeset');
    await runOk(changeset, ['version'], { cwd: releaseDir, env });
    // `changeset publish` tags the release in git, as it would in the real repository.
    const git = {
      cwd: releaseDir,
      env: {
        ...env,
        GIT_AUTHOR_NAME: 'release',
        GIT_AUTHOR_EMAIL: 'release@localhost',
        GIT_COMMITTER_NAME: 'release',
        GIT_COMMITTER_EMAIL: 'release@localhost',
      },
    };
    await runOk('git', ['init', '-q', '-b', 'main'], git);
    await runOk('git', ['add', '-A'], git);
    await runOk('git', ['commit', '-q', '-m', 'Version packages'], git);
    await runOk(changeset, ['publish'], { cwd: releaseDir, env, timeoutMs: 600_000 });

    const published: Record<string, string> = {};
    for (const pkg of publicPackages()) {
      const manifest = JSON.parse(
        readFileSync(join(releaseDir, 'packages', pkg.dir, 'package.json'), 'utf8'),
      ) as {
        version: string;
      };
      published[pkg.name] = manifest.version;
    }
    project.provide('registry', registry);
    project.provide('published', published);
    project.provide('releaseDir', releaseDir);
  } catch (error) {
    await stop();
    throw error;
  }

  return async () => {
    await stop();
    if (process.env['PLUMBLINE_KEEP_CONSUMERS'] !== '1') {
      // Tens of thousands of installed files: removed in the background so the run ends now.
      spawn('rm', ['-rf', workRoot], { detached: true, stdio: 'ignore' }).unref();
    }
  };
}
