/**
 * Process-level harness for the system tests: reference-service instances as real child processes
 * (`node apps/reference-service/dist/main.mjs`), each test's own PostgreSQL schema and Redis key
 * prefix, and private redis-server processes for outage tests. Loopback only; everything started
 * here is stopped by the caller through the returned handles.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exportJWK, generateKeyPair } from 'jose';
import pg from 'pg';
import { recordExchange } from './contract.js';
import { type Strategy, v2 } from './strategy.js';

const here = dirname(fileURLToPath(import.meta.url));
export const SERVICE_MAIN = resolve(here, '../../reference-service/dist/main.mjs');

export const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
export const DATABASE_URL = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A name unique to this run, usable as a schema name, Redis prefix and application_name. */
function uniqueName(label: string): string {
  return `st_${label}_${process.pid}_${randomBytes(4).toString('hex')}`;
}

export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** True when something accepts TCP connections on the port. */
export function portOpen(port: number): Promise<boolean> {
  return new Promise((resolveOpen) => {
    const socket = new Socket();
    const done = (open: boolean) => {
      socket.destroy();
      resolveOpen(open);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.connect(port, '127.0.0.1');
  });
}

async function servicesUp(): Promise<{ redis: boolean; postgres: boolean }> {
  const { port } = new URL(REDIS_URL);
  const redis = await portOpen(Number(port || 6379));
  let postgres = false;
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    postgres = true;
  } catch {
    postgres = false;
  } finally {
    await client.end().catch(() => {});
  }
  return { redis, postgres };
}

/**
 * Whether the system tests can run here: the built service plus Redis and PostgreSQL. With CI=true a
 * missing piece throws, so CI fails instead of skipping.
 */
export async function environmentReady(): Promise<boolean> {
  const missing: string[] = [];
  try {
    readFileSync(SERVICE_MAIN);
  } catch {
    missing.push(`${SERVICE_MAIN} (run the build first)`);
  }
  const up = await servicesUp();
  if (!up.redis) missing.push(`Redis at ${REDIS_URL}`);
  if (!up.postgres) missing.push(`PostgreSQL at ${DATABASE_URL}`);
  if (missing.length > 0 && process.env['CI'] === 'true') {
    throw new Error(`System tests need: ${missing.join(', ')}`);
  }
  return missing.length === 0;
}

/** A fresh PostgreSQL schema and a connection string that points the service at it. */
export interface Database {
  readonly schema: string;
  readonly applicationName: string;
  /** Connection string with `application_name` and `search_path` set. */
  readonly url: string;
  query<T extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Terminates every backend the service instances hold; returns how many. */
  terminateBackends(): Promise<number>;
  drop(): Promise<void>;
}

export async function createDatabase(label: string): Promise<Database> {
  const schema = uniqueName(label).toLowerCase();
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const url = new URL(DATABASE_URL);
  url.searchParams.set('application_name', schema);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    schema,
    applicationName: schema,
    url: url.toString(),
    async query<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []) {
      await admin.query(`SET search_path TO ${schema}`);
      return (await admin.query<T>(sql, params)).rows;
    },
    async terminateBackends() {
      const rows = await admin.query(
        'SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = $1',
        [schema],
      );
      return rows.rowCount ?? 0;
    },
    async drop() {
      await admin.query('SET search_path TO public');
      await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
        [schema],
      );
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    },
  };
}

/** A redis-server of our own on a free port, so outages never touch the machine's shared Redis. */
export interface OwnRedis {
  readonly port: number;
  readonly url: string;
  /** Stops the server, saving its data set first (like a restart of a persistent Redis). */
  stop(options?: { save?: boolean }): Promise<void>;
  start(): Promise<void>;
  /** Stops it for good and removes its directory. */
  destroy(): Promise<void>;
}

