/**
 * Part 2: the consumer matrix, against what the release published. Every public package and every
 * export subpath (read from its package.json `exports`) in generated projects outside the workspace:
 * Node ESM import and CJS require, TypeScript (nodenext, commonjs/node10, bundler; skipLibCheck false;
 * optional peers absent), attw on the published tarball with every profile, Jest 30 and Vitest with no
 * configuration, Express 4 and 5 apps, Fastify 5 and Hono apps written in TypeScript (compiled and run as
 * ESM and as CommonJS), and the Spectral ruleset run exactly as the conformance README says. One project per setup holds every package; framework subpaths are checked in a project that
 * has the framework (the peer a user of that subpath has), every other entry in one without any peer.
 * The result table is written to docs/consumers.md; every failing cell fails its test.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  frameworkOf,
  nodeBinary,
  npmProject,
  type PublicPackage,
  projectDir,
  publicPackages,
  repoRoot,
  run,
  runOk,
  specifier,
  startReferenceService,
  userEnv,
  writeFiles,
} from './support.js';
import {
  CORE_USES,
  EXPRESS_APPS,
  FRAMEWORK_APPS,
  REQUEST_HELPER,
  TS_REQUEST_HELPER,
  TS_SERVE,
} from './uses.js';

const registry = inject('registry');
const published = inject('published');
const packages = publicPackages();

interface Setup {
  readonly id: string;
  /** The table the setup's column is in (a Node major, or the tools). */
  readonly group: string;
  readonly title: string;
  /** Whether the setup applies to a package (an Express app needs an /express subpath). */
  readonly applies: (pkg: PublicPackage) => boolean;
  readonly check: (pkg: PublicPackage) => Promise<string[]>;
}

interface Cell {
  readonly ok: boolean;
  readonly failures: readonly string[];
}

const results = new Map<string, Cell>();
const key = (setup: string, pkg: string) => `${setup} ${pkg}`;

// ---------------------------------------------------------------------------------------------
// Projects

const usesFramework = (name: string) => packages.some((p) => p.subpaths.some((s) => frameworkOf(s) === name));
const all = Object.fromEntries(packages.map((p) => [p.name, published[p.name]!]));
const frameworkDeps: Record<string, string> = {
  express: '^5.1.0',
  '@types/express': '^5.0.0',
  ...(usesFramework('fastify') ? { fastify: '^5.0.0' } : {}),
  ...(usesFramework('hono') ? { hono: '^4.0.0' } : {}),
};

interface Projects {
  /** Every package, @types/node, no peer at all. */
  bare: string;
  /** Every package plus the frameworks (Express 5, and Fastify/Hono when a package adapts them). */
  frameworks: string;
  express4: string;
  jest: string;
  vitest: string;
  spectral: string;
  /** A fresh project per framework: every package, the framework, @types/node (apps in ESM and CJS TypeScript). */
  fastify: string;
  hono: string;
}
let projects: Projects;
let openapiJson: string;

/** The reference service's OpenAPI document, as a user gets it from GET /openapi.json. */
async function referenceOpenApi(): Promise<string> {
  const service = await startReferenceService(userEnv(registry));
  try {
    const res = await fetch(`${service.base}/openapi.json`);
    expect(res.status).toBe(200);
    return `${JSON.stringify(await res.json(), null, 2)}\n`;
  } finally {
    await service.stop();
  }
}

