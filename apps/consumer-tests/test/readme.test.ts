/**
 * Part 3: every fenced code block of every README runs, against the packages as the registry serves
 * them. TypeScript and JavaScript blocks are compiled (TypeScript, strict) in a project outside the
 * workspace and executed with Node (Redis and PostgreSQL from REDIS_URL / DATABASE_URL); a comment
 * that shows a statement's output is compared with what the statement produced. Shown terminal output
 * is compared with the real command. A block that is not run is listed in NOT_RUN with the reason:
 * a block with no plan, or an entry that matches no block, fails the test.
 */
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Block, extractBlocks, readmeFiles, type Shown, shownOutputs } from './readme-blocks.js';
import {
  npmProject,
  publicPackages,
  type ReferenceService,
  run,
  startReferenceService,
  userEnv,
  writeFiles,
} from './support.js';

const registry = inject('registry');
const published = inject('published');

// ---------------------------------------------------------------------------------------------
// The plan of every block that is not simply "compile and run as it stands"

interface RunPlan {
  readonly kind: 'run';
  /** Declarations the snippet takes from the surrounding app (its free names), placed before it. */
  readonly prelude?: string;
  /** Clean-up after the snippet (a schema it created). */
  readonly epilogue?: string;
  /** The snippet ends by throwing on purpose; the thrown value must satisfy this. */
  readonly throws?: string;
}
type Plan =
  | RunPlan
  | { readonly kind: 'spectral-ruleset' }
  | { readonly kind: 'cli-output'; readonly command: string }
  | { readonly kind: 'banner' }
  | { readonly kind: 'curl-transcript' }
  | { readonly kind: 'not-run'; readonly reason: string };

interface Entry {
  readonly file: string;
  /** Text the block contains (or, for section rules, the section and block languages). */
  readonly contains?: string;
  readonly section?: string;
  readonly langs?: readonly string[];
  readonly plan: Plan;
}

/** An Express app and an in-memory token issuer: the prelude of the auth README's endpoint examples. */
const EXPRESS_APP_AND_ISSUER = `import express from 'express';
import { createJwtVerifier } from '@plumbline/auth';
import { createIssuer } from '@plumbline/auth/issuer';
const app = express();
const issuer = await createIssuer({ issuer: 'https://api.example.com', audience: 'https://api.example.com' });
const ownTokens = { issuer: issuer.issuer, audience: 'https://api.example.com', jwks: issuer.jwks() };`;

