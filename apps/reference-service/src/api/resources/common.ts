/**
 * What the resource handlers (projects.ts, tasks.ts, comments.ts) share: their inputs, the checks
 * that run before them, and the helpers of reads, lists and merge patches.
 *
 * Framework-neutral: a handler takes plain values (the version, the path parameters, the parsed
 * query or body, what the preconditions checked, the idempotency transaction, the principal) and
 * returns an {@link Outcome} or throws an `HttpError`; it never sees a request or a response. The
 * route tables (api/routes/*.ts) hand it those values from `@plumbline/contract`'s handler input,
 * and the searches' wirings (http/<framework>/routes.ts) read them from the request after
 * Plumbline's middleware ran; both send the outcome.
 */
import { HttpError } from '@plumbline/errors';
import type { SqlQuery } from '@plumbline/idempotency';
import {
  type Collection,
  type CollectionQuery,
  parseMemberQuery,
  rawQueryOf,
  type SqlOptions,
  toSql,
} from '@plumbline/query-parser';
import type { ApiVersion } from '../../domain/model.js';
import type { AppContext } from '../../service/context.js';
import type { Db } from '../../storage/db.js';
import { type Lookup, Repository } from '../../storage/repository.js';
import type { Checked, Params } from '../preconditions.js';
import { type Outcome, pageOutcome } from '../representation.js';

/** How the versioning strategy shapes links and hides its query parameter (service/versioning.ts). */
export interface VersionLinks {
  /** A link to `path` (`/projects/7`) as served by `version`. */
  link(version: ApiVersion, path: string): string;
  /** A collection link with the version added where the strategy wants it. */
  pageLink(version: ApiVersion, url: string): string;
  /** `url` without the version parameter under the query strategy; otherwise `url`. */
  withoutVersion(url: string): string;
}

/** What the handlers are built from, once per app. */
export interface ResourceDeps {
  readonly repo: Repository;
  readonly db: Db;
  readonly links: VersionLinks;
}

/** What every handler knows of its request: the API version and the path parameters. */
interface RouteInput {
  readonly version: ApiVersion;
  readonly params: Params;
}

/** A collection GET or search POST: the query the contract parsed, and the request path. */
export interface ListInput extends RouteInput {
  readonly query: CollectionQuery;
  /** The request path as the client wrote it (`/v2/projects/search`): the page links start from it. */
  readonly path: string;
}

/** A member GET: the `fields=` selection ({@link memberFields}). */
export interface ReadInput extends RouteInput {
  readonly fields: readonly string[] | undefined;
}

/** A creating POST: the parsed JSON body, the principal's client id, the idempotency transaction. */
export interface CreateInput extends RouteInput {
  readonly body: unknown;
  readonly principal: string | undefined;
  /** The database transaction the idempotency record is written in, when one is open. */
  readonly transaction: Db | undefined;
}

