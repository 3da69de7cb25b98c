/**
 * `pnpm template <framework> <dir>` (scripts/template.mjs), run for each framework into a temporary
 * directory: the copy holds src/ with only that framework's `http/` folder, every import in it names
 * a file of the copy or a package its package.json declares (so nothing imports a framework that is
 * gone), and the manifest takes the @plumbline/* packages from the registry. That the copy installs,
 * builds, starts and passes its own tests is apps/consumer-tests/test/template.test.ts, through a
 * local registry.
 */
import { execFile, execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const SERVICE_SRC = join(repoRoot, 'apps/reference-service/src');
const SCRIPT = join(repoRoot, 'scripts/template.mjs');
const FRAMEWORKS = ['express', 'fastify', 'hono'] as const;
type Framework = (typeof FRAMEWORKS)[number];

/** The npm packages of each framework (the wirings' own imports and their type packages). */
const FRAMEWORK_PACKAGES: Readonly<Record<Framework, RegExp>> = {
  express: /^(?:express|@types\/express)$/,
  fastify: /^(?:fastify|@fastify\/.+)$/,
  hono: /^(?:hono|@hono\/.+)$/,
};

const work = mkdtempSync(join(tmpdir(), 'plumbline-template-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const run = promisify(execFile);
async function template(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [SCRIPT, ...args], {
      cwd: repoRoot,
      encoding: 'utf8',
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

function files(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.name === 'node_modules') return [];
      return entry.isDirectory() ? files(path, base) : [relative(base, path).split('\\').join('/')];
    })
    .sort();
}

// As in layout.test.ts: static imports and re-exports start a line, `import()` anywhere; comment
// lines (TSDoc examples) are left out.
const STATIC = /^(?:import|export)\s[^;]*?\sfrom\s*['"]([^'"]+)['"]/gm;
const BARE = /^import\s*['"]([^'"]+)['"]/gm;
const DYNAMIC = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

function specifiers(text: string): string[] {
  const code = text
    .split('\n')
    .filter((line) => !/^\s*(?:\*|\/\*|\/\/)/.test(line))
    .join('\n');
  return [...code.matchAll(STATIC), ...code.matchAll(BARE), ...code.matchAll(DYNAMIC)].map((m) => m[1]!);
}

/** `@plumbline/errors/express` → `@plumbline/errors`; `vitest/config` → `vitest`. */
const packageName = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

interface Manifest {
  name: string;
  private: boolean;
  type: string;
  engines: Record<string, string>;
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}

function plumblineVersions(): Map<string, string> {
  const versions = new Map<string, string>();
  for (const dir of readdirSync(join(repoRoot, 'packages'))) {
    const path = join(repoRoot, 'packages', dir, 'package.json');
    if (!existsSync(path)) continue;
    const manifest = JSON.parse(readFileSync(path, 'utf8')) as {
      name: string;
      version: string;
      private?: boolean;
    };
    if (!manifest.private) versions.set(manifest.name, manifest.version);
  }
  return versions;
}

describe.each(FRAMEWORKS)('pnpm template %s', (framework) => {
  const dir = join(work, `my-${framework}-api`);
  const others = FRAMEWORKS.filter((f) => f !== framework);
  let manifest: Manifest;
  let tree: string[];

  it('writes the project and says what to run next', async () => {
    const result = await template(framework, dir);
    expect([result.code, result.stderr]).toEqual([0, '']);
    expect(result.stdout).toContain('npm install && npm test');
    manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
    tree = files(dir);
  });

  it("holds the service's src/ without the other frameworks' folders", () => {
    const expected = files(SERVICE_SRC)
      .filter((file) => !others.some((other) => file.startsWith(`http/${other}/`)))
      .map((file) => `src/${file}`);
    expect(tree.filter((file) => file.startsWith('src/'))).toEqual(expected);
    expect(readdirSync(join(dir, 'src/http'))).toEqual([framework]);
    expect(tree).toEqual(
      expect.arrayContaining([
        'README.md',
        'package.json',
        'tsconfig.json',
        'tsdown.config.ts',
        'vitest.config.ts',
        'test/harness.ts',
        'test/e2e.test.ts',
        'test/conformance.test.ts',
        'test/readme.test.ts',
      ]),
    );
  });

  it('loads and accepts only its framework', () => {
    const listener = readFileSync(join(dir, 'src/listener.ts'), 'utf8');
    expect(specifiers(listener).filter((s) => s.startsWith('./http/'))).toEqual([
      `./http/${framework}/app.js`,
    ]);
    const config = readFileSync(join(dir, 'src/service/config.ts'), 'utf8');
    expect(config).toContain(`const FRAMEWORKS = ['${framework}'] as const;`);
    expect(config).toContain("'Usage: npm start   (or: node dist/main.mjs [--help])'");
  });

  it('depends on the published @plumbline/* versions and only on its own framework', () => {
    const versions = plumblineVersions();
    const all = { ...manifest.dependencies, ...manifest.devDependencies };
    expect(Object.entries(all).filter(([, range]) => range.startsWith('workspace:'))).toEqual([]);
    const plumbline = Object.entries(all).filter(([name]) => name.startsWith('@plumbline/'));
    expect(plumbline.length).toBeGreaterThan(5);
    expect(plumbline.filter(([name, range]) => range !== `^${versions.get(name)}`)).toEqual([]);
    expect(
      Object.keys(all).filter((name) => others.some((other) => FRAMEWORK_PACKAGES[other].test(name))),
    ).toEqual([]);
    expect(Object.keys(manifest.dependencies).some((name) => FRAMEWORK_PACKAGES[framework].test(name))).toBe(
      true,
    );
    expect(all['@plumbline/test-utils']).toBeUndefined();
    expect(manifest).toMatchObject({
      name: `my-${framework}-api`,
      private: true,
      type: 'module',
      engines: { node: expect.any(String) },
      scripts: {
        build: 'tsdown',
        start: 'node dist/main.mjs',
        test: 'vitest run',
        typecheck: 'tsc -p tsconfig.json',
      },
    });
  });

  it('imports only files of the copy and packages its package.json declares', () => {
    const declared = new Set([
      ...Object.keys(manifest.dependencies),
      ...Object.keys(manifest.devDependencies),
    ]);
    const runtime = new Set(Object.keys(manifest.dependencies));
    const offending: string[] = [];
    const code = tree.filter((file) => file.endsWith('.ts'));
    // Guards the scanner: a parser that saw no imports would pass every check below.
    expect(code.flatMap((file) => specifiers(readFileSync(join(dir, file), 'utf8'))).length).toBeGreaterThan(
      200,
    );
    for (const file of code) {
      for (const specifier of specifiers(readFileSync(join(dir, file), 'utf8'))) {
        if (specifier.startsWith('node:')) continue;
        if (specifier.startsWith('.')) {
          const target = posix.normalize(posix.join(posix.dirname(file), specifier)).replace(/\.js$/, '.ts');
          if (target.startsWith('../') || !tree.includes(target))
            offending.push(`${file}: ${specifier} (no such file)`);
          continue;
        }
        const name = packageName(specifier);
        // What src/ imports must be installed in production, without devDependencies.
        const ok = file.startsWith('src/') ? runtime.has(name) : declared.has(name);
        if (!ok) offending.push(`${file}: ${specifier} (not in package.json)`);
      }
    }
    expect(offending).toEqual([]);
  });

  it('has standalone configs and names where it came from', () => {
    const tsconfig = JSON.parse(readFileSync(join(dir, 'tsconfig.json'), 'utf8')) as {
      extends: string;
      compilerOptions: Record<string, unknown>;
    };
    expect(tsconfig.extends).toBe('@tsconfig/strictest/tsconfig.json');
    expect(manifest.devDependencies['@tsconfig/strictest']).toBeDefined();
    expect(tsconfig.compilerOptions['paths']).toBeUndefined();
    const everything = tree.map((file) => readFileSync(join(dir, file), 'utf8')).join('\n');
    expect(everything).not.toContain('@plumbline/test-utils');
    expect(everything).not.toContain('tsconfig.base.json');
    const readme = readFileSync(join(dir, 'README.md'), 'utf8');
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim();
    expect(readme).toContain(`generated by \`pnpm template ${framework}\``);
    expect(readme).toContain(`at commit ${head}`);
    expect(readme).toContain('## Tour');
    expect(readme).not.toContain('](../../');
  });
});

describe('pnpm template refuses', () => {
  it.each([
    [['koa', join(work, 'koa')], 'unknown framework "koa": choose one of express, fastify, hono'],
    [['hono'], 'expected a framework and a directory'],
    [[], 'expected a framework and a directory'],
  ])('%j with exit code 2 and the usage', async (args, message) => {
    const result = await template(...args);
    expect([result.code, result.stdout]).toEqual([2, '']);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain('Usage: pnpm template <express|fastify|hono> <dir>');
  });

  it('a directory that is not empty, and leaves it alone', async () => {
    const full = join(work, 'full');
    mkdirSync(full);
    writeFileSync(join(full, 'keep.txt'), 'mine');
    const result = await template('hono', full);
    expect([result.code, result.stderr.split('\n')[0]]).toEqual([2, `pnpm template: ${full} is not empty`]);
    expect(readdirSync(full)).toEqual(['keep.txt']);
  });

  it('a directory inside the repository, writing nothing', async () => {
    const inside = join(repoRoot, 'apps', 'template-inside-the-repository');
    const result = await template('express', inside);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is inside the repository');
    expect(existsSync(inside)).toBe(false);
  });
});
