/**
 * Part of issue #28: the Hono adapters on every runtime they claim. One app (test/runtime-app.ts) that
 * uses every package's core and `/hono` adapter, installed from the local registry, served over real
 * HTTP on 127.0.0.1 by Node 22 and Node 24 (`@hono/node-server`), Bun (`Bun.serve`), Deno
 * (`Deno.serve`) and workerd (Miniflare); the runtimes come from npm too. One table of requests
 * (test/runtime-requests.ts) goes to each; every answer must equal Node 24's byte for byte, apart from
 * the headers in ALLOWED_DIFFERENCES. Then every export subpath of every public package is imported at
 * the top level of a Worker and evaluated inside workerd. Results: docs/runtimes.md.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  APP_FILES,
  type Credentials,
  makeCredentials,
  WORKER_BUNDLE,
  WORKERD_COMPAT,
} from './runtime-app.js';
import {
  ALLOWED_DIFFERENCES,
  answerMayDiffer,
  compareAnswers,
  type Difference,
  staleAllowances,
} from './runtime-compare.js';
import {
  type Answer,
  requestTable,
  resets,
  type Server,
  type Step,
  sendTable,
  startServer,
} from './runtime-requests.js';
import {
  frameworkOf,
  nodeBinary,
  npmProject,
  projectDir,
  publicPackages,
  repoRoot,
  runOk,
  specifier,
  userEnv,
} from './support.js';

const registry = inject('registry');
const published = inject('published');
const packages = publicPackages();

interface Runtime {
  readonly id: string;
  readonly title: string;
  /** The runtime's own project (installed with its install scripts, as a user's npm runs them). */
  readonly install?: Readonly<Record<string, string>>;
  /** A Node major, installed by the consumer tests' shared `nodeBinary()` (the matrix uses the same). */
  readonly node?: number;
  /** Executable, from what the install gave: the runtime's project directory, or Node's binary. */
  readonly bin: (installed: string) => string;
  readonly version: (bin: string, app: string) => Promise<string>;
  readonly args: readonly string[];
  /** Extra environment variables for the server. */
  readonly env?: (dir: string) => Record<string, string>;
}

const firstLine = async (bin: string, args: readonly string[], cwd: string) =>
  (await runOk(bin, args, { cwd, env: userEnv(registry), timeoutMs: 30_000 })).stdout.trim().split('\n')[0]!;
const manifestVersion = (app: string, name: string) =>
  (JSON.parse(readFileSync(join(app, 'node_modules', name, 'package.json'), 'utf8')) as { version: string })
    .version;

const RUNTIMES: readonly Runtime[] = [
  ...(['24', '22'] as const).map(
    (major): Runtime => ({
      id: `node${major}`,
      title: `Node ${major} (@hono/node-server)`,
      node: Number(major),
      bin: (binary) => binary,
      version: (bin, app) => firstLine(bin, ['--version'], app),
      args: ['src/node.mjs'],
    }),
  ),
  {
    id: 'bun',
    title: 'Bun (Bun.serve)',
    install: { bun: '1' },
    bin: (dir) => join(dir, 'node_modules/.bin/bun'),
    version: async (bin, app) => `bun ${await firstLine(bin, ['--version'], app)}`,
    args: ['src/bun.mjs'],
  },
  {
    id: 'deno',
    title: 'Deno (Deno.serve)',
    install: { deno: '2' },
    bin: (dir) => join(dir, 'node_modules/.bin/deno'),
    version: async (bin, app) => (await firstLine(bin, ['--version'], app)).split(' (')[0]!,
    // Only loopback, the environment and the installed files; no prompt can block a run.
    args: [
      'run',
      '--no-prompt',
      '--no-lock',
      '--allow-net=127.0.0.1',
      '--allow-env',
      '--allow-read',
      'src/deno.mjs',
    ],
    env: (dir) => ({ DENO_DIR: join(dir, 'deno-dir'), DENO_NO_UPDATE_CHECK: '1' }),
  },
  {
    id: 'workerd',
    title: 'workerd (Miniflare)',
    // Miniflare is a Node library that starts workerd: it runs on the Node that runs these tests.
    bin: () => process.execPath,
    version: async (_bin, app) =>
      `workerd ${manifestVersion(app, 'workerd')} (miniflare ${manifestVersion(app, 'miniflare')}, esbuild ${manifestVersion(app, 'esbuild')})`,
    args: ['src/miniflare.mjs'],
  },
];
const BASELINE = 'node24';

