/**
 * Everything the app needs at run time, built once from the configuration: the database and its
 * repository, the shared state (Redis when REDIS_URL is set, memory otherwise), the token issuer and
 * verifier, and the collections. `close()` releases it all (graceful shutdown).
 */
import {
  type ApiKeyStore,
  createJwtVerifier,
  type JwtVerifier,
  type KeySetErrorEvent,
  MemoryRevocationStore,
  RedisRevocationStore,
  type RevocationStore,
} from '@plumbline/auth';
import {
  createIssuer,
  type Issuer,
  MemoryRefreshTokenStore,
  RedisRefreshTokenStore,
  type SigningKey,
} from '@plumbline/auth/issuer';
import {
  createMemoryStore,
  createRedisStore,
  createSqlStore,
  type IdempotencyStore,
  type SqlIdempotencyStore,
} from '@plumbline/idempotency';
import { Redis } from 'ioredis';
import { type Collections, defineCollections } from './collections.js';
import type { ServiceConfig } from './config.js';
import { createDemoCredentials, type DemoCredentials, seedDemoData } from './seed.js';
import { type Db, openPostgres, openSqlite } from './storage/db.js';
import { IDEMPOTENCY_TABLE, migrate } from './storage/migrations.js';
import { Repository } from './storage/repository.js';

export interface OAuthClientRecord {
  readonly clientId: string;
  readonly secretHash: string;
  readonly scopes: readonly string[];
}

export interface AppContext {
  readonly config: ServiceConfig;
  readonly db: Db;
  readonly repo: Repository;
  readonly redis: Redis | undefined;
  readonly collections: Collections;
  readonly issuer: Issuer;
  readonly verifier: JwtVerifier;
  readonly revocation: RevocationStore;
  readonly apiKeys: ApiKeyStore;
  readonly findClient: (clientId: string) => Promise<OAuthClientRecord | undefined>;
  /** Shared idempotency records (Redis or memory): search POSTs, and creating POSTs with IDEMPOTENCY_STORE=shared. */
  readonly idempotencyStore: IdempotencyStore;
  /** Idempotency records in the database, written in each creating POST's own transaction; undefined with IDEMPOTENCY_STORE=shared. */
  readonly transactionalIdempotencyStore: SqlIdempotencyStore | undefined;
  /** Credentials created on this start (first start of an empty database), to print once. */
  readonly demoCredentials: DemoCredentials | undefined;
  close(): Promise<void>;
}

async function connectRedis(url: string, timeouts: ServiceConfig['timeouts']): Promise<Redis> {
  // Commands fail fast while Redis is away (callers answer 503) instead of queueing for ever, and a
  // Redis that accepts commands but never answers (frozen, partitioned) fails them at
  // `commandTimeout`; the client keeps reconnecting in the background, so service resumes without a restart.
  const redis = new Redis(url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    enableAutoPipelining: true,
    connectTimeout: timeouts.redisConnectMs,
    commandTimeout: timeouts.redisCommandMs,
    retryStrategy: (times) => Math.min(times * 100, 2000),
  });
  redis.on('error', () => {});
  // Start only with Redis answering: configuration that names a Redis which is not there is an
  // operator error worth stopping for; once running, outages are answered with 503 and recovered from.
  const ready = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), 5000);
    redis.once('ready', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
  if (!ready) {
    redis.disconnect();
    throw new Error('REDIS_URL is set but Redis did not answer within 5 s');
  }
  return redis;
}

export interface ContextOptions {
  /** Prefix of every Redis key (default `plumbline:ref:`); tests give each service its own. */
  readonly redisPrefix?: string;
  /** Told once per failed fetch of the external issuer's key set (for the log). */
  readonly onKeySetError?: (event: KeySetErrorEvent) => void;
}

/** Our own access tokens live 15 minutes; older or longer-lived tokens in our name are refused. */
export const OWN_TOKEN_TTL_SEC = 900;

