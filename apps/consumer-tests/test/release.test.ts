/**
 * Part 1: the release that global-setup ran through the local registry. What the registry serves is
 * what a user gets: versions from `changeset version`, no `workspace:` ranges, every file the exports
 * map names, a LICENSE; and each package installs ALONE with npm into a fresh directory outside the
 * workspace and loads there (import and require), and all of them install once with pnpm.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { projectDir, publicPackages, run, runOk, specifier, userEnv, writeJson } from './support.js';

const registry = inject('registry');
const published = inject('published');
const packages = publicPackages();

interface Packument {
  'dist-tags': Record<string, string>;
  versions: Record<
    string,
    {
      dependencies?: Record<string, string>;
      peerDependencies?: Record<string, string>;
      dist: { tarball: string };
    }
  >;
}

async function packument(name: string): Promise<Packument> {
  const res = await fetch(`${registry.url}${name.replace('/', '%2f')}`);
  expect(res.status, name).toBe(200);
  return (await res.json()) as Packument;
}

/** Loads every non-framework subpath with import() and require() in a project; returns failures. */
async function loadAll(dir: string, names: readonly string[]): Promise<string[]> {
  const script = `
const names = ${JSON.stringify(names)};
const failures = [];
for (const name of names) {
  try { await import(name); } catch (e) { failures.push('import ' + name + ': ' + String(e && e.message || e).split('\\n')[0]); }
  try { require(name); } catch (e) { failures.push('require ' + name + ': ' + String(e && e.message || e).split('\\n')[0]); }
}
process.stdout.write(JSON.stringify(failures));
`;
  const file = join(dir, 'load.mjs');
  writeFileSync(
    file,
    `import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\n${script}`,
  );
  const result = await runOk(process.execPath, [file], { cwd: dir, env: userEnv(registry) });
  return JSON.parse(result.stdout) as string[];
}

/** The file paths of an exports map (its string values, at any depth). */
function leaves(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(leaves);
  return [];
}

const coreSubpaths = (pkg: (typeof packages)[number]) =>
  pkg.subpaths
    .filter((subpath) => !['./express', './fastify', './hono'].includes(subpath))
    .map((s) => specifier(pkg, s));

describe('the release', () => {
  it('published every public package at the version changeset gave it', async () => {
    expect(Object.keys(published).sort()).toEqual(packages.map((p) => p.name).sort());
    for (const pkg of packages) {
      const doc = await packument(pkg.name);
      expect(doc['dist-tags']['latest'], pkg.name).toBe(published[pkg.name]);
      expect(published[pkg.name], pkg.name).not.toBe('0.0.0');
    }
  });

  it.each(packages.map((p) => [p.name, p] as const))(
    '%s: published manifest has no workspace: ranges',
    async (name) => {
      const version = (await packument(name)).versions[published[name]!]!;
      const ranges = { ...version.dependencies, ...version.peerDependencies };
      const workspaceRanges = Object.entries(ranges).filter(([, range]) => range.startsWith('workspace:'));
      expect(workspaceRanges).toEqual([]);
      for (const [dep, range] of Object.entries(version.dependencies ?? {})) {
        // An internal dependency points at the version released with it.
        if (dep.startsWith('@plumbline/')) expect(range, dep).toBe(`^${published[dep]}`);
      }
    },
  );

  it.each(packages.map((p) => [p.name, p] as const))(
    '%s: tarball holds LICENSE, README and every exported file',
    async (name) => {
      const dir = projectDir(registry, `pack-check-${name.replace('/', '-')}`);
      const packed = await runOk('npm', ['pack', `${name}@${published[name]}`, '--json'], {
        cwd: dir,
        env: userEnv(registry),
      });
      const [info] = JSON.parse(packed.stdout) as [{ files: { path: string }[] }];
      const files = new Set(info.files.map((f) => f.path));
      const manifest = JSON.parse(
        readFileSync(
          join(registry.workRoot, 'release/packages', name.slice('@plumbline/'.length), 'package.json'),
          'utf8',
        ),
      ) as { exports: unknown };
      const targets = leaves(manifest.exports).map((target) => target.replace(/^\.\//, ''));
      const missing = ['LICENSE', 'README.md', 'package.json', ...targets].filter((file) => !files.has(file));
      expect(missing).toEqual([]);
    },
  );
});

describe('each package installed alone with npm', () => {
  it.each(packages.map((p) => [p.name, p] as const))('%s', async (name, pkg) => {
    const dir = projectDir(registry, `alone-${pkg.dir}`);
    writeJson(join(dir, 'package.json'), { name: `alone-${pkg.dir}`, version: '1.0.0', private: true });
    const install = await run('npm', ['install', `${name}@${published[name]}`], {
      cwd: dir,
      env: userEnv(registry),
      timeoutMs: 600_000,
    });
    expect(install.code, install.summary).toBe(0);
    // npm prints nothing on a clean install at loglevel error: no peer, deprecation or engine warnings.
    expect(install.stderr.trim(), install.summary).toBe('');
    expect(await loadAll(dir, coreSubpaths(pkg))).toEqual([]);
  });
});

describe('all packages installed with pnpm', () => {
  it('installs and loads', async () => {
    const dir = projectDir(registry, 'pnpm-all');
    writeJson(join(dir, 'package.json'), { name: 'pnpm-all', version: '1.0.0', private: true });
    // A store and metadata cache of this run's own: every run republishes the same version numbers with
    // new contents, and a store or cache kept from an earlier run would hand back the old tarballs.
    const install = await run(
      'pnpm',
      [
        'add',
        '--store-dir',
        join(dir, '.pnpm-store'),
        '--config.cache-dir',
        join(dir, '.pnpm-cache'),
        ...packages.map((p) => `${p.name}@${published[p.name]}`),
      ],
      { cwd: dir, env: userEnv(registry), timeoutMs: 600_000 },
    );
    expect(install.code, install.summary).toBe(0);
    expect(await loadAll(dir, packages.flatMap(coreSubpaths))).toEqual([]);
  });
});
