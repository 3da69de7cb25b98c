#!/usr/bin/env node
/**
 * `pnpm template <express|fastify|hono> <dir>`: writes the reference service as a project of its own,
 * wired on one framework, that installs the published @plumbline/* packages and passes its own tests
 * outside this repository (apps/consumer-tests/test/template.test.ts proves it through a registry).
 *
 * The copy is the service's src/ without the other two `http/<framework>/` folders, with the other
 * frameworks' entries cut from src/listener.ts and src/service/config.ts (each is written so that
 * cutting is deleting lines), a package.json whose dependencies are the ones the kept files name,
 * standalone tsconfig/tsdown/vitest configs, and a subset of the service's tests with a local harness
 * (scripts/template/) in place of the private @plumbline/test-utils.
 */
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SERVICE = join(repoRoot, 'apps/reference-service');
const HERE = join(repoRoot, 'scripts/template');
const FRAMEWORKS = ['express', 'fastify', 'hono'];

/** The npm packages that belong to one framework: dropped with its folder. */
const FRAMEWORK_PACKAGES = {
  express: [/^express$/, /^@types\/express(?:-serve-static-core)?$/],
  fastify: [/^fastify$/, /^@fastify\//],
  hono: [/^hono$/, /^@hono\//],
};

/** The service's tests the copy keeps: the ones a team starting out needs (README "Test"). */
const COPIED_TESTS = ['e2e.test.ts', 'readme.test.ts'];
/** Written from scripts/template/: the harness without @plumbline/test-utils, and the scorecard. */
const OWN_TESTS = ['harness.ts', 'conformance.test.ts'];

const USAGE = `Usage: pnpm template <${FRAMEWORKS.join('|')}> <dir>

Writes the reference service wired on one framework into <dir> (which must be empty or missing, and
outside this repository), depending on the published @plumbline/* packages. Then, in <dir>:
  npm install && npm test && npm run build && npm start
`;

class UsageError extends Error {}

const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));

function write(path, text) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** The path with symlinks resolved as far as it exists, so a link into the repository is caught. */
function realTarget(path) {
  let existing = path;
  const rest = [];
  while (!existsSync(existing)) {
    rest.unshift(basename(existing));
    existing = dirname(existing);
  }
  return join(realpathSync(existing), ...rest);
}

function checkTarget(target) {
  const rel = relative(realpathSync(repoRoot), realTarget(target));
  if (rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))) {
    throw new UsageError(`${target} is inside the repository (${repoRoot}); choose a directory outside it`);
  }
  if (existsSync(target)) {
    if (!statSync(target).isDirectory()) throw new UsageError(`${target} exists and is not a directory`);
    if (readdirSync(target).length > 0) throw new UsageError(`${target} is not empty`);
  }
}

/** package.json's name from the directory's name: lower case, npm's allowed characters. */
function projectName(target) {
  const name = basename(target)
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[._-]+|[-]+$/g, '');
  return name === '' ? 'api-service' : name.slice(0, 214);
}

function files(dir, base = dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? files(path, base) : [relative(base, path).split('\\').join('/')];
  });
}

/** Replaces `from` (which must occur) in a file's text; a miss means the source changed shape. */
function replaceOnce(text, from, to, where) {
  if (!(from instanceof RegExp ? from.test(text) : text.includes(from))) {
    throw new Error(`${where}: expected ${String(from)}; update scripts/template.mjs to the new source`);
  }
  return text.replace(from, to);
}

/** src/listener.ts without the other frameworks' entries of WIRINGS. */
function keepListener(text, framework) {
  let out = text;
  for (const other of FRAMEWORKS.filter((f) => f !== framework)) {
    out = replaceOnce(out, new RegExp(`^  ${other}: \\{\\n[\\s\\S]*?^  \\},\\n`, 'm'), '', 'src/listener.ts');
  }
  return out;
}

