#!/usr/bin/env node
/**
 * Each Plumbline middleware's own cost per request, in instructions (valgrind callgrind), on Express 5,
 * Fastify 5 and Hono: (route behind that middleware) − (bare route), from real HTTP requests over
 * 127.0.0.1 to the servers of bench/instructions-server.mjs, all in one Node process under callgrind.
 *
 *   pnpm bench:instructions                      measure, print the table, compare with the baseline
 *   pnpm bench:instructions --check              the same, exit 1 on a rise of more than 10 %
 *   pnpm bench:instructions --update-baseline --reason "why the counts moved"
 *   options: --frameworks express,fastify,hono  --only errors,auth (some middleware; the bare routes
 *            they are measured against come along)  --requests 100  --windows 2  --warmup 800  --processes 1
 *            --jobs 2 (processes at once)  --split (default: one process per route)  --gc (default)
 *            --time (also server CPU µs per request, natively: a process per route, cheapest of 3 passes × 3 × 2,000)  --redis (the Express Redis rows)
 *            --routes all (or variant,variant): the #18 pairs as whole routes of bench/server.mjs
 *
 * Method: each route's server runs in its own Node process under `valgrind --tool=callgrind
 * --instr-atstart=no`, so nothing is counted while Node starts or while the route is warmed up
 * (`--warmup` sequential requests, so V8 has optimized the hot paths). One route per process keeps
 * routes from warming each other's code: in one shared process, the routes measured later looked
 * cheaper than the bare route measured first, and middleware rows came out negative. Then,
 * `--windows` times: a forced full collection, a few uncounted requests, `callgrind_control -i on`,
 * `--requests` sequential requests on one keep-alive connection with fixed inputs, `-i off`, a
 * dump. The dump's total over the request count is the window's instructions per request (user
 * space, every thread: handler, framework, Node's HTTP stack, V8's compiler and GC); the cheapest
 * window is the route's figure, because a late optimizing compile only ever adds to a window.
 * The JIT stays on, as deployed (`--jitless` would count the interpreter, a different program);
 * node's --predictable makes V8 compile and collect at points fixed by the work done rather than by
 * the clock, and a 64 MiB young generation keeps scavenges out of the windows (NODE_FLAGS).
 * `--processes 2` or more prints the spread between separate processes.
 *
 * With `--check`, a middleware row over the baseline is counted again (that route and its bare
 * route, each in a fresh process, up to `--recount` times) and each route keeps its cheapest count
 * over all processes before the rise is judged: what makes one process dearer (a late optimizing
 * compile, an old-generation collection inside a window) only ever adds instructions, while a real
 * regression is there in every process. A CI run of unchanged code failed once on a single dear
 * process, and some rows are two-moded: Express's idempotency row counted 414 k, 433 k, then 279 k
 * in three processes of one CI run (2026-11-25), 287 k and 295 k in two local runs. Four recounts
 * make a false failure unlikely (five dear processes in a row); each costs about 40 s, and only
 * when a row looks over.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { startBenchAuth } from './bench-auth.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const BASELINE = join(here, 'instructions-baseline.json');
const TOLERANCE = 0.1;
/**
 * A middleware row is route − bare route, so it carries the noise of both routes. Between two runs
 * of the same code (2026-11-23) most rows moved by under 6 %, but the POST rows by up to 100k
 * (Fastify's idempotency row 356k, then 252k). A rise counts only when it is over 10 % of the row
 * AND over this floor; the baseline holds the higher of two runs. Smaller regressions are below
 * what these counts can tell apart.
 */
