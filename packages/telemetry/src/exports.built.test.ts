/**
 * The published build, as `require`/`import` see it. A `*.built.test.ts` file runs in `pnpm test:all`,
 * after the build; the contributor loop (`pnpm test`) leaves it out.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const dist = new URL('../dist/', import.meta.url);
describe('published build', () => {
  it('the CJS core loads without the adapters and starts nothing with no SDK', () => {
    const require = createRequire(import.meta.url);
    const core = require(fileURLToPath(new URL('index.cjs', dist)));
    const loaded = Object.keys(require.cache).filter((file) => file.startsWith(fileURLToPath(dist)));
    // No adapter loads with the core, so installing one framework never needs another.
    expect(loaded.filter((file) => /(express|fastify|hono)\.cjs$/.test(file))).toEqual([]);
    expect(core.createTelemetry().start('GET', {}, { keys: () => [], get: () => undefined })).toBeUndefined();
  });

  it('the ESM entry points expose the same names as the sources', async () => {
    for (const entry of ['index', 'express', 'fastify', 'hono']) {
      const built = await import(fileURLToPath(new URL(`${entry}.mjs`, dist)));
      expect(Object.keys(built).sort()).toEqual(Object.keys(await import(`./${entry}.js`)).sort());
    }
  });
});
