import { defineConfig } from 'tsdown';

// The service is an application, not a library: one ESM entry, dependencies stay external. What
// main.ts and listener.ts load with import() (the start path, each framework's wiring) becomes a
// chunk of its own beside dist/main.mjs, so `--help` loads no framework and a run only its own.
export default defineConfig({
  entry: ['src/main.ts'],
  format: ['esm'],
  platform: 'node',
  target: 'node22.13',
  dts: false,
  sourcemap: true,
  clean: true,
});