const FLOOR = 50_000;
const { values: opts } = parseArgs({
  options: {
    frameworks: { type: 'string', default: 'express,fastify,hono' },
    requests: { type: 'string', default: '100' },
    windows: { type: 'string', default: '2' },
    warmup: { type: 'string', default: '800' },
    processes: { type: 'string', default: '1' },
    jobs: { type: 'string', default: '2' },
    split: { type: 'boolean', default: true },
    time: { type: 'boolean', default: false },
    redis: { type: 'boolean', default: false },
    routes: { type: 'string' },
    gc: { type: 'boolean', default: true },
    only: { type: 'string' },
    recount: { type: 'string', default: '4' },
    check: { type: 'boolean', default: false },
    'update-baseline': { type: 'boolean', default: false },
    reason: { type: 'string' },
  },
});
const REQUESTS = Number(opts.requests);
const WARMUP = Number(opts.warmup);
const WINDOWS = Number(opts.windows);
const SETTLE = 20;
const PROCESSES = Number(opts.processes);
const RUN_ID = `benchinstr_${process.pid}_${randomBytes(3).toString('hex')}`;
const MIDDLEWARE = [
  'errors',
  'negotiation',
  'versioning',
  'version-changes',
  'version-changes-2',
  'query-parser',
  'auth',
  'telemetry',
  'empty',
  'telemetry-sdk',
  'idempotency',
  'contract',
  'contract-validated',
  'contract-post',
];
const POSTS = new Set([
  'bare-post',
  'idempotency',
  'idempotency-redis',
  'redis-floor',
  'contract-post-hand',
  'contract-post',
]);
/**
 * @plumbline/contract's rows are measured against the same route wired by hand with the same
 * packages (the `-hand` routes), not against the bare route: the row is the contract's own cost.
 * The hand routes themselves are anchors (their row is hand route − bare route, not guarded).
 */
const CONTRACT_ANCHOR = {
  contract: 'contract-hand',
  'contract-validated': 'contract-hand',
  'contract-post': 'contract-post-hand',
};
const ONLY = opts.only ? new Set(opts.only.split(',')) : undefined;
for (const name of ONLY ?? []) {
  if (!MIDDLEWARE.includes(name)) {
    console.error(`--only: unknown middleware ${name} (one of ${MIDDLEWARE.join(', ')})`);
    process.exit(2);
  }
}
const wanted = (route) => !ONLY || ONLY.has(route);
/** With --split each route is counted in its own process (more start-ups, but on a busy machine many short processes finish sooner). */
const ROUTES = [
  ...(MIDDLEWARE.slice(0, 8).some(wanted) ? ['bare'] : []),
  ...MIDDLEWARE.slice(0, 8).filter(wanted),
  ...(wanted('idempotency') ? ['bare-post', 'idempotency'] : []),
  ...(opts.redis && wanted('idempotency') ? ['idempotency-redis', 'redis-floor'] : []),
  ...(wanted('contract') || wanted('contract-validated') ? ['bare', 'contract-hand'] : []),
  ...['contract', 'contract-validated'].filter(wanted),
  ...(wanted('contract-post') ? ['bare-post', 'contract-post-hand', 'contract-post'] : []),
].filter((route, i, all) => all.indexOf(route) === i);
const WHOLE_POSTS = new Set(['post-plain', 'post-idempotent', 'post-redis-floor', 'peer-post']);
/** The #18 pairs counted whole (`--routes`): bench/server.mjs variants, one process each. */
const ROUTE_PAIRS = [
  { what: 'Plumbline stack / peer stack, GET', ours: 'stack', theirs: 'peer-get', target: 1.5 },
  {
    what: 'Plumbline / peer stack, idempotent POST (Redis)',
    ours: 'post-idempotent',
    theirs: 'peer-post',
    target: 1.5,
  },
  {
    what: 'Plumbline middleware + hand-written handler / bare Express',
    ours: 'stack-own-handler',
    theirs: 'bare',
    target: 0.85,
  },
  {
    what: 'in-memory collection route / hand-written, same semantics',
    ours: 'collection-plumbline',
    theirs: 'collection-hand',
    target: 0.8,
  },
];

if (opts['update-baseline'] && !opts.reason?.trim()) {
  console.error('--update-baseline needs --reason "why the counts changed"');
  process.exit(2);
}

/**
 * Fixed inputs: the same URL and headers on every GET; a POST body and a fresh key of fixed length.
 * `route/<variant>` names a whole route of bench/server.mjs (the load harness's variants).
 */
function requestFor(route, token, n) {
  const headers = {
    accept: 'application/json',
    'accept-language': 'en',
    authorization: `Bearer ${token}`,
  };
  const whole = route.startsWith('route/');
  const post = whole ? WHOLE_POSTS.has(route.slice(6)) : POSTS.has(route);
  if (!post) {
    const path = whole ? '/v2/projects' : '/v2/items';
    return { method: 'GET', path: `${path}?status=active&sort=-priority&limit=20`, headers, expect: 200 };
  }
  const body = '{"sku":"A-1","qty":2}';
  return {
    method: 'POST',
    path: whole ? '/orders' : '/v2/items',
    headers: {
      ...headers,
      'content-type': 'application/json',
      'content-length': String(body.length),
      'idempotency-key': `${RUN_ID}:${String(n).padStart(9, '0')}`,
    },
    body,
    expect: 201,
  };
}

