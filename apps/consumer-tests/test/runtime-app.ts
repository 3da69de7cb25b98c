/**
 * The runtime matrix's generated project: one Hono app that uses every package's core and its `/hono`
 * adapter, written once as plain JavaScript so Node, Bun, Deno and workerd run the same file, plus an
 * entry per runtime (`@hono/node-server`, `Bun.serve`, `Deno.serve`, a Worker bundled by esbuild and run
 * by Miniflare) and the script that evaluates every export subpath inside workerd.
 */
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';

/**
 * Every Worker here: `nodejs_compat` because the cores use node:crypto and Buffer; a recent date, as a
 * new Worker gets, on which `nodejs_compat` also serves node:fs (Spectral, in the conformance core, loads it).
 */
export const WORKERD_COMPAT = { date: '2026-04-01', flags: ['nodejs_compat'] } as const;

/** How a Worker is bundled: what a Workers bundler resolves, `workerd` first (plus BUILTINS, below). */
export const WORKER_BUNDLE = {
  platform: 'neutral',
  mainFields: ['browser', 'module', 'main'],
  conditions: ['workerd', 'worker', 'browser', 'import'],
} as const;

// Node's built-ins are left to workerd, which serves them with `nodejs_compat`, with or without the
// `node:` prefix. An ES module bundle cannot require() an external module, so a CommonJS dependency's
// require('buffer') becomes a small module importing `node:buffer`, as Wrangler rewrites it.
const BUILTINS = `import { isBuiltin } from 'node:module';
const builtins = {
  name: 'node-builtins',
  setup(b) {
    b.onResolve({ filter: /^[a-z_:/]+$/ }, (args) => {
      if (!isBuiltin(args.path)) return undefined;
      const path = args.path.startsWith('node:') ? args.path : 'node:' + args.path;
      return args.kind === 'require-call' ? { path, namespace: 'node-require' } : { path, external: true };
    });
    b.onLoad({ filter: /.*/, namespace: 'node-require' }, (args) => ({
      contents: 'import m from ' + JSON.stringify(args.path) + '; module.exports = m;',
      loader: 'js',
    }));
  },
};
const bundle = { bundle: true, format: 'esm', logLevel: 'silent', plugins: [builtins], ...${JSON.stringify(WORKER_BUNDLE)} };
`;

