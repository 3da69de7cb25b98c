#!/usr/bin/env node
/**
 * Cost as work grows (issue #36, item 5): the reference service's collection route over 1 k, 10 k and
 * 100 k projects, on SQLite and on PostgreSQL. For each size the built service starts on a fresh
 * database (a temporary SQLite file, or a PostgreSQL schema of its own), the projects table is filled
 * directly with bulk INSERTs (the demo rows removed first), and so is the tasks table (the same number
 * of rows), and each case runs for BENCH_DURATION
 * seconds under autocannon, loopback only:
 *
 *   first page         GET /v2/projects?limit=20                          (default sort -created_at)
 *   status filter      GET /v2/projects?status=active&sort=-created_at&limit=20
 *   sorted by name     GET /v2/projects?sort=name&limit=20
 *   offset deep        GET /v2/projects?limit=20&offset=<rows - 20, at most 10 000>
 *   cursor deep        GET /v2/projects?limit=20&cursor=<after the 21st-oldest project>
 *   tasks: first page  GET /v2/tasks?limit=20                             (as many tasks as projects,
 *   tasks: status      GET /v2/tasks?status=done&limit=20                  all in the oldest project)
 *
 * The service refuses offsets above 10 000 (the collection's maxOffset), so at 100 k rows the offset
 * case stops there while the cursor case goes to the last page. The deep cursor is signed here with
 * the service's CURSOR_SECRET the way the service signs it; before measuring, the script checks that
 * it re-creates the service's own page-1 cursor byte for byte and that the deep page holds exactly
 * the 20 oldest projects (and, where the offset reaches the end, the same rows as the offset page).
 * Reported per case and size: req/s, mean and p99 latency, and the service process's CPU time per
 * request (user + system from /proc, so PostgreSQL's own work shows in latency, not there); then
 * the ratios largest / smallest size of the time per request (1 / req/s) and of the service's CPU per
 * request: 1.0 is flat. On SQLite the database works inside the service process, so its CPU figure
 * includes the query; on PostgreSQL the query runs in the server processes serving the service's
 * connections (named by application_name), whose CPU per request is reported as well (the "db" figure).
 *
 *   node apps/system-tests/bench/scale.mjs             (after `pnpm build`)
 *   BENCH_DURATION=3 BENCH_CONNECTIONS=10 BENCH_SIZES=1000,10000,100000 BENCH_DATABASES=sqlite,postgres
 *
 * Needs PostgreSQL for the PostgreSQL half (DATABASE_URL, default
 * postgres://postgres@127.0.0.1:5432/test; skipped when unreachable). Every schema and file it
 * creates is removed. Prints a Markdown table; it writes nothing.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { exportJWK, generateKeyPair } from 'jose';
import pg from 'pg';
import { children, runBenchmark, startProcess, stopProcess } from './processes.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const SERVICE_MAIN = resolve(here, '../../reference-service/dist/main.mjs');
const DURATION = Number(process.env.BENCH_DURATION ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const SIZES = (process.env.BENCH_SIZES ?? '1000,10000,100000').split(',').map(Number);
const DATABASES = (process.env.BENCH_DATABASES ?? 'sqlite,postgres').split(',');
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const RUN_ID = `bench_scale_${process.pid}_${randomBytes(3).toString('hex')}`;
const CLOCK_TICK_MS = 10; // USER_HZ is 100 on Linux
const MAX_OFFSET = 10_000;
const deepOffset = (size) => Math.min(size - 20, MAX_OFFSET);

const CASES = [
  { name: 'first page', path: () => '/v2/projects?limit=20' },
  {
    name: 'status filter, sort -created_at',
    path: () => '/v2/projects?status=active&sort=-created_at&limit=20',
  },
  { name: 'sort name', path: () => '/v2/projects?sort=name&limit=20' },
  { name: 'offset deep', path: (size) => `/v2/projects?limit=20&offset=${deepOffset(size)}` },
  {
    name: 'cursor deep',
    path: (_size, cursor) => `/v2/projects?limit=20&cursor=${encodeURIComponent(cursor)}`,
  },
  { name: 'tasks: first page', path: () => '/v2/tasks?limit=20' },
  { name: 'tasks: status filter', path: () => '/v2/tasks?status=done&limit=20' },
];

/**
 * A cursor as the service signs it (HMAC-SHA256 with CURSOR_SECRET over the payload): `values` are
 * the sort-key values of the row the page starts after, `binding` the hash taken from a real cursor.
 */
