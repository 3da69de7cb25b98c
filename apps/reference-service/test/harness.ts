/**
 * Starts the reference service in-process on a loopback port with its own database (SQLite in
 * memory, or a fresh PostgreSQL schema) and its own Redis prefix space, exactly as `main.ts` builds it.
 */
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import {
  ContractValidator,
  DATABASE_URL,
  describeViolations,
  REDIS_URL,
  recordExchanges,
  uniquePrefix,
} from '@plumbline/test-utils';
import pg from 'pg';
import pino, { type Logger } from 'pino';
import { createListener } from '../src/listener.js';
import { buildOpenApi } from '../src/openapi/document.js';
import { documentForStrategy } from '../src/openapi/strategy.js';
import { createServer } from '../src/server.js';
import { loadConfig } from '../src/service/config.js';
import { type AppContext, createContext } from '../src/service/context.js';
import { createLogger, keySetErrorLogger } from '../src/service/logging.js';
import { createDemoCredentials, type DemoCredentials } from '../src/service/seed.js';
import { apiStrategy } from '../src/service/versioning.js';

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

export interface StartOptions {
  /** The app's logger (default silent). */
  readonly logger?: Logger;
  /** Redis key prefix; give two services the same one to make them instances of one deployment. */
  readonly redisPrefix?: string;
}

// One validator per distinct document: compiling the schemas once keeps the check cheap.
const validators = new Map<string, ContractValidator>();
function validatorFor(document: string): ContractValidator {
  let validator = validators.get(document);
  if (!validator) {
    validator = new ContractValidator(JSON.parse(document) as Record<string, unknown>);
    validators.set(document, validator);
  }
  return validator;
}

export async function startService(
  backend: Backend,
  env: Record<string, string> = {},
  options: StartOptions = {},
): Promise<RunningService> {
  const schema = uniquePrefix('svc').toLowerCase();
  let databaseUrl: string | undefined;
  if (backend.postgres) {
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.end();
    const url = new URL(DATABASE_URL);
    url.searchParams.set('options', `-c search_path=${schema}`);
    databaseUrl = url.toString();
  }
  const config = loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    LOG_LEVEL: 'silent',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...(backend.redis ? { REDIS_URL: REDIS_URL } : {}),
    // The vitest project names the framework (vitest.config.ts runs this suite once per framework).
    ...(process.env['FRAMEWORK'] ? { FRAMEWORK: process.env['FRAMEWORK'] } : {}),
    ...env,
  });
  const logger = options.logger ?? pino({ level: 'silent' });
  const prefix = options.redisPrefix ?? `${schema}:`;
  const ctx = await createContext(
    { ...config, redisKeyPrefix: prefix },
    { onKeySetError: keySetErrorLogger(logger) },
  );
  // Production never prints demo credentials; tests then make their own the same way.
  const credentials = ctx.demoCredentials ?? (await createDemoCredentials(ctx.repo));
  const app = await createListener(ctx, logger);
  // Every exchange is recorded and, on stop(), checked against the service's own /openapi.json.
  const recorder = recordExchanges(app);
  const server = createServer(recorder.handler, {
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
      // Checked against the document /openapi.json serves (built here: the service may be rate limiting).
      const violations = describeViolations(
        validatorFor(
          JSON.stringify(documentForStrategy(apiStrategy(config.versioningStrategy), buildOpenApi(ctx))),
        ),
        recorder.exchanges,
      );
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (ctx.redis) {
        const keys = await ctx.redis.keys(`${prefix}*`);
        if (keys.length > 0) await ctx.redis.del(...keys);
      }
      await ctx.close();
      if (backend.postgres) {
        const admin = new pg.Client({ connectionString: DATABASE_URL });
        await admin.connect();
        await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await admin.end();
      }
      if (violations !== '') throw new Error(`Responses that break /openapi.json:\n${violations}`);
    },
  };
}

/**
 * The service's real logger (`createLogger`, at `info`) writing into `lines`, one entry per log
 * line, for tests that read what a request logged.
 */
export function captureLogs(): { readonly logger: Logger; readonly lines: string[] } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { logger: createLogger({ level: 'info', destination }), lines };
}

/**
 * A GET on a connection of its own (`Connection: close`), for tests that hold the event loop between
 * requests (an OpenAPI validation takes seconds on a loaded machine): a kept-alive socket the service
 * closed at its 5 s keep-alive timeout meanwhile would be reused and reset (`fetch failed`,
 * ECONNRESET, seen in CI).
 */
export const fetchFresh = (url: string): Promise<Response> =>
  fetch(url, { headers: { connection: 'close' } });