const APP = `import { Hono } from 'hono';
import { HttpError, httpErrors } from '@plumbline/errors';
import { getRequestId, methodNotAllowed, problemDetails } from '@plumbline/errors/hono';
import { applyToArray, buildPage, defineCollection } from '@plumbline/query-parser';
import { collectionQuery, getCollectionQuery, sendPage } from '@plumbline/query-parser/hono';
import { createNegotiator } from '@plumbline/negotiation';
import { getNegotiation, negotiate, represent, requireContentType } from '@plumbline/negotiation/hono';
import { createVersionPolicy } from '@plumbline/versioning';
import { getApiVersion, versioning } from '@plumbline/versioning/hono';
import { createJwtVerifier, MemoryApiKeyStore } from '@plumbline/auth';
import { authenticate, getPrincipal, requireScopes } from '@plumbline/auth/hono';
import { createMemoryStore } from '@plumbline/idempotency';
import { idempotency } from '@plumbline/idempotency/hono';

// Module scope, where a Worker defines such things: no cursorSecret, so the key is drawn on first use.
const notes = defineCollection({
  fields: { id: { type: 'int', sort: true }, text: { type: 'string', sort: true, search: true } },
  defaultSort: 'id',
  pagination: ['cursor'],
});
const NOTES = Array.from({ length: 5 }, (_, i) => ({ id: i + 1, text: 'note ' + (i + 1) }));
const TASKS = [
  { id: 1, title: 'Write the report', status: 'open', priority: 2 },
  { id: 2, title: 'Review the report', status: 'done', priority: 1 },
  { id: 3, title: 'Send the invoice', status: 'open', priority: 3 },
  { id: 4, title: 'Größe prüfen', status: 'blocked', priority: 2 },
  { id: 5, title: 'Plan the sprint', status: 'open', priority: 1 },
  { id: 6, title: 'Fix <the> "bug" & ship', status: 'done', priority: 3 },
  { id: 7, title: 'Call the customer', status: 'open', priority: 2 },
];
const PROJECTS = { 7: { id: 7, name: 'Bridge', tags: ['steel', 'river'] }, 8: { id: 8, name: 'Tunnel & Co', tags: [] } };

const policy = createVersionPolicy({
  strategy: 'path',
  versions: [
    { version: '1', deprecatedAt: '2023-01-01T00:00:00Z', sunsetAt: '2024-06-30T00:00:00Z', successor: '3' },
    {
      version: '2',
      deprecatedAt: '2025-01-01T00:00:00Z',
      sunsetAt: '2099-12-31T23:59:59Z',
      successor: '3',
      links: { deprecation: 'https://docs.example.test/deprecations/v2' },
    },
    '3',
  ],
});
const problems = problemDetails({ onError: () => {}, docsBaseUrl: 'https://docs.example.test/errors' });
const languages = createNegotiator({ languages: ['en', 'de', 'fr'] });
const orders = createMemoryStore();

/** The app, from what a runtime passes in (an environment variable, or a Worker binding). */
export function createApp(config) {
  const tasks = defineCollection({
    fields: {
      id: { type: 'int', sort: true },
      title: { type: 'string', sort: true, search: true },
      status: { type: 'enum', values: ['open', 'blocked', 'done'], filter: ['eq', 'ne', 'in'] },
      priority: { type: 'int', sort: true, filter: ['eq', 'gte', 'lte'] },
    },
    defaultSort: 'id',
    maxLimit: 5,
    cursorSecret: config.cursorSecret,
  });
  const apiKeys = new MemoryApiKeyStore();
  apiKeys.add(config.apiKeyRead, { clientId: 'reader', access: 'read' });
  apiKeys.add(config.apiKeyWrite, { clientId: 'writer', access: 'read-write' });
  apiKeys.add(config.apiKeyRevoked, { clientId: 'gone', access: 'read', revoked: true });
  const jwt = createJwtVerifier({
    issuers: [{ issuer: config.issuer, audience: config.audience, jwks: config.jwks, algorithms: ['ES256'] }],
  });

  // A request held inside its handler until another one opens the gate: the idempotency 409 needs a
  // request in flight, and a gate makes that deterministic where a timed handler would not. Waits poll
  // a flag on a timer: workerd cancels, as hung, a request that awaits only what another request does.
  const flags = new Set();
  const fire = (name) => flags.add(name);
  const wait = async (name) => {
    for (let i = 0; i < 2000 && !flags.has(name); i++) await new Promise((resolve) => setTimeout(resolve, 5));
    if (!flags.delete(name)) throw new Error('gate ' + name + ' was never opened');
  };
  let nextOrder = 1;

  const list = (collection, rows) => (c) => {
    const query = getCollectionQuery(c, collection);
    return sendPage(c, buildPage(query, applyToArray(query, rows), { baseUrl: c.req.path }));
  };
  const json = async (c) => {
    try {
      return await c.req.json();
    } catch {
      throw httpErrors.malformedJson();
    }
  };
  const caller = (c) => getPrincipal(c)?.clientId;

  const api = new Hono();
  api.get('/whoami', (c) => c.json({ version: getApiVersion(c), requestId: getRequestId(c) }));
  api.use('*', authenticate({ apiKeys: { store: apiKeys }, jwt }));
  api.get('/tasks', requireScopes('read:tasks'), collectionQuery(tasks), list(tasks, TASKS));
  api.post('/tasks/search', requireScopes('read:tasks'), collectionQuery(tasks), list(tasks, TASKS));
  api.get('/notes', requireScopes('read:tasks'), collectionQuery(notes), list(notes, NOTES));

  api.use('/projects', negotiate({ languages: ['en', 'de'] }));
  api.use('/projects/*', negotiate({ languages: ['en', 'de'] }));
  api.get('/projects/:id', requireScopes('read:projects'), (c) => {
    const project = PROJECTS[c.req.param('id')];
    if (!project) throw httpErrors.notFound();
    return represent(c, { ...project, version: getApiVersion(c), language: getNegotiation(c).language });
  });
  api.all('/projects/:id', methodNotAllowed(['GET', 'HEAD']));
  api.post('/projects', requireScopes('write:projects'), requireContentType('application/json'), async (c) => {
    const body = await json(c);
    if (typeof body.name !== 'string') throw new HttpError('validation_failed', { detail: 'name is required' });
    c.header('Location', '/v3/projects/9');
    return represent(c, { id: 9, name: body.name, caller: caller(c) }, 201);
  });

  const idem = idempotency({ store: orders, required: true, principal: caller });
  api.post('/orders', requireScopes('write:orders'), idem, async (c) => {
    const body = await json(c);
    const id = nextOrder++;
    return c.json({ id, ...body, caller: caller(c) }, 201, { Location: '/v3/orders/' + id });
  });
  api.post('/slow-orders', requireScopes('write:orders'), idem, async (c) => {
    fire('entered');
    await wait('open');
    return c.json({ id: nextOrder++, slow: true }, 201);
  });
  api.get('/gate/entered', async (c) => {
    await wait('entered');
    return c.json({ entered: true });
  });
  api.post('/gate/open', (c) => {
    fire('open');
    return c.json({ open: true });
  });
  api.get('/languages', (c) => {
    const result = languages.negotiate({
      accept: c.req.header('accept'),
      acceptLanguage: c.req.header('accept-language'),
    });
    if (!result.ok) throw result.error;
    return c.json({ mediaType: result.mediaType, language: result.language });
  });
  api.get('/boom', () => {
    throw new Error('internal detail that must not leak');
  });
  api.get('/throw-string', () => {
    throw 'not an Error';
  });

  const app = new Hono();
  app.use(problems.middleware);
  app.onError(problems.onError);
  app.notFound(problems.notFound);
  app.get('/health', (c) => c.json({ ok: true }));
  app.use(versioning(policy, { neutralPaths: ['/health'] }));
  for (const version of ['/v1', '/v2', '/v3']) app.route(version, api);
  return app;
}
`;

