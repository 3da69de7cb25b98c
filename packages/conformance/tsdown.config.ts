import { defineConfig } from 'tsdown';

export default defineConfig({
  entry: ['src/index.ts', 'src/cli.ts', 'src/ruleset.ts'],
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