function keepConfig(text, framework) {
  const one = replaceOnce(
    text,
    /^const FRAMEWORKS = \[[^\]]*\] as const;$/m,
    `const FRAMEWORKS = ['${framework}'] as const;`,
    'src/service/config.ts',
  );
  // `--help` tells how the copy starts, not how the repository does.
  return replaceOnce(
    one,
    "'Usage: pnpm start   (or: node apps/reference-service/dist/main.mjs [--help])'",
    "'Usage: npm start   (or: node dist/main.mjs [--help])'",
    'src/service/config.ts',
  );
}

/** Every package name a file mentions in a string (imports, `import()`, `require.resolve`, pino targets). */
function mentionedPackages(text) {
  const names = new Set();
  for (const match of text.matchAll(/['"`]((?:@[\w.-]+\/)?[\w.-]+)(?:\/[^'"`\s]*)?['"`]/g))
    names.add(match[1]);
  return names;
}

/** @plumbline/* name → version, from packages/* /package.json (what `pnpm release` publishes). */
function plumblineVersions() {
  const versions = new Map();
  for (const dir of readdirSync(join(repoRoot, 'packages'))) {
    const path = join(repoRoot, 'packages', dir, 'package.json');
    if (!existsSync(path)) continue;
    const manifest = readJson(path);
    if (!manifest.private) versions.set(manifest.name, manifest.version);
  }
  return versions;
}

function gitCommit() {
  try {
    const sha = execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd: repoRoot,
      encoding: 'utf8',
      stdio: 'pipe',
    }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'apps/reference-service', 'scripts'], {
      cwd: repoRoot,
      encoding: 'utf8',
      stdio: 'pipe',
    });
    return dirty.trim() === '' ? sha : `${sha} (with uncommitted changes)`;
  } catch {
    return undefined;
  }
}

function generate(framework, target) {
  const service = readJson(join(SERVICE, 'package.json'));
  const root = readJson(join(repoRoot, 'package.json'));
  const versions = plumblineVersions();
  const dropped = FRAMEWORKS.filter((f) => f !== framework);
  const droppedPackage = (name) => dropped.some((f) => FRAMEWORK_PACKAGES[f].some((re) => re.test(name)));

  // src/: everything but the other frameworks' folders.
  const srcFiles = files(join(SERVICE, 'src')).filter(
    (file) => !dropped.some((other) => file.startsWith(`http/${other}/`)),
  );
  const srcMentions = new Set();
  for (const file of srcFiles) {
    let text = readFileSync(join(SERVICE, 'src', file), 'utf8');
    if (file === 'listener.ts') text = keepListener(text, framework);
    if (file === 'service/config.ts') text = keepConfig(text, framework);
    for (const name of mentionedPackages(text)) srcMentions.add(name);
    write(join(target, 'src', file), text);
  }

  // test/: the copied tests take what they imported from @plumbline/test-utils from the local harness.
  const harness = readFileSync(join(HERE, 'harness.ts'), 'utf8');
  const harnessExports = new Set(
    [...harness.matchAll(/^export (?:async )?(?:function|interface|const) (\w+)/gm)].map((m) => m[1]),
  );
  const docs = new Set();
  const testMentions = new Set();
  for (const file of COPIED_TESTS) {
    let text = readFileSync(join(SERVICE, 'test', file), 'utf8');
    text = text.replace(/^import \{([^}]*)\} from '@plumbline\/test-utils';$/m, (_line, names) => {
      const missing = names
        .split(',')
        .map((n) => n.trim())
        .filter((n) => n && !harnessExports.has(n));
      if (missing.length > 0) {
        throw new Error(
          `test/${file} imports ${missing.join(', ')} from @plumbline/test-utils, which scripts/template/harness.ts lacks`,
        );
      }
      return `import {${names}} from './harness.js';`;
    });
    // Documents of the repository a test reads come along under docs/.
    text = text.replace(/'\.\.\/\.\.\/\.\.\/docs\/([\w.-]+)'/g, (_m, doc) => {
      docs.add(doc);
      return `'../docs/${doc}'`;
    });
    if (/@plumbline\/test-utils|'\.\.\/\.\.\//.test(text)) {
      throw new Error(`test/${file} still reaches outside the copy; update scripts/template.mjs`);
    }
    for (const name of mentionedPackages(text)) testMentions.add(name);
    write(join(target, 'test', file), text);
  }
  for (const file of OWN_TESTS) {
    const text = readFileSync(join(HERE, file), 'utf8');
    for (const name of mentionedPackages(text)) testMentions.add(name);
    write(join(target, 'test', file), text);
  }
  for (const doc of docs) {
    mkdirSync(join(target, 'docs'), { recursive: true });
    copyFileSync(join(repoRoot, 'docs', doc), join(target, 'docs', doc));
  }

  const range = (name, declared) => {
    if (!declared.startsWith('workspace:')) return declared;
    const version = versions.get(name);
    if (!version) throw new Error(`${name} is not a published package of this repository`);
    return `^${version}`;
  };
  const dependencies = {};
  for (const [name, declared] of Object.entries(service.dependencies ?? {})) {
    if (srcMentions.has(name) && !droppedPackage(name)) dependencies[name] = range(name, declared);
  }
  const kept = new Set(Object.keys(dependencies));
  const devDependencies = {};
  const devSources = { ...root.devDependencies, ...service.devDependencies };
  for (const [name, declared] of Object.entries(devSources)) {
    const forTests = testMentions.has(name) && !kept.has(name);
    const typesOfKept = name.startsWith('@types/') && kept.has(name.slice('@types/'.length));
    const tooling = ['typescript', 'tsdown', 'vitest', '@types/node', '@tsconfig/strictest'].includes(name);
    if ((forTests || typesOfKept || tooling) && !droppedPackage(name))
      devDependencies[name] = range(name, declared);
  }
  const sorted = (record) =>
    Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));

  const name = projectName(target);
  write(
    join(target, 'package.json'),
    `${JSON.stringify(
      {
        name,
        version: '0.1.0',
        private: true,
        description: `An HTTP API on ${framework}, started from the Plumbline reference service`,
        type: 'module',
        engines: service.engines,
        scripts: {
          build: 'tsdown',
          start: 'node dist/main.mjs',
          test: 'vitest run',
          typecheck: 'tsc -p tsconfig.json',
        },
        dependencies: sorted(dependencies),
        devDependencies: sorted(devDependencies),
      },
      null,
      2,
    )}\n`,
  );

  // The repository's tsconfig.base.json, standalone: @tsconfig/strictest comes from the registry.
  const base = readJson(join(repoRoot, 'tsconfig.base.json'));
  const { paths: _paths, declaration: _declaration, ...compilerOptions } = base.compilerOptions;
  write(
    join(target, 'tsconfig.json'),
    `${JSON.stringify({ extends: base.extends, compilerOptions, include: ['src', 'test'] }, null, 2)}\n`,
  );
  // The service's own build config imports nothing of the repository.
  const tsdown = readFileSync(join(SERVICE, 'tsdown.config.ts'), 'utf8');
  if (/from '\.|tsdown\.base/.test(tsdown))
    throw new Error('apps/reference-service/tsdown.config.ts is no longer standalone');
  write(join(target, 'tsdown.config.ts'), tsdown);
  write(
    join(target, 'vitest.config.ts'),
    `import { defineConfig } from 'vitest/config';

// Each test file starts the service in-process; the conformance probes and the Tour take seconds.
export default defineConfig({
  test: { include: ['test/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 60_000 },
});
`,
  );
  write(join(target, '.gitignore'), 'node_modules/\ndist/\n');
  write(join(target, 'README.md'), readme(name, framework, gitCommit(), docs));
}

const FRAMEWORK_TITLES = { express: 'Express 5', fastify: 'Fastify 5', hono: 'Hono 4 (@hono/node-server)' };

function readme(name, framework, commit, docs) {
  const source = readFileSync(join(SERVICE, 'README.md'), 'utf8');
  const start = source.indexOf('\n## Tour\n');
  if (start < 0) throw new Error('apps/reference-service/README.md has no "## Tour" section');
  const end = source.indexOf('\n## ', start + 1);
  // The Tour links the conventions relative to the repository; the copy links them on GitHub.
  const tour = source
    .slice(start + 1, end < 0 ? undefined : end + 1)
    .replaceAll('](../../docs/', '](https://github.com/plumbline/plumbline/blob/main/docs/');
  return `# ${name}

An HTTP API on ${FRAMEWORK_TITLES[framework]}, generated by \`pnpm template ${framework}\` from the Plumbline
reference service (\`apps/reference-service\`${commit ? ` at commit ${commit}` : ''}). It depends on the published
\`@plumbline/*\` packages from the npm registry and on nothing in the Plumbline repository: rename it,
change its resources, and keep the tests passing.

## Start

Node.js 22.13 or newer (the service stores data with the built-in \`node:sqlite\`).

\`\`\`sh
npm install
npm run build
npm start            # http://127.0.0.1:3000, in-memory SQLite seeded with demo data
node dist/main.mjs --help   # every environment variable: PORT, DATABASE_URL, REDIS_URL, ...
\`\`\`

On start it prints demo credentials; the Tour below uses them as \`API_KEY\`, \`RO_KEY\` and
\`CLIENT_SECRET\`.

## Test

\`\`\`sh
npm test             # vitest
npm run typecheck
\`\`\`

- \`test/e2e.test.ts\`: one table per section of the Plumbline conventions, over real HTTP, on SQLite
  in memory; with \`DATABASE_URL\` (PostgreSQL) and \`REDIS_URL\` both set, again on PostgreSQL with Redis.
- \`test/readme.test.ts\`: runs the Tour below (bash and curl) and checks every \`# → NNN\` status.
- \`test/conformance.test.ts\`: \`@plumbline/conformance\` lints \`/openapi.json\` and probes the running
  service; every rule must pass.
- \`test/harness.ts\` starts the service in-process on a free loopback port.${docs.size > 0 ? `\n- \`docs/\`: ${[...docs].join(', ')}, which the tests check the error pages' links against.` : ''}

## Where the code is

\`src/http/${framework}/\` is the only code that knows the framework: \`app.ts\` reads top to bottom as the
request pipeline, \`routes.ts\` mounts the versioned API's route tables. Everything else is framework-free:
\`src/pipeline.ts\` (what every step of the pipeline answers from, built once),
\`src/api/\` (the handlers), \`src/domain/\`, \`src/storage/\` (SQLite or PostgreSQL), \`src/service/\`
(configuration, limits, logging, metrics), \`src/pages/\` and \`src/openapi/\`. \`src/listener.ts\` loads
the wiring, \`src/server.ts\` serves it, \`src/main.ts\` is the entry.

${tour}`;
}

function main(argv) {
  const [framework, dir, ...extra] = argv;
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE);
    return 0;
  }
  try {
    if (!framework || !dir || extra.length > 0) throw new UsageError('expected a framework and a directory');
    if (!FRAMEWORKS.includes(framework)) {
      throw new UsageError(`unknown framework "${framework}": choose one of ${FRAMEWORKS.join(', ')}`);
    }
    // pnpm runs scripts in the repository root; INIT_CWD is where the user typed the command.
    // biome-ignore lint/suspicious/noUndeclaredEnvVars: read by this script only, never by a turbo task
    const target = resolve(process.env.INIT_CWD ?? process.cwd(), dir);
    checkTarget(target);
    generate(framework, target);
    process.stdout.write(
      `Wrote the reference service on ${framework} to ${target}\nNext: cd ${target} && npm install && npm test && npm run build && npm start\n`,
    );
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`pnpm template: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    throw error;
  }
}

process.exitCode = main(process.argv.slice(2));
