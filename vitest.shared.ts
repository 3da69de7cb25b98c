/**
 * Shared Vitest settings for every workspace project.
 *
 * Tests import sibling packages by their published names (`@plumbline/errors/express`); the
 * aliases below resolve those names to the TypeScript sources so a test always runs against the
 * code beside it, not against a stale `dist/`. The mapping is derived from each package's
 * `exports` map: `.` → `src/index.ts`, `./<sub>` → `src/<sub>.ts`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One resolve alias, in the form Vite's `resolve.alias` array takes. */
interface Alias {
  readonly find: RegExp;
  readonly replacement: string;
}

const root = dirname(fileURLToPath(import.meta.url));

function workspaceAliases(): Alias[] {
  const aliases: Alias[] = [];
  for (const group of ['packages', 'apps']) {
    const dir = join(root, group);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      const manifestPath = join(dir, name, 'package.json');
      if (!existsSync(manifestPath)) continue;
      const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
        name: string;
        exports?: Record<string, unknown>;
      };
      const subpaths = Object.keys(manifest.exports ?? { '.': null }).filter(
        (key) => key !== './package.json',
      );
      // Longest subpath first so `@plumbline/x/express` wins over `@plumbline/x`.
      for (const subpath of subpaths.sort((a, b) => b.length - a.length)) {
        const file = subpath === '.' ? 'index.ts' : `${subpath.slice(2)}.ts`;
        const source = resolve(dir, name, 'src', file);
        if (!existsSync(source)) continue;
        const specifier = subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`;
        aliases.push({ find: new RegExp(`^${specifier.replace(/[/.]/g, '\\$&')}$`), replacement: source });
      }
    }
  }
  return aliases;
}

export const sharedAliases = workspaceAliases();
