import { readFileSync } from 'node:fs';

const NODE_ONLY = [/from ['"]node:/, /\bBuffer\./, /\bprocess\./, /require\(/];

/**
 * Follows the relative imports of `entries` (file names in `srcDir`) and lists every use of
 * Node-only APIs (`node:` modules, `Buffer`, `process`, `require`) as `file: pattern`, for entry
 * points that must run on Workers, Deno and Bun. Imports of other packages are not followed.
 *
 * @example
 * ```ts
 * expect(nodeOnlyUses(new URL('../src/', import.meta.url), ['index.ts', 'hono.ts'])).toEqual([]);
 * ```
 */
export function nodeOnlyUses(srcDir: URL, entries: readonly string[]): string[] {
  const seen = new Set<string>();
  const found: string[] = [];
  const queue = [...entries];
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = readFileSync(new URL(file, srcDir), 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '');
    for (const pattern of NODE_ONLY) if (pattern.test(source)) found.push(`${file}: ${pattern.source}`);
    for (const match of source.matchAll(/from ['"]\.\/([^'"]+)\.js['"]/g)) queue.push(`${match[1]}.ts`);
  }
  return found;
}
