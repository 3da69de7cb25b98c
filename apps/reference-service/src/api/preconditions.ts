/**
 * Conditional writes (docs/design.md#d-conditional): PUT, PATCH and DELETE on a member evaluate
 * If-Match, If-None-Match and If-Unmodified-Since against the member's current representation
 * (the one a GET with the same Accept, Accept-Language and API version returns), and the write
 * then applies only to the version that was checked, inside the UPDATE's or DELETE's WHERE clause,
 * so two clients racing with the same ETag cannot both win.
 *
 * Framework-neutral: each resource describes its member ({@link Member}); the route tables
 * (api/routes/*.ts) hand it to `@plumbline/contract`'s preconditions, which evaluate them in every
 * framework, and pass the handler what was checked ({@link Checked}).
 */
import { HttpError } from '@plumbline/errors';
import type { ApiVersion } from '../domain/model.js';
import type { Lookup, VersionGuard } from '../storage/repository.js';

/** A route's path parameters as the router matched them (not yet validated). */
export type Params = Readonly<Record<string, unknown>>;

/** What a member route loads and checks: the stored row and its representation in a version. */
export interface Member<T> {
  /** The row the path names; a missing or deleted member is 404 or 410 before any precondition (RFC 9110 section 13.2.1). */
  readonly load: (params: Params) => Promise<T>;
  readonly represent: (row: T, version: ApiVersion) => Record<string, unknown>;
  /** The row's modification time (`updated_at`), when it has one. */
  readonly modified: (row: T) => string | undefined;
}

/** What the preconditions were evaluated against: the row as loaded, and whether the request carried a precondition. */
export interface Checked<T> {
  readonly row: T;
  readonly conditional: boolean;
}

/**
 * The version guard of a write: the row's `updated_at` as read, and, when the request carried a
 * precondition, the version the row must still have for the write to apply.
 */
export function versionGuard(checked: Checked<unknown>, updatedAt: string): VersionGuard {
  return { previous: updatedAt, expected: checked.conditional ? updatedAt : undefined };
}

/**
 * What a write found: the updated row, or (when it changed nothing) a fresh lookup. A conditional
 * request whose member still exists lost a race since its check: 412, the write did not happen.
 */
export async function afterWrite<T>(
  checked: Checked<unknown>,
  updated: T | undefined,
  lookup: () => Promise<Lookup<T>>,
): Promise<Lookup<T>> {
  if (updated !== undefined) return { state: 'found', row: updated };
  const now = await lookup();
  if (now.state === 'found' && checked.conditional) throw new HttpError('precondition_failed');
  return now;
}
