/**
 * Fastify 5 adapter for @plumbline/versioning: a plugin that resolves the API version in an
 * `onRequest` hook for the routes of the context that registers it, sets the version headers on
 * every response (errors included) and types `request.apiVersion`; and `versionConstraint()`, a
 * route constraint so `/projects` of v1 and `/projects` of v2 are two routes on one path (header,
 * query, media-type and date strategies). The core decides everything.
 * @packageDocumentation
 */
import type { IncomingMessage } from 'node:http';
import type { FastifyPluginCallback, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { HeaderRecord, VersionPolicy } from './policy.js';
import {
  combineHeader,
  createRequestVersioning,
  type VersioningInput,
  type VersioningOptions,
  type VersioningOutcome,
} from './request.js';
import type { ResolvedVersion } from './resolve.js';

export type { VersioningOptions };

declare module 'fastify' {
  interface FastifyRequest {
    /** Resolved by `@plumbline/versioning/fastify`; `null` on version-neutral routes. */
    apiVersion: ResolvedVersion | null;
  }
}

/**
 * Options of {@link versionConstraint}: the core's neutral paths, and the constraint's name.
 * @example
 * ```ts
 * const options: VersionConstraintOptions = { name: 'apiVersion', neutralPaths: ['/health'] };
 * ```
 */
export interface VersionConstraintOptions extends VersioningOptions {
  /**
   * The constraint's name: the key of a route's `constraints` (`{ apiVersion: '2' }`) and of
   * `routerOptions.constraints`. A JavaScript identifier, not Fastify's own `version` or `host`.
   * Default `'apiVersion'`.
   */
  readonly name?: string;
}

/**
 * A route constraint on the API version, made by {@link versionConstraint}, and the request's
 * versioning outcome, resolved once per request and shared by the constraint, the
 * {@link versioning} plugin given it, and the app's own hooks.
 * @example
 * ```ts
 * const apiVersion: VersionConstraint = versionConstraint(policy);
 * app.get('/projects', { constraints: { [apiVersion.name]: '2' } }, async () => current());
 * ```
 */
export interface VersionConstraint {
  /** The constraint's name, `'apiVersion'` unless {@link VersionConstraintOptions.name} says otherwise. */
  readonly name: string;
  /** The policy it resolves. */
  readonly policy: VersionPolicy;
  /**
   * The find-my-way constraint strategy. The {@link versioning} plugin given this constraint adds it
   * to the app (`addConstraintStrategy`) unless the app has one of that name already; to add it
   * yourself, pass it as `routerOptions: { constraints: { [name]: strategy } }`. A route's value
   * must be a version of the policy as the policy spells it (`'2'`, not `'2.0'`), checked when the
   * route is added. Requests derive the version they resolve to; a neutral or refused request
   * derives `''`, so it matches only routes without the constraint (`mustMatchWhenDerived: false`).
   */
  readonly strategy: {
    readonly name: string;
    readonly mustMatchWhenDerived: false;
    /** Routes by version; find-my-way decides what it keeps (its own route index), typed `never`. */
    storage(): {
      /** The routes stored for `version`, or `null`. */
      get(version: string): never | null;
      /** Stores the routes of `version`. */
      set(version: string, store: never): void;
    };
    /** Throws a `TypeError` when a route's value is not a version of the policy. */
    validate(value: unknown): void;
    /** The version the request resolves to, `''` when it is neutral or refused. */
    deriveConstraint(req: IncomingMessage): string;
  };
  /**
   * The request's outcome under the policy: `resolved` (the version and its headers), `neutral`, or
   * `error` (the refusal, an `HttpError`, with the headers an error carries). Resolved the first time
   * anything asks (routing, the plugin, a hook), kept for the rest of the request. Takes Fastify's
   * request or the Node request (`request.raw`), which is what routing and the hooks before
   * Fastify's request exists see.
   */
  outcome(request: FastifyRequest | IncomingMessage): VersioningOutcome;
  /**
   * An `onRequest` hook that throws the refusal of a refused request (`outcome(request).error`) and
   * lets every other request through. For the plugin's `refuse: false`: place it in front of the
   * versioned routes and, for the requests no route matched, behind `request.is404`.
   */
  refuse(request: FastifyRequest): Promise<void>;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

// The parts of a request the versioning reads: the path and the raw query split at the first `?`.
function inputOf(url: string, headers: IncomingMessage['headers'], context: unknown): VersioningInput {
  const mark = url.indexOf('?');
  return {
    path: mark === -1 ? url : url.slice(0, mark),
    query: mark === -1 ? '' : url.slice(mark + 1),
    headers,
    context,
  };
}

/**
 * Routes several API versions on the same path with Fastify's route constraints (find-my-way
 * constraint strategies): the version the policy resolves for a request becomes the value of the
 * `apiVersion` constraint, so `/projects` of v1 and `/projects` of v2 are two routes. For the header,
 * query, media-type and date strategies; under the path strategy the prefix (`/v1`, `/v2`) carries
 * the version and no route needs the constraint (the same code then only shares the resolution).
 *
 * Give the result to the {@link versioning} plugin (`{ constraint }`): it adds the strategy to the
 * app, sets the version headers on every response and `request.apiVersion`, and refuses a refused
 * version, all from the one resolution. Routing derives the constraint before any hook runs, so
 * the version is resolved then, once per request (kept by Node request); the plugin, the hooks and
 * `outcome()` read it. A refused version (unknown, malformed, sunset) matches no versioned route:
 * the request reaches the routes without the constraint, or the not-found handler, and the plugin's
 * `onRequest` hook, which runs there too when the plugin is registered at the root, answers with the
 * refusal (400, 406 or 410) rather than 404. A version that has no route for the path (a route added
 * in v2, requested as v1) is 404 `not_found`, with that version's headers.
 *
 * The policy's `pinnedVersion` gets the Node request as its context (Fastify's request does not
 * exist yet when routing resolves the version): a pin can read headers, not what a hook sets.
 * @example
 * ```ts
 * const policy = createVersionPolicy({ strategy: 'header', versions: [{ version: '1', deprecated: true }, '2'] });
 * const apiVersion = versionConstraint(policy, { neutralPaths: ['/health'] });
 * const app = Fastify();
 * await app.register(plumblineErrors);
 * await app.register(versioning, { constraint: apiVersion });
 * app.get('/projects', { constraints: { apiVersion: '1' } }, async () => legacyProjects());
 * app.get('/projects', { constraints: { apiVersion: '2' } }, async () => projects());
 * ```
 */
export function versionConstraint(
  policy: VersionPolicy,
  options: VersionConstraintOptions = {},
): VersionConstraint {
  const name = options.name ?? 'apiVersion';
  if (!IDENTIFIER.test(name) || name === 'version' || name === 'host') {
    throw new TypeError(
      `@plumbline/versioning: the constraint name ${JSON.stringify(name)} must be a JavaScript identifier other than Fastify's "version" and "host"`,
    );
  }
  const resolve = createRequestVersioning(policy, options);
  const outcomes = new WeakMap<IncomingMessage, VersioningOutcome>();
  const outcomeOf = (req: IncomingMessage): VersioningOutcome => {
    let outcome = outcomes.get(req);
    if (outcome === undefined) {
      outcome = resolve(inputOf(req.url ?? '/', req.headers, req));
      outcomes.set(req, outcome);
    }
    return outcome;
  };
  const outcome = (request: FastifyRequest | IncomingMessage) =>
    outcomeOf('raw' in request ? request.raw : request);
  const supported = new Set(policy.versions);
  const strategy: VersionConstraint['strategy'] = {
    name,
    mustMatchWhenDerived: false,
    storage: () => {
      const stores = new Map<string, never>();
      return {
        get: (version) => stores.get(version) ?? null,
        set: (version, store) => {
          stores.set(version, store);
        },
      };
    },
    validate: (value) => {
      if (typeof value !== 'string' || !supported.has(value)) {
        throw new TypeError(
          `@plumbline/versioning: the route constraint ${name}: ${JSON.stringify(value)} is not a supported version (${policy.versions.join(', ')})`,
        );
      }
    },
    // Neutral and refused requests derive '', which no route may declare (validate): they match
    // only routes without the constraint.
    deriveConstraint: (req) => {
      const derived = outcomeOf(req);
      return derived.kind === 'resolved' ? derived.resolved.version : '';
    },
  };
  return {
    name,
    policy,
    strategy,
    outcome,
    refuse: async (request) => {
      const derived = outcome(request);
      if (derived.kind === 'error') throw derived.error;
    },
  };
}

/**
 * Options of {@link versioning}: either the policy plus the core's neutral paths (the plugin
 * resolves in its `onRequest` hook), or a {@link versionConstraint} (the plugin reads the outcome the
 * constraint resolved during routing; the neutral paths are the constraint's), with `refuse`.
 * @example
 * ```ts
 * const options: VersioningPluginOptions = { policy, neutralPaths: ['/health'] };
 * const routed: VersioningPluginOptions = { constraint: versionConstraint(policy) };
 * ```
 */
export type VersioningPluginOptions =
  | (VersioningOptions & {
      /** A policy made by `createVersionPolicy`. */
      readonly policy: VersionPolicy;
      readonly constraint?: undefined;
      readonly refuse?: undefined;
    })
  | {
      /** A constraint made by {@link versionConstraint}: its policy, neutral paths and resolution. */
      readonly constraint: VersionConstraint;
      /**
       * Whether the plugin's `onRequest` hook answers a refused version with the refusal. Default
       * `true`. With `false` it only sets the headers, and the app refuses where it chooses with
       * `constraint.refuse` (in front of its versioned routes, and where `request.is404`).
       */
      readonly refuse?: boolean;
      readonly policy?: undefined;
      readonly neutralPaths?: undefined;
    };

function writeHeaders(reply: FastifyReply, record: HeaderRecord): void {
  for (const name in record) {
    const existing = reply.getHeader(name);
    const current = Array.isArray(existing) ? existing.join(', ') : (existing as string | undefined);
    reply.header(name, combineHeader(name, current, record[name]!));
  }
}

const plugin: FastifyPluginCallback<VersioningPluginOptions> = (fastify, options, done) => {
  const { constraint } = options;
  let outcomeOf: (request: FastifyRequest) => VersioningOutcome;
  let refuse = true;
  if (constraint === undefined) {
    const resolve = createRequestVersioning(options.policy, options);
    outcomeOf = (request) => resolve(inputOf(request.url, request.headers, request));
  } else {
    if (!fastify.hasConstraintStrategy(constraint.name)) fastify.addConstraintStrategy(constraint.strategy);
    outcomeOf = constraint.outcome;
    refuse = options.refuse ?? true;
  }
  if (!fastify.hasRequestDecorator('apiVersion')) fastify.decorateRequest('apiVersion', null);
  fastify.addHook('onRequest', (request, reply, next) => {
    const outcome = outcomeOf(request);
    // Set before the handler runs, so error responses carry them too.
    writeHeaders(reply, outcome.headers);
    if (outcome.kind === 'error') return next(refuse ? (outcome.error as Error) : undefined);
    if (outcome.kind === 'resolved') request.apiVersion = outcome.resolved;
    next();
  });
  done();
};

/**
 * The Fastify plugin: resolves the version once per request under the policy's strategy (the
 * core's `createRequestVersioning`), puts it on `request.apiVersion`, and sets
 * `API-Supported-Versions`, `API-Deprecated-Versions`, `Deprecation`, `Sunset`, `Link` and `Vary`
 * before the handler runs. A refused request goes to the error handler as the core's `HttpError`
 * (`@plumbline/errors/fastify` renders it). Applies to the context that registers it and its
 * children; register it at the root so requests no route matched get the headers and the refusal
 * too. With the path strategy, register per-version routes under `/v1`, `/v2` prefixes; to route
 * versions on one path, give it a {@link versionConstraint} instead of the policy.
 * @example
 * ```ts
 * const policy = createVersionPolicy({ strategy: 'header', versions: ['1', '2'] });
 * await app.register(plumblineErrors);
 * await app.register(versioning, { policy, neutralPaths: ['/health'] });
 * app.get('/projects', async (request) => ({ version: request.apiVersion?.version }));
 * ```
 */
export const versioning = fp(plugin, { fastify: '5.x', name: '@plumbline/versioning' });

/**
 * The API version resolved for this request, or `undefined` on version-neutral routes.
 * @example
 * ```ts
 * app.get('/projects', async (request) => (getApiVersion(request) === '1' ? legacy() : current()));
 * ```
 */
export function getApiVersion(request: FastifyRequest): string | undefined {
  return request.apiVersion?.version;
}
