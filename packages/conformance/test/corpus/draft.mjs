// Writes the corpus expectation files: keeps every verdict already given, adds each new finding as
// "unreviewed" (the corpus test fails until a person marks it correct or false-positive, with
// `why`), and drops findings the ruleset no longer reports only with --prune. After changing a rule:
//   pnpm turbo run build --filter=@plumbline/conformance && node packages/conformance/test/corpus/draft.mjs
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lint } from '../../dist/index.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const modules = join(here, '../../node_modules');
const prune = process.argv.includes('--prune');
const corpus = JSON.parse(readFileSync(join(here, 'documents.json'), 'utf8'));
const provenance = JSON.parse(readFileSync(join(here, 'vendor/provenance.json'), 'utf8'));

// A vendored document sits at vendor/<package>/<its path less a leading dist/>, its version in
// vendor/provenance.json (as documentPath in documents.ts).
const pathOf = (document) =>
  document.vendored
    ? join(here, 'vendor', document.package, document.file.replace(/^dist\//, ''))
    : join(modules, document.package, document.file);
const versionOf = (document) =>
  document.vendored
    ? provenance.find((p) => p.package === document.package && p.file === document.file).version
    : JSON.parse(readFileSync(join(modules, document.package, 'package.json'), 'utf8')).version;

for (const document of corpus) {
  if (document.refused !== undefined) continue; // refused before any rule runs: no findings to review
  const file = join(here, `${document.id}.json`);
  const old = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
  const known = new Map((old?.findings ?? []).map((f) => [`${f.rule}\n${f.message}`, f]));
  const text = readFileSync(pathOf(document), 'utf8');
  const seen = new Set();
  const findings = [];
  for (const finding of await lint(text, { source: document.file })) {
    const key = `${finding.rule}\n${finding.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    findings.push(known.get(key) ?? { rule: finding.rule, message: finding.message, verdict: 'unreviewed' });
  }
  if (!prune) for (const [key, finding] of known) if (!seen.has(key)) findings.push(finding);
  const expectation = {
    package: document.package,
    version: versionOf(document),
    file: document.file,
    review: old?.review ?? 'not reviewed yet',
    findings,
  };
  writeFileSync(file, `${JSON.stringify(expectation, null, 2)}\n`);
  process.stdout.write(`${document.id}: ${findings.length} findings\n`);
}