function signCursor(secret, binding, values) {
  const payload = Buffer.from(JSON.stringify({ v: values, h: binding })).toString('base64url');
  return `${payload}.${createHmac('sha256', Buffer.from(secret)).update(payload).digest('base64url')}`;
}

async function startService(env) {
  const { child, output } = await startProcess([SERVICE_MAIN], env, /API key, read-write:\s+(\S+)/);
  const url = /listening on (http:\/\/\S+)/.exec(output())?.[1];
  const apiKey = /API key, read-write:\s+(\S+)/.exec(output())?.[1];
  return { child, url, apiKey };
}

/** User + system CPU time of a process so far, in ms (Linux /proc). */
function cpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_MS;
}

/** `size` projects: distinct names and creation times, two thirds active, budgets on most. */
function projectRows(size) {
  const start = Date.parse('2020-01-01T00:00:00.000Z');
  const rows = [];
  for (let i = 0; i < size; i++) {
    const at = new Date(start + i * 60_000).toISOString();
    rows.push([
      randomUUID(),
      `scale project ${String(i).padStart(6, '0')}`,
      i % 5 === 0 ? null : `Project number ${i}`,
      i % 3 === 2 ? 'archived' : 'active',
      i % 4 === 0 ? null : (i % 997) * 100,
      i % 4 === 0 ? null : 'EUR',
      at,
      at,
    ]);
  }
  return rows;
}

/** `size` tasks of one project: a third each todo, in_progress and done. */
function taskRows(size, projectId) {
  const start = Date.parse('2021-01-01T00:00:00.000Z');
  const statuses = ['todo', 'in_progress', 'done'];
  const rows = [];
  for (let i = 0; i < size; i++) {
    const at = new Date(start + i * 60_000).toISOString();
    rows.push([randomUUID(), projectId, `scale task ${i}`, statuses[i % 3], (i % 5) + 1, null, at, at]);
  }
  return rows;
}

const COLUMNS = 'id, name, description, status, budget_amount, budget_currency, created_at, updated_at';
const TASK_COLUMNS = 'id, project_id, title, status, priority, due_date, created_at, updated_at';

