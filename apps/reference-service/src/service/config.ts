/**
 * Service configuration from environment variables, validated once at start: a bad value stops the
 * process with a message naming the variable. `--help` prints {@link CONFIG_HELP}.
 */
import { createCors } from '@plumbline/cors';
import { isProxyEntry, PROXY_RANGE_NAMES, type ProxyTrust } from './client-address.js';

/**
 * The HTTP frameworks the service can run on (`FRAMEWORK`); each has one wiring (listener.ts). The
 * first is the default. `pnpm template <framework>` rewrites this line to keep only that one.
 */
const FRAMEWORKS = ['express', 'fastify', 'hono'] as const;
export type Framework = (typeof FRAMEWORKS)[number];

export interface ServiceConfig {
  /** The HTTP framework the routes run on (`FRAMEWORK`, default the first of FRAMEWORKS); everything else is shared. */
  readonly framework: Framework;
  readonly port: number;
  readonly host: string;
  /** `development` (default) or `production`: production never prints demo credentials and never exempts loopback from HTTPS. */
  readonly env: 'development' | 'production' | 'test';
  /** SQLite file (`:memory:` by default); ignored when `databaseUrl` is set. */
  readonly databaseFile: string;
  readonly databaseUrl: string | undefined;
  readonly redisUrl: string | undefined;
  /** Seed nodes of a Redis Cluster (`REDIS_CLUSTER_NODES`); exclusive with `redisUrl`. */
  readonly redisClusterNodes: readonly { readonly host: string; readonly port: number }[] | undefined;
  /** Prefix of every Redis key the service writes, so services can share one Redis. */
  readonly redisKeyPrefix: string;
  /** Seed demo projects and credentials into an empty database. */
  readonly seedDemoData: boolean;
  /** Answer 428 to PUT, PATCH and DELETE on an existing member without If-Match or If-Unmodified-Since (docs/design.md#d-conditional). */
  readonly requirePreconditions: boolean;
  /** `iss` of the tokens this service issues, and the audience it issues them for. */
  readonly tokenIssuer: string;
  readonly tokenAudience: string;
  /** Private signing key (JWK JSON) shared by every instance; generated per process when absent. */
  readonly signingKeyJwk: string | undefined;
  /** An external issuer trusted in addition to our own, with its age/lifetime limits and RFC 9068 strictness. */
  readonly externalIssuer:
    | {
        issuer: string;
        audience: string;
        jwksUrl: string;
        maxTokenAgeSec: number;
        maxLifetimeSec: number;
        strictRfc9068: boolean;
        /**
         * The authorization code flow the `/docs` page runs against this issuer (`AUTH_AUTHORIZATION_URL`,
         * `AUTH_TOKEN_URL`, `AUTH_DOCS_CLIENT_ID`): PKCE S256 as a public client; `undefined`: not offered.
         */
        codeFlow: { authorizationUrl: string; tokenUrl: string; clientId: string } | undefined;
      }
    | undefined;
  /** Seconds in which the first retry of a just-rotated refresh token gets the same successor; 0 = off. */
  readonly refreshReuseGraceSec: number;
  /** Key that signs pagination cursors (>= 32 bytes), shared by all instances; random per process when unset. */
  readonly cursorSecret: string | undefined;
  readonly rateLimitPerMinute: number;
  readonly bodyLimitBytes: number;
  /** Origins whose browser apps may call the API and read its headers (`CORS_ORIGINS`); `undefined`: no CORS. */
  readonly corsOrigins: readonly string[] | undefined;
  /**
   * Keys that seal the same-site session cookie (`SESSION_KEYS`): the first seals, all open;
   * `undefined`: no session cookie (`/session` answers 404, the API takes no cookie).
   */
  readonly sessionKeys: readonly { readonly kid: string; readonly key: Uint8Array }[] | undefined;
  /**
   * Which peers are proxies whose `X-Forwarded-For` and `X-Forwarded-Proto` are believed
   * (`TRUST_PROXY`): how many there are, or their addresses; `{ hops: 0 }` (default) trusts none.
   */
  readonly trustProxy: ProxyTrust;
  readonly tls: { certFile: string; keyFile: string } | undefined;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  readonly shutdownGraceMs: number;
  /** Deadlines on every dependency call (ms): past them the request gets 503 with `Retry-After`. */
  readonly timeouts: {
    /** One Redis command (ioredis `commandTimeout`, the idempotency, revocation and refresh stores). */
    readonly redisCommandMs: number;
    /** Establishing a Redis connection. */
    readonly redisConnectMs: number;
    /** One SQL statement: PostgreSQL `statement_timeout` and the client-side read timeout; SQLite `busy_timeout`. */
    readonly databaseStatementMs: number;
    /** Getting a PostgreSQL connection: connecting, or waiting for a free one in the pool. */
    readonly databaseConnectMs: number;
  };
  /** Most PostgreSQL connections one instance holds (its pg pool size). */
  readonly databasePoolSize: number;
  /** Where POSTs with an Idempotency-Key on SQL-backed writes keep their records: in the same database transaction (default), or the shared store (Redis or memory). */
  readonly idempotencyStore: 'database' | 'shared';
  /** How long an in-flight idempotency claim in the shared store blocks a retry before it can be taken over. */
  readonly idempotencyLeaseMs: number;
  /** Where clients put the API version (docs/design.md#d-versioning): `/v2/...` (default), `?version=2`, `X-API-Version: 2` or `Accept: application/vnd.plumbline.v2+json`. */
  readonly versioningStrategy: VersioningStrategy;
}