const PLANS: readonly Entry[] = [
  {
    file: 'packages/errors/README.md',
    contains: 'const server = createServer(app); // not app.listen()',
    plan: {
      kind: 'run',
      prelude: "import express from 'express';\nconst app = express();",
      epilogue: 'server.close();',
    },
  },
  {
    file: 'packages/errors/README.md',
    contains: "const server = serve({ fetch: app.fetch, port: 3000 });\nserver.on('clientError'",
    plan: {
      kind: 'run',
      prelude: "import { Hono } from 'hono';\nconst app = new Hono();",
      epilogue: 'server.close();',
    },
  },
  { file: 'README.md', contains: '$ curl -i http://127.0.0.1:3000/nope', plan: { kind: 'curl-transcript' } },
  ...(['fastify', 'hono'] as const).map(
    (framework): Entry => ({
      file: 'packages/idempotency/README.md',
      contains: `from '@plumbline/idempotency/${framework}';\n\nconst pool = new pg.Pool`,
      plan: {
        kind: 'run',
        // The example's pool reads DATABASE_URL: point it at a schema of its own on the shared database.
        prelude: `import pgAdmin from 'pg';
const schema = 'consumer_readme_tx_${framework}_' + process.pid;
const admin = new pgAdmin.Client({ connectionString: process.env['DATABASE_URL'] });
await admin.connect();
await admin.query('CREATE SCHEMA ' + schema);
process.env['DATABASE_URL'] = process.env['DATABASE_URL'] + '?options=-c%20search_path%3D' + schema;`,
        epilogue: `await admin.query('DROP SCHEMA ' + schema + ' CASCADE');
await admin.end();`,
      },
    }),
  ),
  {
    file: 'packages/contract/README.md',
    contains: "idempotent: { required: true }, // in the mount's idempotencyTransaction",
    plan: {
      kind: 'run',
      // The example's pool reads DATABASE_URL: point it at a schema of its own on the shared database,
      // and close the pool it exports so the process ends.
      prelude: `import pgAdmin from 'pg';
const schema = 'consumer_readme_contract_' + process.pid;
const admin = new pgAdmin.Client({ connectionString: process.env['DATABASE_URL'] });
await admin.connect();
await admin.query('CREATE SCHEMA ' + schema);
process.env['DATABASE_URL'] = process.env['DATABASE_URL'] + '?options=-c%20search_path%3D' + schema;`,
      epilogue: `await pool.end();
await admin.query('DROP SCHEMA ' + schema + ' CASCADE');
await admin.end();`,
    },
  },
  {
    file: 'packages/idempotency/README.md',
    contains: "import { getTransaction, idempotencyTransaction } from '@plumbline/idempotency/express';",
    plan: {
      kind: 'run',
      // The app's Express app and PostgreSQL pool, in a schema of its own on the shared database.
      prelude: `import express from 'express';
import pg from 'pg';
const app = express();
const schema = 'consumer_readme_' + process.pid;
const admin = new pg.Client({ connectionString: process.env['DATABASE_URL'] });
await admin.connect();
await admin.query('CREATE SCHEMA ' + schema);
const pool = new pg.Pool({ connectionString: process.env['DATABASE_URL'], options: '-c search_path=' + schema });`,
      epilogue: `await pool.end();
await admin.query('DROP SCHEMA ' + schema + ' CASCADE');
await admin.end();`,
    },
  },
  // --- examples that need names from the app around them
  {
    file: 'packages/errors/README.md',
    contains: 'await findProject(req.params.id)',
    plan: {
      kind: 'run',
      prelude: `const findProject = async (id: string) => (id === '1' ? { id, name: 'Bridge' } : undefined);
const logger = { error: (entry: unknown) => void entry };`,
    },
  },
  {
    file: 'packages/errors/README.md',
    contains: 'createMessageCatalogue({',
    plan: { kind: 'run', throws: "(e) => e.status === 429 && e.code === 'quota_exceeded'" },
  },
  {
    file: 'packages/auth/README.md',
    contains: 'RedisRefreshTokenStore({ client: redis',
    plan: { kind: 'run', prelude: "process.env['REPORTING_SECRET'] ??= 'reporting-secret';" },
  },
  {
    file: 'packages/auth/README.md',
    contains: 'createAuthenticator({ apiKeys: { store }',
    plan: {
      kind: 'run',
      prelude: `import { createIssuer } from '@plumbline/auth/issuer';
// The app's key store, holding the key the example generates (its hash is what is looked up).
const store = { findByHash: async (hash: string) => ({ hash, clientId: 'reporting', access: 'read' as const }) };
const ownIssuer = await createIssuer({ issuer: 'https://api.example.com', audience: 'https://api.example.com' });
const trusted = { issuer: ownIssuer.issuer, audience: 'https://api.example.com', jwks: ownIssuer.jwks() };`,
    },
  },
  {
    file: 'packages/auth/README.md',
    contains: "import { revocationEndpoint } from '@plumbline/auth/express';\n\napp.post('/oauth/revoke'",
    plan: {
      kind: 'run',
      prelude: `${EXPRESS_APP_AND_ISSUER}
import { MemoryRevocationStore } from '@plumbline/auth';
const revocation = new MemoryRevocationStore();
const verifier = createJwtVerifier({ issuers: [ownTokens], revocation });
const clients = [{ clientId: 'reporting', secret: 's3cret', scopes: ['read:projects'] }];`,
    },
  },
  {
    file: 'packages/auth/README.md',
    contains: 'openSessionEndpoint({ sealer, cookie, revocation })',
    plan: {
      kind: 'run',
      prelude: `${EXPRESS_APP_AND_ISSUER}
const sessionKey = crypto.getRandomValues(new Uint8Array(32));
const verifier = createJwtVerifier({ issuers: [ownTokens] });`,
    },
  },
  {
    file: 'packages/query-parser/README.md',
    contains: 'getCollectionQuery(req, tasks)',
    plan: {
      kind: 'run',
      prelude: `import pg from 'pg';
const pool = new pg.Pool({ connectionString: process.env['DATABASE_URL'] });`,
    },
  },
  {
    file: 'packages/query-parser/README.md',
    contains: 'parseSearchBody(tasks,',
    plan: {
      kind: 'run',
      // The collection of the Express example above, and rows to apply the query to.
      prelude: `import { defineCollection } from '@plumbline/query-parser';
const tasks = defineCollection({
  fields: {
    id: { type: 'uuid', sort: true },
    title: { type: 'string', sort: true, search: true },
    status: { type: 'enum', values: ['open', 'blocked', 'done'], filter: ['eq', 'ne', 'in'] },
    priority: { type: 'int', sort: true, filter: ['eq', 'gte', 'lte'] },
    created_at: { type: 'date-time', sort: true, filter: ['gte', 'lt'] },
    project_id: { type: 'uuid' },
    owner_secret: { type: 'string', select: false },
  },
  defaultSort: '-created_at',
});
const allTasks = [
  { id: '00000000-0000-4000-8000-000000000001', title: 'Quarterly report', status: 'open', priority: 3, created_at: '2026-01-02T00:00:00Z', project_id: '00000000-0000-4000-8000-0000000000aa', owner_secret: 'x' },
  { id: '00000000-0000-4000-8000-000000000002', title: 'Report draft', status: 'done', priority: 1, created_at: '2026-01-01T00:00:00Z', project_id: '00000000-0000-4000-8000-0000000000aa', owner_secret: 'y' },
];`,
    },
  },
  {
    file: 'packages/versioning/README.md',
    contains: 'versionedRouter(policy',
    plan: {
      kind: 'run',
      prelude: `const legacyProjects = () => [{ id: 1, title: 'Bridge' }];
const projects = () => [{ id: 1, name: 'Bridge' }];
const openapi = { openapi: '3.1.0' };`,
    },
  },
  {
    file: 'packages/versioning/README.md',
    contains: "app.use(versioning(policy, { neutralPaths: ['/health', '/.well-known', '/errors'] }));",
    plan: {
      kind: 'run',
      prelude: `import express from 'express';
const app = express();
const legacy = () => [];
const current = () => [];`,
    },
  },
  {
    file: 'packages/versioning/README.md',
    contains: 'resolveVersion(policy, { path, query, headers })',
    plan: {
      kind: 'run',
      prelude: `const path = '/projects';
const query = '';
const headers = { accept: 'application/vnd.plumbline.v2+json' };
const reply = { sent: {} as Record<string, string>, header(name: string, value: string) { this.sent[name] = value; } };`,
    },
  },
  {
    file: 'packages/idempotency/README.md',
    contains: 'await createOrder(req.body)',
    plan: {
      kind: 'run',
      prelude: 'const createOrder = async (body: unknown) => ({ id: 1, ...(body as object) });',
    },
  },
  {
    file: 'packages/idempotency/README.md',
    contains: 'createIdempotency({ store: createMemoryStore() })',
    plan: {
      kind: 'run',
      prelude: `const send = (response: unknown, headers: unknown) => void [response, headers];
const run = async () => ({ status: 201, headers: { 'content-type': 'application/json' }, body: new TextEncoder().encode('{"id":1}') });`,
    },
  },
  {
    file: 'packages/conformance/README.md',
    contains: 'await probe({',
    plan: {
      kind: 'run',
      // A test file's names: the running reference service, its demo key, its document, Vitest's expect.
      prelude: `import { expect } from 'vitest';
const apiKey = process.env['DEMO_API_KEY']!;
const openapiObjectOrText = await (await fetch('http://127.0.0.1:3000/openapi.json')).text();`,
    },
  },
  // --- JavaScript that is a Spectral ruleset file, and shown terminal output
  {
    file: 'packages/conformance/README.md',
    contains: '// .spectral.mjs',
    plan: { kind: 'spectral-ruleset' },
  },
  {
    file: 'packages/conformance/README.md',
    contains: 'Usage:\n  plumbline-conformance lint',
    plan: { kind: 'cli-output', command: 'npx plumbline-conformance --help' },
  },
  {
    file: 'packages/conformance/README.md',
    contains: '$ npx plumbline-conformance lint http://127.0.0.1:3000/openapi.json',
    plan: {
      kind: 'cli-output',
      command: 'npx plumbline-conformance lint http://127.0.0.1:3000/openapi.json',
    },
  },
  {
    file: 'packages/conformance/README.md',
    contains: '$ PLUMBLINE_API_KEY=plk_... npx plumbline-conformance probe',
    plan: {
      kind: 'cli-output',
      command:
        'PLUMBLINE_API_KEY=$DEMO_API_KEY npx plumbline-conformance probe http://127.0.0.1:3000 --allow-writes --rps 50',
    },
  },
  {
    file: 'apps/reference-service/README.md',
    contains: 'Plumbline reference service listening on',
    plan: { kind: 'banner' },
  },
];

