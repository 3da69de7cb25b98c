import { HttpError } from '@plumbline/errors';
import {
  type CompiledPolicy,
  type CompiledVersion,
  type HeaderRecord,
  internals,
  isRetired,
  LINK_TARGET,
  type Phase,
  phaseAt,
  type VersionPolicy,
  type VersionRequest,
} from './policy.js';
import { type HeaderBag, type Reading, readAccept, readHeader, readPath, readQuery } from './readers.js';
import { isDateVersion, parseVersion } from './version.js';

/**
 * The outcome of {@link resolveVersion}.
 *
 * @example
 * ```ts
 * const resolved: ResolvedVersion = { version: '2', requested: '2.0', defaulted: false, matchedPath: undefined };
 * ```
 */
export interface ResolvedVersion {
  /** The supported version that serves the request, spelled as in the policy. */
  readonly version: string;
  /** The version as the client wrote it (trimmed); `undefined` when the default was used. */
  readonly requested: string | undefined;
  /** True when the request named no version and the policy's default was used. */
  readonly defaulted: boolean;
  /** Path strategy: the leading path that carried the version (`/api/v1`), to strip before routing. */
  readonly matchedPath: string | undefined;
}

const UNSUPPORTED_STATUS = { path: 404, query: 400, header: 400, 'media-type': 406, date: 400 } as const;

/** Who asks: the request parts and the framework's request object, for `pinnedVersion`. */
interface Asker {
  readonly request: VersionRequest;
  readonly context: unknown;
}

// The newest supported date version on or before `date` (ISO dates order as strings).
function onOrBefore(policy: CompiledPolicy, date: string): CompiledVersion | undefined {
  const { sorted } = policy;
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]!.version <= date) low = middle + 1;
    else high = middle;
  }
  return low === 0 ? undefined : sorted[low - 1];
}

// A request that names no version: the client's pinned version, else the policy's default.
function fallback(policy: CompiledPolicy, asker: Asker): CompiledVersion {
  if (policy.pinned === undefined) return policy.defaultVersion;
  const pinned = policy.pinned(asker.request, asker.context);
  if (pinned === undefined) return policy.defaultVersion;
  const entry =
    typeof pinned !== 'string'
      ? undefined
      : policy.strategy === 'date'
        ? isDateVersion(pinned)
          ? onOrBefore(policy, pinned)
          : undefined
        : policy.lookup.get(pinned);
  if (entry === undefined) {
    throw new TypeError(
      `@plumbline/versioning: pinnedVersion gave ${JSON.stringify(pinned)}, which selects no supported version (${policy.public.versions.join(', ')})`,
    );
  }
  return entry;
}

function unsupported(policy: CompiledPolicy, phase: Phase, version: string): HttpError {
  // A 406 lists what can be served (docs/design.md#d-errors), here as vendor media types.
  const available =
    policy.strategy === 'media-type'
      ? phase.supported
          .split(', ')
          .flatMap((supported) =>
            policy.suffixes.map((suffix) => `${policy.mediaTypePrefix}${supported}+${suffix}`),
          )
      : undefined;
  return new HttpError('unsupported_api_version', {
    status: UNSUPPORTED_STATUS[policy.strategy],
    params: { version, supported: phase.supported },
    headers: phase.common,
    ...(available === undefined ? {} : { extensions: { available } }),
  });
}

function malformed(phase: Phase, raw: string): HttpError {
  return new HttpError('invalid_api_version', {
    params: raw === '' ? {} : { version: raw },
    headers: phase.common,
  });
}

function ambiguous(phase: Phase): HttpError {
  return new HttpError('ambiguous_api_version', { headers: phase.common });
}

/** Where the request was, for the successor link a retired version's 410 keeps. */
interface RequestPlace {
  readonly path?: string | undefined;
  readonly basePath?: string | undefined;
}

