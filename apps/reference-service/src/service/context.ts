/**
 * Everything the app needs at run time, built once from the configuration: the database and its
 * repository, the shared state (Redis when REDIS_URL is set, a Redis Cluster when REDIS_CLUSTER_NODES
 * is, memory otherwise), the token issuer and
 * verifier, and the collections. `close()` releases it all (graceful shutdown).
 */
import {
  type ApiKeyStore,
  type AuthenticateOptions,
  createJwtVerifier,
  createSessionCookie,
  createSessionSealer,
  type JwtVerifier,
  type KeySetErrorEvent,
  MemoryRevocationStore,
  RedisRevocationStore,
  type RevocationStore,
  type SessionCookie,
  type SessionSealer,
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
import { Cluster, Redis } from 'ioredis';
import { type Collections, defineCollections } from '../domain/collections.js';
import { type Db, openPostgres, openSqlite } from '../storage/db.js';
import { IDEMPOTENCY_TABLE, migrate } from '../storage/migrations.js';
import { Repository } from '../storage/repository.js';
import type { ServiceConfig } from './config.js';
import { createDemoCredentials, type DemoCredentials, seedDemoData } from './seed.js';
import { tracesEnabled } from './telemetry.js';
import { type ApiStrategy, apiStrategy } from './versioning.js';

interface OAuthClientRecord {
  readonly clientId: string;
  readonly secretHash: string;
  readonly scopes: readonly string[];
}

export interface AppContext {
  readonly config: ServiceConfig;
  /**
   * The versioning under `VERSIONING_STRATEGY` (policy, link shapes, media types), built once here:
   * every wiring and route reads this one instead of deriving its own from the configuration.
   */
  readonly api: ApiStrategy;
  readonly db: Db;
  readonly repo: Repository;
  /** The shared Redis: one node (`REDIS_URL`) or a Cluster (`REDIS_CLUSTER_NODES`); every Redis-backed part uses it. */
  readonly redis: Redis | Cluster | undefined;
  readonly collections: Collections;
  readonly issuer: Issuer;
  readonly verifier: JwtVerifier;
  readonly revocation: RevocationStore;
  readonly apiKeys: ApiKeyStore;
  /**
   * The same-site session cookie when `SESSION_KEYS` is set: the options every wiring passes to
   * `authenticate({ cookie })` (sealed with those keys, revoked on the verifier's revocation list,
   * CSRF-checked with `CORS_ORIGINS` as the origins allowed without fetch metadata); undefined: off.
   */
  readonly session:
    | {
        readonly sealer: SessionSealer;
        readonly cookie: SessionCookie;
        readonly revocation: RevocationStore;
        readonly authenticate: NonNullable<AuthenticateOptions['cookie']>;
      }
    | undefined;
  readonly findClient: (clientId: string) => Promise<OAuthClientRecord | undefined>;
  /** Shared idempotency records (Redis or memory): search POSTs, and creating POSTs with IDEMPOTENCY_STORE=shared. */
  readonly idempotencyStore: IdempotencyStore;
  /** Idempotency records in the database, written in each creating POST's own transaction; undefined with IDEMPOTENCY_STORE=shared. */
  readonly transactionalIdempotencyStore: SqlIdempotencyStore | undefined;
  /** Credentials created on this start (first start of an empty database), to print once. */
  readonly demoCredentials: DemoCredentials | undefined;
  close(): Promise<void>;
}

/** The versioned API's credentials: API keys, bearer tokens, and the session cookie when `SESSION_KEYS` is set. */
export function apiAuthentication(ctx: AppContext): AuthenticateOptions {
  return {
    apiKeys: { store: ctx.apiKeys },
    jwt: ctx.verifier,
    ...(ctx.session ? { cookie: ctx.session.authenticate } : {}),
  };
}

/** Resolves once the client is `ready`; false after `ms`. */
function whenReady(client: Redis | Cluster, ms: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    client.once('ready', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

async function connectRedis(config: ServiceConfig): Promise<Redis | Cluster | undefined> {
  const { timeouts } = config;
  // Commands fail fast while Redis is away (callers answer 503) instead of queueing for ever, and a
  // Redis that accepts commands but never answers (frozen, partitioned) fails them at
  // `commandTimeout`; the client keeps reconnecting in the background, so service resumes without a restart.
  // Auto-pipelining sends a command that arrives while an earlier pipeline waits for Redis from that
  // pipeline's callback, so with tracing on, instrumentation-ioredis would hang its span under the
  // earlier request's trace (seen in the telemetry system test: a stalled request's commands recorded
  // under the token request before it). Traced, each command is sent from its own request.
  const autoPipelining = !tracesEnabled();
  const nodeOptions = {
    maxRetriesPerRequest: 1,
    connectTimeout: timeouts.redisConnectMs,
    commandTimeout: timeouts.redisCommandMs,
  };
  let client: Redis | Cluster;
  let name: string;
  if (config.redisClusterNodes) {
    name = 'REDIS_CLUSTER_NODES';
    // A master that is down fails only the commands for its slots (the stores answer 503 for those);
    // the client refreshes the slot map in the background and uses the node again once it is back.
    client = new Cluster([...config.redisClusterNodes], {
      enableOfflineQueue: false,
      enableAutoPipelining: autoPipelining,
      clusterRetryStrategy: (times) => Math.min(times * 100, 2000),
      retryDelayOnFailover: 100,
      retryDelayOnClusterDown: 100,
      maxRedirections: 4,
      slotsRefreshTimeout: timeouts.redisConnectMs,
      slotsRefreshInterval: 5000,
      redisOptions: nodeOptions,
    });
    // The Cluster refuses a command for a node whose connection is still being made (no offline
    // queue: a dead cluster must not pile up commands), so connect to every node as soon as it is known
    // instead of on its first command.
    client.on('+node', (node: Redis) => {
      if (node.status === 'wait') node.connect().catch(() => {});
    });
  } else if (config.redisUrl) {
    name = 'REDIS_URL';
    client = new Redis(config.redisUrl, {
      ...nodeOptions,
      enableOfflineQueue: false,
      enableAutoPipelining: autoPipelining,
      retryStrategy: (times) => Math.min(times * 100, 2000),
    });
  } else {
    return undefined;
  }
  client.on('error', () => {});
  // Start only with Redis answering: configuration that names a Redis which is not there is an
  // operator error worth stopping for; once running, outages are answered with 503 and recovered from.
  if (!(await whenReady(client, 5000))) {
    client.disconnect();
    throw new Error(`${name} is set but Redis did not answer within 5 s`);
  }
  if (client instanceof Cluster) {
    // Every master connected before the first request (see '+node' above); one that is down is retried later.
    await Promise.allSettled(
      client.nodes('master').map((node) => (node.status === 'ready' ? undefined : whenReady(node, 2000))),
    );
  }
  return client;
}

export interface ContextOptions {
  /** Prefix of every Redis key (default `plumbline:ref:`); tests give each service its own. */
  readonly redisPrefix?: string;
  /** Told once per failed fetch of the external issuer's key set (for the log). */
  readonly onKeySetError?: (event: KeySetErrorEvent) => void;
}

/** Our own access tokens live 15 minutes; older or longer-lived tokens in our name are refused. */
const OWN_TOKEN_TTL_SEC = 900;

export async function createContext(
  config: ServiceConfig,
  options: ContextOptions = {},
): Promise<AppContext> {
  const prefix = options.redisPrefix ?? config.redisKeyPrefix;
  const { timeouts } = config;
  const db = config.databaseUrl
    ? openPostgres(config.databaseUrl, {
        max: config.databasePoolSize,
        timeouts: { statementMs: timeouts.databaseStatementMs, connectMs: timeouts.databaseConnectMs },
      })
    : openSqlite(config.databaseFile, { busyTimeoutMs: timeouts.databaseStatementMs });
  await migrate(db);
  const repo = new Repository(db);
  let demoCredentials: DemoCredentials | undefined;
  if (config.seedDemoData && (await seedDemoData(repo)) && config.env !== 'production') {
    demoCredentials = await createDemoCredentials(repo);
  }

  const redis = await connectRedis(config);
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
  const sealer = config.sessionKeys ? createSessionSealer({ keys: config.sessionKeys }) : undefined;
  const session: AppContext['session'] = sealer && {
    sealer,
    cookie: createSessionCookie(),
    revocation,
    authenticate: {
      sealer,
      revocation,
      // A browser without fetch metadata is believed only from an origin CORS_ORIGINS lists by name.
      ...(config.corsOrigins && !config.corsOrigins.includes('*')
        ? { csrf: { origins: config.corsOrigins } }
        : {}),
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
    api: apiStrategy(config.versioningStrategy),
    db,
    repo,
    redis,
    collections: defineCollections(config.cursorSecret),
    issuer,
    verifier,
    revocation,
    apiKeys,
    session,
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