export async function createContext(
  config: ServiceConfig,
  options: ContextOptions = {},
): Promise<AppContext> {
  const prefix = options.redisPrefix ?? config.redisKeyPrefix;
  const { timeouts } = config;
  const db = config.databaseUrl
    ? openPostgres(config.databaseUrl, {
        timeouts: { statementMs: timeouts.databaseStatementMs, connectMs: timeouts.databaseConnectMs },
      })
    : openSqlite(config.databaseFile, { busyTimeoutMs: timeouts.databaseStatementMs });
  await migrate(db);
  const repo = new Repository(db);
  let demoCredentials: DemoCredentials | undefined;
  if (config.seedDemoData && (await seedDemoData(repo)) && config.env !== 'production') {
    demoCredentials = await createDemoCredentials(repo);
  }

  const redis = config.redisUrl ? await connectRedis(config.redisUrl, timeouts) : undefined;
  const timeoutMs = timeouts.redisCommandMs;
  const revocation: RevocationStore = redis
    ? new RedisRevocationStore({ client: redis, prefix: `${prefix}revoked:`, timeoutMs })
    : new MemoryRevocationStore();
  const issuer = await createIssuer({
    issuer: config.tokenIssuer,
    audience: config.tokenAudience,
    accessTokenTtlSec: OWN_TOKEN_TTL_SEC,
    // A reused or revoked refresh token also revokes its family's access tokens, on every instance.
    revocation,
    refreshReuseGraceSec: config.refreshReuseGraceSec,
    refreshStore: redis
      ? new RedisRefreshTokenStore({ client: redis, prefix: `{${prefix}refresh}:`, timeoutMs })
      : new MemoryRefreshTokenStore(),
    ...(config.signingKeyJwk
      ? { signingKey: { privateJwk: JSON.parse(config.signingKeyJwk) as SigningKey['privateJwk'] } }
      : {}),
  });
  const verifier = createJwtVerifier({
    issuers: [
      {
        issuer: issuer.issuer,
        audience: config.tokenAudience,
        jwks: issuer.jwks(),
        requireAccessTokenType: true,
        maxTokenAgeSec: OWN_TOKEN_TTL_SEC,
        maxLifetimeSec: OWN_TOKEN_TTL_SEC,
      },
      ...(config.externalIssuer
        ? [
            {
              issuer: config.externalIssuer.issuer,
              audience: config.externalIssuer.audience,
              jwksUri: config.externalIssuer.jwksUrl,
              maxTokenAgeSec: config.externalIssuer.maxTokenAgeSec,
              maxLifetimeSec: config.externalIssuer.maxLifetimeSec,
              requireAccessTokenType: config.externalIssuer.strictRfc9068,
            },
          ]
        : []),
    ],
    revocation,
    ...(options.onKeySetError ? { onKeySetError: options.onKeySetError } : {}),
  });
  const apiKeys: ApiKeyStore = {
    async findByHash(hash) {
      const row = await repo.findApiKey(hash);
      if (!row) return undefined;
      return {
        clientId: row.client_id,
        access: row.access === 'read' ? 'read' : 'read-write',
        revoked: Number(row.revoked) === 1,
      };
    },
  };
  const findClient = async (clientId: string): Promise<OAuthClientRecord | undefined> => {
    const row = await repo.findClient(clientId);
    return (
      row && {
        clientId: row.client_id,
        secretHash: row.secret_hash,
        scopes: row.scopes.split(' ').filter(Boolean),
      }
    );
  };
  const idempotencyStore = redis
    ? createRedisStore({ client: redis, prefix: `${prefix}idem:`, timeoutMs })
    : createMemoryStore({});
  const transactionalIdempotencyStore =
    config.idempotencyStore === 'database'
      ? createSqlStore({ dialect: db.dialect, table: IDEMPOTENCY_TABLE })
      : undefined;
  // Expired records are deleted when their key comes again; this sweeps out the rest.
  const purge = transactionalIdempotencyStore
    ? setInterval(
        () =>
          void transactionalIdempotencyStore
            .purgeExpired((sql, params) => db.allNative(sql, params))
            .catch(() => {}),
        60 * 60 * 1000,
      ).unref()
    : undefined;

  return {
    config,
    db,
    repo,
    redis,
    collections: defineCollections(config.cursorSecret),
    issuer,
    verifier,
    revocation,
    apiKeys,
    findClient,
    idempotencyStore,
    transactionalIdempotencyStore,
    demoCredentials,
    async close() {
      clearInterval(purge);
      await Promise.allSettled([db.close(), redis?.quit()]);
    },
  };
}