/** Server processes still running, killed if this script is stopped. */
const servers = new Set();
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => {
    for (const child of servers) child.kill('SIGKILL');
    process.exit(130);
  });

const agent = new Agent({ keepAlive: true, maxSockets: 1 });
function send(port, spec, retry = true) {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, method: spec.method, path: spec.path, headers: spec.headers, agent },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          res.statusCode === spec.expect
            ? resolve()
            : reject(new Error(`${spec.method} ${spec.path}: ${res.statusCode} ${Buffer.concat(chunks)}`)),
        );
      },
    );
    // A kept-alive socket the server closed while callgrind was being switched: send again, once.
    req.on('error', (error) =>
      retry && req.reusedSocket && error.code === 'ECONNRESET'
        ? send(port, spec, false).then(resolve, reject)
        : reject(error),
    );
    req.end(spec.body);
  });
}

let sequence = 0;
async function load(port, route, token, count) {
  for (let i = 0; i < count; i++) await send(port, requestFor(route, token, ++sequence));
}

/**
 * Starts the servers (under callgrind unless `native`); resolves with { child, ports }. `unit` is a
 * framework of instructions-server.mjs or `route/<variant>` of server.mjs.
 */
function startServers(env, native, unit) {
  const whole = unit?.startsWith('route/');
  const server = whole ? [join(here, 'server.mjs'), unit.slice(6)] : [join(here, 'instructions-server.mjs')];
  const dir = mkdtempSync(join(tmpdir(), 'plumbline-instr-'));
  // Keep-alive connections outlive the seconds callgrind_control can take on a busy machine.
  env = { ...env, BENCH_KEEPALIVE_MS: '600000', BENCH_REDIS_TIMEOUT_MS: '600000' };
  const [command, args] = native
    ? [process.execPath, [...NODE_FLAGS, ...server]]
    : [
        'valgrind',
        [
          '--tool=callgrind',
          '--instr-atstart=no',
          `--callgrind-out-file=${join(dir, 'cg.out')}`,
          process.execPath,
          ...NODE_FLAGS,
          ...server,
        ],
      ];
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const onData = (chunk) => {
      out += chunk;
      const match = /ready (\{.*\}|\d+)\n/.exec(out);
      if (match) resolve({ child, dir, ports: whole ? { [unit]: Number(match[1]) } : JSON.parse(match[1]) });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk) => {
      out += chunk;
    });
    servers.add(child);
    child.once('exit', (code) => {
      servers.delete(child);
      reject(new Error(`server exited with ${code}:\n${out.slice(-2000)}`));
    });
  });
}

// --predictable: V8 compiles and collects on its main thread at points fixed by the work done, not
// by the clock, so the same requests give the same count; --expose-gc for `--gc` (a collection
// before each window). Both change where work happens, not what a request costs.
// A 64 MiB young generation: with a full collection before each window (`--gc`), no scavenge lands
// inside a window of 100 requests, so a window counts the requests, not where a collection fell.
// Measured on one machine (2026-11-23): the same route in separate processes within 0.3 %.
const NODE_FLAGS = [
  '--predictable',
  '--expose-gc',
  '--min-semi-space-size=64',
  '--max-semi-space-size=64',
  ...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean),
];

const control = (pid, ...args) =>
  execFileSync('callgrind_control', [...args, String(pid)], { stdio: 'pipe' });

