/**
 * The build every published package shares: dual ESM + CJS with `.d.mts`/`.d.cts` types for
 * Node >= 20.19, checked by publint and by attw with every resolution profile (node10 included,
 * which `typesVersions` serves; `node scripts/manifests.mjs` derives it from `exports`).
 * A package names its entry points and, rarely, ESM-only dependencies to inline into its CJS build.
 */
import { defineConfig, type UserConfig } from 'tsdown';

/** Options of {@link libraryConfig}. */
export interface LibraryOptions {
  /**
   * ESM-only dependencies to bundle into the CommonJS build (the ESM build keeps importing them).
   * Node >= 20.19 can `require()` ESM, but Jest's module loader cannot before Node 24.9, so a
   * default Jest project that `require`s the package would fail on them. Their files land in
   * `dist/vendor/<name>/` with the dependency's own LICENSE copied beside them.
   */
  readonly bundleInCjs?: readonly string[];
}

export function libraryConfig(entries: readonly string[], options: LibraryOptions = {}): UserConfig {
  const inline = options.bundleInCjs ?? [];
  const isInlined = (id: string) => inline.some((name) => id === name || id.startsWith(`${name}/`));
  return defineConfig({
    entry: entries.map((name) => `src/${name}.ts`),
    format: {
      esm: {},
      cjs:
        inline.length === 0
          ? {}
          : {
              deps: { alwaysBundle: isInlined, onlyBundle: [...inline] },
              outputOptions: {
                // Inlined modules keep their own files (unbundle), under vendor/ rather than a
                // node_modules/ path, which npm would leave out of the tarball.
                entryFileNames: (chunk: { name: string }) =>
                  `${chunk.name.replace(/^(?:.*\/)?node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?/, 'vendor/')}.cjs`,
              },
            },
    } as UserConfig['format'],
    platform: 'node',
    target: 'node20.19',
    dts: true,
    sourcemap: false,
    clean: true,
    // One output file per source file: shared chunks in the CJS build put rolldown's runtime in an
    // entry file and made the core require the Express adapter (a require cycle).
    unbundle: true,
    copy: inline.map((name) => ({ from: `node_modules/${name}/LICENSE*`, to: `dist/vendor/${name}` })),
    publint: true,
    attw: { profile: 'strict', level: 'error' },
  });
}