/** Blocks that are not run, each with the reason. */
const NOT_RUN: readonly Entry[] = [
  {
    file: 'packages/contract/README.md',
    contains: 'HTTP/1.1 400 Bad Request',
    plan: {
      kind: 'not-run',
      reason:
        'the answer the three framework examples give; packages/contract/src/readme.test.ts sends that request to each and compares',
    },
  },
  {
    file: 'packages/rate-limit/README.md',
    contains: 'RateLimit: "60-in-1min"; r=59; t=60',
    plan: {
      kind: 'not-run',
      reason:
        'the fields the three framework examples send; packages/rate-limit/test/readme.test.ts sends those requests to each and compares',
    },
  },
  {
    file: 'packages/rate-limit/README.md',
    contains: 'HTTP/1.1 429 Too Many Requests',
    plan: {
      kind: 'not-run',
      reason:
        'the 429 the three framework examples send on the 61st request; packages/rate-limit/test/readme.test.ts sends them and compares',
    },
  },
  {
    file: 'packages/cors/README.md',
    contains: 'Access-Control-Request-Headers: content-type,if-match',
    plan: {
      kind: 'not-run',
      reason:
        'the preflight the framework examples are sent; packages/cors/test/readme.test.ts sends it to each',
    },
  },
  {
    file: 'packages/cors/README.md',
    contains: 'HTTP/1.1 204 No Content',
    plan: {
      kind: 'not-run',
      reason:
        'the preflight answer of the three framework examples; packages/cors/test/readme.test.ts sends the preflight to each and compares',
    },
  },
  {
    file: 'packages/cors/README.md',
    contains: 'Access-Control-Expose-Headers: Link, ETag',
    plan: {
      kind: 'not-run',
      reason:
        'the headers the three framework examples send on GET /projects and on a 404; packages/cors/test/readme.test.ts sends those requests to each and compares',
    },
  },
  {
    file: 'packages/telemetry/README.md',
    contains: 'new OTLPTraceExporter()',
    plan: {
      kind: 'not-run',
      reason:
        'SDK registration with the OTLP exporters, which need a collector to send to; packages/telemetry/test/readme.test.ts registers the same SDK pieces with an in-memory exporter and runs the three framework examples under it',
    },
  },
  {
    file: 'packages/telemetry/README.md',
    contains: 'GET /projects/:id  kind=SERVER  status=UNSET',
    plan: {
      kind: 'not-run',
      reason:
        'the span the three framework examples record for GET /projects/42; packages/telemetry/test/readme.test.ts sends that request to each and compares',
    },
  },
  {
    file: 'packages/contract/README.md',
    contains: '"msg":"response does not match the contract"',
    plan: {
      kind: 'not-run',
      reason: 'a log line; its members are asserted by packages/contract/src/run.test.ts',
    },
  },
  {
    file: 'packages/conformance/README.md',
    contains: 'github/codeql-action/upload-sarif',
    plan: {
      kind: 'not-run',
      reason:
        "a GitHub Actions workflow (GitHub's runners); its lint and probe commands run in the CLI output blocks",
    },
  },
  {
    file: 'README.md',
    contains: 'npx -y pnpm@10 install && npx -y pnpm@10 start',
    plan: {
      kind: 'not-run',
      reason:
        'repository quick start (workspace install, a long-running server); CI runs the same install and tests',
    },
  },
  {
    file: 'apps/reference-service/README.md',
    contains: 'npx -y pnpm@10 install && npx -y pnpm@10 start',
    plan: { kind: 'not-run', reason: 'repository quick start (workspace install, a long-running server)' },
  },
  {
    file: 'apps/reference-service/README.md',
    contains: 'OTEL_EXPORTER_OTLP_ENDPOINT=http://otel-collector:4318',
    plan: {
      kind: 'not-run',
      reason:
        'starts the service against a collector host that is not here; apps/system-tests/test/telemetry.test.ts starts it with the same variables against a receiver on loopback',
    },
  },
  {
    file: 'apps/reference-service/README.md',
    contains: 'trace 0af7651916cd43dd8448eb211c80319c',
    plan: {
      kind: 'not-run',
      reason:
        'the span tree of one request, drawn as text; apps/system-tests/test/telemetry.test.ts asserts the spans and attributes it shows',
    },
  },
  {
    file: 'apps/reference-service/README.md',
    contains: 'listener.ts         FRAMEWORK',
    plan: {
      kind: 'not-run',
      reason: 'the file map of src/ (test/layout.test.ts checks the rules it states)',
    },
  },
  {
    file: 'apps/reference-service/README.md',
    contains: 'export API_KEY=plk_...',
    plan: {
      kind: 'not-run',
      reason: 'placeholders to fill from the start banner; readme.test.ts of the service sets them',
    },
  },
  {
    file: 'apps/reference-service/README.md',
    section: 'Tour',
    langs: ['sh'],
    plan: {
      kind: 'not-run',
      reason:
        'Tour command: apps/reference-service/test/readme.test.ts runs it against a fresh service and checks its status',
    },
  },
  {
    file: 'apps/reference-service/README.md',
    section: 'Tour',
    langs: ['http'],
    plan: {
      kind: 'not-run',
      reason:
        'response shown for the Tour command above it (status checked by apps/reference-service/test/readme.test.ts)',
    },
  },
  {
    file: 'packages/auth/README.md',
    contains: 'POST /projects HTTP/1.1',
    plan: {
      kind: 'not-run',
      reason:
        'HTTP exchange of the Express example; the same 403 insufficient_scope is checked by the Express 4/5 apps of the consumer matrix',
    },
  },
  {
    file: 'packages/auth/README.md',
    contains: 'POST /oauth/token HTTP/1.1',
    plan: {
      kind: 'not-run',
      reason: 'HTTP exchange of the token endpoint; asserted by packages/auth/src/issuer.test.ts',
    },
  },
  {
    file: 'packages/errors/README.md',
    contains: 'GET /projects/42 HTTP/1.1',
    plan: {
      kind: 'not-run',
      reason:
        'HTTP exchange of the Express example; the same German 404 problem is checked by the Express 4/5 apps of the consumer matrix',
    },
  },
  {
    file: 'packages/conformance/README.md',
    contains: '# Static: the OpenAPI document (file, YAML or JSON, or URL)',
    plan: {
      kind: 'not-run',
      reason:
        'CLI invocations against a file and a service of the reader; the lint and probe commands are run by the output blocks below',
    },
  },
  {
    file: 'packages/conformance/README.md',
    contains: 'FAIL    error     probe-sort-unknown-400',
    plan: {
      kind: 'not-run',
      reason: 'excerpt of a failing report against a hypothetical non-conforming API',
    },
  },
  {
    file: 'packages/conformance/README.md',
    contains: 'npx spectral lint openapi.json --ruleset node_modules/@plumbline/conformance/dist/ruleset.mjs',
    plan: {
      kind: 'not-run',
      reason: 'run exactly as written by the Spectral column of the consumer matrix (matrix.test.ts)',
    },
  },
];

