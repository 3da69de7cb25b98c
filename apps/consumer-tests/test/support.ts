/**
 * Shared helpers of the consumer tests: the public packages as the repository declares them, child
 * processes that never throw, and the environment a user's npm would see (none of pnpm's or Vitest's
 * variables leak into it).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

/** Caches that survive between runs (third-party tarballs only; @plumbline is published fresh each run). */
export const cacheRoot = join(tmpdir(), 'plumbline-consumer-tests-cache');

export interface PublicPackage {
  /** Directory name under packages/, e.g. `auth`. */
  readonly dir: string;
  readonly name: string;
  /** Export subpaths other than ./package.json: `.`, `./express`, `./issuer`, ... */
  readonly subpaths: readonly string[];
  readonly peerDependencies: Readonly<Record<string, string>>;
  readonly optionalPeers: readonly string[];
}

interface Manifest {
  name: string;
  private?: boolean;
  exports?: Record<string, unknown>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

/** Every non-private package under packages/, read from its package.json, so new subpaths are covered. */
export function publicPackages(): PublicPackage[] {
  const list: PublicPackage[] = [];
  for (const dir of readdirSync(join(repoRoot, 'packages')).sort()) {
    let manifest: Manifest;
    try {
      manifest = JSON.parse(
        readFileSync(join(repoRoot, 'packages', dir, 'package.json'), 'utf8'),
      ) as Manifest;
    } catch {
      continue;
    }
    if (manifest.private) continue;
    const subpaths = Object.keys(manifest.exports ?? { '.': null }).filter(
      (key) => key !== './package.json' && !key.includes('*'),
    );
    const meta = manifest.peerDependenciesMeta ?? {};
    list.push({
      dir,
      name: manifest.name,
      subpaths,
      peerDependencies: manifest.peerDependencies ?? {},
      optionalPeers: Object.keys(meta).filter((name) => meta[name]?.optional),
    });
  }
  return list;
}

/** `@plumbline/auth` + `./express` → `@plumbline/auth/express`. */
export function specifier(pkg: PublicPackage, subpath: string): string {
  return subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`;
}

/** Frameworks a subpath adapts (`./express` → express); framework subpaths need that peer installed. */
const FRAMEWORKS = ['express', 'fastify', 'hono'] as const;
export function frameworkOf(subpath: string): string | undefined {
  const name = subpath.slice(2);
  return (FRAMEWORKS as readonly string[]).includes(name) ? name : undefined;
}

export interface RunResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Command line and the tail of its output, for failure messages. */
  readonly summary: string;
}

export interface RunOptions {
  readonly cwd: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly timeoutMs?: number;
  readonly input?: string;
}

/** Runs a command to completion; never throws (a spawn error is exit code null). */
export function run(command: string, args: readonly string[], options: RunOptions): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      stderr += `\n[killed after ${options.timeoutMs} ms]`;
      child.kill('SIGKILL');
    }, options.timeoutMs ?? 300_000);
    const finish = (code: number | null) => {
      clearTimeout(timer);
      const tail = `${stdout}\n${stderr}`.trim().split('\n').slice(-40).join('\n');
      resolve({
        code,
        stdout,
        stderr,
        summary: `$ ${command} ${args.join(' ')} (in ${options.cwd}) → ${code}\n${tail}`,
      });
    };
    child.on('error', (error) => {
      stderr += String(error);
      finish(null);
    });
    child.on('close', (code) => finish(code));
    // A command that exits before reading its input closes the pipe (EPIPE): its exit code tells.
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
  });
}

/** Runs a command and throws with its output when it fails. */
export async function runOk(
  command: string,
  args: readonly string[],
  options: RunOptions,
): Promise<RunResult> {
  const result = await run(command, args, options);
  if (result.code !== 0) throw new Error(result.summary);
  return result;
}

export interface Registry {
  readonly url: string;
  /** npmrc with the registry and a token for anonymous publishing. */
  readonly npmrc: string;
  readonly npmCache: string;
  readonly workRoot: string;
}

/**
 * The environment of a user's shell pointed at the local registry: the runner's own variables
 * (pnpm's npm_config_*, Vitest's, NODE_OPTIONS, the NODE_PATH of pnpm's command shims) are dropped so
 * they cannot change what npm or Node does, and so are the workspace's `node_modules/.bin` folders on
 * PATH: `node` is the given binary (default: the Node running the tests), never the workspace's shim.
 */
export function userEnv(
  registry: Registry,
  extra: Record<string, string> = {},
  node: string = process.execPath,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    const lower = name.toLowerCase();
    if (
      lower.startsWith('npm_') ||
      lower.startsWith('pnpm_') ||
      lower.startsWith('vitest') ||
      lower.startsWith('turbo_') ||
      name === 'NODE_OPTIONS' ||
      name === 'NODE_PATH' ||
      name === 'NODE_ENV' ||
      name === 'TEST' ||
      name === 'INIT_CWD'
    ) {
      continue;
    }
    env[name] = value;
  }
  const path = (process.env['PATH'] ?? '')
    .split(delimiter)
    .filter((entry) => entry && !entry.startsWith(repoRoot));
  return {
    ...env,
    PATH: [dirname(node), ...path].join(delimiter),
    npm_config_userconfig: registry.npmrc,
    npm_config_registry: registry.url,
    npm_config_cache: registry.npmCache,
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    npm_config_loglevel: 'error',
    ...extra,
  };
}

const nodeInstalls = new Map<number, Promise<string>>();

/**
 * A Node.js of the given major, installed from the registry as users can (the `node` package, whose
 * install script fetches the platform's binary package); resolves to the binary. Once per run and major:
 * the test files run in parallel workers, so the first to create the lock directory installs and the
 * others wait for its `installed` mark.
 */
export function nodeBinary(registry: Registry, major: number): Promise<string> {
  let install = nodeInstalls.get(major);
  if (!install) {
    install = (async () => {
      const dir = projectDir(registry, `node${major}`);
      const binary = join(dir, 'node_modules/node/bin/node');
      const done = join(dir, 'installed');
      try {
        mkdirSync(join(dir, 'lock'));
      } catch {
        const deadline = Date.now() + 600_000;
        while (!existsSync(done)) {
          if (Date.now() > deadline)
            throw new Error(`node@${major}: another worker's install did not finish in 10 min`);
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
        if (readFileSync(done, 'utf8') !== 'ok')
          throw new Error(`node@${major}: another worker's install failed`);
        return binary;
      }
      try {
        await installNode(registry, dir, major, binary);
        writeFileSync(done, 'ok');
      } catch (error) {
        writeFileSync(done, 'failed');
        throw error;
      }
      return binary;
    })();
    nodeInstalls.set(major, install);
  }
  return install;
}