/** Instructions per request of every route of one framework, in one process under callgrind. */
async function countFramework(env, token, unit) {
  const [framework, only] = unit.startsWith('route/') ? [unit] : unit.split('/');
  const { child, dir, ports } = await startServers(
    { ...env, BENCH_FRAMEWORKS: framework, BENCH_ROUTE: only ?? '' },
    false,
    unit,
  );
  const perRequest = {};
  /** Instructions of `count` requests: collect garbage, count on, requests, count off, dump. */
  const window = async (name, port, route, count) => {
    // A forced full collection before each window made the later windows dearer, not steadier
    // (bytecode ageing, lazy sweeping): only with --gc. A few requests re-open the connection.
    if (opts.gc && ports._gc) await send(ports._gc, { method: 'GET', path: '/', headers: {}, expect: 200 });
    await load(port, route, token, SETTLE);
    control(child.pid, '-i', 'on');
    await load(port, route, token, count);
    control(child.pid, '-i', 'off');
    control(child.pid, '--dump');
    const dumps = readdirSync(dir).filter((f) => /^cg\.out\.\d+$/.test(f));
    const latest = dumps.sort((a, b) => Number(a.split('.')[2]) - Number(b.split('.')[2])).at(-1);
    const text = readFileSync(join(dir, latest), 'utf8');
    rmSync(join(dir, latest));
    const total = Number(/^totals:\s+(\d+)/m.exec(text)?.[1]);
    if (!Number.isFinite(total) || total === 0) throw new Error(`${name}: no instruction total in the dump`);
    return total;
  };
  try {
    const routes = Object.entries(ports).filter(([name]) => name !== '_gc');
    // The first counting window of a process costs more (callgrind instruments afresh); spend it on
    // a route that is then counted again.
    const first = routes[0][0].startsWith('route/') ? routes[0][0] : routes[0][0].split('/')[1];
    await load(routes[0][1], first, token, WARMUP);
    await window('(first window)', routes[0][1], first, 10);
    for (const [name, port] of routes) {
      const route = name.startsWith('route/') ? name : name.split('/')[1];
      if (name !== routes[0][0]) await load(port, route, token, WARMUP);
      // WINDOWS windows of N requests; the cheapest is the route's steady cost. A window that
      // caught a late optimizing compile or an old-generation collection is dearer, never cheaper.
      const counts = [];
      for (let w = 0; w < WINDOWS; w++) counts.push((await window(name, port, route, REQUESTS)) / REQUESTS);
      perRequest[name] = Math.min(...counts);
      process.stderr.write(
        `  ${name}: ${counts.map((c) => Math.round(c).toLocaleString('en')).join(' / ')} instructions/request\n`,
      );
    }
  } finally {
    // CPU seconds the process used: what the run costs on an idle 2-core machine with --jobs 2.
    const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    process.stderr.write(`  ${unit}: ${(Number(stat[11]) + Number(stat[12])) / 100} CPU s under valgrind\n`);
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
  return perRequest;
}

/** CPU time of every thread of a process so far, in ns (`/proc/<pid>/task/<tid>/schedstat`). */
function cpuNs(pid) {
  let sum = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      sum += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // A thread that ended between the listing and the read.
    }
  }
  return sum;
}

/**
 * `--time`: server CPU µs per request, natively (no valgrind), one process per route like the counts:
 * after twice the warm-up, three rounds of 2,000 sequential requests, each timed by the CPU time of
 * all the server's threads (ns, from /proc, kernel time included); the cheapest round is the
 * process's figure. Three passes over all routes, each route in a fresh process per pass, and the
 * cheapest pass is the route's figure: on a shared VM one process can run 10–30 µs per request
 * slower than the next for the whole of its life. Units run one at a time, so the load generator
 * and the server each have a core.
 */
async function timeUnits(env, token, units) {
  const perRequest = {};
  const n = 2000;
  for (let pass = 0; pass < 3; pass++) {
    for (const unit of units) {
      const [framework, only] = unit.split('/');
      const { child, ports } = await startServers(
        { ...env, BENCH_FRAMEWORKS: framework, BENCH_ROUTE: only },
        true,
      );
      try {
        const port = ports[unit];
        await load(port, only, token, WARMUP * 2);
        for (let r = 0; r < 3; r++) {
          const before = cpuNs(child.pid);
          await load(port, only, token, n);
          const micros = (cpuNs(child.pid) - before) / n / 1000;
          perRequest[unit] = Math.min(perRequest[unit] ?? Infinity, micros);
        }
      } finally {
        child.kill('SIGKILL');
      }
    }
  }
  return perRequest;
}

/**
 * Every framework, `--jobs` processes at a time (counts do not depend on what else runs); `only`,
 * when given, is the list of units (`framework/route`) to count instead.
 */