// Each entry prints `listening <port>` once its server accepts connections.
const NODE_ENTRY = `import { serve } from '@hono/node-server';
import { createApp } from './app.mjs';

const app = createApp(JSON.parse(process.env.APP_CONFIG));
serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
  process.stdout.write('listening ' + info.port + '\\n');
});
`;

const BUN_ENTRY = `import { createApp } from './app.mjs';

const app = createApp(JSON.parse(Bun.env.APP_CONFIG));
const server = Bun.serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
process.stdout.write('listening ' + server.port + '\\n');
`;

const DENO_ENTRY = `import { createApp } from './app.mjs';

const app = createApp(JSON.parse(Deno.env.get('APP_CONFIG')));
Deno.serve(
  {
    port: 0,
    hostname: '127.0.0.1',
    onListen: ({ port }) => Deno.stdout.writeSync(new TextEncoder().encode('listening ' + port + '\\n')),
  },
  app.fetch,
);
`;

// The app is built on the first request: bindings exist only then.
const WORKER_ENTRY = `import { createApp } from './app.mjs';

let app;
export default {
  fetch(request, env, ctx) {
    app ??= createApp(JSON.parse(env.APP_CONFIG));
    return app.fetch(request, env, ctx);
  },
};
`;

const COMPAT = `const compatibilityDate = ${JSON.stringify(WORKERD_COMPAT.date)};
const compatibilityFlags = ${JSON.stringify(WORKERD_COMPAT.flags)};
`;

// Bundles the Worker with esbuild, then serves it with Miniflare: workerd's own HTTP server on loopback.
const MINIFLARE_ENTRY = `import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
${COMPAT}${BUILTINS}
await build({ entryPoints: ['src/worker.mjs'], outfile: 'dist/worker.mjs', ...bundle });
const mf = new Miniflare({
  modules: true,
  scriptPath: 'dist/worker.mjs',
  compatibilityDate,
  compatibilityFlags,
  bindings: { APP_CONFIG: process.env.APP_CONFIG },
  host: '127.0.0.1',
  port: 0,
});
const url = await mf.ready;
process.stdout.write('listening ' + url.port + '\\n');
const stop = () => mf.dispose().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
`;

/**
 * For each specifier (argv[2], JSON): a Worker whose module imports it at top level and answers its
 * export names, bundled and started in workerd (one Miniflare, its options replaced per entry), and
 * the names Node's import() sees. Prints { [specifier]: { node, workerd } | { node, stage, error } }.
 */
