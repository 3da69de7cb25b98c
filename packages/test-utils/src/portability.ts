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

/** The dependency fields of a package manifest that {@link frameworkPeerProblems} reads. */
export interface ManifestDependencies {
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
  readonly peerDependenciesMeta?: Readonly<Record<string, { readonly optional?: boolean }>>;
}

/**
 * What is wrong with how a manifest names the web frameworks, so installing one adapter never pulls
 * in another framework: express, fastify and hono must each be an optional peer and never a
 * dependency, and `fastify-plugin` (no dependencies of its own) is the only framework-named
 * dependency allowed. An empty list means nothing is wrong.
 *
 * @example
 * ```ts
 * expect(frameworkPeerProblems(manifest)).toEqual([]);
 * ```
 */
export function frameworkPeerProblems(manifest: ManifestDependencies): string[] {
  const problems: string[] = [];
  for (const framework of ['express', 'fastify', 'hono']) {
    if (manifest.peerDependencies?.[framework] === undefined) problems.push(`${framework} is not a peer`);
    if (manifest.peerDependenciesMeta?.[framework]?.optional !== true)
      problems.push(`${framework} is not marked optional`);
  }
  for (const name of Object.keys(manifest.dependencies ?? {})) {
    if (name !== 'fastify-plugin' && /express|fastify|hono/.test(name))
      problems.push(`${name} is a dependency`);
  }
  return problems;
}
