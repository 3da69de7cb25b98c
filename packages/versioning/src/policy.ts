import type { VersionChanges, VersionDefinition } from './changes.js';
import type { HeaderBag, ReaderSettings } from './readers.js';
import { compareVersions, isDateVersion, type ParsedVersion, parseVersion } from './version.js';

/**
 * Where a request carries its version. A service uses exactly one. `date` reads a dated version
 * (`2026-11-01`, Stripe-Version style) from a header and serves the newest version not after it.
 *
 * @example
 * ```ts
 * const strategy: VersionStrategy = 'path'; // /v1/projects
 * ```
 */
export type VersionStrategy = 'path' | 'query' | 'header' | 'media-type' | 'date';

/**
 * The parts of a request a strategy reads. Pass what you have; only the configured strategy's part
 * is looked at.
 *
 * @example
 * ```ts
 * const request: VersionRequest = { path: '/v2/projects', query: 'limit=10', headers: { accept: 'application/json' } };
 * ```
 */
export interface VersionRequest {
  /** The URL path without the query (path strategy). */
  readonly path?: string;
  /** The raw query string, with or without `?`, or parsed `URLSearchParams` (query strategy). */
  readonly query?: string | URLSearchParams;
  /** Request headers, as Node gives them (header and media-type strategies). */
  readonly headers?: HeaderBag;
}

/**
 * The version a client is pinned to when its request names none: given the parts of the request
 * the strategy reads and the framework's own request object (Express `req`, Fastify `request`,
 * Hono `c`; `undefined` from `resolveVersion`), so it can read the principal an authentication
 * middleware in front of versioning put there. `undefined` means the policy's default.
 *
 * @example
 * ```ts
 * const pinnedVersion: PinnedVersion = (_request, req) =>
 *   (req as { principal?: { apiVersion?: string } } | undefined)?.principal?.apiVersion;
 * ```
 */
export type PinnedVersion = (request: VersionRequest, context: unknown) => string | undefined;

interface CommonPolicyOptions {
  /**
   * The supported versions, as strings or full definitions, or the declared version changes
   * (`versions([...])` of this package): then each entry's `deprecated`, `sunset`, `link` and
   * `successor` are the lifecycle, so the headers and the changelog come from one place. At least
   * one; no duplicates (`2` and `2.0` are the same).
   */
  readonly versions: readonly (string | VersionDefinition)[] | VersionChanges;
  /** Served when the request names no version (not for the path strategy). Default: the newest version that is not deprecated and has no sunset date, else the newest. */
  readonly defaultVersion?: string;
  /** Answer 410 `api_version_sunset` once a version's `sunsetAt` has passed. Default `true`. */
  readonly enforceSunset?: boolean;
  /** Clock in milliseconds since the epoch. Default `Date.now`. */
  readonly now?: () => number;
  /**
   * The per-client default: called when a request names no version (not for the path strategy).
   * Its answer is resolved like a version the client sent (a date to the newest version not after
   * it); an answer that resolves to nothing is a configuration error (`TypeError`, a 500).
   */
  readonly pinnedVersion?: PinnedVersion;
}

/**
 * URI path strategy: `/v1/...`, or `/api/v1/...` with `prefix: '/api'`.
 *
 * @example
 * ```ts
 * const options: PathStrategyOptions = { strategy: 'path', prefix: '/api', versions: ['1', '2'] };
 * ```
 */
export interface PathStrategyOptions extends CommonPolicyOptions {
  readonly strategy: 'path';
  /** Path before the version segment, such as `/api`. Default `''`. Matched case-insensitively, like Express routes. */
  readonly prefix?: string;
}

/**
 * Query strategy: `?version=2`.
 *
 * @example
 * ```ts
 * const options: QueryStrategyOptions = { strategy: 'query', parameter: 'api-version', versions: ['1', '2'] };
 * ```
 */
export interface QueryStrategyOptions extends CommonPolicyOptions {
  readonly strategy: 'query';
  /** Query parameter name (case-sensitive, as URLs are). Default `version`. */
  readonly parameter?: string;
}

