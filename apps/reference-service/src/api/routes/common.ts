/**
 * What the route tables (api/routes/*.ts) share: the version a router serves, as the mount's
 * `context` hands it to the handlers, the checks of a member's query, the body and reply schemas
 * the tables declare, and a neutral {@link Outcome} as the contract's reply (the page headers of a
 * collection included). Framework-free.
 */
import { type Route, route } from '@plumbline/contract';
import {
  type Collection,
  type CollectionQuery,
  pageHeaders,
  parseMemberQuery,
} from '@plumbline/query-parser';
import { z } from 'zod';
import type { ApiVersion } from '../../domain/model.js';
import { isApiVersion } from '../../domain/versions.js';
import type { AppContext } from '../../service/context.js';
import type { Outcome } from '../representation.js';
import {
  assertNoQuery,
  idempotencyStores,
  memberFields,
  type ReadInput,
  type VersionLinks,
  type WriteInput,
} from '../resources/common.js';

/** What every framework's mount gives the routes as `context`: the API version its router serves. */
interface RouteContext {
  readonly version: ApiVersion;
}

/** The version of a request, from the mount's `context` ({@link RouteContext}). */
export function routeVersion(context: unknown): ApiVersion {
  const version = (context as RouteContext | undefined)?.version;
  if (!isApiVersion(version)) throw new Error('mount the routes with context: () => ({ version })');
  return version;
}

/** The request target of a route's `before` step: path, and the query when there is one. */
const urlOf = (path: string, rawQuery: string): string => (rawQuery === '' ? path : `${path}?${rawQuery}`);

/**
 * A reply of a declared status, as the contract takes it: `B` is the body the route declares (the
 * contract checks the body against it when response validation is on); 204 has none.
 */
export type StatusReply<S extends Outcome['status'], B = Record<string, unknown>> = S extends 204
  ? { readonly status: S }
  : {
      readonly status: S;
      readonly body?: B;
      readonly location?: string;
      readonly headers?: Readonly<Record<string, string>>;
    };

/**
 * The contract reply of a handler's outcome, whose status must be the one the route declares:
 * 204 empty, 201 with its Location, 200 with a page's headers (Link, Vary, Preference-Applied).
 */
export function replyOf<S extends Outcome['status'], B = Record<string, unknown>>(
  declared: S,
  outcome: Outcome,
  query?: CollectionQuery,
): StatusReply<S, B> {
  if (outcome.status !== declared)
    throw new Error(`the handler answered ${outcome.status} where the route declares ${declared}`);
  const reply = (value: object) => value as StatusReply<S, B>;
  if (outcome.status === 204) return reply({ status: declared });
  if (outcome.status === 201)
    return reply({ status: declared, body: outcome.body, location: outcome.location });
  if (outcome.page === undefined) return reply({ status: declared, body: outcome.body });
  const headers = pageHeaders(outcome.page, query);
  return reply({
    status: declared,
    body: outcome.body,
    headers: {
      ...(headers.link !== undefined ? { Link: headers.link } : {}),
      Vary: headers.vary,
      ...(headers.preferenceApplied !== undefined ? { 'Preference-Applied': headers.preferenceApplied } : {}),
    },
  });
}

/**
 * The options every framework's contract `mount` takes for the service's route tables (the
 * framework adds `context`): the idempotency stores of resources/common.ts, the body limit, the
 * precondition policy, and the version parameter of the query strategy, which is the router's.
 */
export function mountOptions(
  ctx: Pick<AppContext, 'api' | 'config' | 'db' | 'idempotencyStore' | 'transactionalIdempotencyStore'>,
) {
  const stores = idempotencyStores(ctx);
  return {
    idempotency: stores.shared,
    ...(stores.transactional ? { idempotencyTransaction: stores.transactional } : {}),
    bodyLimit: ctx.config.bodyLimitBytes,
    requirePreconditions: ctx.config.requirePreconditions,
    ignoredParameters: ctx.api.strategy === 'query' ? ['version'] : [],
  };
}

/**
 * Any JSON (an empty body is `{}`, as express.json reads it): the handlers validate bodies
 * themselves, after the idempotency key is taken, so a 400 is stored and replayed under the key and
 * names each field as domain/validation.ts does.
 */
export const AnyJson = z.unknown().transform((json) => json ?? {});

/** A representation as the client asked for it (`fields=`, a page envelope): a JSON object. */
export const Representation = z.record(z.string(), z.unknown());

/** `fields=` of a member read, checked first by {@link memberQueryStep}; the handler reads the selection from it. */
export const MemberQuery = z.object({ fields: z.string().optional() });

/** The `fields=` selection of a member read (already checked by {@link memberQueryStep}). */
export function selection(collection: Collection, fields: string | undefined): readonly string[] | undefined {
  if (fields === undefined) return undefined;
  return parseMemberQuery(collection, `fields=${encodeURIComponent(fields)}`).fields;
}