beforeAll(async () => {
  const [bare, frameworks, express4, jest, vitest, spectral, fastify, hono, doc] = await Promise.all([
    npmProject(registry, 'bare', { ...all, '@types/node': '^20.19.0' }, { type: 'module' }),
    npmProject(
      registry,
      'frameworks',
      { ...all, ...frameworkDeps, '@types/node': '^20.19.0' },
      { type: 'module' },
    ),
    npmProject(registry, 'express4', { ...all, express: '^4.21.0' }),
    npmProject(registry, 'jest', { ...all, ...frameworkDeps, jest: '^30.0.0' }),
    npmProject(registry, 'vitest', { ...all, ...frameworkDeps, vitest: '~4.1.0' }, { type: 'module' }),
    npmProject(registry, 'spectral', {
      '@plumbline/conformance': published['@plumbline/conformance']!,
      '@stoplight/spectral-cli': '^6.15.0',
    }),
    npmProject(
      registry,
      'fastify-app',
      { ...all, fastify: '^5.0.0', '@types/node': '^20.19.0' },
      { type: 'module' },
    ),
    npmProject(
      registry,
      'hono-app',
      { ...all, hono: '^4.8.0', '@hono/node-server': '^2.0.0', '@types/node': '^20.19.0' },
      { type: 'module' },
    ),
    referenceOpenApi(),
  ]);
  projects = { bare, frameworks, express4, jest, vitest, spectral, fastify, hono };
  openapiJson = doc;
});

// ---------------------------------------------------------------------------------------------
// Node ESM / CJS

/** Loads subpaths with import() or require() in one project, then runs the core use; returns failures. */
async function loadIn(
  dir: string,
  pkg: PublicPackage,
  subpaths: readonly string[],
  style: 'esm' | 'cjs',
  use: boolean,
  node: string,
) {
  const specs = subpaths.map((s) => specifier(pkg, s));
  const load = style === 'esm' ? 'const load = (s) => import(s);' : 'const load = async (s) => require(s);';
  const body = `
const assert = require('node:assert/strict');
${load}
(async () => {
  const failures = [];
  for (const spec of ${JSON.stringify(specs)}) {
    try {
      const entry = await load(spec);
      if (Object.keys(entry).length === 0) failures.push('${style} ' + spec + ': no exports');
    } catch (e) {
      failures.push('${style} ' + spec + ': ' + String((e && e.message) || e).split('\\n')[0]);
    }
  }
  ${use ? `try { await (async (load, assert) => { ${CORE_USES[pkg.dir] ?? "throw new Error('no core use defined in uses.ts');"} })(load, assert); } catch (e) { failures.push('${style} use: ' + String((e && e.stack) || e).split('\\n').slice(0, 3).join(' | ')); }` : ''}
  process.stdout.write(JSON.stringify(failures));
})();
`;
  // ESM: a .mjs file with createRequire for node:assert; CJS: a .cjs file.
  const file = join(dir, `load-${style}-${pkg.dir}.${style === 'esm' ? 'mjs' : 'cjs'}`);
  const prefix =
    style === 'esm'
      ? "import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\n"
      : '';
  writeFileSync(file, prefix + body);
  const result = await run(node, [file], {
    cwd: dir,
    env: userEnv(registry, {}, node),
    timeoutMs: 120_000,
  });
  if (result.code !== 0) return [`${style}: exited ${result.code}: ${result.summary}`];
  return JSON.parse(result.stdout) as string[];
}

async function nodeCheck(pkg: PublicPackage, style: 'esm' | 'cjs', node: string): Promise<string[]> {
  const core = pkg.subpaths.filter((s) => !frameworkOf(s));
  const adapters = pkg.subpaths.filter((s) => frameworkOf(s));
  return [
    ...(await loadIn(projects.bare, pkg, core, style, true, node)),
    ...(adapters.length ? await loadIn(projects.frameworks, pkg, adapters, style, false, node) : []),
  ];
}

// ---------------------------------------------------------------------------------------------
// TypeScript (the workspace's), in process; parsed declaration files are shared between programs.

type Mode = 'nodenext' | 'node10' | 'bundler';
const base: ts.CompilerOptions = {
  strict: true,
  skipLibCheck: false,
  noEmit: true,
  esModuleInterop: true,
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2023.d.ts'],
  types: ['node'],
};
const modeOptions: Record<Mode, ts.CompilerOptions> = {
  nodenext: { ...base, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext },
  node10: { ...base, module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10 },
  bundler: { ...base, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler },
};
const sourceCache = new Map<string, ts.SourceFile | undefined>();

