/**
 * The published shape of the package: the bin is a committed file (so `pnpm install` in a fresh
 * checkout links it without a warning, before any build), it ships in the tarball, and it runs the
 * built CLI (package.built.test.ts, after the build).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  bin: Record<string, string>;
  files: string[];
  dependencies: Record<string, string>;
};

describe('package', () => {
  it('the bin target is a tracked source file, not build output', () => {
    const target = manifest.bin['plumbline-conformance']!;
    expect(target).toBe('./bin/plumbline-conformance.mjs');
    expect(existsSync(join(root, target))).toBe(true);
    expect(manifest.files).toEqual(expect.arrayContaining(['bin', 'dist']));
  });

  it('every runtime dependency is imported (or, for a data package, resolved) by the source', () => {
    const text = readdirSync(join(root, 'src'))
      .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
      .map((name) => readFileSync(join(root, 'src', name), 'utf8'))
      .join('\n');
    for (const name of Object.keys(manifest.dependencies)) {
      const used = text.includes(`from '${name}'`) || text.includes(`.resolve('${name}')`);
      expect(used, `${name} is a dependency but never imported or resolved`).toBe(true);
    }
  });
});