/**
 * Shown outputs that are not literal values: the check of what the comment claims, as JavaScript
 * source, or why the statement is never reached when the example runs.
 */
const SHOWN_CHECKS: Readonly<Record<string, string | { readonly notReached: string }>> = {
  '{ ok: true, mediaType, contentType, language, vendor? }': {
    notReached: 'inside a route handler of the example app, which serves no request here',
  },
  "'plk_' + 32 base62 + 6 base62 CRC32; show once, store hashApiKey(key)":
    '(v) => /^plk_[0-9A-Za-z]{38}$/.test(v)',
  '{ status, headers, body: Uint8Array }':
    "(v) => typeof v.status === 'number' && typeof v.headers === 'object' && v.body instanceof Uint8Array",
  'body: { data: [...], page: { limit, offset, has_more, next_cursor?, total? }, links: { self, first, prev?, next?, last? } }': `(v) => {
    const only = (o, allowed, required) => Object.keys(o).every((k) => allowed.includes(k)) && required.every((k) => k in o);
    return only(v, ['data', 'page', 'links'], ['data', 'page', 'links']) && Array.isArray(v.data)
      && only(v.page, ['limit', 'offset', 'has_more', 'next_cursor', 'total'], ['limit', 'offset', 'has_more'])
      && only(v.links, ['self', 'first', 'prev', 'next', 'last'], ['self', 'first']);
  }`,
  "{ ok: false, error: HttpError } (no other members); refused.error.status === 415, refused.error.code === 'unsupported_media_type', refused.error.headers: { 'Accept-Post': 'application/json, application/merge-patch+json' }": `(v) =>
    Object.keys(v).sort().join() === 'error,ok' && v.ok === false && v.error.name === 'HttpError'
    && v.error.status === 415 && v.error.code === 'unsupported_media_type'
    && Object.keys(v.error.headers).join() === 'Accept-Post'
    && v.error.headers['Accept-Post'] === 'application/json, application/merge-patch+json'`,
};

