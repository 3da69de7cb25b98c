import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { HttpError } from '@plumbline/errors';
import { authError } from './challenge.js';
import type { Principal } from './principal.js';

const PREFIX = 'plk_';
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const API_KEY_SHAPE = /^plk_[0-9A-Za-z]{38}$/;
const HASH_SHAPE = /^[0-9a-f]{64}$/;

/**
 * The coarse access level of an API key's client, set on the server.
 *
 * @example
 * ```ts
 * const access: ApiKeyAccess = 'read-write';
 * ```
 */
export type ApiKeyAccess = 'read' | 'read-write';

/**
 * What a key store returns for a key hash.
 *
 * @example
 * ```ts
 * const record: ApiKeyRecord = { clientId: 'billing', access: 'read', revoked: false };
 * ```
 */
export interface ApiKeyRecord {
  readonly clientId: string;
  readonly access: ApiKeyAccess;
  readonly revoked?: boolean;
  /** The stored hash; when present it is compared to the presented key's hash in constant time. */
  readonly hash?: string;
}

/**
 * Where API keys live. Only SHA-256 hashes (lower-case hex) are ever stored or looked up.
 *
 * @example
 * ```ts
 * const store: ApiKeyStore = { findByHash: async (hash) => db.apiKeys.byHash(hash) };
 * ```
 */
export interface ApiKeyStore {
  /** The record whose key hashes to `hash` (hex SHA-256), or undefined for an unknown key. */
  findByHash(hash: string): ApiKeyRecord | undefined | Promise<ApiKeyRecord | undefined>;
}

function base62(bytesNeeded: number): string {
  let out = '';
  while (out.length < bytesNeeded) {
    for (const byte of randomBytes(bytesNeeded * 2)) {
      // 248 = 4 * 62: rejecting the top values keeps every character equally likely.
      if (byte < 248 && out.length < bytesNeeded) out += BASE62[byte % 62];
    }
  }
  return out;
}

function checksum(body: string): string {
  let value = crc32(body);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i += 1) {
    out = BASE62[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

/**
 * A new API key: `plk_` + 32 base62 random characters (about 190 bits) + a 6-character base62 CRC32
 * of the random part, so typos and truncations are caught without a store lookup.
 *
 * @example
 * ```ts
 * const key = generateApiKey(); // 'plk_4f9...'; show it once, store hashApiKey(key)
 * ```
 */
export function generateApiKey(): string {
  const body = base62(RANDOM_LENGTH);
  return `${PREFIX}${body}${checksum(body)}`;
}

/**
 * True when `key` has the API key shape and a matching checksum. Cheap; no lookup.
 *
 * @example
 * ```ts
 * isWellFormedApiKey(generateApiKey()); // true
 * isWellFormedApiKey('plk_short'); // false
 * ```
 */
export function isWellFormedApiKey(key: string): boolean {
  if (!API_KEY_SHAPE.test(key)) return false;
  const body = key.slice(PREFIX.length, PREFIX.length + RANDOM_LENGTH);
  const expected = Buffer.from(checksum(body));
  const actual = Buffer.from(key.slice(PREFIX.length + RANDOM_LENGTH));
  return timingSafeEqual(expected, actual);
}

/**
 * The SHA-256 of a key as lower-case hex: the only form a store keeps.
 *
 * @example
 * ```ts
 * await db.insert({ hash: hashApiKey(key), clientId: 'billing', access: 'read' });
 * ```
 */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/**
 * Maps an API key access level to scopes. Default: `read` → `read:*`; `read-write` → `read:*`,
 * `write:*`. Wildcard scopes are only ever produced here, on the server; see {@link hasScopes}.
 *
 * @example
 * ```ts
 * defaultScopesForAccess('read'); // ['read:*']
 * ```
 */
export function defaultScopesForAccess(access: ApiKeyAccess): readonly string[] {
  return access === 'read-write' ? ['read:*', 'write:*'] : ['read:*'];
}

/**
 * An in-memory {@link ApiKeyStore} for tests and single-process services. Keeps hashes only.
 *
 * @example
 * ```ts
 * const store = new MemoryApiKeyStore();
 * store.add(key, { clientId: 'billing', access: 'read' });
 * ```
 */
export class MemoryApiKeyStore implements ApiKeyStore {
  readonly #records = new Map<string, ApiKeyRecord>();

  /** Adds a key (hashed here) or a hash (64 lower-case hex characters). Returns the hash. */
  add(keyOrHash: string, record: Omit<ApiKeyRecord, 'hash'>): string {
    const hash = HASH_SHAPE.test(keyOrHash) ? keyOrHash : hashApiKey(keyOrHash);
    this.#records.set(hash, { ...record, hash });
    return hash;
  }

  /** Marks a key (or hash) revoked; later requests with it are refused. */
  revoke(keyOrHash: string): void {
    const hash = HASH_SHAPE.test(keyOrHash) ? keyOrHash : hashApiKey(keyOrHash);
    const record = this.#records.get(hash);
    if (record) this.#records.set(hash, { ...record, revoked: true });
  }

  /** The record whose key hashes to `hash`, or undefined. */
  findByHash(hash: string): ApiKeyRecord | undefined {
    return this.#records.get(hash);
  }
}

/**
 * Options for {@link verifyApiKey}.
 *
 * @example
 * ```ts
 * const options: ApiKeyOptions = { store, scopesForAccess: (a) => (a === 'read' ? ['read:*'] : ['read:*', 'write:*']) };
 * ```
 */
export interface ApiKeyOptions {
  readonly store: ApiKeyStore;
  /** Access level → scopes. Default {@link defaultScopesForAccess}. */
  readonly scopesForAccess?: (access: ApiKeyAccess) => readonly string[];
  /** Realm of the `Bearer` challenge. Default `plumbline`. */
  readonly realm?: string;
}

/**
 * Checks an API key and returns its principal. The checksum is verified before any lookup; a
 * malformed, unknown or revoked key gives the same 401 `unauthorized`, so callers learn nothing
 * about which. A store failure becomes 503 `service_unavailable` (fail closed).
 *
 * @example
 * ```ts
 * const principal = await verifyApiKey(key, { store }); // { type: 'api_key', clientId: 'billing', scopes: ['read:*'] }
 * ```
 */
export async function verifyApiKey(key: string, options: ApiKeyOptions): Promise<Principal> {
  const realm = options.realm ?? 'plumbline';
  const reject = () => authError('unauthorized', { realm }, { detail: 'The API key is not valid.' });
  if (!isWellFormedApiKey(key)) throw reject();
  const hash = hashApiKey(key);
  let record: ApiKeyRecord | undefined;
  try {
    record = await options.store.findByHash(hash);
  } catch (cause) {
    throw new HttpError('service_unavailable', { cause });
  }
  if (record === undefined || record.revoked === true) throw reject();
  if (record.hash !== undefined) {
    const stored = Buffer.from(record.hash, 'utf8');
    const presented = Buffer.from(hash, 'utf8');
    if (stored.length !== presented.length || !timingSafeEqual(stored, presented)) throw reject();
  }
  const scopes = (options.scopesForAccess ?? defaultScopesForAccess)(record.access);
  return Object.freeze({ type: 'api_key', clientId: record.clientId, scopes: Object.freeze([...scopes]) });
}