/**
 * Entry points that cannot run on Workers, with the reason; every other one must evaluate there with
 * the export names Node sees. Cores and `/hono` subpaths may never be listed; a listed entry that
 * evaluates after all fails as stale.
 */
const NOT_FOR_WORKERS: Readonly<Record<string, string>> = {};

// ---------------------------------------------------------------------------------------------

const all = Object.fromEntries(packages.map((p) => [p.name, published[p.name]!]));
let app: string;
let credentials: Credentials;
let steps: readonly Step[];
const servers: Server[] = [];

interface RuntimeResult {
  version?: string;
  compared?: number;
  /** Reused keep-alive connections the server had closed (see runtime-requests.ts). */
  resets?: number;
  differences?: readonly Difference[];
  error?: string;
}
const results = new Map<string, RuntimeResult>();
const installs = new Map<string, Promise<string>>();

async function installRuntime(runtime: Runtime): Promise<string> {
  if (runtime.node !== undefined) return nodeBinary(registry, runtime.node);
  if (!runtime.install) return app;
  const dir = projectDir(registry, `runtime-${runtime.id}`);
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: `runtime-${runtime.id}`, private: true, dependencies: runtime.install }),
  );
  // No --ignore-scripts: Bun and Deno link their platform binaries in postinstall.
  await runOk('npm', ['install', '--no-package-lock'], {
    cwd: dir,
    env: userEnv(registry),
    timeoutMs: 300_000,
  });
  return dir;
}

const answers = new Map<string, Promise<Map<string, Answer>>>();
function answersOf(runtime: Runtime): Promise<Map<string, Answer>> {
  let pending = answers.get(runtime.id);
  if (pending === undefined) {
    pending = (async () => {
      const result: RuntimeResult = {};
      results.set(runtime.id, result);
      const bin = runtime.bin(await installs.get(runtime.id)!);
      result.version = await runtime.version(bin, app);
      const server = await startServer(bin, runtime.args, {
        cwd: app,
        env: userEnv(registry, { APP_CONFIG: JSON.stringify(credentials.config), ...runtime.env?.(app) }),
        lifetimeMs: 180_000,
      });
      servers.push(server);
      try {
        const table = await sendTable(server.port, steps);
        result.resets = resets.get(server.port) ?? 0;
        // For a look at a failing run (PLUMBLINE_KEEP_CONSUMERS=1 keeps the project).
        writeFileSync(
          join(app, `answers-${runtime.id}.json`),
          JSON.stringify(
            Object.fromEntries(
              [...table].map(([id, a]) => [
                id,
                { status: a.status, headers: a.headers, body: a.body.toString() },
              ]),
            ),
            null,
            1,
          ),
        );
        return table;
      } catch (error) {
        throw new Error(`${error instanceof Error ? error.message : error}\n${server.output()}`);
      } finally {
        await server.stop();
      }
    })();
    answers.set(runtime.id, pending);
  }
  return pending;
}

beforeAll(async () => {
  const appProject = npmProject(
    registry,
    'runtime-app',
    {
      ...all,
      hono: '^4.8.0',
      '@hono/node-server': '^2.0.0',
      esbuild: '~0.28.0',
      miniflare: '^4.0.0',
      // The peers of the /express and /fastify entry points, so they are tried on workerd too.
      express: '^5.1.0',
      fastify: '^5.0.0',
    },
    { type: 'module', files: APP_FILES },
  );
  for (const runtime of RUNTIMES) {
    const install = appProject.then(() => installRuntime(runtime));
    // A failed install fails that runtime's test, not the others'.
    install.catch(() => {});
    installs.set(runtime.id, install);
  }
  app = await appProject;
  const keys = await runOk(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      "import { generateApiKey as g } from '@plumbline/auth'; process.stdout.write(JSON.stringify({ read: g(), write: g(), revoked: g() }));",
    ],
    { cwd: app, env: userEnv(registry) },
  );
  credentials = makeCredentials(JSON.parse(keys.stdout) as { read: string; write: string; revoked: string });
  steps = requestTable(credentials);
});

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
});