interface Diagnostic {
  /** File the diagnostic is in ('' for global ones). */
  readonly file: string;
  readonly text: string;
}

function typecheck(files: readonly string[], options: ts.CompilerOptions): Diagnostic[] {
  const host = ts.createCompilerHost(options);
  const original = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    const cacheKey = `${fileName}\0${JSON.stringify(languageVersion)}`;
    // Only files outside the generated sources are shared (node_modules, TypeScript's lib files).
    if (!fileName.includes('/node_modules/'))
      return original(fileName, languageVersion, onError, shouldCreate);
    if (!sourceCache.has(cacheKey))
      sourceCache.set(cacheKey, original(fileName, languageVersion, onError, shouldCreate));
    return sourceCache.get(cacheKey);
  };
  const program = ts.createProgram(files, options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const text = ts.flattenDiagnosticMessageText(d.messageText, ' ');
    if (!d.file || d.start === undefined) return { file: '', text: `TS${d.code}: ${text}` };
    const { line } = d.file.getLineAndCharacterOfPosition(d.start);
    const file = d.file.fileName.replace(/^.*\/node_modules\//, '');
    return { file: d.file.fileName, text: `${file}:${line + 1} TS${d.code}: ${text}` };
  });
}

/**
 * One program per mode and project with an importing file per package and subpath (`.mts` and `.cts`
 * under nodenext). A diagnostic belongs to the package whose consumer file or declaration file it is
 * in; one in any other file (TypeScript's libs, a framework's types) belongs to every package.
 */
const tsRuns = new Map<Mode, Map<string, string[]>>();
function tsRun(mode: Mode): Map<string, string[]> {
  const cached = tsRuns.get(mode);
  if (cached) return cached;
  const byPackage = new Map<string, string[]>(packages.map((p) => [p.dir, []]));
  for (const dir of [projects.bare, projects.frameworks]) {
    const files: Record<string, string> = {};
    for (const pkg of packages) {
      for (const subpath of pkg.subpaths.filter((s) => (dir === projects.bare) === !frameworkOf(s))) {
        const spec = specifier(pkg, subpath);
        const name = `ts-${mode}/${pkg.dir}/${subpath === '.' ? 'index' : subpath.slice(2)}`;
        const esm = `import * as entry from '${spec}';\nexport const names: readonly string[] = Object.keys(entry);\n`;
        if (mode === 'nodenext') {
          files[`${name}.mts`] = esm;
          files[`${name}.cts`] =
            `import entry = require('${spec}');\nexport const names: readonly string[] = Object.keys(entry);\n`;
        } else {
          files[`${name}.ts`] = esm;
        }
      }
    }
    if (Object.keys(files).length === 0) continue;
    writeFiles(dir, files);
    const diagnostics = typecheck(
      Object.keys(files).map((f) => join(dir, f)),
      modeOptions[mode],
    );
    for (const d of diagnostics) {
      const owner = packages.find(
        (p) =>
          d.file.includes(`/node_modules/${p.name}/`) ||
          d.file.startsWith(join(dir, `ts-${mode}`, p.dir, '/')),
      );
      for (const pkg of owner ? [owner] : packages) byPackage.get(pkg.dir)!.push(d.text);
    }
  }
  tsRuns.set(mode, byPackage);
  return byPackage;
}

function tsCheck(pkg: PublicPackage, mode: Mode): string[] {
  return tsRun(mode).get(pkg.dir) ?? [];
}

// ---------------------------------------------------------------------------------------------
// attw on the published tarball, every profile (no --profile, no --ignore-rules)