/** The `before` step of a member read: `fields=` only, anything else 400 `unknown_parameter` (the query parser's answer). */
export const memberQueryStep =
  (links: VersionLinks, collection: Collection) =>
  ({ path, rawQuery }: { readonly path: string; readonly rawQuery: string }): void => {
    memberFields(links, collection, urlOf(path, rawQuery));
  };

/** The `before` step of a write: no query parameter at all (but the version's, under the query strategy). */
export const noQueryStep =
  (links: VersionLinks, collection: Collection) =>
  ({ path, rawQuery }: { readonly path: string; readonly rawQuery: string }): void => {
    assertNoQuery(links, collection, urlOf(path, rawQuery));
  };

/**
 * What the OpenAPI document says of a member's operations (openapi/api-paths.ts reads it from the
 * routes): the operation id, the summary and the tag of each method, and what its answer is, by the
 * member's name (`project`, `project_task`, `task`, `comment`) and the resource of its scopes.
 */
export function memberDocs(name: string, resource: string) {
  const doc = (operationId: string, summary: string) => ({ operationId, summary, tags: [resource] });
  return {
    get: doc(`get_${name}`, `Get one ${name}`),
    got: `The ${name}; \`fields=\` selects members, \`id\` is always there`,
    put: doc(`replace_${name}`, `Replace a ${name} (missing optional fields are reset)`),
    replaced: `The replaced ${name}`,
    patch: doc(`update_${name}`, `Update a ${name} with a JSON merge patch (RFC 7396)`),
    updated: `The updated ${name}`,
    delete: doc(`delete_${name}`, `Delete a ${name} (later requests for it get 410)`),
    deleted: 'Deleted',
  } as const;
}

/** What {@link memberRoutes} declares one member from. */
export interface MemberTable<T> {
  /** The member's name in the document's operation ids and summaries (`project`, `project_task`). */
  readonly name: string;
  /** The member's path (`/projects/{projectId}`) and the schema of its parameters. */
  readonly path: string;
  readonly params: z.ZodType<Record<string, string>>;
  /** The resource of the scopes (`read:<resource>`, `write:<resource>`). */
  readonly resource: 'projects' | 'tasks';
  readonly links: VersionLinks;
  readonly collection: Collection;
  /** The schema of the member a write answers with. */
  readonly output: z.ZodType;
  /** The contract's preconditions of the writes (load, represent, modified). */
  readonly preconditions: {
    readonly load: (input: { readonly params: Record<string, string> }) => Promise<T>;
    readonly represent: (row: T, context: unknown) => unknown;
    readonly modified: (row: T) => string | undefined;
  };
  readonly handlers: {
    read(input: ReadInput): Promise<Outcome>;
    replace(input: WriteInput<T>): Promise<Outcome>;
    patch(input: WriteInput<T>): Promise<Outcome>;
    remove(input: WriteInput<T>): Promise<Outcome>;
  };
}

/**
 * One member clients read (`fields=`), replace, merge-patch and delete, the writes under
 * preconditions and without a query (projects, tasks).
 */
export function memberRoutes<T>(table: MemberTable<T>): Route[] {
  const { path, params, resource, collection, preconditions, handlers } = table;
  const noQuery = noQueryStep(table.links, collection);
  const scopes = [`write:${resource}`];
  const docs = memberDocs(table.name, resource);
  const write = (
    method: 'PUT' | 'PATCH',
    mediaTypes: readonly string[],
    handler: (input: WriteInput<T>) => Promise<Outcome>,
  ): Route =>
    route({
      method,
      path,
      ...(method === 'PUT' ? docs.put : docs.patch),
      params,
      body: { schema: AnyJson, mediaTypes },
      responses: {
        200: { body: table.output, description: method === 'PUT' ? docs.replaced : docs.updated },
      },
      scopes,
      before: noQuery,
      preconditions,
      handler: async ({ params, body, current, conditional, context }) =>
        replyOf(
          200,
          await handler({
            version: routeVersion(context),
            params,
            body,
            checked: { row: current, conditional },
          }),
        ),
    });
  return [
    route({
      method: 'GET',
      path,
      ...docs.get,
      params,
      query: MemberQuery,
      responses: { 200: { body: Representation, description: docs.got } },
      scopes: [`read:${resource}`],
      before: memberQueryStep(table.links, collection),
      handler: async ({ params, query, context }) =>
        replyOf(
          200,
          await handlers.read({
            version: routeVersion(context),
            params,
            fields: selection(collection, query.fields),
          }),
        ),
    }),
    write('PUT', ['application/json'], handlers.replace),
    write('PATCH', ['application/merge-patch+json', 'application/json'], handlers.patch),
    route({
      method: 'DELETE',
      path,
      ...docs.delete,
      params,
      responses: { 204: { description: docs.deleted } },
      scopes,
      before: noQuery,
      preconditions,
      handler: async ({ params, current, conditional, context }) =>
        replyOf(
          204,
          await handlers.remove({
            version: routeVersion(context),
            params,
            checked: { row: current, conditional },
          }),
        ),
    }),
  ];
}