async function installNode(registry: Registry, dir: string, major: number, binary: string): Promise<void> {
  writeJson(join(dir, 'package.json'), {
    name: `runtime-node${major}`,
    version: '1.0.0',
    private: true,
    dependencies: { node: `^${major}.0.0` },
  });
  await runOk('npm', ['install', '--no-package-lock'], {
    cwd: dir,
    env: userEnv(registry),
    timeoutMs: 600_000,
  });
  const version = await runOk(binary, ['--version'], { cwd: dir, env: userEnv(registry, {}, binary) });
  if (!version.stdout.startsWith(`v${major}.`)) throw new Error(`node@${major} installed ${version.stdout}`);
}

/** A fresh directory for a generated project, outside the workspace. */
export function projectDir(registry: Registry, name: string): string {
  const dir = join(registry.workRoot, 'projects', name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

export function writeJson(path: string, value: unknown): void {
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}

/** Writes files relative to a directory, creating folders. */
export function writeFiles(dir: string, files: Readonly<Record<string, string>>): void {
  for (const [name, text] of Object.entries(files)) {
    const path = join(dir, name);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, text);
  }
}

/**
 * A generated npm project: package.json with the given dependencies, installed from the registry.
 * The npm cache is shared between projects and runs; metadata is always revalidated with the registry,
 * so a @plumbline tarball is never a stale one from an earlier run.
 */
export async function npmProject(
  registry: Registry,
  name: string,
  dependencies: Readonly<Record<string, string>>,
  options: { type?: 'module' | 'commonjs'; files?: Readonly<Record<string, string>> } = {},
): Promise<string> {
  const dir = projectDir(registry, name);
  writeJson(join(dir, 'package.json'), {
    name: `consumer-${name}`,
    version: '1.0.0',
    private: true,
    ...(options.type ? { type: options.type } : {}),
    dependencies,
  });
  if (options.files) writeFiles(dir, options.files);
  await runOk('npm', ['install', '--no-package-lock', '--ignore-scripts'], {
    cwd: dir,
    env: userEnv(registry),
    timeoutMs: 600_000,
  });
  return dir;
}

export interface ReferenceService {
  /** e.g. http://127.0.0.1:40123 */
  readonly base: string;
  /** What it printed on start (the banner with the demo credentials). */
  readonly banner: string;
  readonly apiKey: string;
  /** SIGTERM, then SIGKILL after 5 s; resolves when the process is gone. */
  stop(): Promise<void>;
}

/**
 * Starts the built reference service (`node apps/reference-service/dist/main.mjs`, as its README
 * says) on a free loopback port, in development mode so it prints demo credentials.
 */
export async function startReferenceService(env: NodeJS.ProcessEnv): Promise<ReferenceService> {
  const main = join(repoRoot, 'apps/reference-service/dist/main.mjs');
  if (!existsSync(main)) throw new Error(`${main} is missing: build the reference service first`);
  const child: ChildProcess = spawn(process.execPath, [main], {
    cwd: join(repoRoot, 'apps/reference-service'),
    env: { ...env, PORT: '0', HOST: '127.0.0.1', NODE_ENV: 'development', LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  try {
    const base = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`reference service did not start:\n${out}`)), 60_000);
      const onData = (chunk: Buffer) => {
        out += chunk.toString();
        const match = /listening on (http:\/\/\S+)/.exec(out);
        // The banner ends with the token command of the demo credentials.
        if (match && out.includes('/oauth/token')) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      child.once('exit', (code) => reject(new Error(`reference service exited with ${code}:\n${out}`)));
    });
    const apiKey = /API key, read-write:\s+(\S+)/.exec(out)?.[1];
    if (!apiKey) throw new Error(`no demo API key in the banner:\n${out}`);
    return {
      base,
      banner: out,
      apiKey,
      stop: async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
        // Nothing of the child may keep the test worker alive.
        child.stdout?.destroy();
        child.stderr?.destroy();
      },
    };
  } catch (error) {
    child.kill('SIGTERM');
    throw error;
  }
}