async function attwCheck(pkg: PublicPackage): Promise<string[]> {
  const dir = projectDir(registry, `attw-${pkg.dir}`);
  const packed = await runOk('npm', ['pack', `${pkg.name}@${published[pkg.name]}`, '--json'], {
    cwd: dir,
    env: userEnv(registry),
  });
  const [{ filename }] = JSON.parse(packed.stdout) as [{ filename: string }];
  const attw = join(repoRoot, 'node_modules/.bin/attw');
  const result = await run(attw, [join(dir, filename), '--format', 'ascii', '--no-color'], {
    cwd: dir,
    env: userEnv(registry),
  });
  if (result.code === 0) return [];
  const problems = result.stdout
    .split('\n')
    .filter((line) =>
      /❌|🐛|💀|⚠️|🥴|❗️|🚭|🕵️|🎭|👺|Masquerading|Resolution failed|Internal resolution/i.test(line),
    );
  return [`attw exited ${result.code}: ${problems.slice(0, 8).join(' / ') || result.summary}`];
}

// ---------------------------------------------------------------------------------------------
// Jest 30 and Vitest, no configuration: one run each for all packages, results per test file.

interface RunnerReport {
  testResults: {
    name: string;
    status: string;
    message?: string;
    assertionResults: { fullName?: string; title: string; status: string; failureMessages?: string[] }[];
  }[];
}

function reportFailures(report: RunnerReport, file: string): string[] {
  const entry = report.testResults.find((r) => r.name.endsWith(file));
  if (!entry) return [`${file}: not in the report`];
  if (entry.status === 'passed') return [];
  const failed = entry.assertionResults
    .filter((a) => a.status !== 'passed')
    .map((a) => `${a.title}: ${(a.failureMessages ?? []).join(' ').split('\n').slice(0, 2).join(' ')}`);
  return failed.length
    ? failed
    : [`${file}: ${(entry.message ?? entry.status).split('\n').slice(0, 6).join(' ')}`];
}

let jestRun: Promise<RunnerReport> | undefined;
function runJest(): Promise<RunnerReport> {
  jestRun ??= (async () => {
    const files: Record<string, string> = {};
    for (const pkg of packages) {
      const specs = pkg.subpaths.map((s) => specifier(pkg, s));
      files[`__tests__/${pkg.dir}.test.js`] = `const assert = require('node:assert/strict');
describe('${pkg.name}', () => {
  test.each(${JSON.stringify(specs)})('require(%s)', (spec) => {
    expect(Object.keys(require(spec)).length).toBeGreaterThan(0);
  });
  test('a real use', async () => {
    await (async (load, assert) => { ${CORE_USES[pkg.dir] ?? "throw new Error('no core use defined in uses.ts');"} })(async (s) => require(s), assert);
  });
});
`;
    }
    writeFiles(projects.jest, files);
    const out = join(projects.jest, 'jest-report.json');
    const result = await run('npx', ['jest', '--ci', '--json', `--outputFile=${out}`], {
      cwd: projects.jest,
      env: userEnv(registry),
      timeoutMs: 300_000,
    });
    if (!existsSync(out)) throw new Error(result.summary);
    return JSON.parse(readFileSync(out, 'utf8')) as RunnerReport;
  })();
  return jestRun;
}

let vitestRun: Promise<RunnerReport> | undefined;
function runVitest(): Promise<RunnerReport> {
  vitestRun ??= (async () => {
    const files: Record<string, string> = {};
    for (const pkg of packages) {
      const specs = pkg.subpaths.map((s) => specifier(pkg, s));
      files[`test/${pkg.dir}.test.js`] = `import assert from 'node:assert/strict';
import { describe, expect, test } from 'vitest';
describe('${pkg.name}', () => {
  test.each(${JSON.stringify(specs)})('import(%s)', async (spec) => {
    expect(Object.keys(await import(spec)).length).toBeGreaterThan(0);
  });
  test('a real use', async () => {
    await (async (load, assert) => { ${CORE_USES[pkg.dir] ?? "throw new Error('no core use defined in uses.ts');"} })((s) => import(s), assert);
  });
});
`;
    }
    writeFiles(projects.vitest, files);
    const out = join(projects.vitest, 'vitest-report.json');
    const result = await run('npx', ['vitest', 'run', '--reporter=json', `--outputFile=${out}`], {
      cwd: projects.vitest,
      env: userEnv(registry),
      timeoutMs: 300_000,
    });
    if (!existsSync(out)) throw new Error(result.summary);
    return JSON.parse(readFileSync(out, 'utf8')) as RunnerReport;
  })();
  return vitestRun;
}