const INSTALL_LINE = /^(npm (install|i|add)|pnpm add|yarn add)\b[^;&|]*$/;

function isInstallBlock(block: Block): boolean {
  const lines = block.code
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  return (
    block.lang === 'sh' && lines.length > 0 && lines.every((l) => INSTALL_LINE.test(l.replace(/\s+#.*$/, '')))
  );
}

const isCode = (block: Block) => ['ts', 'typescript', 'js', 'javascript', 'mjs'].includes(block.lang);

function matches(entry: Entry, block: Block): boolean {
  if (entry.file !== block.file) return false;
  if (entry.contains !== undefined && !block.code.includes(entry.contains)) return false;
  if (entry.section !== undefined && entry.section !== block.section) return false;
  if (entry.langs !== undefined && !entry.langs.includes(block.lang)) return false;
  return true;
}

interface Planned {
  readonly block: Block;
  readonly id: string;
  readonly plan: Plan | { kind: 'unplanned'; reason: string };
}

const blocks = readmeFiles().flatMap(extractBlocks);
const used = new Set<Entry>();
const planned: Planned[] = blocks.map((block) => {
  const id = `${block.file}:${block.line}`;
  const found = [...PLANS, ...NOT_RUN].filter((entry) => matches(entry, block));
  for (const entry of found) used.add(entry);
  if (found.length > 1)
    return { block, id, plan: { kind: 'unplanned', reason: `${found.length} entries match this block` } };
  if (found[0]) return { block, id, plan: found[0].plan };
  if (isCode(block)) return { block, id, plan: { kind: 'run' } };
  if (isInstallBlock(block)) {
    return {
      block,
      id,
      plan: {
        kind: 'not-run',
        reason: 'install command; release.test.ts installs every package alone from the registry',
      },
    };
  }
  return {
    block,
    id,
    plan: {
      kind: 'unplanned',
      reason: `a \`${block.lang || 'plain'}\` block: give it a plan or a NOT_RUN reason`,
    },
  };
});

// ---------------------------------------------------------------------------------------------
// The project the examples run in, and the reference service some of them talk to

let dir: string;
let service: ReferenceService;

beforeAll(async () => {
  const all = Object.fromEntries(publicPackages().map((p) => [p.name, published[p.name]!]));
  [dir, service] = await Promise.all([
    npmProject(
      registry,
      'readme',
      {
        ...all,
        express: '^5.1.0',
        '@types/express': '^5.0.0',
        ioredis: '^5.8.0',
        pg: '^8.16.0',
        '@types/pg': '^8.15.0',
        '@types/node': '^20.19.0',
        vitest: '~4.1.0',
        '@stoplight/spectral-cli': '^6.15.0',
        fastify: '^5.0.0',
        hono: '^4.0.0',
        '@hono/node-server': '^1.0.0',
        zod: '^4.2.0',
        // The versioning README's round-trip property runs with fast-check.
        'fast-check': '^4.10.2',
      },
      { type: 'module' },
    ),
    startReferenceService(userEnv(registry)),
  ]);
});

afterAll(async () => {
  await service?.stop();
});

const env = () =>
  userEnv(registry, {
    REDIS_URL: process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379',
    DATABASE_URL: process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test',
    DEMO_API_KEY: service.apiKey,
  });
// The README's service address is the running reference service; servers an example starts itself
// listen on a free port instead of 3000.
const local = (text: string) =>
  text.replaceAll('http://127.0.0.1:3000', service.base).replaceAll('port: 3000', 'port: 0');

// ---------------------------------------------------------------------------------------------
// TypeScript: all runnable blocks in one program (strict, nodenext), then each one executed

const fileName = (p: Planned) => `readme/${p.id.replace(/[/:.]/g, '_')}.mts`;

/** The block with its prelude, every shown output turned into a recorded comparison. */
function instrument(p: Planned, plan: RunPlan): { source: string; shown: Shown[]; bodyStart: number } {
  const shown = shownOutputs(p.block.code);
  const lines = p.block.code.split('\n');
  shown.forEach((s, index) => {
    const i = s.line - 1;
    const record = s.variable
      ? lines[i]!.replace(s.statement.trim(), `${s.statement.trim()} __shown(${index}, ${s.variable});`)
      : lines[i]!.replace(
          s.statement.trim(),
          `__shown(${index}, (${s.statement.trim().replace(/;$/, '')}));`,
        );
    lines[i] = record;
  });
  // ES module imports are hoisted: the prelude's and the block's may stand anywhere at the top level.
  const prelude = plan.prelude ? plan.prelude.split('\n') : [];
  const header = 'declare function __shown(index: number, value: unknown): void;';
  const source = [header, ...prelude, ...lines, ...(plan.epilogue ? plan.epilogue.split('\n') : [])].join(
    '\n',
  );
  return { source: local(source), shown, bodyStart: 1 + prelude.length };
}

function compileAll(runnable: readonly Planned[]): Map<string, string[]> {
  const files = new Map<string, string>();
  const offsets = new Map<string, number>();
  for (const p of runnable) {
    const { source, bodyStart } = instrument(p, p.plan as RunPlan);
    files.set(join(dir, fileName(p)), source);
    offsets.set(join(dir, fileName(p)), bodyStart);
  }
  writeFiles(dir, Object.fromEntries([...files].map(([f, text]) => [f.slice(dir.length + 1), text])));
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    esModuleInterop: true,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    types: ['node'],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
  };
  const program = ts.createProgram([...files.keys()], options);
  const byFile = new Map<string, string[]>();
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const name = d.file?.fileName ?? '';
    // Lines of the README block (the prelude's lines are before line 1).
    const at =
      d.file && d.start !== undefined
        ? `block line ${d.file.getLineAndCharacterOfPosition(d.start).line + 1 - (offsets.get(name) ?? 0)}: `
        : '';
    byFile.set(name, [
      ...(byFile.get(name) ?? []),
      `${at}TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`,
    ]);
  }
  return byFile;
}

/** Runs one instrumented block; returns its failures (throw, shown outputs that differ). */
async function execute(p: Planned, plan: RunPlan): Promise<string[]> {
  const { source, shown } = instrument(p, plan);
  const js = ts.transpileModule(source, {
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: false,
    },
  }).outputText;
  const expectations = shown.map((s) => {
    if (s.literal) return `(v) => __same(v, (${s.literal}))`;
    if (s.oneOf) return `(v) => [${s.oneOf.join(', ')}].some((x) => __same(v, x))`;
    const check = SHOWN_CHECKS[s.text];
    return typeof check === 'string' ? check : 'undefined';
  });
  const base = fileName(p).replace(/\.mts$/, '');
  writeFiles(dir, {
    [`${base}.mjs`]: `import { isDeepStrictEqual } from 'node:util';
const __checks = [${expectations.join(',\n')}];
const __texts = ${JSON.stringify(shown.map((s) => `line ${s.line}: ${s.text}`))};
const __plain = (v) => (v instanceof Error ? Object.fromEntries(Object.entries(v)) : Array.isArray(v) ? v.map(__plain)
  : v && typeof v === 'object' && !(v instanceof Uint8Array) ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, __plain(x)])) : v);
const __same = (a, b) => isDeepStrictEqual(__plain(a), b);
globalThis.__shownFailures = [];
globalThis.__shownSeen = new Set();
globalThis.__shown = (i, v) => {
  __shownSeen.add(i);
  let ok = false;
  try { ok = __checks[i] ? Boolean(__checks[i](v)) : false; } catch (e) { ok = false; }
  if (!ok) __shownFailures.push(__texts[i] + ' — got ' + (() => { try { return JSON.stringify(__plain(v)); } catch { return String(v); } })());
};
`,
    [`${base}.run.mjs`]: `await import('./${base.split('/').pop()}.mjs');
const failures = [];
process.on('unhandledRejection', (e) => { failures.push('unhandled rejection: ' + String((e && e.stack) || e).split('\\n').slice(0, 3).join(' | ')); });
try {
  await import('./${base.split('/').pop()}.body.mjs');
  ${plan.throws ? "failures.push('expected the example to throw, it did not');" : ''}
} catch (e) {
  ${plan.throws ? `if (!(${plan.throws})(e)) failures.push('threw something else: ' + String((e && e.stack) || e));` : "failures.push('threw: ' + String((e && e.stack) || e).split('\\n').slice(0, 4).join(' | '));"}
}
// Let work the example started settle (handlers, connection errors), then report and leave.
await new Promise((resolve) => setTimeout(resolve, 500));
const checks = ${shown.length};
const notReached = ${JSON.stringify(shown.map((s) => typeof SHOWN_CHECKS[s.text] === 'object'))};
for (let i = 0; i < checks; i++) if (!globalThis.__shownSeen.has(i) && !notReached[i]) failures.push('shown output never reached: ' + ${JSON.stringify(shown.map((s) => `line ${s.line}: ${s.text}`))}[i]);
failures.push(...globalThis.__shownFailures);
process.stdout.write(JSON.stringify(failures));
process.exit(0);
`,
    [`${base}.body.mjs`]: js,
  });
  const unchecked = shown.filter((s) => !s.literal && !s.oneOf && !SHOWN_CHECKS[s.text]);
  const result = await run(process.execPath, [join(dir, `${base}.run.mjs`)], {
    cwd: dir,
    env: env(),
    timeoutMs: 120_000,
  });
  const failures = unchecked.map(
    (s) => `line ${s.line}: shown output "${s.text}" is not a literal and has no entry in SHOWN_CHECKS`,
  );
  if (result.code !== 0) return [...failures, result.summary];
  return [...failures, ...(JSON.parse(result.stdout) as string[])];
}