/**
 * Header strategy: `X-API-Version: 2` or `2.1`.
 *
 * @example
 * ```ts
 * const options: HeaderStrategyOptions = { strategy: 'header', header: 'Api-Version', versions: ['1', '2.1'] };
 * ```
 */
export interface HeaderStrategyOptions extends CommonPolicyOptions {
  readonly strategy: 'header';
  /** Request header name. Default `X-API-Version`. */
  readonly header?: string;
}

/**
 * Media-type strategy: `Accept: application/vnd.<vendor>.v2+json`.
 *
 * @example
 * ```ts
 * const options: MediaTypeStrategyOptions = { strategy: 'media-type', vendor: 'plumbline', versions: ['1', '2'] };
 * ```
 */
export interface MediaTypeStrategyOptions extends CommonPolicyOptions {
  readonly strategy: 'media-type';
  /** The vendor tree name in `application/vnd.<vendor>.v<N>+json`. Required. */
  readonly vendor: string;
  /** Structured-syntax suffixes accepted after the version. Default `['json']`. */
  readonly suffixes?: readonly string[];
}

/**
 * Date strategy: `API-Version: 2026-11-01`. Versions are dates (`YYYY-MM-DD`); a request for a
 * date between two of them gets the older one, a date before the first is 400
 * `unsupported_api_version`.
 *
 * @example
 * ```ts
 * const options: DateStrategyOptions = { strategy: 'date', header: 'Acme-Version', versions: ['2025-01-15', '2026-11-01'] };
 * ```
 */
export interface DateStrategyOptions extends CommonPolicyOptions {
  readonly strategy: 'date';
  /** Request header name. Default `API-Version`. */
  readonly header?: string;
}

/**
 * Everything {@link createVersionPolicy} accepts: the strategy and its settings, plus the versions.
 *
 * @example
 * ```ts
 * const options: VersionPolicyOptions = { strategy: 'header', versions: ['1', '2'], defaultVersion: '2' };
 * ```
 */
export type VersionPolicyOptions =
  | PathStrategyOptions
  | QueryStrategyOptions
  | HeaderStrategyOptions
  | MediaTypeStrategyOptions
  | DateStrategyOptions;

/**
 * A validated, precompiled version policy. Create it once at start-up with
 * {@link createVersionPolicy}; pass it to `resolveVersion`, `versionHeaders` and the Express adapter.
 *
 * @example
 * ```ts
 * const policy: VersionPolicy = createVersionPolicy({ strategy: 'path', versions: ['1', '2'] });
 * policy.versions; // ['1', '2']
 * ```
 */
export interface VersionPolicy {
  readonly strategy: VersionStrategy;
  /** Supported versions, oldest first. */
  readonly versions: readonly string[];
  readonly defaultVersion: string;
  /** The request header responses vary on (`X-API-Version`, `Accept`), or `undefined` when the URI carries the version. */
  readonly vary: string | undefined;
}

/** @internal One version with every header value it can need, computed at configuration time. */
export interface CompiledVersion {
  readonly version: string;
  readonly parsed: ParsedVersion;
  /** Milliseconds since which the version counts as deprecated; `-Infinity` for "deprecated, no date". */
  readonly deprecatedFrom: number | undefined;
  readonly sunsetAt: number | undefined;
  readonly deprecationHeader: string | undefined;
  readonly sunsetHeader: string | undefined;
  /** `Link` members that do not depend on the request. */
  readonly staticLinks: readonly string[];
  readonly successor: string | undefined;
  /** True when the successor link must be derived from the request path. */
  readonly deriveSuccessorLink: boolean;
}

/**
 * Response header names and values, ready to set.
 *
 * @example
 * ```ts
 * const headers: HeaderRecord = { 'API-Supported-Versions': '1, 2', Deprecation: 'true' };
 * ```
 */
export type HeaderRecord = Readonly<Record<string, string>>;