// ---------------------------------------------------------------------------------------------
// Express 4 (a CommonJS app) and Express 5 (an ES module app)

async function expressCheck(pkg: PublicPackage, major: 4 | 5, node: string): Promise<string[]> {
  const app = EXPRESS_APPS[pkg.dir];
  if (!app) return [`no Express app defined for ${pkg.name} in uses.ts`];
  const dir = major === 4 ? projects.express4 : projects.frameworks;
  const file = join(dir, `express${major}-${pkg.dir}.${major === 4 ? 'cjs' : 'mjs'}`);
  const head =
    major === 4
      ? "const express = require('express');\nconst assert = require('node:assert/strict');\nconst load = async (s) => require(s);\n"
      : "import express from 'express';\nimport assert from 'node:assert/strict';\nconst load = (s) => import(s);\n";
  writeFileSync(
    file,
    `${head}${REQUEST_HELPER}
const version = JSON.parse(require('node:fs').readFileSync(require.resolve('express/package.json'), 'utf8')).version;
if (!version.startsWith('${major}.')) throw new Error('express ' + version + ' installed, wanted ${major}.x');
(async (express, load, assert, request) => { ${app} })(express, load, assert, request).then(
  () => process.stdout.write('ok'),
  (e) => { process.stderr.write(String((e && e.stack) || e)); process.exitCode = 1; },
);
`.replace(
      'const version',
      major === 4
        ? 'const version'
        : "import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\nconst version",
    ),
  );
  const result = await run(node, [file], {
    cwd: dir,
    env: userEnv(registry, {}, node),
    timeoutMs: 120_000,
  });
  return result.code === 0 && result.stdout === 'ok' ? [] : [result.summary];
}

// ---------------------------------------------------------------------------------------------
// Fastify 5 and Hono apps in TypeScript: each package's app written once, as an ES module (.mts) and
// as CommonJS (.cts) in a fresh project with only that framework; type-checked (nodenext, strict,
// skipLibCheck false), compiled, started on 127.0.0.1:0 and sent real requests.

type AppFramework = 'fastify' | 'hono';
type AppStyle = 'esm' | 'cjs';

function appSource(framework: AppFramework, pkg: string): string {
  const app = FRAMEWORK_APPS[pkg]!;
  const imports = [app.imports, app[framework].imports].filter(Boolean).join('\n');
  return `${TS_SERVE[framework]}
${imports}
${TS_REQUEST_HELPER}
async function main(): Promise<void> {${app.setup}
    const app = await newApp();
    ${app[framework].build}
    await serve(app, async (address) => {${app.checks}
    });
}

main().then(
  () => process.stdout.write('ok'),
  (e: unknown) => {
    process.stderr.write(String((e instanceof Error && e.stack) || e));
    process.exitCode = 1;
  },
);
`;
}