/** The four ways of carrying the API version (docs/conventions.md#s-9). */
const VERSIONING_STRATEGIES = ['path', 'query', 'header', 'media-type'] as const;
export type VersioningStrategy = (typeof VERSIONING_STRATEGIES)[number];

/** The oldest Node.js the service runs on: node:sqlite is built in, without a flag, from 22.13. */
const MIN_NODE = '22.13.0';

/**
 * Why the service cannot run on this Node.js version (`process.versions.node`), or undefined when it can.
 */
export function unsupportedNode(version: string): string | undefined {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const [minMajor = 0, minMinor = 0] = MIN_NODE.split('.').map(Number);
  if (major > minMajor || (major === minMajor && minor >= minMinor)) return undefined;
  return `The Plumbline reference service needs Node.js ${MIN_NODE} or newer (it stores data with the built-in node:sqlite); this is Node.js ${version}. In the repository, \`npx -y pnpm@10 start\` runs it on the workspace's own Node.js 24, whatever Node.js the machine has.`;
}

/** Thrown when an environment variable has an invalid value; the message names it. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** One row per variable: name, default, meaning. */
const CONFIG_HELP: readonly (readonly [string, string, string])[] = [
  [
    'FRAMEWORK',
    FRAMEWORKS[0],
    `the HTTP framework the routes run on: ${FRAMEWORKS.join(' | ')}; storage, domain, documents and answers are the same on each`,
  ],
  ['PORT', '3000', 'TCP port to listen on (0-65535; 0 picks a free port)'],
  ['HOST', '127.0.0.1', 'interface to bind (0.0.0.0 for all interfaces)'],
  [
    'NODE_ENV',
    'development',
    'development | production | test; production prints no demo credentials and requires HTTPS even on loopback',
  ],
  ['DATABASE_URL', '(unset)', 'PostgreSQL connection string; when unset, SQLite is used'],
  ['DATABASE_FILE', ':memory:', 'SQLite database file (in-memory by default, seeded with demo data)'],
  [
    'SEED_DEMO_DATA',
    'true',
    'seed demo projects, tasks and credentials into an empty database (true | false)',
  ],
  [
    'REQUIRE_PRECONDITIONS',
    'false',
    'true: PUT, PATCH and DELETE on an existing member without If-Match or If-Unmodified-Since get 428 precondition_required (true | false)',
  ],
  [
    'REDIS_URL',
    '(unset)',
    'Redis for idempotency keys, revocation, refresh-token families and rate limits shared by instances; in memory when unset',
  ],
  [
    'REDIS_CLUSTER_NODES',
    '(unset)',
    'Redis Cluster instead of REDIS_URL: seed nodes as host:port,host:port (any masters; the rest are discovered); not together with REDIS_URL',
  ],
  [
    'REDIS_KEY_PREFIX',
    'plumbline:ref:',
    'prefix of every Redis key this service writes (letters, digits, : _ - .)',
  ],
  ['TOKEN_ISSUER', 'plumbline-reference', 'iss claim of the access tokens this service issues'],
  ['TOKEN_AUDIENCE', 'plumbline-api', 'aud claim of the access tokens this service issues and accepts'],
  [
    'SIGNING_KEY_JWK',
    '(generated)',
    'private ES256 key as a JWK JSON string, shared by all instances; a new key per process when unset',
  ],
  [
    'AUTH_ISSUER',
    '(unset)',
    'an external token issuer to trust in addition (needs AUTH_AUDIENCE and AUTH_JWKS_URL)',
  ],
  ['AUTH_AUDIENCE', '(unset)', 'audience expected in tokens of AUTH_ISSUER'],
  ['AUTH_JWKS_URL', '(unset)', 'JWKS URL of AUTH_ISSUER'],
  [
    'AUTH_MAX_TOKEN_AGE_SEC',
    '86400',
    'oldest accepted AUTH_ISSUER token, seconds since its iat (tokens without iat are refused); our own tokens: 900',
  ],
  [
    'AUTH_MAX_TOKEN_LIFETIME_SEC',
    '86400',
    'longest accepted AUTH_ISSUER token lifetime (exp - iat) in seconds; our own tokens: 900',
  ],
  [
    'AUTH_STRICT_RFC9068',
    'false',
    'RFC 9068 strict mode for AUTH_ISSUER: typ at+jwt and iat, jti, sub, client_id required (true | false); always on for our own tokens',
  ],
  [
    'AUTH_AUTHORIZATION_URL',
    '(unset)',
    'authorization endpoint of AUTH_ISSUER (authorization_endpoint of its discovery document): /docs offers the authorization code flow with PKCE; needs AUTH_TOKEN_URL and AUTH_DOCS_CLIENT_ID (https; http only on loopback)',
  ],
  [
    'AUTH_TOKEN_URL',
    '(unset)',
    'token endpoint of AUTH_ISSUER (token_endpoint of its discovery document), which /docs calls from the browser for the code and for refreshes',
  ],
  [
    'AUTH_DOCS_CLIENT_ID',
    '(unset)',
    'client_id of the public client (no secret, PKCE S256) registered at AUTH_ISSUER for /docs; its redirect URI is <service origin>/docs/assets/oauth2-redirect.html',
  ],
  [
    'REFRESH_REUSE_GRACE_SEC',
    '0',
    'a just-rotated refresh token retried within this many seconds (once) gets the same successor instead of revoking the family; 0 = off',
  ],
  [
    'CURSOR_SECRET',
    '(random)',
    'key (at least 32 bytes) that signs pagination cursors, shared by all instances; random per process when unset',
  ],
  ['RATE_LIMIT_PER_MINUTE', '300', 'requests per minute per principal (per IP when anonymous)'],
  ['BODY_LIMIT_BYTES', '1048576', 'largest accepted request body; larger ones get 413'],
  [
    'CORS_ORIGINS',
    '(unset: no CORS headers)',
    'origins whose browser apps may call the API and read its headers, comma-separated, exactly as browsers send them (https://app.example.com,http://localhost:5173), or * for any origin; credentials travel in headers, not cookies',
  ],
  [
    'SESSION_KEYS',
    '(unset: no session cookie)',
    'keys that seal the same-site session cookie (POST /session), comma-separated kid:key with key 32 random bytes in base64url (2026-11:<43 characters>); the first seals, every listed one opens; put a new key first to rotate',
  ],
  [
    'TRUST_PROXY',
    'false',
    'the proxies in front, whose X-Forwarded-For and X-Forwarded-Proto are believed: false (none; the socket peer is the client) | their number (1: the peer is the one proxy, the last X-Forwarded-For entry the client) | their addresses and CIDR ranges, comma-separated (10.0.0.0/8,::1/128; also loopback, linklocal, uniquelocal); the client is the first address from the right that is not a trusted proxy',
  ],
  [
    'TLS_CERT_FILE',
    '(unset)',
    'PEM certificate: serve HTTPS (with HSTS) instead of HTTP; needs TLS_KEY_FILE',
  ],
  ['TLS_KEY_FILE', '(unset)', 'PEM private key for TLS_CERT_FILE'],
  ['LOG_LEVEL', 'info', 'fatal | error | warn | info | debug | trace | silent'],
  [
    'OTEL_EXPORTER_OTLP_ENDPOINT',
    '(unset: no OpenTelemetry SDK)',
    'OTLP/HTTP collector to export traces and metrics to (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT / _METRICS_ENDPOINT); the standard OTEL_* variables apply: OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, OTEL_EXPORTER_OTLP_PROTOCOL (http/protobuf | http/json), OTEL_TRACES_SAMPLER, OTEL_BSP_*, OTEL_METRIC_EXPORT_INTERVAL, OTEL_PROPAGATORS, OTEL_SDK_DISABLED',
  ],
  ['SHUTDOWN_GRACE_MS', '10000', 'how long in-flight requests may finish after SIGTERM'],
  [
    'REDIS_COMMAND_TIMEOUT_MS',
    '1000',
    'deadline of one Redis command; past it the request gets 503 with Retry-After (the rate limiter counts locally instead)',
  ],
  ['REDIS_CONNECT_TIMEOUT_MS', '2000', 'deadline for establishing a Redis connection'],
  [
    'DATABASE_STATEMENT_TIMEOUT_MS',
    '5000',
    'deadline of one SQL statement (PostgreSQL statement_timeout and client read timeout; SQLite busy_timeout); past it 503',
  ],
  [
    'DATABASE_CONNECT_TIMEOUT_MS',
    '2000',
    'deadline for getting a PostgreSQL connection (connecting, or waiting for a free pooled one); past it 503',
  ],
  [
    'DATABASE_POOL_SIZE',
    '10',
    'most PostgreSQL connections one instance holds; a request waiting longer than DATABASE_CONNECT_TIMEOUT_MS for one gets 503',
  ],
  [
    'IDEMPOTENCY_STORE',
    'database',
    'database: idempotency records of creating POSTs are written in the same transaction as the row (survives a crash); shared: in Redis (or memory)',
  ],
  [
    'IDEMPOTENCY_LEASE_MS',
    '60000',
    'how long an in-flight key in the shared store (Redis or memory) blocks retries before a retry may take it over',
  ],
  [
    'VERSIONING_STRATEGY',
    'path',
    'where clients name the API version: path (/v2/projects) | query (/projects?version=2) | header (X-API-Version: 2) | media-type (Accept: application/vnd.plumbline.v2+json); without one, query, header and media-type serve v2',
  ],
];