/** @internal The response headers in force during one interval between lifecycle dates. */
export interface Phase {
  readonly from: number;
  readonly supported: string;
  /** `API-Supported-Versions` and `API-Deprecated-Versions`: what every response carries. */
  readonly common: HeaderRecord;
  /** Everything a response of that version carries, except a successor link derived from the path. */
  readonly byVersion: ReadonlyMap<string, HeaderRecord>;
}

/** @internal */
export interface CompiledPolicy extends ReaderSettings {
  readonly public: VersionPolicy;
  readonly strategy: VersionStrategy;
  readonly byVersion: ReadonlyMap<string, CompiledVersion>;
  /** Every accepted spelling (`2`, `2.0`, `2.1`) to the version it selects. */
  readonly lookup: ReadonlyMap<string, CompiledVersion>;
  readonly defaultVersion: CompiledVersion;
  readonly enforceSunset: boolean;
  readonly now: () => number;
  readonly phases: readonly Phase[];
  readonly vary: string | undefined;
  readonly pinned: PinnedVersion | undefined;
  /** Supported versions, oldest first (the date strategy searches it). */
  readonly sorted: readonly CompiledVersion[];
}

const compiled = new WeakMap<VersionPolicy, CompiledPolicy>();

/** @internal The compiled form of a policy made by {@link createVersionPolicy}. */
export function internals(policy: VersionPolicy): CompiledPolicy {
  const found = compiled.get(policy);
  if (found === undefined) {
    throw new TypeError('@plumbline/versioning: pass a policy created by createVersionPolicy()');
  }
  return found;
}

const STRATEGIES: readonly VersionStrategy[] = ['path', 'query', 'header', 'media-type', 'date'];
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const VENDOR = /^[a-z0-9](?:[a-z0-9._-]*[a-z0-9])?$/;
/** @internal Link targets go between `<` and `>` in a header: no spaces, controls, quotes or angle brackets. */
export const LINK_TARGET = /^[\x21\x23-\x3b\x3d\x3f-\x7e]+$/;

function fail(message: string): never {
  throw new TypeError(`@plumbline/versioning: ${message}`);
}

function toTime(value: Date | string, what: string): number {
  const time = value instanceof Date ? value.getTime() : Date.parse(value);
  if (!Number.isFinite(time)) fail(`${what} is not a valid date: ${String(value)}`);
  return time;
}

/**
 * RFC 9745 `Deprecation` value: `@` and the Unix time in whole seconds.
 *
 * @example
 * ```ts
 * formatDeprecation(Date.UTC(2026, 0, 1)); // '@1767225600'
 * ```
 */
export function formatDeprecation(time: number): string {
  return `@${Math.floor(time / 1000)}`;
}

/**
 * RFC 9110 IMF-fixdate, as RFC 8594 `Sunset` requires.
 *
 * @example
 * ```ts
 * formatHttpDate(Date.UTC(2026, 6, 1)); // 'Wed, 01 Jul 2026 00:00:00 GMT'
 * ```
 */
export function formatHttpDate(time: number): string {
  return new Date(time).toUTCString();
}

function linkMember(target: string, rel: string, what: string): string {
  if (!LINK_TARGET.test(target)) fail(`${what} is not a usable URI reference: ${JSON.stringify(target)}`);
  return `<${target}>; rel="${rel}"`;
}

function normalizeDefinition(entry: string | VersionDefinition): VersionDefinition {
  if (typeof entry === 'string') return { version: entry };
  if (typeof entry !== 'object' || entry === null || typeof entry.version !== 'string') {
    fail('every entry of versions must be a version string or { version: string, ... }');
  }
  return entry;
}

// A date version orders as the number YYYYMMDD, so the numeric ordering serves both kinds.
function parseDefinition(version: string, dated: boolean): ParsedVersion {
  if (dated) {
    if (!isDateVersion(version)) fail(`version "${version}" must be a date "YYYY-MM-DD" (e.g. "2026-11-01")`);
    return { major: Number(version.replaceAll('-', '')), minor: undefined };
  }
  const parsed = parseVersion(version);
  if (parsed === undefined)
    fail(`version "${version}" must be "<major>" or "<major>.<minor>" (e.g. "2", "2.1")`);
  return parsed;
}