export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'st-redis-'));
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
      { stdio: 'ignore' },
    );
    for (let i = 0; i < 100 && !(await portOpen(port)); i++) await sleep(50);
    if (!(await portOpen(port))) throw new Error(`redis-server did not start on ${port}`);
  };
  const stop = async ({ save = true } = {}) => {
    const running = child;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise<void>((r) => running.once('exit', () => r()));
    // SHUTDOWN SAVE writes dump.rdb even with `--save ''`; the next start loads it.
    const cli = spawn('redis-cli', ['-p', String(port), 'shutdown', save ? 'save' : 'nosave'], {
      stdio: 'ignore',
    });
    await new Promise((r) => cli.once('exit', r));
    await Promise.race([exited, sleep(5000)]);
    if (running.exitCode === null) running.kill('SIGKILL');
  };
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop,
    start,
    async destroy() {
      await stop({ save: false });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Key shared by every instance of a cluster (ES256, like the service issues). */
async function signingKeyJwk(): Promise<string> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  return JSON.stringify(await exportJWK(privateKey));
}

export interface Credentials {
  readonly apiKey: string;
  readonly readOnlyApiKey: string;
  readonly clientId: string;
  readonly clientSecret: string;
}

export interface Instance {
  readonly url: string;
  readonly port: number;
  readonly child: ChildProcess;
  /** stdout + stderr so far (for diagnostics). */
  output(): string;
  /** Resolves with the exit code once the process has exited. */
  readonly exited: Promise<number | null>;
  /** Resident set size in bytes, from /proc (Linux). */
  rss(): number;
  stop(): Promise<void>;
}

function parseCredentials(text: string): Credentials | undefined {
  const apiKey = /API key, read-write:\s+(\S+)/.exec(text)?.[1];
  const readOnlyApiKey = /API key, read-only:\s+(\S+)/.exec(text)?.[1];
  const client = /OAuth client, read-write:\s+(\S+) \/ (\S+)/.exec(text);
  if (!apiKey || !readOnlyApiKey || !client?.[1] || !client[2]) return undefined;
  return { apiKey, readOnlyApiKey, clientId: client[1], clientSecret: client[2] };
}

/**
 * Starts one service process and waits for its `listening on` line (and, on a fresh database, the
 * demo credentials printed after it).
 */
export async function startInstance(
  env: Record<string, string>,
  options: { expectCredentials?: boolean } = {},
): Promise<{ instance: Instance; credentials: Credentials | undefined }> {
  const port = await freePort();
  const child = spawn(process.execPath, [SERVICE_MAIN], {
    env: {
      PATH: process.env['PATH'] ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      // vitest.config.ts runs these tests once per framework (project system-tests:<framework>).
      FRAMEWORK: process.env['FRAMEWORK'] ?? 'express',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const deadline = Date.now() + 30_000;
  let credentials: Credentials | undefined;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited (${child.exitCode}):\n${text}`);
    const listening = text.includes('listening on');
    credentials = parseCredentials(text);
    if (listening && (!options.expectCredentials || credentials)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`service did not start within 30 s:\n${text}`);
    }
    await sleep(25);
  }
  const instance: Instance = {
    url: `http://127.0.0.1:${port}`,
    port,
    child,
    output: () => text,
    exited,
    rss() {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
        return kb ? Number(kb) * 1024 : 0;
      } catch {
        return 0;
      }
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
  return { instance, credentials };
}

export interface ClusterOptions {
  readonly count: number;
  readonly database: Database;
  readonly redisUrl?: string;
  /** `REDIS_CLUSTER_NODES` (host:port,...): the instances use this Redis Cluster instead of `redisUrl`. */
  readonly redisClusterNodes?: string;
  readonly redisKeyPrefix?: string;
  readonly rateLimitPerMinute?: number;
  readonly env?: Record<string, string>;
  /** Credentials from an earlier start on the same database (then no instance prints any). */
  readonly credentials?: Credentials;
  readonly signingKey?: string;
}

export interface Cluster {
  readonly instances: readonly Instance[];
  readonly credentials: Credentials;
  readonly signingKey: string;
  readonly redisKeyPrefix: string;
  /** Instance `i` modulo the count: round-robin. */
  at(i: number): Instance;
  stop(): Promise<void>;
}

const CURSOR_SECRET = randomBytes(32).toString('hex');

/** Starts `count` instances on one database and one Redis; the first seeds and prints credentials. */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const signingKey = options.signingKey ?? (await signingKeyJwk());
  const redisKeyPrefix = options.redisKeyPrefix ?? `${uniqueName('redis')}:`;
  const env: Record<string, string> = {
    DATABASE_URL: options.database.url,
    ...(options.redisClusterNodes
      ? { REDIS_CLUSTER_NODES: options.redisClusterNodes }
      : { REDIS_URL: options.redisUrl ?? REDIS_URL }),
    REDIS_KEY_PREFIX: redisKeyPrefix,
    SIGNING_KEY_JWK: signingKey,
    CURSOR_SECRET,
    RATE_LIMIT_PER_MINUTE: String(options.rateLimitPerMinute ?? 1_000_000),
    SHUTDOWN_GRACE_MS: '5000',
    ...options.env,
  };
  const instances: Instance[] = [];
  try {
    const first = await startInstance(env, { expectCredentials: !options.credentials });
    instances.push(first.instance);
    const credentials = options.credentials ?? first.credentials;
    if (!credentials) throw new Error('no demo credentials printed');
    const rest = await Promise.all(
      Array.from({ length: options.count - 1 }, () => startInstance(env).then((s) => s.instance)),
    );
    instances.push(...rest);
    return {
      instances,
      credentials,
      signingKey,
      redisKeyPrefix,
      at: (i) => instances[i % instances.length] as Instance,
      async stop() {
        await Promise.all(instances.map((instance) => instance.stop()));
      },
    };
  } catch (error) {
    await Promise.all(instances.map((instance) => instance.stop()));
    throw error;
  }
}

/** Deletes every key under a prefix on the given Redis (SCAN + UNLINK, never FLUSH*). */
export async function deleteRedisKeys(url: string, prefix: string): Promise<void> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    // Refresh-token keys use a hash tag: `{<prefix>refresh}:...`.
    for (const pattern of [`${prefix}*`, `{${prefix}*`]) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
        cursor = next;
        if (keys.length > 0) await redis.unlink(...keys);
      } while (cursor !== '0');
    }
  } finally {
    redis.disconnect();
  }
}

