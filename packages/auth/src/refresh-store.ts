import { randomUUID } from 'node:crypto';
import { failClosed, type RedisClient, type RedisStoreOptions } from './revocation.js';

/**
 * What a refresh token family grants; fixed for the family's life.
 *
 * @example
 * ```ts
 * const grant: RefreshGrant = { clientId: 'cli', subject: 'cli', scopes: ['read:projects', 'offline_access'] };
 * ```
 */
export interface RefreshGrant {
  readonly clientId: string;
  readonly subject?: string;
  readonly scopes: readonly string[];
}

/**
 * An access token issued from a refresh token family: revoked with the family when a refresh token
 * is reused or revoked. `exp` is in seconds.
 *
 * @example
 * ```ts
 * const ref: AccessTokenRef = { jti: '5d1c…', exp: 1_900_000_000 };
 * ```
 */
export interface AccessTokenRef {
  readonly jti: string;
  readonly exp: number;
}

/**
 * Outcome of {@link RefreshTokenStore.rotate}: `rotated` (the presented token was the family's
 * newest), `grace` (the presented token is the newest's predecessor, retried within the reuse grace
 * interval for the first time: the caller hands out the same successor again, unsealed from
 * `sealedSuccessor`), `reused` (an older token: the whole family is now revoked; `accessTokens` are
 * the family's live access tokens, to put on the revocation list) or `invalid` (unknown, expired,
 * another client's).
 *
 * @example
 * ```ts
 * if (result.status === 'rotated') issue(result.grant);
 * ```
 */
export type RotateResult =
  | { readonly status: 'rotated'; readonly grant: RefreshGrant }
  | { readonly status: 'grace'; readonly grant: RefreshGrant; readonly sealedSuccessor: string }
  | { readonly status: 'reused'; readonly accessTokens: readonly AccessTokenRef[] }
  | { readonly status: 'invalid' };

/**
 * Extras of one rotation.
 *
 * @example
 * ```ts
 * const options: RotateOptions = { accessToken: { jti, exp }, graceMs: 10_000, sealedSuccessor };
 * ```
 */
export interface RotateOptions {
  /** The access token issued with this rotation, tracked so reuse can revoke it. */
  readonly accessToken?: AccessTokenRef;
  /** Reuse grace interval; 0 (default) treats every reuse as theft. */
  readonly graceMs?: number;
  /** The new token, encrypted under a key only the presented token yields; kept for the grace interval. */
  readonly sealedSuccessor?: string;
}

/**
 * Outcome of {@link RefreshTokenStore.revokeFamily}.
 *
 * @example
 * ```ts
 * if (result.status === 'revoked') for (const t of result.accessTokens) await revocation.revoke(t.jti, t.exp);
 * ```
 */
export type RevokeFamilyResult =
  | { readonly status: 'revoked'; readonly accessTokens: readonly AccessTokenRef[] }
  | { readonly status: 'invalid' };

/**
 * Storage for refresh token families. Only token hashes are stored. `rotate` must be atomic: for
 * one token, concurrent calls produce exactly one `rotated` (and at most one `grace`).
 *
 * @example
 * ```ts
 * const store: RefreshTokenStore = new RedisRefreshTokenStore({ client: redis });
 * ```
 */
export interface RefreshTokenStore {
  /** Starts a family whose first token has hash `tokenHash`, optionally with its first access token. */
  createFamily(
    tokenHash: string,
    grant: RefreshGrant,
    ttlMs: number,
    accessToken?: AccessTokenRef,
  ): Promise<void>;
  /** The grant of a live token's family, without changing anything. */
  find(tokenHash: string): Promise<RefreshGrant | undefined>;
  /** Replaces `oldHash` by `newHash` if `oldHash` is its family's newest token and belongs to `clientId`. */
  rotate(
    oldHash: string,
    newHash: string,
    clientId: string,
    ttlMs: number,
    options?: RotateOptions,
  ): Promise<RotateResult>;
  /** Revokes the family of any of its tokens (RFC 7009), if it belongs to `clientId`. */
  revokeFamily(tokenHash: string, clientId: string): Promise<RevokeFamilyResult>;
}

interface MemoryFamily {
  readonly grant: RefreshGrant;
  current: string;
  revoked: boolean;
  expiresAtMs: number;
  previous?: string;
  rotatedAtMs?: number;
  sealed?: string;
  graceUsed?: boolean;
  readonly accessTokens: Map<string, number>;
}

/**
 * A single-process refresh token store. JavaScript runs `rotate` to completion without
 * interleaving, which is what makes it atomic here; use the Redis store across processes.
 *
 * @example
 * ```ts
 * const store = new MemoryRefreshTokenStore();
 * ```
 */