function compileVersion(definition: VersionDefinition, isDated: boolean): CompiledVersion {
  const { version } = definition;
  const parsed = parseDefinition(version, isDated);
  const dated =
    definition.deprecatedAt === undefined
      ? undefined
      : toTime(definition.deprecatedAt, `${version}.deprecatedAt`);
  if (definition.deprecated === false && dated !== undefined) {
    fail(`version ${version} has deprecatedAt but deprecated: false`);
  }
  const deprecatedFrom = dated ?? (definition.deprecated === true ? Number.NEGATIVE_INFINITY : undefined);
  const sunsetAt =
    definition.sunsetAt === undefined ? undefined : toTime(definition.sunsetAt, `${version}.sunsetAt`);
  if (dated !== undefined && sunsetAt !== undefined && sunsetAt < dated) {
    fail(
      `version ${version} has its sunset (${definition.sunsetAt}) before its deprecation (${definition.deprecatedAt})`,
    );
  }
  const links = definition.links ?? {};
  const staticLinks: string[] = [];
  if (links.deprecation !== undefined)
    staticLinks.push(linkMember(links.deprecation, 'deprecation', `${version}.links.deprecation`));
  if (links.sunset !== undefined)
    staticLinks.push(linkMember(links.sunset, 'sunset', `${version}.links.sunset`));
  if (links.successor !== undefined) {
    staticLinks.push(linkMember(links.successor, 'successor-version', `${version}.links.successor`));
  }
  let deprecationHeader: string | undefined;
  if (dated !== undefined) deprecationHeader = formatDeprecation(dated);
  else if (deprecatedFrom !== undefined) deprecationHeader = 'true';
  return {
    version,
    parsed,
    deprecatedFrom,
    sunsetAt,
    deprecationHeader,
    sunsetHeader: sunsetAt === undefined ? undefined : formatHttpDate(sunsetAt),
    staticLinks,
    successor: definition.successor,
    deriveSuccessorLink: definition.successor !== undefined && links.successor === undefined,
  };
}

// A bare major selects that exact version when listed, else the newest minor of that major; an
// explicit `N.0` also selects a listed bare `N`.
function buildLookup(versions: readonly CompiledVersion[], dated: boolean): Map<string, CompiledVersion> {
  const lookup = new Map<string, CompiledVersion>();
  if (dated) return new Map(versions.map((entry) => [entry.version, entry]));
  for (const entry of versions) {
    const { major, minor } = entry.parsed;
    lookup.set(entry.version, entry);
    if (minor === undefined) lookup.set(`${major}.0`, entry);
  }
  for (const entry of versions) {
    const major = String(entry.parsed.major);
    const current = lookup.get(major);
    if (
      current === undefined ||
      (current.parsed.minor !== undefined && compareVersions(entry.parsed, current.parsed) > 0)
    ) {
      lookup.set(major, entry);
    }
  }
  return lookup;
}

function versionRecord(common: HeaderRecord, entry: CompiledVersion, vary: string | undefined): HeaderRecord {
  const record: Record<string, string> = { ...common };
  if (entry.deprecationHeader !== undefined) record['Deprecation'] = entry.deprecationHeader;
  if (entry.sunsetHeader !== undefined) record['Sunset'] = entry.sunsetHeader;
  if (entry.staticLinks.length > 0) record['Link'] = entry.staticLinks.join(', ');
  if (vary !== undefined) record['Vary'] = vary;
  return Object.freeze(record);
}