describe('the same answers on every runtime', () => {
  it.each(RUNTIMES.map((r) => [r.title, r] as const))('%s', async (_title, runtime) => {
    try {
      const baseline = await answersOf(RUNTIMES.find((r) => r.id === BASELINE)!);
      const own = await answersOf(runtime);
      const result = results.get(runtime.id)!;
      result.compared = steps.length;
      result.differences = compareAnswers(runtime.id, steps, baseline, own);
      const checked = steps.filter((s) => s.status !== undefined && !answerMayDiffer(runtime.id, s.id));
      expect(Object.fromEntries(checked.map((s) => [s.id, own.get(s.id)!.status]))).toEqual(
        Object.fromEntries(checked.map((s) => [s.id, s.status])),
      );
      const failing = result.differences.filter((d) => d.allowed === undefined);
      expect(
        failing.map((d) => `${d.step} ${d.what}: ${BASELINE} ${d.baseline} | ${runtime.id} ${d.other}`),
      ).toEqual([]);
    } catch (error) {
      const result = results.get(runtime.id) ?? {};
      result.error ??= String(error instanceof Error ? error.message : error)
        .split('\n')
        .slice(0, 20)
        .join('\n');
      results.set(runtime.id, result);
      throw error;
    }
  });
});

it('every allowed difference that names steps still occurs', () => {
  const seen = new Map(
    [...results].flatMap(([id, r]) => (r.differences ? [[id, r.differences] as const] : [])),
  );
  expect(seen.size).toBe(RUNTIMES.length);
  expect(staleAllowances(seen)).toEqual([]);
});

// ---------------------------------------------------------------------------------------------
// Every entry point evaluated inside workerd

interface EntryResult {
  readonly node: readonly string[] | string;
  readonly workerd?: readonly string[];
  readonly stage?: string;
  readonly error?: string;
}
const entries = packages.flatMap((pkg) =>
  pkg.subpaths.map((subpath) => ({ pkg, subpath, spec: specifier(pkg, subpath) })),
);
let evaluated: Promise<Record<string, EntryResult>> | undefined;
const entryResults = new Map<string, { ok: boolean; note: string }>();

describe('every entry point evaluates inside workerd', () => {
  it('lists no core or /hono entry as not for Workers', () => {
    const listed = entries.filter((e) => NOT_FOR_WORKERS[e.spec] !== undefined);
    expect(
      listed.filter((e) => frameworkOf(e.subpath) === undefined || e.subpath === './hono').map((e) => e.spec),
    ).toEqual([]);
    expect(Object.keys(NOT_FOR_WORKERS).filter((spec) => !entries.some((e) => e.spec === spec))).toEqual([]);
  });

  it.each(entries.map((e) => [e.spec, e] as const))('%s', async (spec) => {
    evaluated ??= runOk(process.execPath, ['entries.mjs', JSON.stringify(entries.map((e) => e.spec))], {
      cwd: app,
      env: userEnv(registry),
      timeoutMs: 240_000,
    }).then((r) => JSON.parse(r.stdout) as Record<string, EntryResult>);
    const result = (await evaluated)[spec]!;
    const reason = NOT_FOR_WORKERS[spec];
    const ran = result.workerd !== undefined;
    entryResults.set(spec, {
      ok: ran ? reason === undefined : reason !== undefined,
      note: ran ? `${result.workerd!.length} exports` : `${result.stage}: ${result.error}`,
    });
    if (reason !== undefined) {
      expect(
        result.workerd,
        `${spec} is listed as not for Workers but evaluates there: remove it`,
      ).toBeUndefined();
      return;
    }
    expect(result.error, `${result.stage}: ${result.error}`).toBeUndefined();
    expect(Array.isArray(result.node) && result.node.length > 0, String(result.node)).toBe(true);
    expect(result.workerd).toEqual(result.node);
  });
});