type Env = Readonly<Record<string, string | undefined>>;

function read(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function oneOf<T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if ((values as readonly string[]).includes(raw)) return raw as T;
  throw new ConfigError(`${name} must be one of ${values.join(', ')}, got "${raw}"`);
}

function url(env: Env, name: string, protocols: readonly string[]): string | undefined {
  const raw = read(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL, got "${raw.replace(/\/\/[^@/]*@/, '//***@')}"`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
  }
  return raw;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The code flow of `/docs` (AUTH_AUTHORIZATION_URL, AUTH_TOKEN_URL, AUTH_DOCS_CLIENT_ID): all three
 * or none, only with AUTH_ISSUER; the endpoints over https (http only on loopback), since the browser
 * sends the code and the refresh token there.
 */
function codeFlow(
  env: Env,
  issuer: string | undefined,
): NonNullable<ServiceConfig['externalIssuer']>['codeFlow'] {
  const names = ['AUTH_AUTHORIZATION_URL', 'AUTH_TOKEN_URL', 'AUTH_DOCS_CLIENT_ID'] as const;
  const given = names.filter((name) => read(env, name) !== undefined);
  if (given.length === 0) return undefined;
  if (given.length < names.length) {
    throw new ConfigError(
      'AUTH_AUTHORIZATION_URL, AUTH_TOKEN_URL and AUTH_DOCS_CLIENT_ID must be set together',
    );
  }
  if (issuer === undefined) {
    throw new ConfigError('AUTH_AUTHORIZATION_URL, AUTH_TOKEN_URL and AUTH_DOCS_CLIENT_ID need AUTH_ISSUER');
  }
  const [authorizationUrl, tokenUrl] = (['AUTH_AUTHORIZATION_URL', 'AUTH_TOKEN_URL'] as const).map((name) => {
    const value = url(env, name, ['https:', 'http:'])!;
    const parsed = new URL(value);
    if (parsed.protocol === 'http:' && !LOOPBACK_HOSTS.has(parsed.hostname)) {
      throw new ConfigError(`${name} must use https (http only on loopback), got "${parsed.origin}"`);
    }
    return value;
  }) as [string, string];
  const clientId = read(env, 'AUTH_DOCS_CLIENT_ID')!;
  if (!/^[\x21-\x7e]{1,255}$/.test(clientId)) {
    throw new ConfigError('AUTH_DOCS_CLIENT_ID must be 1-255 visible ASCII characters');
  }
  return { authorizationUrl, tokenUrl, clientId };
}

function redisKeyPrefix(env: Env): string {
  const raw = read(env, 'REDIS_KEY_PREFIX') ?? 'plumbline:ref:';
  if (!/^[A-Za-z0-9:_.-]{1,64}$/.test(raw)) {
    throw new ConfigError(
      `REDIS_KEY_PREFIX must be 1-64 of letters, digits, ':', '_', '-', '.', got "${raw}"`,
    );
  }
  return raw;
}

function redisClusterNodes(env: Env): { host: string; port: number }[] | undefined {
  const raw = read(env, 'REDIS_CLUSTER_NODES');
  if (raw === undefined) return undefined;
  if (read(env, 'REDIS_URL') !== undefined) {
    throw new ConfigError('REDIS_URL and REDIS_CLUSTER_NODES are exclusive: set one of them');
  }
  return raw.split(',').map((entry) => {
    const node = entry.trim();
    // host:port, or [IPv6]:port
    const match = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(node);
    const port = Number(match?.[2]);
    if (!match?.[1] || !(port >= 1 && port <= 65535)) {
      throw new ConfigError(
        `REDIS_CLUSTER_NODES must be host:port entries separated by commas, got "${node}"`,
      );
    }
    return { host: match[1].replace(/^\[|\]$/g, ''), port };
  });
}

/** The largest hop count TRUST_PROXY takes. */
const MAX_PROXY_HOPS = 32;

/**
 * TRUST_PROXY: `false`, a hop count, or a list of proxy addresses, CIDR ranges and names. `true`
 * is refused: it used to believe the left-most X-Forwarded-For entry, which the client writes.
 */
function trustProxy(env: Env): ProxyTrust {
  const raw = read(env, 'TRUST_PROXY');
  if (raw === undefined || raw === 'false') return { hops: 0 };
  if (raw.toLowerCase() === 'true') {
    throw new ConfigError(
      'TRUST_PROXY=true is not accepted: it would believe whatever a client writes at the left of X-Forwarded-For. ' +
        'Write how many proxies are in front (TRUST_PROXY=1 for one load balancer) or their addresses (TRUST_PROXY=10.0.0.0/8 or TRUST_PROXY=loopback)',
    );
  }
  if (/^\d+$/.test(raw)) {
    if (Number(raw) > MAX_PROXY_HOPS) {
      throw new ConfigError(
        `TRUST_PROXY as a number of proxies must be from 0 to ${MAX_PROXY_HOPS}, got "${raw}"`,
      );
    }
    return { hops: Number(raw) };
  }
  const proxies = raw.split(',').map((entry) => entry.trim());
  const bad = proxies.find((entry) => !isProxyEntry(entry));
  if (bad !== undefined) {
    throw new ConfigError(
      `TRUST_PROXY must be false, a number of proxies (0-${MAX_PROXY_HOPS}), or proxy addresses and CIDR ranges separated by commas ` +
        `(10.0.0.0/8,::1/128; names: ${Object.keys(PROXY_RANGE_NAMES).join(', ')}), got "${raw}"${proxies.length > 1 ? ` ("${bad}" is none of those)` : ''}`,
    );
  }
  return { proxies };
}

/** `*` alone allows every origin; otherwise the list of exact origins (CORS_ORIGINS). */
export function corsOrigins(origins: readonly string[]): '*' | readonly string[] {
  return origins.length === 1 && origins[0] === '*' ? '*' : origins;
}

/** CORS_ORIGINS: a comma-separated list checked by @plumbline/cors at start-up (a typo stops the service). */
function corsOriginList(env: Env): readonly string[] | undefined {
  const raw = read(env, 'CORS_ORIGINS');
  if (raw === undefined) return undefined;
  const origins = raw.split(',').map((origin) => origin.trim());
  try {
    createCors({ origins: corsOrigins(origins) });
  } catch (error) {
    throw new ConfigError(`CORS_ORIGINS: ${(error as Error).message}`);
  }
  return origins;
}

const SESSION_KEY_BYTES = 32;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** SESSION_KEYS: comma-separated `kid:key`, the key 32 bytes in unpadded base64url; unset: no session cookie. */
function sessionKeys(env: Env): ServiceConfig['sessionKeys'] {
  const raw = read(env, 'SESSION_KEYS');
  if (raw === undefined) return undefined;
  const kids = new Set<string>();
  return raw.split(',').map((entry, index) => {
    const colon = entry.indexOf(':');
    const kid = entry.slice(0, colon).trim();
    const encoded = entry.slice(colon + 1).trim();
    if (colon < 1 || kid === '' || encoded === '') {
      throw new ConfigError(
        `SESSION_KEYS entry ${index + 1} must be kid:key (a key id, a colon, 32 bytes in base64url)`,
      );
    }
    if (!BASE64URL.test(kid)) {
      throw new ConfigError(`SESSION_KEYS entry ${index + 1}: the key id may hold only A-Z a-z 0-9 - _`);
    }
    if (kids.has(kid)) throw new ConfigError(`SESSION_KEYS names the key id "${kid}" twice`);
    kids.add(kid);
    const key = BASE64URL.test(encoded) ? Buffer.from(encoded, 'base64url') : undefined;
    if (!key || key.toString('base64url') !== encoded) {
      throw new ConfigError(`SESSION_KEYS key "${kid}" is not unpadded base64url`);
    }
    if (key.byteLength !== SESSION_KEY_BYTES) {
      throw new ConfigError(
        `SESSION_KEYS key "${kid}" must be 32 bytes, got ${key.byteLength} (generate one with: node -e "console.log(crypto.randomBytes(32).toString('base64url'))")`,
      );
    }
    return { kid, key: new Uint8Array(key) };
  });
}

function cursorSecret(env: Env): string | undefined {
  const raw = read(env, 'CURSOR_SECRET');
  if (raw !== undefined && Buffer.byteLength(raw) < 32) {
    throw new ConfigError('CURSOR_SECRET must be at least 32 bytes long');
  }
  return raw;
}

/** Reads and validates the configuration; throws {@link ConfigError} naming the bad variable. */
export function loadConfig(env: Env = process.env): ServiceConfig {
  const mode = oneOf(env, 'NODE_ENV', ['development', 'production', 'test'] as const, 'development');
  const externalParts = ['AUTH_ISSUER', 'AUTH_AUDIENCE', 'AUTH_JWKS_URL'].map((name) => read(env, name));
  if (externalParts.some((p) => p !== undefined) && externalParts.some((p) => p === undefined)) {
    throw new ConfigError('AUTH_ISSUER, AUTH_AUDIENCE and AUTH_JWKS_URL must be set together');
  }
  const jwksUrl = url(env, 'AUTH_JWKS_URL', ['https:', 'http:']);
  const docsCodeFlow = codeFlow(env, externalParts[0]);
  const cert = read(env, 'TLS_CERT_FILE');
  const key = read(env, 'TLS_KEY_FILE');
  if ((cert === undefined) !== (key === undefined)) {
    throw new ConfigError('TLS_CERT_FILE and TLS_KEY_FILE must be set together');
  }
  const signingKeyJwk = read(env, 'SIGNING_KEY_JWK');
  if (signingKeyJwk !== undefined) {
    let jwk: unknown;
    try {
      jwk = JSON.parse(signingKeyJwk);
    } catch {
      throw new ConfigError('SIGNING_KEY_JWK must be a JSON object (a private EC P-256 JWK)');
    }
    const k = jwk as Record<string, unknown>;
    if (
      typeof jwk !== 'object' ||
      jwk === null ||
      k['kty'] !== 'EC' ||
      k['crv'] !== 'P-256' ||
      typeof k['d'] !== 'string'
    ) {
      throw new ConfigError(
        'SIGNING_KEY_JWK must be a private EC P-256 JWK (kty "EC", crv "P-256", with "d")',
      );
    }
  }
  return {
    port: integer(env, 'PORT', 3000, 0, 65535),
    host: read(env, 'HOST') ?? '127.0.0.1',
    env: mode,
    databaseFile: read(env, 'DATABASE_FILE') ?? ':memory:',
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    redisClusterNodes: redisClusterNodes(env),
    redisKeyPrefix: redisKeyPrefix(env),
    seedDemoData: boolean(env, 'SEED_DEMO_DATA', true),
    requirePreconditions: boolean(env, 'REQUIRE_PRECONDITIONS', false),
    tokenIssuer: read(env, 'TOKEN_ISSUER') ?? 'plumbline-reference',
    tokenAudience: read(env, 'TOKEN_AUDIENCE') ?? 'plumbline-api',
    signingKeyJwk,
    externalIssuer:
      externalParts[0] && externalParts[1] && jwksUrl
        ? {
            issuer: externalParts[0],
            audience: externalParts[1],
            jwksUrl,
            maxTokenAgeSec: integer(env, 'AUTH_MAX_TOKEN_AGE_SEC', 86_400, 1, 31_536_000),
            maxLifetimeSec: integer(env, 'AUTH_MAX_TOKEN_LIFETIME_SEC', 86_400, 1, 31_536_000),
            strictRfc9068: boolean(env, 'AUTH_STRICT_RFC9068', false),
            codeFlow: docsCodeFlow,
          }
        : undefined,
    refreshReuseGraceSec: integer(env, 'REFRESH_REUSE_GRACE_SEC', 0, 0, 300),
    cursorSecret: cursorSecret(env),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 300, 1, 1_000_000),
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 1_048_576, 1, 100 * 1_048_576),
    corsOrigins: corsOriginList(env),
    sessionKeys: sessionKeys(env),
    trustProxy: trustProxy(env),
    tls: cert && key ? { certFile: cert, keyFile: key } : undefined,
    logLevel: oneOf(
      env,
      'LOG_LEVEL',
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const,
      'info',
    ),
    shutdownGraceMs: integer(env, 'SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
    timeouts: {
      redisCommandMs: integer(env, 'REDIS_COMMAND_TIMEOUT_MS', 1000, 10, 600_000),
      redisConnectMs: integer(env, 'REDIS_CONNECT_TIMEOUT_MS', 2000, 10, 600_000),
      databaseStatementMs: integer(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 5000, 10, 600_000),
      databaseConnectMs: integer(env, 'DATABASE_CONNECT_TIMEOUT_MS', 2000, 10, 600_000),
    },
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 1000),
    idempotencyStore: oneOf(env, 'IDEMPOTENCY_STORE', ['database', 'shared'] as const, 'database'),
    idempotencyLeaseMs: integer(env, 'IDEMPOTENCY_LEASE_MS', 60_000, 100, 86_400_000),
    versioningStrategy: oneOf(env, 'VERSIONING_STRATEGY', VERSIONING_STRATEGIES, 'path'),
    framework: oneOf(env, 'FRAMEWORK', FRAMEWORKS, FRAMEWORKS[0]),
  };
}

/** The `--help` text. */
export function helpText(): string {
  const width = Math.max(...CONFIG_HELP.map(([name]) => name.length));
  const rows = CONFIG_HELP.map(([name, def, text]) => `  ${name.padEnd(width)}  ${text} (default: ${def})`);
  return [
    'Plumbline reference service',
    '',
    'Usage: pnpm start   (or: node apps/reference-service/dist/main.mjs [--help])',
    '',
    'Environment variables:',
    ...rows,
    '',
  ].join('\n');
}
