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
 * Outcome of {@link RefreshTokenStore.rotate}: `rotated` (the presented token was the family's
 * newest), `reused` (an older token: the whole family is now revoked) or `invalid` (unknown,
 * expired, another client's, or an already revoked family).
 *
 * @example
 * ```ts
 * if (result.status === 'rotated') issue(result.grant);
 * ```
 */
export type RotateResult =
  | { readonly status: 'rotated'; readonly grant: RefreshGrant }
  | { readonly status: 'reused' }
  | { readonly status: 'invalid' };

/**
 * Storage for refresh token families. Only token hashes are stored. `rotate` must be atomic: for
 * one token, concurrent calls produce exactly one `rotated`.
 *
 * @example
 * ```ts
 * const store: RefreshTokenStore = new RedisRefreshTokenStore({ client: redis });
 * ```
 */
export interface RefreshTokenStore {
  /** Starts a family whose first token has hash `tokenHash`. */
  createFamily(tokenHash: string, grant: RefreshGrant, ttlMs: number): Promise<void>;
  /** The grant of a live token's family, without changing anything. */
  find(tokenHash: string): Promise<RefreshGrant | undefined>;
  /** Replaces `oldHash` by `newHash` if `oldHash` is its family's newest token and belongs to `clientId`. */
  rotate(oldHash: string, newHash: string, clientId: string, ttlMs: number): Promise<RotateResult>;
}

interface MemoryFamily {
  readonly grant: RefreshGrant;
  current: string;
  revoked: boolean;
  expiresAtMs: number;
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

  async createFamily(tokenHash: string, grant: RefreshGrant, ttlMs: number): Promise<void> {
    const familyId = randomUUID();
    const expiresAtMs = this.#now() + ttlMs;
    this.#families.set(familyId, { grant, current: tokenHash, revoked: false, expiresAtMs });
    this.#tokens.set(tokenHash, { familyId, expiresAtMs });
    this.#prune();
  }

  async find(tokenHash: string): Promise<RefreshGrant | undefined> {
    const family = this.#live(tokenHash);
    return family && !family.revoked && family.current === tokenHash ? family.grant : undefined;
  }

  async rotate(oldHash: string, newHash: string, clientId: string, ttlMs: number): Promise<RotateResult> {
    const token = this.#tokens.get(oldHash);
    const family = this.#live(oldHash);
    if (token === undefined || family === undefined || family.grant.clientId !== clientId) {
      return { status: 'invalid' };
    }
    if (family.revoked) return { status: 'reused' };
    if (family.current !== oldHash) {
      family.revoked = true;
      return { status: 'reused' };
    }
    const expiresAtMs = this.#now() + ttlMs;
    family.current = newHash;
    family.expiresAtMs = expiresAtMs;
    this.#tokens.set(newHash, { familyId: token.familyId, expiresAtMs });
    return { status: 'rotated', grant: family.grant };
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

// One round trip, run atomically by Redis: read the family, detect reuse, rotate.
const ROTATE = `
local fid = redis.call('GET', KEYS[1])
if not fid then return {'invalid'} end
local fkey = ARGV[1] .. 'fam:' .. fid
local fam = redis.call('HMGET', fkey, 'clientId', 'current', 'revoked', 'subject', 'scopes')
if not fam[1] or fam[1] ~= ARGV[2] then return {'invalid'} end
if fam[3] == '1' then return {'reused'} end
if fam[2] ~= ARGV[4] then
  redis.call('HSET', fkey, 'revoked', '1')
  return {'reused'}
end
redis.call('HSET', fkey, 'current', ARGV[3])
redis.call('SET', KEYS[2], fid, 'PX', ARGV[5])
redis.call('PEXPIRE', fkey, ARGV[5])
return {'rotated', fam[4] or '', fam[5] or ''}
`;

const FIND = `
local fid = redis.call('GET', KEYS[1])
if not fid then return false end
local fam = redis.call('HMGET', ARGV[1] .. 'fam:' .. fid, 'clientId', 'current', 'revoked', 'subject', 'scopes')
if not fam[1] or fam[3] == '1' or fam[2] ~= ARGV[2] then return false end
return {fam[1], fam[4] or '', fam[5] or ''}
`;

function grantFrom(clientId: string, subject: string, scopes: string): RefreshGrant {
  return {
    clientId,
    ...(subject !== '' ? { subject } : {}),
    scopes: scopes === '' ? [] : scopes.split(' '),
  };
}

/**
 * A refresh token store shared through Redis. Rotation is one Lua script, so concurrent refreshes
 * with one token yield exactly one winner across all instances. Keys: `<prefix>tok:<hash>` and
 * `<prefix>fam:<id>`, both expiring with the family's newest token. The script derives family keys
 * from the prefix, so use a standalone Redis (or a prefix with a hash tag, such as `{auth}:`, on a
 * cluster). Any Redis failure → 503 `service_unavailable`.
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

  constructor(options: RedisStoreOptions) {
    this.#client = options.client;
    this.#prefix = options.prefix ?? 'plumbline:auth:refresh:';
    this.#timeoutMs = options.timeoutMs ?? 1000;
  }

  async createFamily(tokenHash: string, grant: RefreshGrant, ttlMs: number): Promise<void> {
    const familyId = randomUUID();
    const familyKey = `${this.#prefix}fam:${familyId}`;
    await failClosed(async () => {
      const results = await this.#client
        .multi()
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

  async rotate(oldHash: string, newHash: string, clientId: string, ttlMs: number): Promise<RotateResult> {
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
        ),
      this.#timeoutMs,
    )) as [string, string?, string?];
    if (result[0] === 'rotated')
      return { status: 'rotated', grant: grantFrom(clientId, result[1] ?? '', result[2] ?? '') };
    return { status: result[0] === 'reused' ? 'reused' : 'invalid' };
  }
}
