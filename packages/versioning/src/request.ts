import { mergeVary } from '@plumbline/errors';
import { type CompiledPolicy, type HeaderRecord, internals, phaseAt, type VersionPolicy } from './policy.js';
import type { HeaderBag } from './readers.js';
import { headersAt, type ResolvedVersion, resolveAt } from './resolve.js';

/**
 * Options for {@link createRequestVersioning} and every adapter's versioning middleware.
 *
 * @example
 * ```ts
 * const options: VersioningOptions = { neutralPaths: ['/health', '/.well-known', /^\/errors\//] };
 * ```
 */
export interface VersioningOptions {
  /**
   * Version-neutral paths: not resolved, no version headers beyond `API-Supported-Versions`.
   * A string matches that path and everything below it (`/errors` matches `/errors/not_found`);
   * a RegExp is tested against the path. Default none. The path strategy needs none: a path
   * without a version segment is neutral by its shape.
   */
  readonly neutralPaths?: readonly (string | RegExp)[];
}

/**
 * The parts of one request the versioning reads, as every framework can give them.
 *
 * @example
 * ```ts
 * const input: VersioningInput = { path: '/v1/projects', query: 'limit=5', headers: { 'x-api-version': '2' } };
 * ```
 */
export interface VersioningInput {
  /** The path without the query string. */
  readonly path: string;
  /** The raw query string without `?` (query strategy). */
  readonly query?: string;
  /** Request headers (header and media-type strategies). */
  readonly headers?: HeaderBag;
  /** The path the app is mounted below, for the derived successor link. Default `''`. */
  readonly basePath?: string;
  /** The framework's request object (Express `req`, Fastify `request`, Hono `c`), passed to `pinnedVersion`. */
  readonly context?: unknown;
}

/**
 * What to do with one request. `headers` go on the response before the handler runs, errors
 * included; `Vary` and `Link` are added to what the response has (never replacing it), every
 * other header is set.
 *
 * @example
 * ```ts
 * const outcome: VersioningOutcome = { kind: 'neutral', headers: { 'API-Supported-Versions': '1, 2' } };
 * ```
 */
export type VersioningOutcome =
  | { readonly kind: 'neutral'; readonly headers: HeaderRecord }
  | { readonly kind: 'error'; readonly error: unknown; readonly headers: HeaderRecord }
  | { readonly kind: 'resolved'; readonly resolved: ResolvedVersion; readonly headers: HeaderRecord };

function neutralMatcher(paths: readonly (string | RegExp)[]): (path: string) => boolean {
  if (paths.length === 0) return () => false;
  const exact = new Set<string>();
  const prefixes: string[] = [];
  const patterns: RegExp[] = [];
  for (const entry of paths) {
    if (entry instanceof RegExp) patterns.push(entry);
    else {
      const path = entry.replace(/\/+$/, '').toLowerCase();
      exact.add(path === '' ? '/' : path);
      prefixes.push(`${path}/`);
    }
  }
  return (path) => {
    const lower = path.toLowerCase();
    return (
      exact.has(lower) ||
      prefixes.some((prefix) => lower.startsWith(prefix)) ||
      patterns.some((re) => re.test(path))
    );
  };
}

function outcomeFor(
  policy: CompiledPolicy,
  input: VersioningInput,
  isNeutral: (path: string) => boolean,
): VersioningOutcome {
  const now = policy.now();
  const phase = phaseAt(policy, now);
  if (isNeutral(input.path)) return { kind: 'neutral', headers: phase.common };
  let resolved: ResolvedVersion | undefined;
  try {
    resolved = resolveAt(policy, input, now, input.basePath, input.context);
  } catch (error) {
    const headers = policy.vary === undefined ? phase.common : { ...phase.common, Vary: policy.vary };
    return { kind: 'error', error, headers };
  }
  if (resolved === undefined) return { kind: 'neutral', headers: phase.common };
  const entry = policy.byVersion.get(resolved.version)!;
  // Only a successor link derived from the path makes the headers depend on the request.
  const headers = entry.deriveSuccessorLink
    ? headersAt(policy, resolved.version, now, { path: input.path, basePath: input.basePath ?? '' })
    : phase.byVersion.get(entry.version)!;
  return { kind: 'resolved', resolved, headers };
}

/**
 * The per-request versioning every adapter runs: neutral paths, version resolution under the
 * policy's strategy (`resolveVersion`) and the response headers (`versionHeaders`), as one plain
 * value, so Express, Fastify and Hono set the same headers and raise the same errors.
 *
 * @example
 * ```ts
 * const version = createRequestVersioning(policy, { neutralPaths: ['/health'] });
 * const outcome = version({ path: '/v1/projects' });
 * // { kind: 'resolved', resolved: { version: '1', ... }, headers: { 'API-Supported-Versions': '1, 2', ... } }
 * ```
 */
export function createRequestVersioning(
  policy: VersionPolicy,
  options: VersioningOptions = {},
): (input: VersioningInput) => VersioningOutcome {
  const compiled = internals(policy);
  const isNeutral = neutralMatcher(options.neutralPaths ?? []);
  return (input) => outcomeFor(compiled, input, isNeutral);
}

/**
 * How adapters add a version header to a response: `Vary` and `Link` are lists shared with other
 * middleware, so a new value is appended (`Vary` members are not repeated); any other header
 * replaces what is there.
 *
 * @example
 * ```ts
 * combineHeader('Link', '<https://a>; rel="x"', '<https://b>; rel="y"'); // both, comma-separated
 * ```
 */
export function combineHeader(name: string, existing: string | undefined, value: string): string {
  if (existing === undefined || existing === '') return value;
  const lower = name.toLowerCase();
  if (lower === 'link') return `${existing}, ${value}`;
  return lower === 'vary' ? mergeVary(existing, value) : value;
}

/**
 * Checks a per-version handler table (one router, sub-app or plugin per supported version) at
 * start-up: every supported version needs exactly one entry, spelled as in the policy, and each
 * must be a function. Returns the table as a map.
 *
 * @example
 * ```ts
 * const table = versionTable(policy, { '1': routerV1, '2': routerV2 }); // throws TypeError if one is missing
 * table.get(resolved.version);
 * ```
 */
export function versionTable<H>(
  policy: VersionPolicy,
  handlers: Readonly<Record<string, H>>,
): ReadonlyMap<string, H> {
  const compiled = internals(policy);
  const table = new Map<string, H>();
  for (const [key, handler] of Object.entries(handlers)) {
    const entry = compiled.lookup.get(key);
    if (entry === undefined || entry.version !== key) {
      throw new TypeError(
        `@plumbline/versioning: versionedRouter has a router for "${key}", which is not a supported version (${policy.versions.join(', ')})`,
      );
    }
    if (typeof handler !== 'function')
      throw new TypeError(`@plumbline/versioning: the router for "${key}" is not a function`);
    table.set(key, handler);
  }
  const missing = policy.versions.filter((version) => !table.has(version));
  if (missing.length > 0)
    throw new TypeError(`@plumbline/versioning: versionedRouter has no router for ${missing.join(', ')}`);
  return table;
}