// ---------------------------------------------------------------------------------------------
// Other runnable blocks

async function spectralRuleset(p: Planned): Promise<string[]> {
  // The block is the .spectral.mjs of a project that lints the reference service's document.
  const doc = await (await fetch(`${service.base}/openapi.json`)).text();
  writeFiles(dir, { '.spectral.mjs': p.block.code, 'openapi.json': doc });
  const result = await run('npx', ['spectral', 'lint', 'openapi.json'], {
    cwd: dir,
    env: env(),
    timeoutMs: 300_000,
  });
  return result.code === 0 ? [] : [result.summary];
}

async function cliOutput(p: Planned, command: string): Promise<string[]> {
  const result = await run('bash', ['-c', local(command)], { cwd: dir, env: env(), timeoutMs: 300_000 });
  const shown = p.block.code.replace(/^\$ .*\n/, '').trimEnd();
  const actual = result.stdout.replaceAll(service.base, 'http://127.0.0.1:3000').trimEnd();
  return actual === shown
    ? []
    : [
        `\`${command}\` printed (exit ${result.code}):\n${actual}\n${result.stderr}\n--- the README shows:\n${shown}`,
      ];
}

function banner(p: Planned): string[] {
  // Credentials are random per start: the README's placeholders stand for any key and secret.
  const pattern = p.block.code
    .trimEnd()
    .split('\n')
    .map((line) =>
      line
        .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
        .replaceAll('http://127\\.0\\.0\\.1:3000', service.base.replace(/[.]/g, '\\.'))
        .replace(/plk_[A-Za-z0-9]+/g, 'plk_[A-Za-z0-9]{38}')
        .replace(/ \/ \S+$/, ' / \\S+'),
    )
    .join('\n');
  return new RegExp(`^${pattern}`).test(service.banner)
    ? []
    : [`the start banner was:\n${service.banner}\n--- the README shows:\n${p.block.code}`];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * `$ curl -i ...` then the response the README shows: the status line and every shown header must be
 * what the service answers (a request id matches any UUID), and the JSON body must be equal (its
 * request_id the one of the X-Request-Id header).
 */
async function curlTranscript(p: Planned): Promise<string[]> {
  const [first, ...rest] = p.block.code.trimEnd().split('\n');
  const command = first!.replace(/^\$ /, '');
  const result = await run('bash', ['-c', local(command)], { cwd: dir, env: env(), timeoutMs: 60_000 });
  const split = (text: string) => {
    const lines = text.replace(/\r/g, '').split('\n');
    const blank = lines.indexOf('');
    const head = blank === -1 ? lines : lines.slice(0, blank);
    const headers = new Map(
      head
        .slice(1)
        .map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()] as const),
    );
    return {
      status: head[0] ?? '',
      headers,
      body:
        blank === -1
          ? ''
          : lines
              .slice(blank + 1)
              .join('\n')
              .trim(),
    };
  };
  const shown = split(rest.join('\n'));
  const actual = split(result.stdout);
  const failures: string[] = [];
  if (actual.status !== shown.status) failures.push(`status line: ${actual.status}, README: ${shown.status}`);
  for (const [name, value] of shown.headers) {
    const got = actual.headers.get(name);
    const same = got === value || (UUID.test(value) && got !== undefined && UUID.test(got));
    if (!same) failures.push(`${name}: ${got}, README: ${value}`);
  }
  try {
    const id = actual.headers.get('x-request-id');
    const normalize = (body: string, requestId: string | undefined) => {
      const json = JSON.parse(body) as Record<string, unknown>;
      if (json['request_id'] === requestId) json['request_id'] = '<x-request-id>';
      return json;
    };
    expect(normalize(actual.body, id)).toEqual(normalize(shown.body, shown.headers.get('x-request-id')));
  } catch (error) {
    failures.push(`body: ${actual.body}\nREADME: ${shown.body}\n${String(error).split('\n')[0]}`);
  }
  return failures;
}

