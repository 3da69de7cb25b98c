import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import { sharedAliases } from './vitest.shared.js';

const root = dirname(fileURLToPath(import.meta.url));

// The reference service's suite runs once per framework it can be wired on (FRAMEWORK=...): the same
// requests must get the same answers. `reference-service` itself is Express, the default.
const OTHER_FRAMEWORKS: readonly string[] = ['fastify'];

// One project per workspace package, named after its directory (`vitest run --project errors`).
// One Vitest run covers them all; `pnpm test` and `.ci/run` use it.
function projects(): TestProjectInlineConfiguration[] {
  const list: TestProjectInlineConfiguration[] = [];
  for (const group of ['packages', 'apps']) {
    const groupDir = join(root, group);
    if (!existsSync(groupDir)) continue;
    for (const name of readdirSync(groupDir).sort()) {
      if (!existsSync(join(groupDir, name, 'package.json'))) continue;
      // Multi-process, fault and soak tests run on their own (`pnpm test:system`), not in `pnpm test`.
      if (name === 'system-tests' && process.env['PLUMBLINE_SYSTEM_TESTS'] !== '1') continue;
      // A release through a local registry and the consumer matrix run on their own (`pnpm test:consumers`).
      if (name === 'consumer-tests' && process.env['PLUMBLINE_CONSUMER_TESTS'] !== '1') continue;
      list.push({
        extends: true,
        test: {
          name,
          root: join(groupDir, name),
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          benchmark: { include: ['bench/**/*.bench.ts'] },
          ...(name === 'system-tests'
            ? {
                testTimeout: 240_000,
                hookTimeout: 120_000,
                fileParallelism: false,
                // Every exchange through the harness is checked against /openapi.json.
                setupFiles: [join(groupDir, name, 'test/contract-setup.ts')],
              }
            : {}),
          ...(name === 'consumer-tests'
            ? {
                testTimeout: 600_000,
                hookTimeout: 900_000,
                fileParallelism: false,
                globalSetup: [join(groupDir, name, 'test/global-setup.ts')],
              }
            : {}),
        },
      });
      if (name === 'reference-service') {
        for (const framework of OTHER_FRAMEWORKS) {
          list.push({
            extends: true,
            test: {
              name: `${name}:${framework}`,
              root: join(groupDir, name),
              include: ['test/**/*.test.ts'],
              env: { FRAMEWORK: framework },
            },
          });
        }
      }
    }
  }
  return list;
}

export default defineConfig({
  resolve: { alias: sharedAliases },
  test: {
    projects: projects(),
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