export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  json<T = Record<string, unknown>>(): T;
}

/**
 * One HTTP exchange; a network failure resolves to status 0 with the error's code as text. Every
 * answered exchange is recorded for the contract check (contract-setup.ts).
 */
export async function request(url: string, init: RequestInit = {}): Promise<Reply> {
  try {
    const response = await fetch(url, { ...init, signal: init.signal ?? AbortSignal.timeout(20_000) });
    const text = await response.text();
    await recordExchange(url, init, response, text);
    return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    return {
      status: 0,
      headers: new Headers(),
      text: cause?.code ?? String(error),
      json: <T>() => ({}) as T,
    };
  }
}

/**
 * POST /projects in v2 (asked for the `strategy` way, `/v2/projects` by default) with the API key and
 * an Idempotency-Key; a string `body` is sent as it is.
 */
export function createProject(
  url: string,
  credentials: Credentials,
  key: string,
  body: unknown,
  strategy: Strategy = 'path',
): Promise<Reply> {
  return request(
    ...v2(strategy, url, '/projects', {
      method: 'POST',
      headers: {
        'x-api-key': credentials.apiKey,
        'content-type': 'application/json',
        'idempotency-key': key,
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
  );
}

export function form(values: Record<string, string>): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(values).toString(),
  };
}

/** POST /oauth/token with client credentials. */
export async function token(
  url: string,
  credentials: Credentials,
  scope: string,
): Promise<{ access_token: string; refresh_token?: string }> {
  const reply = await request(
    `${url}/oauth/token`,
    form({
      grant_type: 'client_credentials',
      client_id: credentials.clientId,
      client_secret: credentials.clientSecret,
      scope,
    }),
  );
  if (reply.status !== 200) throw new Error(`token endpoint answered ${reply.status}: ${reply.text}`);
  return reply.json();
}

/** Counts of each status code, e.g. `{ 201: 20, 409: 3 }`. */
export function tally(statuses: readonly number[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const status of statuses) out[status] = (out[status] ?? 0) + 1;
  return out;
}

/**
 * A fresh database seeded by one service start, and the demo credentials that start printed (later
 * clusters on the same database print none). The seeding instance is stopped and its Redis keys removed.
 */
export async function seedDatabase(label: string): Promise<{ db: Database; credentials: Credentials }> {
  const db = await createDatabase(label);
  const seeder = await startCluster({ count: 1, database: db });
  await seeder.stop();
  await deleteRedisKeys(REDIS_URL, seeder.redisKeyPrefix);
  return { db, credentials: seeder.credentials };
}
