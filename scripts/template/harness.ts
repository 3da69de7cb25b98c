/**
 * Starts the service in-process on a loopback port with its own database, exactly as `src/main.ts`
 * builds it: SQLite in memory by default; PostgreSQL (a fresh schema per service, dropped on stop)
 * and Redis (a fresh key prefix, cleared on stop) when DATABASE_URL and REDIS_URL are set.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import pino, { type Logger } from 'pino';
import { createListener } from '../src/listener.js';
import { createServer } from '../src/server.js';
import { loadConfig } from '../src/service/config.js';
import { type AppContext, createContext } from '../src/service/context.js';
import { keySetErrorLogger } from '../src/service/logging.js';
import { createDemoCredentials, type DemoCredentials } from '../src/service/seed.js';

export interface Backend {
  readonly name: string;
  readonly postgres: boolean;
  readonly redis: boolean;
}

export interface RunningService {
  readonly url: string;
  readonly ctx: AppContext;
  readonly credentials: DemoCredentials;
  /** An access token from the token endpoint for the read-write (or read-only) demo client. */
  token(scope: string, client?: 'readWrite' | 'readOnly'): Promise<string>;
  stop(): Promise<void>;
}

const DATABASE_URL = process.env['DATABASE_URL'];
const REDIS_URL = process.env['REDIS_URL'];

/**
 * Whether the PostgreSQL backend runs: only when DATABASE_URL is set, so a fresh checkout needs no
 * database. Set, it must answer: a typo in the URL fails the run rather than skipping the backend.
 */
export async function postgresAvailable(): Promise<boolean> {
  if (DATABASE_URL === undefined) return false;
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  await client.end();
  return true;
}

/** Whether the Redis backend runs: only when REDIS_URL is set (the service checks it answers on start). */
export async function redisAvailable(): Promise<boolean> {
  return REDIS_URL !== undefined;
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export async function startService(
  backend: Backend,
  env: Record<string, string> = {},
  options: { readonly logger?: Logger } = {},
): Promise<RunningService> {
  // Schema names and key prefixes unique per service, so test files never see each other's data.
  const schema = `svc_${randomUUID().replaceAll('-', '')}`;
  let databaseUrl: string | undefined;
  if (backend.postgres) {
    if (DATABASE_URL === undefined) throw new Error('the PostgreSQL backend needs DATABASE_URL');
    await admin(`CREATE SCHEMA ${schema}`);
    const url = new URL(DATABASE_URL);
    url.searchParams.set('options', `-c search_path=${schema}`);
    databaseUrl = url.toString();
  }
  if (backend.redis && REDIS_URL === undefined) throw new Error('the Redis backend needs REDIS_URL');
  const config = loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    LOG_LEVEL: 'silent',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...(backend.redis && REDIS_URL ? { REDIS_URL } : {}),
    ...env,
  });
  const logger = options.logger ?? pino({ level: 'silent' });
  const prefix = `${schema}:`;
  const ctx = await createContext(
    { ...config, redisKeyPrefix: prefix },
    { onKeySetError: keySetErrorLogger(logger) },
  );
  // Production never prints demo credentials; tests then make their own the same way.
  const credentials = ctx.demoCredentials ?? (await createDemoCredentials(ctx.repo));
  const server = createServer(await createListener(ctx, logger), {
    tls: undefined,
    versioningStrategy: config.versioningStrategy,
  }).listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    ctx,
    credentials,
    async token(scope, client = 'readWrite') {
      const { clientId, clientSecret } = credentials.clients[client];
      const res = await fetch(`${url}/oauth/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope }),
      });
      if (res.status !== 200) throw new Error(`token endpoint answered ${res.status}: ${await res.text()}`);
      return ((await res.json()) as { access_token: string }).access_token;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (ctx.redis) {
        const keys = await ctx.redis.keys(`${prefix}*`);
        if (keys.length > 0) await ctx.redis.del(...keys);
      }
      await ctx.close();
      if (backend.postgres) await admin(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    },
  };
}
