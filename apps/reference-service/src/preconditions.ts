/**
 * Conditional writes (docs/design.md#d-conditional): PUT, PATCH and DELETE on a member evaluate
 * If-Match, If-None-Match and If-Unmodified-Since against the member's current representation
 * (the one a GET with the same Accept, Accept-Language and API version returns), and the write
 * then applies only to the version that was checked, inside the UPDATE's or DELETE's WHERE clause,
 * so two clients racing with the same ETag cannot both win.
 */
import { HttpError } from '@plumbline/errors';
import { conditional, entityTagOf, getPreconditions } from '@plumbline/negotiation/express';
import type { Request, RequestHandler } from 'express';
import type { Lookup, VersionGuard } from './storage/repository.js';

/** What a member route loads and checks: the stored row and its representation for this request. */
interface Member<T> {
  readonly load: (req: Request) => Promise<T>;
  readonly represent: (row: T) => Record<string, unknown>;
  /** The row's modification time (`updated_at`), when it has one. */
  readonly modified: (row: T) => string | undefined;
}

const CHECKED = new WeakMap<Request, unknown>();

/**
 * The precondition middleware of one member route: loads the row (a missing or deleted member is
 * 404 or 410 before any precondition, RFC 9110 section 13.2.1), remembers it for the handler, and
 * evaluates the request's preconditions against its current `ETag` and `updated_at`.
 */
export function memberPreconditions<T>(member: Member<T>, requirePrecondition: boolean): RequestHandler {
  return conditional({
    current: async (req, res) => {
      const row = await member.load(req);
      CHECKED.set(req, row);
      const modified = member.modified(row);
      return {
        etag: entityTagOf(res, member.represent(row)),
        lastModified: modified === undefined ? undefined : Date.parse(modified),
      };
    },
    requirePrecondition,
  });
}

/** The row {@link memberPreconditions} checked for this request. */
export function checkedRow<T>(req: Request): T {
  if (!CHECKED.has(req)) throw new Error('memberPreconditions() must run before this handler');
  return CHECKED.get(req) as T;
}

/**
 * The version guard of a write: the row's `updated_at` as read, and, when the request carried a
 * precondition, the version the row must still have for the write to apply.
 */
export function versionGuard(req: Request, updatedAt: string): VersionGuard {
  return { previous: updatedAt, expected: getPreconditions(req)?.conditional ? updatedAt : undefined };
}

/**
 * What a write found: the updated row, or (when it changed nothing) a fresh lookup. A conditional
 * request whose member still exists lost a race since its check: 412, the write did not happen.
 */
export async function afterWrite<T>(
  req: Request,
  updated: T | undefined,
  lookup: () => Promise<Lookup<T>>,
): Promise<Lookup<T>> {
  if (updated !== undefined) return { state: 'found', row: updated };
  const now = await lookup();
  if (now.state === 'found' && getPreconditions(req)?.conditional) throw new HttpError('precondition_failed');
  return now;
}