function fillSqlite(file, rows) {
  const db = new DatabaseSync(file);
  try {
    db.exec('PRAGMA busy_timeout = 5000');
    db.exec('BEGIN');
    db.exec('DELETE FROM comments; DELETE FROM tasks; DELETE FROM projects;');
    const insert = db.prepare(`INSERT INTO projects (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
    for (const row of rows) insert.run(...row);
    const task = db.prepare(`INSERT INTO tasks (${TASK_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
    for (const row of taskRows(rows.length, rows[0][0])) task.run(...row);
    db.exec('COMMIT');
  } finally {
    db.close();
  }
}

async function fillPostgres(client, schema, rows) {
  await client.query(`SET search_path TO ${schema}`);
  await client.query('BEGIN');
  await client.query('DELETE FROM comments; DELETE FROM tasks; DELETE FROM projects;');
  for (let from = 0; from < rows.length; from += 10_000) {
    const chunk = rows.slice(from, from + 10_000);
    const column = (i) => chunk.map((row) => row[i]);
    await client.query(
      `INSERT INTO projects (${COLUMNS}) SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::float8[], $6::text[], $7::text[], $8::text[])`,
      [0, 1, 2, 3, 4, 5, 6, 7].map(column),
    );
  }
  const tasks = taskRows(rows.length, rows[0][0]);
  for (let from = 0; from < tasks.length; from += 10_000) {
    const chunk = tasks.slice(from, from + 10_000);
    const column = (i) => chunk.map((row) => row[i]);
    await client.query(
      `INSERT INTO tasks (${TASK_COLUMNS}) SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::text[], $7::text[], $8::text[])`,
      [0, 1, 2, 3, 4, 5, 6, 7].map(column),
    );
  }
  await client.query('COMMIT');
  // What autovacuum would do soon after such a load: planner statistics for the new rows.
  await client.query('ANALYZE projects');
  await client.query('ANALYZE tasks');
}

function cannon(options) {
  return new Promise((ok, fail) =>
    autocannon({ connections: CONNECTIONS, pipelining: 1, ...options }, (e, r) => (e ? fail(e) : ok(r))),
  );
}

async function getJson(url, headers) {
  const response = await fetch(url, { headers });
  const body = await response.text();
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${body}`);
  return JSON.parse(body);
}

/** Runs every case against one service holding `size` projects. */
/** CPU ms of each PostgreSQL server process serving the service (a process gone since reads 0). */
async function backendCpu(backends) {
  const cpu = new Map();
  for (const pid of await backends()) {
    try {
      cpu.set(pid, cpuMs(pid));
    } catch {
      cpu.set(pid, 0);
    }
  }
  return cpu;
}

async function measure(service, size, label, projects, secret, backends) {
  const headers = { 'x-api-key': service.apiKey };
  // Rows were made oldest first; the default sort (-created_at, then id) shows the newest first.
  const values = (i) => [projects[i][6], projects[i][0]];
  const first = await getJson(`${service.url}/v2/projects?limit=20`, headers);
  const real = first.page.next_cursor;
  const binding = JSON.parse(Buffer.from(real.split('.')[0], 'base64url').toString()).h;
  if (signCursor(secret, binding, values(size - 20)) !== real)
    throw new Error(`the page-1 cursor is not signed the way this script signs: ${real}`);
  const cursor = signCursor(secret, binding, values(20));
  const byCursor = await getJson(`${service.url}${CASES[4].path(size, cursor)}`, headers);
  const oldest = projects
    .slice(0, 20)
    .map((row) => row[0])
    .reverse();
  if (JSON.stringify(byCursor.data.map((p) => p.id)) !== JSON.stringify(oldest))
    throw new Error('the cursor-deep page does not hold the 20 oldest projects');
  if (deepOffset(size) === size - 20) {
    const byOffset = await getJson(`${service.url}${CASES[3].path(size)}`, headers);
    if (JSON.stringify(byOffset.data) !== JSON.stringify(byCursor.data))
      throw new Error('the cursor-deep page and the offset-deep page hold different rows');
  }
  const results = [];
  for (const testCase of CASES) {
    const url = service.url + testCase.path(size, cursor);
    const first = await getJson(url, headers);
    if (first.data.length !== 20) throw new Error(`${testCase.name}: ${first.data.length} rows`);
    await cannon({ url, headers, duration: 1 });
    const cpuBefore = cpuMs(service.child.pid);
    const dbBefore = backends ? await backendCpu(backends) : undefined;
    const result = await cannon({ url, headers, duration: DURATION });
    const cpu = cpuMs(service.child.pid) - cpuBefore;
    let dbCpu = 0;
    if (dbBefore) for (const [pid, ms] of await backendCpu(backends)) dbCpu += ms - (dbBefore.get(pid) ?? 0);
    const bad = result.non2xx + result.errors + result.timeouts;
    const row = {
      label,
      size,
      name: testCase.name,
      rps: result.requests.average,
      mean: result.latency.mean,
      p99: result.latency.p99,
      cpuPerRequest: result.requests.total ? cpu / result.requests.total : 0,
      dbCpuPerRequest: result.requests.total ? dbCpu / result.requests.total : 0,
      bad,
    };
    results.push(row);
    process.stdout.write(
      `  ${label} ${size}: ${testCase.name}: ${Math.round(row.rps)} req/s, mean ${row.mean.toFixed(2)} ms, p99 ${row.p99} ms, CPU ${row.cpuPerRequest.toFixed(2)} ms/req${backends ? `, PostgreSQL CPU ${row.dbCpuPerRequest.toFixed(3)} ms/req` : ''}${bad ? `, ${bad} non-2xx/errors` : ''}\n`,
    );
  }
  return results;
}

async function postgresReachable() {
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

async function main() {
  const loadAtStart = loadavg();
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const baseEnv = {
    HOST: '127.0.0.1',
    PORT: '0',
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    SIGNING_KEY_JWK: JSON.stringify(await exportJWK(privateKey)),
    CURSOR_SECRET: randomBytes(32).toString('hex'),
    RATE_LIMIT_PER_MINUTE: '1000000',
  };
  const rows = [];
  const skipped = [];
  const dir = mkdtempSync(join(tmpdir(), 'bench-scale-'));
  const admin = (await postgresReachable()) ? new pg.Client({ connectionString: DATABASE_URL }) : undefined;
  if (admin) await admin.connect();
  try {
    for (const database of DATABASES) {
      if (database === 'postgres' && !admin) {
        skipped.push(`PostgreSQL (not reachable at ${DATABASE_URL})`);
        continue;
      }
      for (const size of SIZES) {
        const schema = `${RUN_ID}_${size}`;
        const file = join(dir, `scale-${size}.db`);
        let env;
        if (database === 'postgres') {
          await admin.query(`CREATE SCHEMA ${schema}`);
          const url = new URL(DATABASE_URL);
          url.searchParams.set('options', `-c search_path=${schema}`);
          // Names the service's connections, so their server processes' CPU can be read.
          url.searchParams.set('application_name', schema);
          env = { DATABASE_URL: url.toString() };
        } else env = { DATABASE_FILE: file };
        const service = await startService({ ...baseEnv, ...env });
        try {
          const filling = Date.now();
          const projects = projectRows(size);
          if (database === 'postgres') await fillPostgres(admin, schema, projects);
          else fillSqlite(file, projects);
          process.stdout.write(`${database} ${size}: filled in ${Date.now() - filling} ms\n`);
          const label = database === 'postgres' ? 'PostgreSQL' : 'SQLite';
          const backends =
            database === 'postgres'
              ? async () =>
                  (
                    await admin.query('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [
                      schema,
                    ])
                  ).rows.map((r) => r.pid)
              : undefined;
          rows.push(...(await measure(service, size, label, projects, baseEnv.CURSOR_SECRET, backends)));
        } finally {
          await stopProcess(service.child);
          if (database === 'postgres') {
            await admin.query('SET search_path TO public');
            await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
          } else rmSync(file, { force: true });
        }
      }
    }
  } finally {
    for (const child of children) child.kill('SIGKILL');
    if (admin) await admin.end();
    rmSync(dir, { recursive: true, force: true });
  }
  report(rows, skipped, loadAtStart);
}

function report(rows, skipped, loadAtStart) {
  const smallest = Math.min(...SIZES);
  const largest = Math.max(...SIZES);
  const fmt = (n) => Math.round(n).toLocaleString('en');
  const lines = [
    `Command: \`BENCH_DURATION=${DURATION} BENCH_CONNECTIONS=${CONNECTIONS} BENCH_SIZES=${SIZES.join(',')} BENCH_DATABASES=${DATABASES.join(',')} node apps/system-tests/bench/scale.mjs\``,
    '',
    `Date: ${new Date().toISOString()}. ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, Node.js ${process.version}; load average (1, 5, 15 min) ${loadAtStart.map((l) => l.toFixed(1)).join(', ')} at the start, ${loadavg()
      .map((l) => l.toFixed(1))
      .join(', ')} at the end.`,
    '',
    `| database | case | ${SIZES.map((s) => `${fmt(s)} rows: req/s · mean ms · CPU ms/req`).join(' | ')} | ${fmt(largest)}/${fmt(smallest)}: time per request · CPU per request |`,
    `|---|---|${SIZES.map(() => '---:|').join('')}---:|`,
  ];
  for (const label of ['SQLite', 'PostgreSQL']) {
    for (const testCase of CASES) {
      const cells = SIZES.map((size) =>
        rows.find((r) => r.label === label && r.size === size && r.name === testCase.name),
      );
      if (cells.some((c) => c === undefined)) continue;
      const low = cells[SIZES.indexOf(smallest)];
      const high = cells[SIZES.indexOf(largest)];
      const cpu = (c) => c.cpuPerRequest + c.dbCpuPerRequest;
      const cpuCell = (c) =>
        label === 'PostgreSQL'
          ? `${c.cpuPerRequest.toFixed(2)} + db ${c.dbCpuPerRequest.toFixed(2)}`
          : c.cpuPerRequest.toFixed(2);
      lines.push(
        `| ${label} | ${testCase.name} | ${cells.map((c) => `${fmt(c.rps)} · ${c.mean.toFixed(2)} · ${cpuCell(c)}${c.bad ? ` (${c.bad} bad)` : ''}`).join(' | ')} | ${(low.rps / high.rps).toFixed(2)} · ${(cpu(high) / cpu(low)).toFixed(2)} |`,
      );
    }
  }
  if (skipped.length) lines.push('', `Skipped: ${skipped.join('; ')}.`);
  process.stdout.write(`\n${lines.join('\n')}\n`);
}

runBenchmark(main);