function select(
  policy: CompiledPolicy,
  phase: Phase,
  entry: CompiledVersion,
  requested: string | undefined,
  now: number,
  matchedPath?: string,
  place: RequestPlace = {},
): ResolvedVersion {
  if (isRetired(policy, entry, now)) {
    // The 410 keeps every link a response of this version carries, the successor derived from
    // the path included: a client told the version is gone learns where to go.
    // Vary is left out: the error handler sets error headers by replacement, and a Vary it
    // replaced would lose what other middleware added. The Express adapter adds Vary itself.
    const { Vary: _vary, ...headers } =
      place.path === undefined
        ? phase.byVersion.get(entry.version)!
        : headersAt(policy, entry.version, now, { path: place.path, basePath: place.basePath ?? '' });
    throw new HttpError('api_version_sunset', {
      params: { version: entry.version, date: entry.sunsetHeader! },
      headers,
    });
  }
  return { version: entry.version, requested, defaulted: requested === undefined, matchedPath };
}

function fromReading(
  policy: CompiledPolicy,
  phase: Phase,
  reading: Reading,
  now: number,
  asker: Asker,
  place: RequestPlace = {},
): ResolvedVersion {
  if (reading.kind === 'absent') return select(policy, phase, fallback(policy, asker), undefined, now);
  if (reading.kind === 'malformed') throw malformed(phase, reading.raw);
  const requested = reading.values[0]!;
  const entry = policy.lookup.get(requested);
  for (const value of reading.values) {
    if (policy.lookup.has(value)) continue;
    if (parseVersion(value) === undefined) throw malformed(phase, value);
  }
  if (reading.values.length > 1) {
    const distinct = new Set(reading.values.map((value) => policy.lookup.get(value) ?? value));
    if (distinct.size > 1) throw ambiguous(phase);
  }
  if (entry === undefined) throw unsupported(policy, phase, requested);
  return select(policy, phase, entry, requested, now, reading.matchedPath, place);
}

// A date names the API as it was that day: the newest version not after it serves it. Only a
// date before the first version has nothing to serve it.
function fromDate(
  policy: CompiledPolicy,
  phase: Phase,
  reading: Reading,
  now: number,
  asker: Asker,
): ResolvedVersion {
  if (reading.kind === 'absent') return select(policy, phase, fallback(policy, asker), undefined, now);
  if (reading.kind === 'malformed') throw malformed(phase, reading.raw);
  for (const value of reading.values) if (!isDateVersion(value)) throw malformed(phase, value);
  const entries = reading.values.map((value) => onOrBefore(policy, value));
  if (new Set(entries).size > 1) throw ambiguous(phase);
  const requested = reading.values[0]!;
  const entry = entries[0];
  if (entry === undefined) throw unsupported(policy, phase, requested);
  return select(policy, phase, entry, requested, now);
}

// Accept is a negotiation, not a single value: ranges the server cannot serve are passed over,
// the highest q among the servable ones wins, and q=0 refuses a version outright. Only a tie at
// the top between two different versions leaves nothing to choose by.
function fromAccept(
  policy: CompiledPolicy,
  phase: Phase,
  headers: HeaderBag | undefined,
  now: number,
  asker: Asker,
): ResolvedVersion {
  const candidates = readAccept(policy, headers);
  if (candidates.length === 0) return select(policy, phase, fallback(policy, asker), undefined, now);
  const only = candidates.length === 1 ? candidates[0]! : undefined;
  const direct = only !== undefined && only.q > 0 ? policy.lookup.get(only.raw) : undefined;
  if (direct !== undefined) return select(policy, phase, direct, only!.raw, now);
  const refused = new Set<CompiledVersion>();
  const wanted: { raw: string; q: number; entry: CompiledVersion | undefined }[] = [];
  for (const { raw, q } of candidates) {
    if (parseVersion(raw) === undefined) {
      if (q > 0) throw malformed(phase, raw);
      continue;
    }
    const entry = policy.lookup.get(raw);
    if (q === 0) {
      if (entry !== undefined) refused.add(entry);
    } else wanted.push({ raw, q, entry });
  }
  if (wanted.length === 0) {
    const chosen = fallback(policy, asker);
    if (refused.has(chosen)) throw unsupported(policy, phase, chosen.version);
    return select(policy, phase, chosen, undefined, now);
  }
  const servable = wanted.filter((item) => item.entry !== undefined && !refused.has(item.entry));
  if (servable.length === 0) {
    const best = wanted.reduce((a, b) => (b.q > a.q ? b : a));
    throw unsupported(policy, phase, best.raw);
  }
  const top = Math.max(...servable.map((item) => item.q));
  const winners = servable.filter((item) => item.q === top);
  if (new Set(winners.map((item) => item.entry)).size > 1) throw ambiguous(phase);
  const winner = winners[0]!;
  return select(policy, phase, winner.entry!, winner.raw, now);
}