/** Type-checks every app of a framework in one program; diagnostics per `<package>-<style>`. */
const appChecks = new Map<AppFramework, Map<string, string[]>>();
function appDiagnostics(framework: AppFramework): Map<string, string[]> {
  const cached = appChecks.get(framework);
  if (cached) return cached;
  const dir = projects[framework];
  const files: Record<string, string> = {};
  for (const pkg of Object.keys(FRAMEWORK_APPS)) {
    const source = appSource(framework, pkg);
    files[`app-${pkg}-esm.mts`] = source;
    files[`app-${pkg}-cjs.cts`] = source;
  }
  writeFiles(dir, files);
  const byApp = new Map<string, string[]>(Object.keys(files).map((f) => [f.slice(4, -4), []]));
  // Hono's own declarations (its WebSocket helper, which @hono/node-server reaches) name DOM types,
  // so a Hono project type-checks with the DOM lib.
  const options =
    framework === 'hono'
      ? { ...modeOptions.nodenext, lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'] }
      : modeOptions.nodenext;
  for (const d of typecheck(
    Object.keys(files).map((f) => join(dir, f)),
    options,
  )) {
    const owner = [...byApp.keys()].find(
      (id) => d.file.endsWith(`/app-${id}.mts`) || d.file.endsWith(`/app-${id}.cts`),
    );
    for (const id of owner ? [owner] : byApp.keys()) byApp.get(id)!.push(d.text);
  }
  appChecks.set(framework, byApp);
  return byApp;
}

async function appCheck(
  pkg: PublicPackage,
  framework: AppFramework,
  style: AppStyle,
  node: string,
): Promise<string[]> {
  if (!FRAMEWORK_APPS[pkg.dir]) return [`no ${framework} app defined for ${pkg.name} in uses.ts`];
  const id = `${pkg.dir}-${style}`;
  const diagnostics = appDiagnostics(framework).get(id) ?? [];
  if (diagnostics.length) return diagnostics;
  const dir = projects[framework];
  const out = ts.transpileModule(appSource(framework, pkg.dir), {
    fileName: `app-${id}.${style === 'esm' ? 'mts' : 'cts'}`,
    compilerOptions: {
      module: style === 'esm' ? ts.ModuleKind.ESNext : ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2022,
      esModuleInterop: true,
    },
  });
  const file = join(dir, `app-${id}.${style === 'esm' ? 'mjs' : 'cjs'}`);
  writeFileSync(file, out.outputText);
  const result = await run(node, [file], {
    cwd: dir,
    env: userEnv(registry, {}, node),
    timeoutMs: 120_000,
  });
  return result.code === 0 && result.stdout === 'ok' ? [] : [result.summary];
}

// ---------------------------------------------------------------------------------------------
// Spectral: exactly the command of the conformance README, on the reference service's document

async function spectralCheck(): Promise<string[]> {
  writeFileSync(join(projects.spectral, 'openapi.json'), openapiJson);
  const result = await run(
    'npx',
    ['spectral', 'lint', 'openapi.json', '--ruleset', 'node_modules/@plumbline/conformance/dist/ruleset.mjs'],
    { cwd: projects.spectral, env: userEnv(registry), timeoutMs: 300_000 },
  );
  return result.code === 0 ? [] : [result.summary];
}

// ---------------------------------------------------------------------------------------------

const hasExpress = (pkg: PublicPackage) => pkg.subpaths.includes('./express');

/**
 * The Node.js majors users run: 24 (the workspace's own, the Node running these tests), 22, and 20
 * (end of life since April 2026; the packages still declare and keep `engines.node >= 20.19`).
 */
const NODES = [
  { major: 24, binary: async () => process.execPath },
  { major: 22, binary: () => nodeBinary(registry, 22) },
  { major: 20, binary: () => nodeBinary(registry, 20) },
] as const;

/** The exact version of each Node major that ran (`v22.23.3`), for the generated document. */
const nodeVersions = new Map<number, string>();
function versioned(major: number, binary: () => Promise<string>): () => Promise<string> {
  return async () => {
    const path = await binary();
    if (!nodeVersions.has(major))
      nodeVersions.set(
        major,
        execFileSync(path, ['--version'], { encoding: 'utf8' }).trim().replace(/^v/, ''),
      );
    return path;
  };
}

/** What runs on every Node major: loading every subpath (plus a real use) and an app per framework. */
function runtimeSetups(major: number, binary: () => Promise<string>): Setup[] {
  const group = `Node ${major}`;
  return [
    {
      id: `node${major}-esm`,
      group,
      title: 'ESM',
      applies: () => true,
      check: async (p) => nodeCheck(p, 'esm', await binary()),
    },
    {
      id: `node${major}-cjs`,
      group,
      title: 'CJS',
      applies: () => true,
      check: async (p) => nodeCheck(p, 'cjs', await binary()),
    },
    {
      id: `node${major}-express4`,
      group,
      title: 'Express 4 app',
      applies: hasExpress,
      check: async (p) => expressCheck(p, 4, await binary()),
    },
    {
      id: `node${major}-express5`,
      group,
      title: 'Express 5 app',
      applies: hasExpress,
      check: async (p) => expressCheck(p, 5, await binary()),
    },
    ...(['fastify', 'hono'] as const).flatMap((framework) =>
      (['esm', 'cjs'] as const).map(
        (style): Setup => ({
          id: `node${major}-${framework}-${style}`,
          group,
          title: `${framework === 'fastify' ? 'Fastify 5' : 'Hono'} app (TS ${style === 'esm' ? 'ESM' : 'CJS'})`,
          applies: (p) => p.subpaths.includes(`./${framework}`),
          check: async (p) => appCheck(p, framework, style, await binary()),
        }),
      ),
    ),
  ];
}

const TOOLS = 'Types and tools';
const SETUPS: readonly Setup[] = [
  ...NODES.flatMap((node) => runtimeSetups(node.major, versioned(node.major, node.binary))),
  {
    id: 'ts-nodenext',
    group: TOOLS,
    title: 'TS nodenext',
    applies: () => true,
    check: async (p) => tsCheck(p, 'nodenext'),
  },
  {
    id: 'ts-node10',
    group: TOOLS,
    title: 'TS commonjs (node10)',
    applies: () => true,
    check: async (p) => tsCheck(p, 'node10'),
  },
  {
    id: 'ts-bundler',
    group: TOOLS,
    title: 'TS bundler',
    applies: () => true,
    check: async (p) => tsCheck(p, 'bundler'),
  },
  { id: 'attw', group: TOOLS, title: 'attw (all profiles)', applies: () => true, check: attwCheck },
  {
    id: 'jest',
    group: TOOLS,
    title: 'Jest 30',
    applies: () => true,
    check: async (p) => reportFailures(await runJest(), `${p.dir}.test.js`),
  },
  {
    id: 'vitest',
    group: TOOLS,
    title: 'Vitest 4',
    applies: () => true,
    check: async (p) => reportFailures(await runVitest(), `${p.dir}.test.js`),
  },
  {
    id: 'spectral',
    group: TOOLS,
    title: 'Spectral (README command)',
    applies: (p) => p.subpaths.includes('./ruleset'),
    check: () => spectralCheck(),
  },
];

for (const setup of SETUPS) {
  const cases = packages.filter(setup.applies);
  describe(setup.group === TOOLS ? setup.title : `${setup.group} ${setup.title}`, () => {
    it.each(cases.map((p) => [p.name, p] as const))('%s', async (name, pkg) => {
      let failures: string[];
      try {
        failures = await setup.check(pkg);
      } catch (error) {
        failures = [String(error instanceof Error ? error.message : error)];
      }
      // Project paths are temporary: name the project instead, and report each message once.
      failures = [
        ...new Set(failures.map((f) => f.replaceAll(`${registry.workRoot}/projects/`, '<project>/'))),
      ];
      results.set(key(setup.id, name), { ok: failures.length === 0, failures });
      expect(failures).toEqual([]);
    });
  });
}

describe('the reference service on a Node.js it does not support', () => {
  it('Node 20 is refused at start with the version it needs, not a module error', async () => {
    const node = await nodeBinary(registry, 20);
    const result = await run(node, [join(repoRoot, 'apps/reference-service/dist/main.mjs')], {
      cwd: join(repoRoot, 'apps/reference-service'),
      env: userEnv(registry, { PORT: '0', HOST: '127.0.0.1' }, node),
      timeoutMs: 60_000,
    });
    expect({ code: result.code, stdout: result.stdout, stderr: result.stderr.trim() }).toEqual({
      code: 1,
      stdout: '',
      stderr: expect.stringMatching(
        /^The Plumbline reference service needs Node\.js 22\.13\.0 or newer \(it stores data with the built-in node:sqlite\); this is Node\.js 20\.\d+\.\d+\. In the repository, `npx -y pnpm@10 start` runs it on the workspace's own Node\.js 24, whatever Node\.js the machine has\.$/,
      ),
    });
  });
});

afterAll(() => {
  const tables = [...new Set(SETUPS.map((s) => s.group))].map((group) => {
    const setups = SETUPS.filter((s) => s.group === group);
    const header = `| package | ${setups.map((s) => s.title).join(' | ')} |`;
    const rule = `| --- | ${setups.map(() => '---').join(' | ')} |`;
    const rows = packages.map((pkg) => {
      const cells = setups.map((setup) => {
        if (!setup.applies(pkg)) return '—';
        const cell = results.get(key(setup.id, pkg.name));
        return cell ? (cell.ok ? 'pass' : '**FAIL**') : 'not run';
      });
      return `| \`${pkg.name}\` | ${cells.join(' | ')} |`;
    });
    return `### ${group}\n\n${header}\n${rule}\n${rows.join('\n')}\n`;
  });
  const failures = [...results.entries()]
    .filter(([, cell]) => !cell.ok)
    .map(([id, cell]) => {
      const [setup, name] = id.split(' ');
      const found = SETUPS.find((s) => s.id === setup);
      const title = found && (found.group === TOOLS ? found.title : `${found.group} ${found.title}`);
      const lines = cell.failures
        .flatMap((f) => f.split('\n'))
        .slice(0, 12)
        .map((line) => `    ${line.slice(0, 300)}`);
      return `- ${title} × \`${name}\`\n\n${lines.join('\n')}\n`;
    });
  const versions = NODES.map((n) => `Node ${nodeVersions.get(n.major) ?? `${n.major} (not run)`}`).join(', ');
  const doc = `# Consumer matrix

Generated by \`pnpm test:consumers\` (apps/consumer-tests); do not edit by hand.

Each public package is released through a local registry (\`changeset version\`, \`changeset publish\`)
and installed from it with npm into projects outside the workspace, then run on every Node.js major users
run (${versions}; each installed from the registry as the \`node\` package, 24 being the workspace's own):
\`import\` and \`require\` of every export subpath plus a small real use, an Express 4 and an Express 5 app
through the \`/express\` adapters, and a Fastify 5 and a Hono (\`@hono/node-server\`) app through the
\`/fastify\` and \`/hono\` adapters (TypeScript, type-checked with \`skipLibCheck: false\` (the Hono project
with the DOM lib, which Hono's own declarations need) and run both as an ES module and as CommonJS, in a
fresh project per framework, real requests on 127.0.0.1). Once, on Node 24: TypeScript ${ts.version} with
\`skipLibCheck: false\`, \`@types/node\` 20 and no optional peer installed (framework subpaths are checked
with their framework installed), attw on the published tarball with every resolution profile, Jest 30 and
Vitest 4 with no configuration, and the Spectral CLI with the ruleset exactly as the conformance README
loads it, on the reference service's OpenAPI document. "—": the setup does not apply.

The same Hono app on Bun, Deno and Cloudflare Workers (workerd), and every entry point evaluated inside
workerd: [runtimes.md](runtimes.md).

${tables.join('\n')}${failures.length ? `\n## Failures\n\n${failures.join('\n')}` : ''}`;
  mkdirSync(join(repoRoot, 'docs'), { recursive: true });
  writeFileSync(join(repoRoot, 'docs/consumers.md'), doc);
});
