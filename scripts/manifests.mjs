#!/usr/bin/env node
/**
 * Keeps every published package's manifest complete and derived fields in sync, so a new package
 * or a new export subpath cannot ship half-described:
 * - the same `license`, `repository` (with `directory`), `homepage`, `bugs`, `engines`, `sideEffects`;
 * - `typesVersions` derived from `exports`, which is how TypeScript's `node10` resolution
 *   (`"module": "commonjs"`, still the default of most Express apps) finds `@plumbline/x/express`;
 * - a LICENSE file beside the manifest, identical to the repository's, so every tarball carries it;
 * - a typedoc.json naming the source of every export subpath, so the API reference
 *   (`pnpm docs:api`) documents exactly what a user can import.
 *
 * `node scripts/manifests.mjs` writes the fields; `--check` only reports drift and exits 1 (CI).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const REPOSITORY = 'https://github.com/plumbline/plumbline';
const check = process.argv.includes('--check');
const license = readFileSync(join(root, 'LICENSE'), 'utf8');

// Field order of a manifest: identity, then description of the package, then how it resolves.
const ORDER = [
  'name',
  'version',
  'description',
  'keywords',
  'homepage',
  'bugs',
  'repository',
  'license',
  'author',
  'type',
  'sideEffects',
  'engines',
  'files',
  'bin',
  'main',
  'module',
  'types',
  'typesVersions',
  'exports',
  'publishConfig',
  'scripts',
  'dependencies',
  'peerDependencies',
  'peerDependenciesMeta',
  'devDependencies',
];

function typesVersionsOf(exports) {
  const map = {};
  for (const [subpath, target] of Object.entries(exports ?? {})) {
    if (subpath === '.' || subpath === './package.json') continue;
    const types = target?.require?.types;
    if (typeof types !== 'string') throw new Error(`exports["${subpath}"].require.types is missing`);
    map[subpath.slice(2)] = [types];
  }
  return Object.keys(map).length > 0 ? { '*': map } : undefined;
}

const problems = [];
for (const dir of readdirSync(join(root, 'packages')).sort()) {
  const file = join(root, 'packages', dir, 'package.json');
  if (!existsSync(file)) continue;
  const before = readFileSync(file, 'utf8');
  const manifest = JSON.parse(before);
  if (manifest.private) continue;
  const wanted = {
    ...manifest,
    homepage: `${REPOSITORY}/tree/main/packages/${dir}#readme`,
    bugs: { url: `${REPOSITORY}/issues` },
    repository: { type: 'git', url: `git+${REPOSITORY}.git`, directory: `packages/${dir}` },
    license: 'MIT',
    sideEffects: false,
    engines: { node: '>=20.19' },
    typesVersions: typesVersionsOf(manifest.exports),
  };
  if (!Array.isArray(wanted.keywords) || wanted.keywords.length === 0)
    problems.push(`packages/${dir}/package.json: add keywords`);
  if (!wanted.description) problems.push(`packages/${dir}/package.json: add a description`);
  const ordered = {};
  for (const key of ORDER) if (wanted[key] !== undefined) ordered[key] = wanted[key];
  for (const key of Object.keys(wanted))
    if (!(key in ordered) && wanted[key] !== undefined) ordered[key] = wanted[key];
  const after = `${JSON.stringify(ordered, null, 2)}\n`;
  const typedocFile = join(root, 'packages', dir, 'typedoc.json');
  const typedocBefore = existsSync(typedocFile) ? JSON.parse(readFileSync(typedocFile, 'utf8')) : {};
  const typedoc = `${JSON.stringify(
    {
      // A package may add options of its own (intentionallyNotExported, ...); entryPoints is derived.
      ...typedocBefore,
      $schema: 'https://typedoc.org/schema.json',
      // The source of a subpath is named by its build output (`./ruleset` may be dist/create-ruleset.mjs).
      entryPoints: Object.entries(manifest.exports ?? {})
        .filter(([subpath]) => subpath !== './package.json')
        .map(([, target]) => target.import.default.replace(/^\.\/dist\/(.*)\.mjs$/, 'src/$1.ts')),
    },
    null,
    2,
  )}\n`;
  const typedocOk = existsSync(typedocFile) && readFileSync(typedocFile, 'utf8') === typedoc;
  const licenseFile = join(root, 'packages', dir, 'LICENSE');
  const licenseOk = existsSync(licenseFile) && readFileSync(licenseFile, 'utf8') === license;
  if (check) {
    if (after !== before) problems.push(`packages/${dir}/package.json is out of date`);
    if (!licenseOk) problems.push(`packages/${dir}/LICENSE is missing or differs from ./LICENSE`);
    if (!typedocOk) problems.push(`packages/${dir}/typedoc.json is out of date`);
  } else {
    if (!typedocOk) writeFileSync(typedocFile, typedoc);
    if (after !== before) writeFileSync(file, after);
    if (!licenseOk) writeFileSync(licenseFile, license);
  }
}
if (problems.length > 0) {
  console.error(`${problems.join('\n')}\nRun: node scripts/manifests.mjs`);
  process.exit(1);
}
