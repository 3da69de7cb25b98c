/**
 * The build every published package shares: dual ESM + CJS with `.d.mts`/`.d.cts` types for
 * Node >= 20.19, checked by publint and attw. A package names only its entry points.
 */
import { defineConfig, type UserConfig } from 'tsdown';

export function libraryConfig(entries: readonly string[]): UserConfig {
  return defineConfig({
    entry: entries.map((name) => `src/${name}.ts`),
    format: ['esm', 'cjs'],
    platform: 'node',
    target: 'node20.19',
    dts: true,
    sourcemap: false,
    clean: true,
    // One output file per source file: shared chunks in the CJS build put rolldown's runtime in an
    // entry file and made the core require the Express adapter (a require cycle).
    unbundle: true,
    publint: true,
    attw: { profile: 'node16', level: 'error' },
  });
}