/** A PUT, PATCH or DELETE on a member: what the preconditions checked, and the body (none for DELETE). */
export interface WriteInput<T> extends RouteInput {
  readonly checked: Checked<T>;
  readonly body?: unknown;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const READ_ONLY = ['id', 'created_at', 'updated_at', 'project_id', 'task_id', 'author'] as const;

/** The member a lookup found, or the error for what it found instead (410 for a tombstone, 404 else). */
export function found<T>(lookup: Lookup<T>): T {
  if (lookup.state === 'found') return lookup.row;
  throw new HttpError(lookup.state === 'gone' ? 'gone' : 'not_found');
}

/** An id that is not a UUID can never name a member: 404 without a database round trip. */
export function idParam(params: Params, name: string): string {
  const id = params[name];
  if (typeof id !== 'string' || !UUID.test(id)) throw new HttpError('not_found');
  return id.toLowerCase();
}

/** The repository writing in the request's idempotency transaction, when one is open. */
export const writer = (repo: Repository, transaction: Db | undefined): Repository =>
  transaction ? new Repository(transaction) : repo;

/**
 * How the idempotency transaction of a creating POST runs its statements on the database
 * (`idempotencyTransaction({ query })`): rows back from PostgreSQL always, from SQLite for a
 * SELECT or a RETURNING statement.
 */
const transactionStatements =
  (tx: Db): SqlQuery =>
  async (text, params) => {
    if (tx.dialect === 'postgres' || /^\s*SELECT|\bRETURNING\b/i.test(text))
      return tx.allNative(text, params);
    await tx.run(text, params);
    return [];
  };

/**
 * The stores the idempotency adapters of every wiring get (add `principal` and `required`). Search
 * POSTs change nothing: `shared` (Redis or memory) is enough for them. Creating POSTs use
 * `transactional` when IDEMPOTENCY_STORE=database: the key and the response are written in the same
 * transaction as the new row, so a crash commits both or neither, and the response is sent only
 * after the commit. With IDEMPOTENCY_STORE=shared it is `undefined` and they use `shared` too.
 */
export function idempotencyStores(
  ctx: Pick<AppContext, 'config' | 'db' | 'idempotencyStore' | 'transactionalIdempotencyStore'>,
) {
  const store = ctx.transactionalIdempotencyStore;
  return {
    shared: { store: ctx.idempotencyStore, leaseMs: ctx.config.idempotencyLeaseMs },
    transactional:
      store === undefined
        ? undefined
        : {
            store,
            transaction: <T>(work: (tx: Db) => Promise<T>) => ctx.db.transaction(work),
            query: transactionStatements,
          },
  };
}

/** RFC 7396 JSON merge patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const result: Record<string, unknown> =
    typeof target === 'object' && target !== null && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

/** A representation without the members a client cannot write: what a merge patch applies to. */
export function withoutReadOnly(representation: Record<string, unknown>): Record<string, unknown> {
  const out = { ...representation };
  for (const key of READ_ONLY) delete out[key];
  return out;
}

/** The body of a merge patch: a JSON object, or 400 `validation_failed`. */
export function patchObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HttpError('validation_failed', {
      params: { count: 1 },
      errors: [{ pointer: '#', code: 'invalid_value', detail: 'A merge patch must be a JSON object.' }],
    });
  }
  return body as Record<string, unknown>;
}

/**
 * A member GET's query (`url` is the request target, path and query): `fields=` selects members as
 * on the collection; any other parameter is 400 `unknown_parameter`, never silently ignored
 * (docs/design.md#d-filters).
 */
export function memberFields(
  links: VersionLinks,
  collection: Collection,
  url: string,
): readonly string[] | undefined {
  return parseMemberQuery(collection, rawQueryOf(links.withoutVersion(url))).fields;
}

/**
 * Writes answer with the whole resource: there, every query parameter is 400 `unknown_parameter`
 * (but for `version=` under the query strategy). Runs before the body is read.
 */
export function assertNoQuery(links: VersionLinks, collection: Collection, url: string): void {
  parseMemberQuery(collection, rawQueryOf(links.withoutVersion(url)), { allowFields: false });
}

/**
 * One page of a collection: the query as SQL (`options` made once per table: toSql compiles once
 * per options object), the total when the client asked for it, the rows as `toRepresentation` shows them.
 */
export async function listPage(
  deps: ResourceDeps,
  options: SqlOptions,
  input: ListInput,
  toRepresentation: (row: Record<string, unknown>) => Record<string, unknown>,
): Promise<Outcome> {
  const { db, links } = deps;
  const { query, version } = input;
  const statement = toSql(query, options);
  const rows = await db.allNative<Record<string, unknown>>(statement.text, statement.params);
  const total = query.count
    ? (await db.allNative<{ total: number | string }>(statement.countText, statement.countParams))[0]?.total
    : undefined;
  return pageOutcome(query, rows, total, toRepresentation, {
    path: input.path,
    version,
    link: (url) => links.pageLink(version, url),
  });
}