export class MemoryRefreshTokenStore implements RefreshTokenStore {
  readonly #tokens = new Map<string, { familyId: string; expiresAtMs: number }>();
  readonly #families = new Map<string, MemoryFamily>();
  readonly #now: () => number;

  constructor(options: { readonly now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  async createFamily(
    tokenHash: string,
    grant: RefreshGrant,
    ttlMs: number,
    accessToken?: AccessTokenRef,
  ): Promise<void> {
    const familyId = randomUUID();
    const expiresAtMs = this.#now() + ttlMs;
    const family: MemoryFamily = {
      grant,
      current: tokenHash,
      revoked: false,
      expiresAtMs,
      accessTokens: new Map(),
    };
    this.#track(family, accessToken);
    this.#families.set(familyId, family);
    this.#tokens.set(tokenHash, { familyId, expiresAtMs });
    this.#prune();
  }

  async find(tokenHash: string): Promise<RefreshGrant | undefined> {
    const family = this.#live(tokenHash);
    return family && !family.revoked && family.current === tokenHash ? family.grant : undefined;
  }

  async rotate(
    oldHash: string,
    newHash: string,
    clientId: string,
    ttlMs: number,
    options: RotateOptions = {},
  ): Promise<RotateResult> {
    const token = this.#tokens.get(oldHash);
    const family = this.#live(oldHash);
    if (token === undefined || family === undefined || family.grant.clientId !== clientId) {
      return { status: 'invalid' };
    }
    if (family.revoked) return { status: 'reused', accessTokens: this.#liveAccessTokens(family) };
    const now = this.#now();
    if (family.current !== oldHash) {
      const graceMs = options.graceMs ?? 0;
      if (
        graceMs > 0 &&
        family.previous === oldHash &&
        family.sealed !== undefined &&
        !family.graceUsed &&
        now - (family.rotatedAtMs ?? 0) <= graceMs
      ) {
        family.graceUsed = true;
        this.#track(family, options.accessToken);
        return { status: 'grace', grant: family.grant, sealedSuccessor: family.sealed };
      }
      family.revoked = true;
      return { status: 'reused', accessTokens: this.#liveAccessTokens(family) };
    }
    const expiresAtMs = now + ttlMs;
    family.current = newHash;
    family.expiresAtMs = expiresAtMs;
    family.previous = oldHash;
    family.rotatedAtMs = now;
    family.graceUsed = false;
    if (options.sealedSuccessor) family.sealed = options.sealedSuccessor;
    else delete family.sealed;
    this.#track(family, options.accessToken);
    this.#tokens.set(newHash, { familyId: token.familyId, expiresAtMs });
    return { status: 'rotated', grant: family.grant };
  }

  async revokeFamily(tokenHash: string, clientId: string): Promise<RevokeFamilyResult> {
    const family = this.#live(tokenHash);
    if (family === undefined || family.grant.clientId !== clientId) return { status: 'invalid' };
    family.revoked = true;
    return { status: 'revoked', accessTokens: this.#liveAccessTokens(family) };
  }

  #track(family: MemoryFamily, accessToken: AccessTokenRef | undefined): void {
    if (accessToken === undefined) return;
    const nowSec = this.#now() / 1000;
    for (const [jti, exp] of family.accessTokens) if (exp <= nowSec) family.accessTokens.delete(jti);
    family.accessTokens.set(accessToken.jti, accessToken.exp);
  }

  #liveAccessTokens(family: MemoryFamily): AccessTokenRef[] {
    const nowSec = this.#now() / 1000;
    return [...family.accessTokens].filter(([, exp]) => exp > nowSec).map(([jti, exp]) => ({ jti, exp }));
  }

  #live(tokenHash: string): MemoryFamily | undefined {
    const token = this.#tokens.get(tokenHash);
    if (token === undefined || token.expiresAtMs <= this.#now()) return undefined;
    return this.#families.get(token.familyId);
  }

  #prune(): void {
    if (this.#tokens.size % 1024 !== 0) return;
    const now = this.#now();
    for (const [hash, token] of this.#tokens) if (token.expiresAtMs <= now) this.#tokens.delete(hash);
    for (const [id, family] of this.#families) if (family.expiresAtMs <= now) this.#families.delete(id);
  }
}

// Shared Lua: the family's access tokens live in a sorted set scored by exp (seconds).
const LIVE_ACCESS_TOKENS = `
local function live(akey, now)
  return redis.call('ZRANGEBYSCORE', akey, '(' .. math.floor(now / 1000), '+inf', 'WITHSCORES')
end
local function track(akey, now, jti, exp, ttl)
  if jti == '' then return end
  redis.call('ZREMRANGEBYSCORE', akey, '-inf', math.floor(now / 1000))
  redis.call('ZADD', akey, exp, jti)
  redis.call('PEXPIRE', akey, ttl)
end
`;

// One round trip, run atomically by Redis: read the family, detect reuse (or a first retry within
// the grace interval), rotate. ARGV: prefix, clientId, newHash, oldHash, ttlMs, nowMs, graceMs,
// sealedSuccessor, access jti, access exp.
const ROTATE = `${LIVE_ACCESS_TOKENS}
local fid = redis.call('GET', KEYS[1])
if not fid then return {'invalid'} end
local fkey = ARGV[1] .. 'fam:' .. fid
local akey = ARGV[1] .. 'at:' .. fid
local now = tonumber(ARGV[6])
local fam = redis.call('HMGET', fkey, 'clientId', 'current', 'revoked', 'subject', 'scopes', 'previous', 'rotatedAt', 'sealed', 'graceUsed')
if not fam[1] or fam[1] ~= ARGV[2] then return {'invalid'} end
if fam[3] == '1' then return {'reused', live(akey, now)} end
if fam[2] ~= ARGV[4] then
  local grace = tonumber(ARGV[7])
  if grace > 0 and fam[6] == ARGV[4] and fam[8] and fam[8] ~= '' and fam[9] ~= '1' and now - tonumber(fam[7]) <= grace then
    redis.call('HSET', fkey, 'graceUsed', '1')
    track(akey, now, ARGV[9], ARGV[10], redis.call('PTTL', fkey))
    return {'grace', fam[4] or '', fam[5] or '', fam[8]}
  end
  redis.call('HSET', fkey, 'revoked', '1')
  return {'reused', live(akey, now)}
end
redis.call('HSET', fkey, 'current', ARGV[3], 'previous', ARGV[4], 'rotatedAt', ARGV[6], 'sealed', ARGV[8], 'graceUsed', '0')
redis.call('SET', KEYS[2], fid, 'PX', ARGV[5])
redis.call('PEXPIRE', fkey, ARGV[5])
track(akey, now, ARGV[9], ARGV[10], ARGV[5])
return {'rotated', fam[4] or '', fam[5] or ''}
`;

// ARGV: prefix, clientId, nowMs.
const REVOKE_FAMILY = `${LIVE_ACCESS_TOKENS}
local fid = redis.call('GET', KEYS[1])
if not fid then return {'invalid'} end
local fkey = ARGV[1] .. 'fam:' .. fid
local owner = redis.call('HGET', fkey, 'clientId')
if not owner or owner ~= ARGV[2] then return {'invalid'} end
redis.call('HSET', fkey, 'revoked', '1')
return {'revoked', live(ARGV[1] .. 'at:' .. fid, tonumber(ARGV[3]))}
`;

const FIND = `
local fid = redis.call('GET', KEYS[1])
if not fid then return false end
local fam = redis.call('HMGET', ARGV[1] .. 'fam:' .. fid, 'clientId', 'current', 'revoked', 'subject', 'scopes')
if not fam[1] or fam[3] == '1' or fam[2] ~= ARGV[2] then return false end
return {fam[1], fam[4] or '', fam[5] or ''}
`;

function accessTokensFrom(flat: readonly string[] | undefined): AccessTokenRef[] {
  const list: AccessTokenRef[] = [];
  for (let i = 0; flat !== undefined && i + 1 < flat.length; i += 2) {
    list.push({ jti: flat[i]!, exp: Number(flat[i + 1]) });
  }
  return list;
}

function grantFrom(clientId: string, subject: string, scopes: string): RefreshGrant {
  return {
    clientId,
    ...(subject !== '' ? { subject } : {}),
    scopes: scopes === '' ? [] : scopes.split(' '),
  };
}

/** True when every key starting with `prefix` hashes by a non-empty `{tag}` inside the prefix (Redis Cluster rules). */
function hasHashTag(prefix: string): boolean {
  const open = prefix.indexOf('{');
  const close = open < 0 ? -1 : prefix.indexOf('}', open + 1);
  return close > open + 1;
}

/**
 * A refresh token store shared through Redis. Rotation is one Lua script, so concurrent refreshes
 * with one token yield exactly one winner across all instances. Keys: `<prefix>tok:<hash>`,
 * `<prefix>fam:<id>` and `<prefix>at:<id>` (the family's access tokens), expiring with the family's
 * newest token. Rotation reads and writes several of these keys in one script, so on a Redis
 * Cluster they must share one hash slot: there the prefix must contain a hash tag, such as
 * `{app:refresh}:` (the constructor throws a `TypeError` otherwise), and every family then lives on
 * the master that owns that slot. Any Redis failure → 503 `service_unavailable`.
 *
 * @example
 * ```ts
 * const store = new RedisRefreshTokenStore({ client: new Redis(process.env.REDIS_URL!), prefix: 'app:rt:' });
 * ```
 */
export class RedisRefreshTokenStore implements RefreshTokenStore {
  readonly #client: RedisClient;
  readonly #prefix: string;
  readonly #timeoutMs: number;
  readonly #now: () => number;

  constructor(options: RedisStoreOptions & { readonly now?: () => number }) {
    this.#client = options.client;
    this.#prefix = options.prefix ?? 'plumbline:auth:refresh:';
    this.#timeoutMs = options.timeoutMs ?? 1000;
    this.#now = options.now ?? Date.now;
    if (options.client.isCluster === true && !hasHashTag(this.#prefix)) {
      throw new TypeError(
        `RedisRefreshTokenStore on a Redis Cluster needs a prefix with a hash tag, such as "{${this.#prefix}}", so that a family's keys share one slot; got "${this.#prefix}"`,
      );
    }
  }

  async createFamily(
    tokenHash: string,
    grant: RefreshGrant,
    ttlMs: number,
    accessToken?: AccessTokenRef,
  ): Promise<void> {
    const familyId = randomUUID();
    const familyKey = `${this.#prefix}fam:${familyId}`;
    const accessKey = `${this.#prefix}at:${familyId}`;
    await failClosed(async () => {
      const transaction = this.#client.multi();
      if (accessToken !== undefined) {
        transaction.zadd(accessKey, accessToken.exp, accessToken.jti).pexpire(accessKey, ttlMs);
      }
      const results = await transaction
        .hset(familyKey, {
          clientId: grant.clientId,
          subject: grant.subject ?? '',
          scopes: grant.scopes.join(' '),
          current: tokenHash,
          revoked: '0',
        })
        .pexpire(familyKey, ttlMs)
        .set(`${this.#prefix}tok:${tokenHash}`, familyId, 'PX', ttlMs)
        .exec();
      const failed = results?.find(([error]) => error !== null);
      if (results === null || failed) throw failed?.[0] ?? new Error('transaction aborted');
    }, this.#timeoutMs);
  }

  async find(tokenHash: string): Promise<RefreshGrant | undefined> {
    const result = (await failClosed(
      () => this.#client.eval(FIND, 1, `${this.#prefix}tok:${tokenHash}`, this.#prefix, tokenHash),
      this.#timeoutMs,
    )) as [string, string, string] | null;
    return result ? grantFrom(...result) : undefined;
  }

  async rotate(
    oldHash: string,
    newHash: string,
    clientId: string,
    ttlMs: number,
    options: RotateOptions = {},
  ): Promise<RotateResult> {
    const result = (await failClosed(
      () =>
        this.#client.eval(
          ROTATE,
          2,
          `${this.#prefix}tok:${oldHash}`,
          `${this.#prefix}tok:${newHash}`,
          this.#prefix,
          clientId,
          newHash,
          oldHash,
          String(ttlMs),
          String(this.#now()),
          String(options.graceMs ?? 0),
          options.sealedSuccessor ?? '',
          options.accessToken?.jti ?? '',
          String(options.accessToken?.exp ?? 0),
        ),
      this.#timeoutMs,
    )) as [string, ...unknown[]];
    const [status, a, b, c] = result;
    if (status === 'rotated') return { status, grant: grantFrom(clientId, String(a ?? ''), String(b ?? '')) };
    if (status === 'grace') {
      return {
        status,
        grant: grantFrom(clientId, String(a ?? ''), String(b ?? '')),
        sealedSuccessor: String(c),
      };
    }
    if (status === 'reused') return { status, accessTokens: accessTokensFrom(a as string[] | undefined) };
    return { status: 'invalid' };
  }

  async revokeFamily(tokenHash: string, clientId: string): Promise<RevokeFamilyResult> {
    const result = (await failClosed(
      () =>
        this.#client.eval(
          REVOKE_FAMILY,
          1,
          `${this.#prefix}tok:${tokenHash}`,
          this.#prefix,
          clientId,
          String(this.#now()),
        ),
      this.#timeoutMs,
    )) as [string, string[]?];
    if (result[0] !== 'revoked') return { status: 'invalid' };
    return { status: 'revoked', accessTokens: accessTokensFrom(result[1]) };
  }
}