// Which versions are listed as supported or deprecated changes only at the configured dates, so
// every header set is computed here once per interval and a request only picks its interval.
function computePhases(
  versions: readonly CompiledVersion[],
  enforceSunset: boolean,
  vary: string | undefined,
): Phase[] {
  const moments = new Set<number>();
  for (const entry of versions) {
    if (entry.deprecatedFrom !== undefined && Number.isFinite(entry.deprecatedFrom))
      moments.add(entry.deprecatedFrom);
    if (enforceSunset && entry.sunsetAt !== undefined) moments.add(entry.sunsetAt);
  }
  const starts = [Number.NEGATIVE_INFINITY, ...[...moments].sort((a, b) => a - b)];
  return starts.map((from) => {
    const live = versions.filter(
      (entry) => !(enforceSunset && entry.sunsetAt !== undefined && entry.sunsetAt <= from),
    );
    const deprecated = live.filter(
      (entry) => entry.deprecatedFrom !== undefined && entry.deprecatedFrom <= from,
    );
    const supported = live.map((entry) => entry.version).join(', ');
    const common: Record<string, string> = { 'API-Supported-Versions': supported };
    if (deprecated.length > 0)
      common['API-Deprecated-Versions'] = deprecated.map((entry) => entry.version).join(', ');
    Object.freeze(common);
    return {
      from,
      supported,
      common,
      byVersion: new Map(versions.map((entry) => [entry.version, versionRecord(common, entry, vary)])),
    };
  });
}

function pickDefault(
  options: VersionPolicyOptions,
  sorted: readonly CompiledVersion[],
  byVersion: Map<string, CompiledVersion>,
): CompiledVersion {
  if (options.defaultVersion !== undefined) {
    const chosen = byVersion.get(options.defaultVersion);
    if (chosen === undefined) {
      fail(
        `defaultVersion "${options.defaultVersion}" is not one of the supported versions (${[...byVersion.keys()].join(', ')})`,
      );
    }
    if (chosen.sunsetAt !== undefined) {
      fail(
        `defaultVersion "${chosen.version}" has a sunset date; clients that send no version would start failing`,
      );
    }
    return chosen;
  }
  const stable = sorted.filter((entry) => entry.deprecatedFrom === undefined && entry.sunsetAt === undefined);
  return stable.at(-1) ?? sorted.at(-1)!;
}