// ---------------------------------------------------------------------------------------------

describe('README code blocks', () => {
  it('every plan, NOT_RUN and SHOWN_CHECKS entry matches a block', () => {
    const stale = [...PLANS, ...NOT_RUN]
      .filter((entry) => !used.has(entry))
      .map((e) => `${e.file}: ${e.contains ?? e.section}`);
    const texts = new Set(
      planned.filter((p) => isCode(p.block)).flatMap((p) => shownOutputs(p.block.code).map((s) => s.text)),
    );
    const staleChecks = Object.keys(SHOWN_CHECKS).filter((text) => !texts.has(text));
    expect([...stale, ...staleChecks]).toEqual([]);
  });

  let compiled: Map<string, string[]> | undefined;
  const runnable = planned.filter((p) => p.plan.kind === 'run');

  it.each(planned.map((p) => [`${p.id} (${p.block.lang || 'plain'}, ${p.plan.kind})`, p] as const))(
    '%s',
    async (_name, p) => {
      let failures: string[] = [];
      switch (p.plan.kind) {
        case 'run': {
          compiled ??= compileAll(runnable);
          const diagnostics = compiled.get(join(dir, fileName(p))) ?? [];
          failures = diagnostics.length ? diagnostics.map((d) => `compile: ${d}`) : await execute(p, p.plan);
          break;
        }
        case 'spectral-ruleset':
          failures = await spectralRuleset(p);
          break;
        case 'cli-output':
          failures = await cliOutput(p, p.plan.command);
          break;
        case 'banner':
          failures = banner(p);
          break;
        case 'curl-transcript':
          failures = await curlTranscript(p);
          break;
        case 'not-run':
          // Listed with its reason in NOT_RUN (or an install command); nothing to execute.
          expect(p.plan.reason.length).toBeGreaterThan(10);
          return;
        case 'unplanned':
          failures = [p.plan.reason];
          break;
      }
      expect(failures).toEqual([]);
    },
  );
});