/** @internal Like {@link resolveVersion}, but a path without a version segment gives `undefined`. */
export function resolveAt(
  policy: CompiledPolicy,
  request: VersionRequest,
  now: number,
  basePath = '',
  context?: unknown,
): ResolvedVersion | undefined {
  const phase = phaseAt(policy, now);
  const asker: Asker = { request, context };
  switch (policy.strategy) {
    case 'path': {
      const reading = readPath(policy, request.path);
      return reading.kind === 'absent'
        ? undefined
        : fromReading(policy, phase, reading, now, asker, { path: request.path, basePath });
    }
    case 'query':
      return fromReading(policy, phase, readQuery(policy, request.query), now, asker);
    case 'header':
      return fromReading(policy, phase, readHeader(policy, request.headers), now, asker);
    case 'media-type':
      return fromAccept(policy, phase, request.headers, now, asker);
    case 'date':
      return fromDate(policy, phase, readHeader(policy, request.headers), now, asker);
  }
}

/**
 * Finds the version a request asks for under the policy's strategy, or throws the `HttpError`
 * to answer with. `context` is handed to the policy's `pinnedVersion` (a request object, a principal). Errors carry `API-Supported-Versions` (and `API-Deprecated-Versions`) headers.
 *
 * | situation | path | query / header | media type | date |
 * |---|---|---|---|---|
 * | no version | 404 `not_found` | pinned or default version | pinned or default version | pinned or default version |
 * | unknown version | 404 `unsupported_api_version` | 400 `unsupported_api_version` | 406 `unsupported_api_version` | newest version not after it; 400 `unsupported_api_version` before the first |
 * | malformed (`v2`, `2.x`, empty; not a calendar date) | 400 `invalid_api_version` | 400 `invalid_api_version` | 400 `invalid_api_version` | 400 `invalid_api_version` |
 * | two different versions | n/a | 400 `ambiguous_api_version` | 400 at equal q | 400 `ambiguous_api_version` |
 * | after `sunsetAt` (enforced) | 410 `api_version_sunset` | 410 | 410 | 410 |
 *
 * @example
 * ```ts
 * resolveVersion(policy, { path: '/v1/projects' }).version; // '1'
 * resolveVersion(headerPolicy, { headers: { 'x-api-version': '2.1' } }).version; // '2.1'
 * ```
 */
export function resolveVersion(
  policy: VersionPolicy,
  request: VersionRequest,
  context?: unknown,
): ResolvedVersion {
  const compiled = internals(policy);
  const now = compiled.now();
  const resolved = resolveAt(compiled, request, now, '', context);
  if (resolved === undefined) throw new HttpError('not_found', { headers: phaseAt(compiled, now).common });
  return resolved;
}

/**
 * Options for {@link versionHeaders}.
 *
 * @example
 * ```ts
 * const options: VersionHeadersOptions = { path: '/v1/projects/7' };
 * ```
 */
export interface VersionHeadersOptions {
  /**
   * The request path, to derive the `successor-version` link (`/v1/x` → `/v2/x`; `/x?version=2` with
   * the query strategy). A path over 2048 characters gets none: the link would repeat it.
   */
  readonly path?: string;
  /** Prepended to the derived link, for apps mounted below a base path. Default `''`. */
  readonly basePath?: string;
}

/**
 * The longest request path a `successor-version` link is derived from. The link repeats the path,
 * which a client chooses (up to the server's request-line limit, 16 KiB on Node): a longer path
 * gets no derived link, so the `Link` header cannot grow with it. A configured `links.successor`
 * is sent as ever.
 */
const MAX_SUCCESSOR_PATH_LENGTH = 2048;

/**
 * @internal The successor link derived from the request path, when it can go into a header: the
 * path strategy swaps the version segment (`/v1/x` → `/v2/x`), the query strategy names the version
 * in the query (`/x?version=2`), the header and media-type strategies keep the URI (the media type
 * says the version: `type="application/vnd.<vendor>.v2+json"`).
 */