function strategySettings(
  options: VersionPolicyOptions,
): Pick<CompiledPolicy, 'prefix' | 'parameter' | 'header' | 'mediaTypePrefix' | 'suffixes' | 'vary'> {
  const settings = {
    prefix: '',
    parameter: 'version',
    header: 'x-api-version',
    mediaTypePrefix: '',
    suffixes: ['json'] as readonly string[],
    vary: undefined as string | undefined,
  };
  switch (options.strategy) {
    case 'path': {
      const prefix = (options.prefix ?? '').replace(/\/+$/, '');
      if (prefix !== '' && !/^\/[^?#\s]*$/.test(prefix))
        fail(`prefix must start with "/", got ${JSON.stringify(options.prefix)}`);
      return { ...settings, prefix };
    }
    case 'query': {
      const parameter = options.parameter ?? 'version';
      if (parameter === '') fail('parameter must not be empty');
      return { ...settings, parameter };
    }
    case 'header':
    case 'date': {
      const header = options.header ?? (options.strategy === 'date' ? 'API-Version' : 'X-API-Version');
      if (!TOKEN.test(header)) fail(`header ${JSON.stringify(header)} is not a valid header name`);
      return { ...settings, header: header.toLowerCase(), vary: header };
    }
    case 'media-type': {
      const vendor = typeof options.vendor === 'string' ? options.vendor.toLowerCase() : '';
      if (!VENDOR.test(vendor))
        fail(`vendor ${JSON.stringify(options.vendor)} must be a media-type token such as "plumbline"`);
      const suffixes = (options.suffixes ?? ['json']).map((suffix) => suffix.toLowerCase());
      if (suffixes.length === 0 || suffixes.some((suffix) => !/^[a-z0-9-]+$/.test(suffix))) {
        fail('suffixes must be a non-empty list such as ["json"]');
      }
      return { ...settings, mediaTypePrefix: `application/vnd.${vendor}.v`, suffixes, vary: 'Accept' };
    }
    default:
      return fail(
        `strategy must be one of ${STRATEGIES.join(', ')}, got ${JSON.stringify((options as { strategy?: unknown }).strategy)}`,
      );
  }
}

/**
 * Validates and compiles a version policy. Every mistake is reported here, at start-up, rather
 * than on a request: an unknown strategy, a malformed or duplicate version (`2` and `2.0`), a
 * default that is not supported or is scheduled for sunset, a sunset before the deprecation, an
 * unknown successor, an unusable link.
 *
 * @example
 * ```ts
 * const policy = createVersionPolicy({
 *   strategy: 'path',
 *   versions: [
 *     { version: '1', deprecatedAt: '2026-01-01T00:00:00Z', sunsetAt: '2026-07-01T00:00:00Z', successor: '2' },
 *     '2',
 *   ],
 * });
 * ```
 */
export function createVersionPolicy(options: VersionPolicyOptions): VersionPolicy {
  if (typeof options !== 'object' || options === null) fail('options are required');
  const settings = strategySettings(options);
  const declared = options.versions as VersionPolicyOptions['versions'] | undefined;
  const list = Array.isArray(declared)
    ? declared
    : typeof declared === 'object' &&
        declared !== null &&
        Array.isArray((declared as VersionChanges).definitions)
      ? (declared as VersionChanges).definitions
      : undefined;
  if (list === undefined || list.length === 0) fail('versions must list at least one version');
  const dated = options.strategy === 'date';
  if (options.pinnedVersion !== undefined) {
    if (typeof options.pinnedVersion !== 'function') fail('pinnedVersion must be a function');
    if (options.strategy === 'path')
      fail('pinnedVersion has no use with the path strategy: every path names its version');
  }
  const byVersion = new Map<string, CompiledVersion>();
  const seen = new Map<string, string>();
  for (const entry of list) {
    const version = compileVersion(normalizeDefinition(entry), dated);
    const key = `${version.parsed.major}.${version.parsed.minor ?? 0}`;
    const clash = seen.get(key);
    if (clash !== undefined)
      fail(`versions lists the same version twice ("${clash}" and "${version.version}")`);
    seen.set(key, version.version);
    byVersion.set(version.version, version);
  }
  const sorted = [...byVersion.values()].sort((a, b) => compareVersions(a.parsed, b.parsed));
  for (const entry of sorted) {
    if (entry.successor === undefined) continue;
    if (!byVersion.has(entry.successor))
      fail(`successor "${entry.successor}" of version ${entry.version} is not a supported version`);
    if (entry.successor === entry.version) fail(`version ${entry.version} cannot be its own successor`);
  }
  const enforceSunset = options.enforceSunset ?? true;
  const defaultVersion = pickDefault(options, sorted, byVersion);
  const publicPolicy: VersionPolicy = Object.freeze({
    strategy: options.strategy,
    versions: Object.freeze(sorted.map((entry) => entry.version)),
    defaultVersion: defaultVersion.version,
    vary: settings.vary,
  });
  compiled.set(publicPolicy, {
    ...settings,
    public: publicPolicy,
    strategy: options.strategy,
    byVersion: new Map(sorted.map((entry) => [entry.version, entry])),
    lookup: buildLookup(sorted, dated),
    pinned: options.pinnedVersion,
    sorted,
    defaultVersion,
    enforceSunset,
    now: options.now ?? Date.now,
    phases: computePhases(sorted, enforceSunset, settings.vary),
    acceptCache: new Map(),
  });
  return publicPolicy;
}

/** @internal The time-dependent header values in force at `now`. */
export function phaseAt(policy: CompiledPolicy, now: number): Phase {
  const { phases } = policy;
  let index = 0;
  while (index + 1 < phases.length && phases[index + 1]!.from <= now) index++;
  return phases[index]!;
}

/** @internal True once `version` is retired and requests to it must get 410. */
export function isRetired(policy: CompiledPolicy, version: CompiledVersion, now: number): boolean {
  return policy.enforceSunset && version.sunsetAt !== undefined && version.sunsetAt <= now;
}
