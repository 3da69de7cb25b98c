import { defineConfig } from 'tsdown';

// The service is an application, not a library: one ESM entry, dependencies stay external.
export default defineConfig({
  entry: ['src/main.ts'],
  format: ['esm'],
  platform: 'node',
  target: 'node22.13',
  dts: false,
  sourcemap: true,
  clean: true,
});