// ---------------------------------------------------------------------------------------------

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

afterAll(() => {
  const runtimeRows = RUNTIMES.map((runtime) => {
    const r = results.get(runtime.id);
    const failing = r?.differences?.filter((d) => d.allowed === undefined).length ?? 0;
    const allowed = r?.differences?.filter((d) => d.allowed !== undefined).length ?? 0;
    const verdict =
      r === undefined ? 'not run' : r.error !== undefined ? `**FAIL** (${failing || 'see below'})` : 'pass';
    const base = runtime.id === BASELINE ? 'baseline' : `${allowed} allowed`;
    return `| ${runtime.title} | ${r?.version ?? '?'} | ${r?.compared ?? 0} | ${base} | ${r?.resets ?? 0} | ${verdict} |`;
  });
  const failures = RUNTIMES.flatMap((runtime) => {
    const r = results.get(runtime.id);
    if (r?.error === undefined) return [];
    return [
      `- ${runtime.title}\n\n${r.error
        .split('\n')
        .slice(0, 30)
        .map((l) => `    ${l.slice(0, 300)}`)
        .join('\n')}\n`,
    ];
  });
  const allowedRows = ALLOWED_DIFFERENCES.map(
    (d) =>
      `| \`${d.part}\` | ${d.runtimes.join(', ')} | ${d.steps?.join(', ') ?? 'every request'} | ${cell(d.reason)} |`,
  );
  const entryRows = entries.map(({ spec }) => {
    const e = entryResults.get(spec);
    const reason = NOT_FOR_WORKERS[spec];
    const verdict =
      e === undefined ? 'not run' : !e.ok ? '**FAIL**' : reason !== undefined ? 'not for Workers' : 'pass';
    return `| \`${spec}\` | ${verdict} | ${cell(reason ?? e?.note ?? '')} |`;
  });
  const doc = `# Runtime matrix

Generated by \`pnpm test:consumers\` (apps/consumer-tests/test/runtimes.test.ts); do not edit by hand.

One Hono app, written once in JavaScript, uses every package's core and its \`/hono\` adapter (request ids and
problem answers, collection queries with offset and cursor pages, content negotiation in JSON, XML, English and
German, path versioning with a deprecated and a retired version, API keys and ES256 bearer tokens checked
against a local JWKS, idempotent POSTs with the memory store). It is installed from the local registry with
the published packages and \`hono\`, and served over HTTP on 127.0.0.1 by each runtime below, all installed
from npm. The same ${steps?.length ?? 0} requests (\`test/runtime-requests.ts\`) go to each, one after another; every
answer (status, header lines, body bytes) must equal Node 24's, except for the allowed differences.
Cursors of the collection defined without a \`cursorSecret\` are compared without their signature (each
process draws its own key); everything else is compared as sent.

| runtime | version | requests | differences | connections reset | result |
| --- | --- | --- | --- | --- | --- |
${runtimeRows.join('\n')}

"connections reset": keep-alive connections the server closed after an answer without saying so (workerd does
when the Worker did not read the request body); the next request went again on a new connection.
${failures.length ? `\n### Failures\n\n${failures.join('\n')}` : ''}
## Allowed differences

| part | runtimes | requests | why |
| --- | --- | --- | --- |
${allowedRows.join('\n')}

## Entry points inside workerd

Each export subpath of each public package, imported at the top level of a Worker module (bundled by
esbuild with the conditions ${WORKER_BUNDLE.conditions.map((c) => `\`${c}\``).join(', ')}, Node's built-ins
left to workerd) and evaluated by workerd with \`${WORKERD_COMPAT.flags.join(', ')}\` (compatibility date
${WORKERD_COMPAT.date}); the Worker answers its export names, which must equal Node's. Workers refuse random
values, timers and I/O in global scope, so an entry point doing any of that at import fails here.

| entry point | result | |
| --- | --- | --- |
${entryRows.join('\n')}
`;
  mkdirSync(join(repoRoot, 'docs'), { recursive: true });
  writeFileSync(join(repoRoot, 'docs/runtimes.md'), doc);
});