async function countOnce(env, token, only) {
  const queue = only
    ? [...only]
    : opts.routes
      ? opts.routes !== 'all'
        ? opts.routes.split(',').map((v) => `route/${v}`)
        : [
            ...new Set(ROUTE_PAIRS.flatMap((p) => [`route/${p.ours}`, `route/${p.theirs}`])),
            'route/post-plain',
            'route/post-redis-floor',
          ]
      : opts.split
        ? opts.frameworks
            .split(',')
            .flatMap((f) =>
              ROUTES.filter((r) => f === 'express' || !r.includes('redis')).map((r) => `${f}/${r}`),
            )
        : opts.frameworks.split(',');
  const units = [...queue];
  const results = {};
  const worker = async () => {
    for (let unit = queue.shift(); unit; unit = queue.shift()) {
      // A process that fails (a reset connection, a server that exits while callgrind is switched on
      // a loaded machine) is started again once; a second failure is the answer.
      results[unit] = await countFramework(env, token, unit).catch((error) => {
        process.stderr.write(`  ${unit}: ${error.message.split('\n')[0]}; counting it again\n`);
        return countFramework(env, token, unit);
      });
    }
  };
  await Promise.all(Array.from({ length: Number(opts.jobs) }, worker));
  return Object.assign({}, ...units.map((f) => results[f]));
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** The bare route a middleware row is measured against (`express/auth` → `express/bare`). */
const bareOf = (name) => {
  const [framework, route] = name.split('/');
  return `${framework}/${CONTRACT_ANCHOR[route] ?? (POSTS.has(route) ? 'bare-post' : 'bare')}`;
};

/** A route's whole count (its median over the processes that counted it). */
function perRequestOf(raw, unit) {
  const counts = raw.map((run) => run[unit]).filter((count) => count !== undefined);
  return counts.length ? median(counts) : undefined;
}

/** Each route's cheapest count over several runs (a run may lack some routes). */
function cheapest(runs) {
  const out = {};
  for (const run of runs)
    for (const [name, count] of Object.entries(run)) out[name] = Math.min(out[name] ?? Infinity, count);
  return out;
}

/**
 * Rows printed for the record and never judged: @plumbline/telemetry with an SDK recording every
 * request (a figure to report, BENCHMARKS.md; its cost is the SDK's more than ours), and `empty`,
 * a middleware that only passes the request on (Express, Hono) or the same three hooks telemetry
 * adds doing nothing (Fastify): the framework's own price for one more middleware, against which
 * the `telemetry` row without an SDK is read.
 */
const REPORTED = new Set(['telemetry-sdk', 'empty']);

/** Guarded (every middleware row, not the bare routes) and over the baseline by the tolerance and the floor. */
function isOver(name, value, base) {
  const route = name.split('/')[1];
  const guarded = MIDDLEWARE.includes(route) && !REPORTED.has(route);
  return guarded && base !== undefined && (value - base) / base > TOLERANCE && value - base > FLOOR;
}

const overBaseline = (entries, baseline) =>
  Object.keys(entries).filter((name) => isOver(name, entries[name], baseline.entries[name]?.value));

/** Per framework: bare routes and each middleware's cost (route − its bare route). */
function costs(perRequest) {
  const entries = {};
  for (const name of Object.keys(perRequest)) {
    const route = name.split('/')[1];
    if (route === 'bare' || route === 'bare-post') {
      entries[name] = perRequest[name];
      continue;
    }
    entries[name] = perRequest[name] - perRequest[bareOf(name)];
  }
  return entries;
}

async function deleteKeys() {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${RUN_ID}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await redis.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

const k = (n) => `${(n / 1000).toFixed(1)} k`;

/** `--routes`: the #18 pairs as whole routes, by instructions per request. */
async function countRoutes(auth) {
  const env = {
    ...auth.env,
    BENCH_REDIS_PREFIX: `${RUN_ID}:`,
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  };
  const perRequest = await countOnce(env, auth.token);
  const at = (variant) => perRequest[`route/${variant}`];
  const lines = [
    `Whole routes of bench/server.mjs, instructions per request (callgrind): the cheapest of ${WINDOWS} windows of ${REQUESTS} requests after ${WARMUP} warm-up requests, one process per route, Node ${process.version}.`,
    '',
    '| route | instructions / request |',
    '|---|---:|',
    ...Object.keys(perRequest).map((name) => `| ${name.slice(6)} | ${k(perRequest[name])} |`),
    '',
    '| #18 target, by instructions | measured | required | met |',
    '|---|---:|---:|---|',
  ];
  for (const pair of ROUTE_PAIRS) {
    if (at(pair.ours) === undefined || at(pair.theirs) === undefined) continue;
    // Fewer instructions is faster: ours / theirs by speed is theirs / ours by count.
    const ratio = at(pair.theirs) / at(pair.ours);
    lines.push(
      `| ${pair.what} | ${ratio.toFixed(2)} | ≥ ${pair.target} | ${ratio >= pair.target ? 'yes' : '**no**'} |`,
    );
  }
  const own = (at('post-idempotent') - at('post-redis-floor')) / at('post-plain');
  if (Number.isFinite(own))
    lines.push(
      `| idempotency (Redis, new key): own cost above two raw ioredis round trips / bare POST | ${own.toFixed(3)} | ≤ 0.1 | ${own <= 0.1 ? 'yes' : '**no**'} |`,
    );
  console.info(lines.join('\n'));
}

async function main() {
  const started = Date.now();
  if (opts.check && !existsSync(BASELINE)) {
    // A guard with nothing to compare with guards nothing: fail, and say how to make the baseline.
    console.error(
      `No ${BASELINE}: run \`pnpm bench:instructions --update-baseline --reason "..."\` and commit it.`,
    );
    process.exit(1);
  }
  const auth = await startBenchAuth();
  if (opts.routes) {
    try {
      await countRoutes(auth);
    } finally {
      auth.close();
      await deleteKeys();
    }
    return;
  }
  auth.close();
  const env = {
    ...auth.env,
    BENCH_FRAMEWORKS: opts.frameworks,
    BENCH_REDIS: opts.redis ? '1' : '0',
    BENCH_REDIS_PREFIX: `${RUN_ID}:`,
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  };
  const baseline = existsSync(BASELINE) ? JSON.parse(readFileSync(BASELINE, 'utf8')) : { entries: {} };
  const raw = [];
  const recounted = [];
  try {
    for (let p = 0; p < PROCESSES; p++) raw.push(await countOnce(env, auth.token));
    if (opts.check) {
      // A row over the baseline is counted again before it fails the guard (see the header comment).
      for (let r = 0; r < Number(opts.recount); r++) {
        const over = overBaseline(costs(cheapest(raw)), baseline);
        if (!over.length) break;
        const units = [...new Set(over.flatMap((name) => [name, bareOf(name)]))];
        recounted.push(...over.filter((name) => !recounted.includes(name)));
        process.stderr.write(`recounting ${units.join(', ')} (over the baseline: ${over.join(', ')})\n`);
        const again = await countOnce(env, auth.token, units);
        raw.push(Object.fromEntries(units.map((unit) => [unit, again[unit]])));
      }
    }
  } finally {
    if (opts.redis) await deleteKeys();
  }
  // Recounted routes keep their cheapest count; otherwise each route's median over --processes.
  const runs = raw.slice(0, PROCESSES).map(costs);
  const names = Object.keys(runs[0]);
  const recountedValue = costs(cheapest(raw));
  const value = Object.fromEntries(
    names.map((n) => [n, recounted.includes(n) ? recountedValue[n] : median(runs.map((r) => r[n]))]),
  );
  const spread = Object.fromEntries(
    names.map((n) => [n, Math.max(...runs.map((r) => r[n])) - Math.min(...runs.map((r) => r[n]))]),
  );
  let micros;
  if (opts.time) {
    micros = costs(await timeUnits(env, auth.token, Object.keys(raw[0])));
    if (opts.redis) await deleteKeys();
  }

  const rows = [
    `Instructions per request (callgrind): the cheapest of ${WINDOWS} windows of ${REQUESTS} requests, after ${WARMUP} warm-up requests per route, ${PROCESSES} process(es), Node ${process.version}. Middleware rows: (route with it) − (bare route of the same framework and method).`,
    '',
    `| entry | instructions / request | ${PROCESSES > 1 ? 'spread (max − min) | ' : ''}${micros ? 'server CPU µs | ' : ''}baseline | change |`,
    `|---|---:|${PROCESSES > 1 ? '---:|' : ''}${micros ? '---:|' : ''}---:|---:|`,
  ];
  const failures = [];
  for (const name of names) {
    const base = baseline.entries[name]?.value;
    const change = base ? (value[name] - base) / base : undefined;
    // Guarded: every middleware row (not the bare routes, which only anchor the differences).
    const over = isOver(name, value[name], base);
    if (over) failures.push(`${name}: ${k(base)} → ${k(value[name])}`);
    rows.push(
      `| ${name} | ${k(value[name])} | ${PROCESSES > 1 ? `${k(spread[name])} | ` : ''}${micros ? `${micros[name].toFixed(1)} | ` : ''}${base === undefined ? '-' : k(base)} | ${change === undefined ? '-' : `${(change * 100).toFixed(1)} %`}${over ? ' **over**' : ''} |`,
    );
  }
  const redisTarget =
    value['express/idempotency-redis'] !== undefined
      ? (value['express/idempotency-redis'] - value['express/redis-floor']) / value['express/bare-post']
      : undefined;
  if (redisTarget !== undefined) {
    rows.push(
      '',
      `#18 idempotency (Redis, new key): own cost above the two raw round trips = ${k(value['express/idempotency-redis'] - value['express/redis-floor'])} = ${(redisTarget * 100).toFixed(1)} % of the bare POST route's ${k(value['express/bare-post'])} (target ≤ 10 %): ${redisTarget <= 0.1 ? 'met' : 'not met'}`,
    );
  }
  const contractRows = Object.keys(CONTRACT_ANCHOR).flatMap((route) =>
    ['express', 'fastify', 'hono'].flatMap((framework) => {
      const name = `${framework}/${route}`;
      const anchor = bareOf(name);
      if (value[name] === undefined || perRequestOf(raw, anchor) === undefined) return [];
      const share = value[name] / perRequestOf(raw, anchor);
      return [
        `| ${name} | ${k(value[name])} | ${k(perRequestOf(raw, anchor))} | ${(share * 100).toFixed(1)} % |${route === 'contract-validated' ? ' (response validation on: reported, no target)' : share <= 0.05 ? ' met' : ' **not met**'} |`,
      ];
    }),
  );
  if (contractRows.length)
    rows.push(
      '',
      "@plumbline/contract's own cost (route by `mount` − the same route wired by hand with the same packages), as a share of the hand-wired route's whole count (target ≤ 5 % with response validation off):",
      '',
      '| row | own cost | hand-wired route | share | target |',
      '|---|---:|---:|---:|---|',
      ...contractRows,
    );
  if (recounted.length)
    rows.push(
      '',
      `Recounted (cheapest of ${raw.length} processes for these routes): ${recounted.join(', ')}.`,
    );
  rows.push('', `Took ${Math.round((Date.now() - started) / 1000)} s.`);
  console.info(rows.join('\n'));

  if (opts['update-baseline']) {
    const entries = {};
    for (const name of names) {
      const previous = baseline.entries[name];
      const same = previous && Math.abs(value[name] - previous.value) <= previous.value * 0.02;
      entries[name] = {
        value: Math.round(value[name]),
        reason: same ? previous.reason : opts.reason.trim(),
      };
    }
    const next = {
      note: 'Instructions per request (bare routes) and per middleware (route − bare), from `pnpm bench:instructions`. Update with `pnpm bench:instructions --update-baseline --reason "..."`; CONTRIBUTING.md has the rule.',
      requests: REQUESTS,
      warmup: WARMUP,
      node: process.version,
      entries,
    };
    writeFileSync(BASELINE, `${JSON.stringify(next, null, 2)}\n`);
    console.info(`Baseline written to ${BASELINE}`);
    return;
  }
  for (const [name, entry] of Object.entries(baseline.entries)) {
    if (!entry.reason?.trim()) failures.push(`${name}: the baseline entry has no reason`);
  }
  if (failures.length) {
    console.error(
      `\nOver the baseline by more than ${TOLERANCE * 100} %, or without a reason:\n  ${failures.join('\n  ')}`,
    );
    console.error(
      'If the rise is intended, run `pnpm bench:instructions --update-baseline --reason "..."` and commit it.',
    );
    if (opts.check) process.exit(1);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
