import { existsSync, readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import { sharedAliases } from './vitest.shared.js';

const root = dirname(fileURLToPath(import.meta.url));

// The reference service's suites (in-process and system) run once per framework it can be wired on
// (FRAMEWORK=...): the same requests must get the same answers. The unsuffixed projects are Express,
// the default; `reference-service:fastify`, `system-tests:hono` and so on are the others.
const OTHER_FRAMEWORKS: readonly string[] = ['fastify', 'hono'];

// Two scopes. `pnpm test` is a contributor's loop: every package and example, and the reference
// service on Express, from the TypeScript sources with no build. `pnpm test:all` (what CI runs) builds
// first and sets PLUMBLINE_TEST_ALL=1: the service on Fastify and Hono too, the differential suite
// (all three frameworks at once), and the `*.built.test.ts` files, which run the built `dist/`.
const ALL = process.env['PLUMBLINE_TEST_ALL'] === '1';
const BUILT_TESTS = '**/*.built.test.ts';
const DIFFERENTIAL = 'test/differential.test.ts';
const FRAMEWORKS = ['express', ...OTHER_FRAMEWORKS];

// The three-minute soak runs on one framework per run, rotating by day (UTC), to keep CI in its time;
// the soak's title names the framework it ran on. PLUMBLINE_SOAK_FRAMEWORK picks one.
const SOAK_FRAMEWORK =
  process.env['PLUMBLINE_SOAK_FRAMEWORK'] ??
  FRAMEWORKS[Math.floor(Date.now() / 86_400_000) % FRAMEWORKS.length] ??
  'express';
const SOAK = 'test/soak.test.ts';
// Packages whose test files each need a module graph of their own (see `isolate` below).
const ISOLATED_PACKAGES: ReadonlySet<string> = new Set(['telemetry']);

function systemTests(groupDir: string, name: string, framework: string): TestProjectInlineConfiguration {
  return {
    extends: true,
    test: {
      name: framework === 'express' ? name : `${name}:${framework}`,
      root: join(groupDir, name),
      include: ['test/**/*.test.ts'],
      exclude: framework === SOAK_FRAMEWORK ? [] : [SOAK],
      env: { FRAMEWORK: framework },
      testTimeout: 240_000,
      hookTimeout: 120_000,
      fileParallelism: false,
      // Every exchange through the harness is checked against /openapi.json.
      setupFiles: [join(groupDir, name, 'test/contract-setup.ts')],
    },
  };
}

// One project per workspace package, named after its directory (`vitest run --project errors`).
// One Vitest run covers them all; `pnpm test` (the contributor scope) and `pnpm test:all` (`.ci/run`) use it.
function projects(): TestProjectInlineConfiguration[] {
  const list: TestProjectInlineConfiguration[] = [];
  for (const group of ['packages', 'apps', 'examples']) {
    const groupDir = join(root, group);
    if (!existsSync(groupDir)) continue;
    for (const name of readdirSync(groupDir).sort()) {
      if (!existsSync(join(groupDir, name, 'package.json'))) continue;
      // Multi-process, fault and soak tests run on their own (`pnpm test:system`), not in `pnpm test`.
      if (name === 'system-tests' && process.env['PLUMBLINE_SYSTEM_TESTS'] !== '1') continue;
      // A release through a local registry and the consumer matrix run on their own (`pnpm test:consumers`).
      if (name === 'consumer-tests' && process.env['PLUMBLINE_CONSUMER_TESTS'] !== '1') continue;
      if (name === 'system-tests') {
        for (const framework of FRAMEWORKS) list.push(systemTests(groupDir, name, framework));
        continue;
      }
      list.push({
        extends: true,
        test: {
          name,
          root: join(groupDir, name),
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: [
            ...configDefaults.exclude,
            ...(ALL ? [] : [BUILT_TESTS, ...(name === 'reference-service' ? [DIFFERENTIAL] : [])]),
          ],
          benchmark: { include: ['bench/**/*.bench.ts'] },
          // A package's test files share one module graph per worker (`isolate: false`): loading each
          // package's modules once per worker instead of once per file cut `pnpm test` from 236 s to
          // about 150 s (BENCHMARKS.md, "Test times"). A file that mocks a module the package imports
          // calls `vi.resetModules()` before importing the package. Telemetry's files register and
          // drop OpenTelemetry's process-wide providers, so they keep a graph per file, as do the
          // service and the examples.
          ...(group === 'packages' && !ISOLATED_PACKAGES.has(name) ? { isolate: false } : {}),
          ...(name === 'consumer-tests'
            ? {
                testTimeout: 600_000,
                hookTimeout: 900_000,
                globalSetup: [join(groupDir, name, 'test/global-setup.ts')],
              }
            : {}),
        },
      });
      if (name === 'reference-service' && ALL) {
        for (const framework of OTHER_FRAMEWORKS) {
          list.push({
            extends: true,
            test: {
              name: `${name}:${framework}`,
              root: join(groupDir, name),
              include: ['test/**/*.test.ts'],
              // The differential suite starts all three frameworks itself.
              exclude: [...configDefaults.exclude, DIFFERENTIAL],
              env: { FRAMEWORK: framework },
            },
          });
        }
      }
    }
  }
  return list;
}

// One worker more than there are cores, in every scope: the files mostly wait on sockets, child
// processes, Redis and PostgreSQL, so a third worker on two cores cut `pnpm test` from 241 s to 160 s
// (a fourth gained nothing), and `pnpm test:all` and the consumer tests gain the same way.
const WORKERS = { maxWorkers: availableParallelism() + 1 };

export default defineConfig({
  resolve: { alias: sharedAliases },
  test: {
    ...WORKERS,
    projects: projects(),
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