const ENTRIES_SCRIPT = `import { mkdirSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
${COMPAT}${BUILTINS}
const first = (error, stderr) =>
  [String((error && error.message) || error), stderr.trim()].filter(Boolean).join(' | ').split('\\n').slice(0, 6).join(' ');
mkdirSync('entries/dist', { recursive: true });
const results = {};
let mf;
let stderr = '';
for (const spec of JSON.parse(process.argv[2])) {
  const id = spec.replace(/[^a-z0-9]+/gi, '_');
  let node;
  try {
    node = Object.keys(await import(spec)).sort();
  } catch (error) {
    node = 'import failed: ' + first(error, '');
  }
  writeFileSync('entries/' + id + '.mjs', 'import * as entry from ' + JSON.stringify(spec) + ';\\n' +
    'const names = Object.keys(entry).sort();\\nexport default { fetch: () => Response.json(names) };\\n');
  try {
    await build({ entryPoints: ['entries/' + id + '.mjs'], outfile: 'entries/dist/' + id + '.mjs', ...bundle });
  } catch (error) {
    results[spec] = { node, stage: 'bundle', error: first(error, '') };
    continue;
  }
  const options = { modules: true, scriptPath: 'entries/dist/' + id + '.mjs', compatibilityDate, compatibilityFlags,
    handleRuntimeStdio: (out, err) => { out.resume(); err.on('data', (chunk) => { stderr += chunk; }); } };
  stderr = '';
  try {
    if (mf === undefined) {
      mf = new Miniflare(options);
      await mf.ready;
    } else {
      await mf.setOptions(options);
    }
    const res = await mf.dispatchFetch('http://entry.test/');
    const text = await res.text();
    results[spec] = res.status === 200 ? { node, workerd: JSON.parse(text) } : { node, stage: 'fetch', error: res.status + ' ' + first(text, stderr) };
  } catch (error) {
    results[spec] = { node, stage: 'workerd', error: first(error, stderr) };
    await mf?.dispose().catch(() => {});
    mf = undefined;
  }
}
await mf?.dispose();
process.stdout.write(JSON.stringify(results));
`;

/** The generated project's source files (beside its package.json). */
export const APP_FILES: Readonly<Record<string, string>> = {
  'src/app.mjs': APP,
  'src/node.mjs': NODE_ENTRY,
  'src/bun.mjs': BUN_ENTRY,
  'src/deno.mjs': DENO_ENTRY,
  'src/worker.mjs': WORKER_ENTRY,
  'src/miniflare.mjs': MINIFLARE_ENTRY,
  'entries.mjs': ENTRIES_SCRIPT,
};

/** Names the app's JWT verifier trusts. */
const ISSUER = 'https://issuer.test';
const AUDIENCE = 'https://api.test';

export interface Credentials {
  /** What every runtime gets as APP_CONFIG (apiKey* filled in from the package's own generateApiKey). */
  readonly config: Record<string, unknown>;
  /** Bearer tokens, signed once here, sent unchanged to every runtime. */
  readonly tokens: { readonly all: string; readonly readOnly: string; readonly expired: string };
}

/**
 * A P-256 key pair made here (its public JWK is what the app's local JWKS holds: no network), ES256
 * tokens signed with node:crypto, independently of the package that verifies them, and one cursor
 * secret, so the signed collection's cursors are the same bytes on every runtime.
 */
export function makeCredentials(apiKeys: { read: string; write: string; revoked: string }): Credentials {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'ES256', use: 'sig' };
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const token = (claims: Record<string, unknown>) => {
    const input = `${b64({ alg: 'ES256', kid: 'k1', typ: 'JWT' })}.${b64(claims)}`;
    const signature = sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' });
    return `${input}.${signature.toString('base64url')}`;
  };
  const now = Math.floor(Date.now() / 1000);
  const base = { iss: ISSUER, aud: AUDIENCE, iat: now, exp: now + 3600, sub: 'service' };
  return {
    config: {
      issuer: ISSUER,
      audience: AUDIENCE,
      jwks: { keys: [jwk] },
      cursorSecret: randomBytes(32).toString('base64url'),
      apiKeyRead: apiKeys.read,
      apiKeyWrite: apiKeys.write,
      apiKeyRevoked: apiKeys.revoked,
    },
    tokens: {
      all: token({
        ...base,
        client_id: 'reporting',
        scope: 'read:tasks read:projects write:projects write:orders',
      }),
      readOnly: token({ ...base, client_id: 'viewer', scope: 'read:tasks' }),
      expired: token({ ...base, client_id: 'late', scope: 'read:tasks', iat: now - 7200, exp: now - 3600 }),
    },
  };
}
