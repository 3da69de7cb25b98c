/**
 * Where the API version travels (`VERSIONING_STRATEGY`, docs/design.md#d-versioning) and everything
 * that follows from it: the version policy, the shape of every link the service writes (Location,
 * collection links, cursors' next links; the successor-version link comes from the policy), and
 * the media types a version's representations are offered in.
 *
 *   path        GET /v2/projects                                   links /v2/projects/7
 *   query       GET /projects?version=2                            links /projects/7?version=2
 *   header      GET /projects + X-API-Version: 2                   links /projects/7
 *   media-type  GET /projects + Accept: application/vnd.plumbline.v2+json   links /projects/7
 *
 * Without a version, query, header and media-type serve the default (v2, DEFAULT_VERSION: a newer
 * version is opt-in); the path strategy has no unversioned API paths.
 */
import { createVersionPolicy, type VersionPolicy, versionHeaders } from '@plumbline/versioning';
import type { ApiVersion } from '../domain/model.js';
import { API_VERSIONS as DECLARED_VERSIONS, DEFAULT_VERSION } from '../domain/versions.js';
import type { VersioningStrategy } from './config.js';

/** One API version as the service declares it (and the front door lists it). */
export interface VersionEntry {
  readonly version: string;
  readonly deprecatedAt?: string;
  readonly sunsetAt?: string;
  readonly successor?: string;
  readonly links?: Readonly<Record<string, string>>;
}

const iso = (value: Date | string | undefined) =>
  value === undefined ? undefined : typeof value === 'string' ? value : value.toISOString();

/**
 * The versions and their lifecycle, as the front door lists them: read from the declared version
 * changes (domain/versions.ts), the one place the headers, the documents and the changelog come from.
 * There is no environment override: the dates are part of the published documents and changelog,
 * so they change with the code, in the same declaration.
 */
export const API_VERSIONS: readonly VersionEntry[] = DECLARED_VERSIONS.definitions.map((definition) => {
  const deprecatedAt = iso(definition.deprecatedAt);
  const sunsetAt = iso(definition.sunsetAt);
  return {
    version: definition.version,
    ...(deprecatedAt === undefined ? {} : { deprecatedAt }),
    ...(sunsetAt === undefined ? {} : { sunsetAt }),
    ...(definition.successor === undefined ? {} : { successor: definition.successor }),
    ...(definition.links === undefined ? {} : { links: { ...definition.links } }),
  };
});

/** The vendor of the media-type strategy: `application/vnd.plumbline.v2+json`. */
const VENDOR = 'plumbline';

/** The query parameter of the query strategy. */
const PARAMETER = 'version';

/** The versioning of the service under one strategy. */
export interface ApiStrategy {
  readonly strategy: VersioningStrategy;
  readonly policy: VersionPolicy;
  /**
   * The version a request that names none is served (query, header and media-type strategies:
   * `DEFAULT_VERSION`); undefined under the path strategy, where every API path names its version.
   */
  readonly defaultVersion: string | undefined;
  /** A link to `path` (`/projects/7`) as served by `version`, in the strategy's shape. */
  link(version: ApiVersion, path: string): string;
  /** Adds the version to a collection link (`/projects?limit=20` → `...&version=2` for the query strategy). */
  pageLink(version: ApiVersion, url: string): string;
  /** Response media types of a version's routes, most preferred first. */
  mediaTypes(version: ApiVersion): readonly string[];
  /** `url` without the version parameter under the query strategy (as the query parsers must see it); otherwise `url`. */
  withoutVersion(url: string): string;
}

const PLAIN_TYPES = ['application/json', 'application/xml'] as const;

/** The vendor media type of a version (`application/vnd.plumbline.v2+json`). */
export function vendorType(version: ApiVersion | string, suffix: 'json' | 'xml' = 'json'): string {
  return `application/vnd.${VENDOR}.v${version}+${suffix}`;
}

/** `?a=1&version=2&b=3` → `?a=1&b=3`: the version parameter removed, everything else as sent. */
function stripParameter(url: string): string {
  const mark = url.indexOf('?');
  if (mark < 0) return url;
  const kept = url
    .slice(mark + 1)
    .split('&')
    .filter((part) => part.split('=', 1)[0] !== PARAMETER);
  return kept.length === 0 ? url.slice(0, mark) : `${url.slice(0, mark)}?${kept.join('&')}`;
}

const strategies = new Map<VersioningStrategy, ApiStrategy>();

/** The service's versioning under `strategy` (made once per strategy). */
export function apiStrategy(strategy: VersioningStrategy): ApiStrategy {
  const known = strategies.get(strategy);
  if (known) return known;
  // Without a version the query, header and media-type strategies serve v2, not the newest (domain/versions.ts).
  const defaultVersion = DEFAULT_VERSION;
  const policy = createVersionPolicy(
    strategy === 'media-type'
      ? { strategy, vendor: VENDOR, suffixes: ['json', 'xml'], versions: DECLARED_VERSIONS, defaultVersion }
      : strategy === 'query'
        ? { strategy, parameter: PARAMETER, versions: DECLARED_VERSIONS, defaultVersion }
        : { strategy, versions: DECLARED_VERSIONS, ...(strategy === 'path' ? {} : { defaultVersion }) },
  );
  const made: ApiStrategy = {
    strategy,
    policy,
    defaultVersion: strategy === 'path' ? undefined : defaultVersion,
    link: (version, path) =>
      strategy === 'path'
        ? `/v${version}${path}`
        : strategy === 'query'
          ? `${path}?${PARAMETER}=${version}`
          : path,
    pageLink: (version, url) =>
      strategy === 'query' ? `${url}${url.includes('?') ? '&' : '?'}${PARAMETER}=${version}` : url,
    mediaTypes: (version) =>
      strategy === 'media-type'
        ? [vendorType(version), ...PLAIN_TYPES, vendorType(version, 'xml')]
        : PLAIN_TYPES,
    withoutVersion: (url) => (strategy === 'query' ? stripParameter(url) : url),
  };
  strategies.set(strategy, made);
  return made;
}

/**
 * The headers every response carries, including those the HTTP server sends before the app runs
 * (server.ts): API-Supported-Versions and the deprecated versions, under the configured strategy.
 */
export function commonHeaders(strategy: VersioningStrategy): Readonly<Record<string, string>> {
  return versionHeaders(apiStrategy(strategy).policy);
}