function successorLink(
  policy: CompiledPolicy,
  entry: CompiledVersion,
  path: string,
  basePath = '',
): string | undefined {
  if (path.length > MAX_SUCCESSOR_PATH_LENGTH) return undefined;
  const successor = entry.successor!;
  let target: string;
  let params = '';
  if (policy.strategy === 'path') {
    const reading = readPath(policy, path);
    if (reading.kind !== 'found' || reading.matchedPath === undefined) return undefined;
    const { matchedPath } = reading;
    target = `${basePath}${matchedPath.slice(0, matchedPath.lastIndexOf('/'))}/v${successor}${path.slice(matchedPath.length)}`;
  } else {
    const mark = path.search(/[?#]/);
    target = `${basePath}${mark === -1 ? path : path.slice(0, mark)}`;
    if (policy.strategy === 'query') target += `?${encodeURIComponent(policy.parameter)}=${successor}`;
    if (policy.strategy === 'media-type')
      params = `; type="${policy.mediaTypePrefix}${successor}+${policy.suffixes[0]}"`;
  }
  return LINK_TARGET.test(target) ? `<${target}>; rel="successor-version"${params}` : undefined;
}

/** @internal */
export function headersAt(
  policy: CompiledPolicy,
  version: string | undefined,
  now: number,
  options: VersionHeadersOptions = {},
): HeaderRecord {
  const phase = phaseAt(policy, now);
  if (version === undefined) return phase.common;
  const entry = policy.lookup.get(version);
  if (entry === undefined) {
    throw new TypeError(
      `@plumbline/versioning: version "${version}" is not in the policy (${policy.public.versions.join(', ')})`,
    );
  }
  const record = phase.byVersion.get(entry.version)!;
  if (!entry.deriveSuccessorLink || options.path === undefined) return record;
  const link = successorLink(policy, entry, options.path, options.basePath);
  if (link === undefined) return record;
  const previous = record['Link'];
  return { ...record, Link: previous === undefined ? link : `${previous}, ${link}` };
}

/**
 * The response headers for a request served by `version` (or, with no version, for a
 * version-neutral route): `API-Supported-Versions`, `API-Deprecated-Versions`, `Deprecation`
 * (`@<unix seconds>` per RFC 9745, or `true` when deprecated without a date), `Sunset`
 * (IMF-fixdate per RFC 8594), `Link` (`deprecation`, `sunset`, `successor-version`) and the `Vary`
 * entry of the strategy. The returned object is shared and frozen; copy it to change it.
 *
 * @example
 * ```ts
 * versionHeaders(policy, '1', { path: '/v1/projects' });
 * // { 'API-Supported-Versions': '1, 2', 'API-Deprecated-Versions': '1', Deprecation: '@1767225600',
 * //   Sunset: 'Wed, 01 Jul 2026 00:00:00 GMT', Link: '</v2/projects>; rel="successor-version"' }
 * ```
 */
export function versionHeaders(
  policy: VersionPolicy,
  version?: string,
  options: VersionHeadersOptions = {},
): HeaderRecord {
  const compiled = internals(policy);
  return headersAt(compiled, version, compiled.now(), options);
}

/**
 * The vendor media type of a version under the media-type strategy, for the response
 * `Content-Type`.
 *
 * @example
 * ```ts
 * versionMediaType(policy, '2'); // 'application/vnd.plumbline.v2+json'
 * versionMediaType(policy, '2', 'xml'); // 'application/vnd.plumbline.v2+xml'
 * ```
 */
export function versionMediaType(policy: VersionPolicy, version: string, suffix?: string): string {
  const compiled = internals(policy);
  if (compiled.strategy !== 'media-type') {
    throw new TypeError('@plumbline/versioning: versionMediaType needs a media-type strategy policy');
  }
  const entry = compiled.lookup.get(version);
  if (entry === undefined)
    throw new TypeError(`@plumbline/versioning: version "${version}" is not in the policy`);
  const chosen = suffix ?? compiled.suffixes[0]!;
  if (!compiled.suffixes.includes(chosen))
    throw new TypeError(`@plumbline/versioning: suffix "${chosen}" is not configured`);
  return `${compiled.mediaTypePrefix}${entry.version}+${chosen}`;
}
