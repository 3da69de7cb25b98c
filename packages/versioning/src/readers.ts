/**
 * @internal What the readers need from a compiled policy. Declared here, and extended by the
 * policy, so the readers depend on nothing else in the package (no import cycle).
 */
export interface ReaderSettings {
  /** Path prefix before the version segment, lower-cased (`''` or `/api`). */
  readonly prefix: string;
  readonly parameter: string;
  /** Lower-cased request header name. */
  readonly header: string;
  /** `application/vnd.<vendor>.v`. */
  readonly mediaTypePrefix: string;
  readonly suffixes: readonly string[];
  /** Parsed vendor ranges per Accept string (bounded). */
  readonly acceptCache: Map<string, readonly MediaCandidate[]>;
}

/** What one strategy found in a request, before the policy is consulted. */
export type Reading =
  | { readonly kind: 'absent' }
  | { readonly kind: 'malformed'; readonly raw: string }
  | { readonly kind: 'found'; readonly values: readonly string[]; readonly matchedPath?: string };

/**
 * Request headers as Node (`IncomingHttpHeaders`) or a plain object gives them; lower-case names
 * are looked up first, other spellings are found too.
 *
 * @example
 * ```ts
 * const headers: HeaderBag = { 'x-api-version': '2', accept: ['application/json'] };
 * ```
 */
export type HeaderBag = Readonly<Record<string, string | readonly string[] | undefined>>;

const ABSENT: Reading = { kind: 'absent' };

function headerValue(headers: HeaderBag | undefined, lowerName: string): string | undefined {
  if (headers === undefined) return undefined;
  let value = headers[lowerName];
  if (value === undefined) {
    for (const name of Object.keys(headers)) {
      // Node already lower-cases names; the length check keeps the miss path cheap for it.
      if (name.length === lowerName.length && name.toLowerCase() === lowerName) {
        value = headers[name];
        break;
      }
    }
  }
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : value.join(', ');
}

// Distinct values decide ambiguity: `?version=2&version=2` names one version, not two.
function collect(raw: readonly string[]): Reading {
  const values: string[] = [];
  for (const item of raw) {
    const value = item.trim();
    if (value === '') return { kind: 'malformed', raw: '' };
    if (!values.includes(value)) values.push(value);
  }
  return values.length === 0 ? ABSENT : { kind: 'found', values };
}

/**
 * Path strategy. The version segment is the first one after the prefix and looks like `v<digit>...`
 * (`v` alone counts as an empty version); anything else (`/health`, `/videos`) carries no version.
 */
export function readPath(policy: ReaderSettings, path: string | undefined): Reading {
  if (path === undefined) return ABSENT;
  // Tolerate a full request target (`/v1/x?y=1`): the version never comes from the query.
  const query = path.indexOf('?');
  const fragment = path.indexOf('#');
  const mark = query === -1 || (fragment !== -1 && fragment < query) ? fragment : query;
  if (mark !== -1) path = path.slice(0, mark);
  const { prefix } = policy;
  if (prefix !== '') {
    if (path.length <= prefix.length || path[prefix.length] !== '/') return ABSENT;
    // Paths are case-sensitive (RFC 3986 6.2.2.1): `/API/v1` is not under `/api`.
    if (!path.startsWith(prefix)) return ABSENT;
  }
  const start = prefix.length + 1;
  if (path[start - 1] !== '/') return ABSENT;
  const first = path.charCodeAt(start);
  if (first !== 0x76) return ABSENT; // `v`: `/V2/x` is another path, not version 2
  let end = path.indexOf('/', start);
  if (end === -1) end = path.length;
  const segment = path.slice(start + 1, end);
  const lead = segment.charCodeAt(0);
  if (segment !== '' && !(lead >= 0x30 && lead <= 0x39)) return ABSENT;
  return { kind: 'found', values: [segment], matchedPath: path.slice(0, end) };
}

/** Query strategy over a raw query string (`a=1&version=2`, a leading `?` allowed) or `URLSearchParams`. */
export function readQuery(policy: ReaderSettings, query: string | URLSearchParams | undefined): Reading {
  if (query === undefined || query === '') return ABSENT;
  const params = typeof query === 'string' ? new URLSearchParams(query) : query;
  const raw = params.getAll(policy.parameter);
  return raw.length === 0 ? ABSENT : collect(raw);
}

/**
 * Header strategy. Several header lines reach Node joined by commas, so the value is read as a
 * list; empty list members are ignored as RFC 9110 section 5.6.1 asks, an empty field is malformed.
 */
export function readHeader(policy: ReaderSettings, headers: HeaderBag | undefined): Reading {
  const value = headerValue(headers, policy.header);
  if (value === undefined) return ABSENT;
  if (!value.includes(',')) {
    const single = value.trim();
    return single === '' ? { kind: 'malformed', raw: '' } : { kind: 'found', values: [single] };
  }
  return collect(
    value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== ''),
  );
}

/** One vendor media range from Accept: the version text as written and its weight. */
export interface MediaCandidate {
  readonly raw: string;
  readonly q: number;
}

const Q_VALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;
/**
 * Accept headers longer than this (1 KiB) are read only up to their last complete member before
 * it, as the negotiation package does, so a huge header costs no more than a normal one.
 *
 * @example
 * ```ts
 * if (accept.length > MAX_ACCEPT_LENGTH) log.warn('Accept header truncated for versioning');
 * ```
 */
export const MAX_ACCEPT_LENGTH = 1024;
const CACHE_SIZE = 256;

// Commas inside quoted parameter values do not separate media ranges.
function splitList(value: string): string[] {
  const parts: string[] = [];
  let quoted = false;
  let start = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 0x22) quoted = !quoted;
    else if (c === 0x5c && quoted) i++;
    else if (c === 0x2c && !quoted) {
      parts.push(value.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(value.slice(start));
  return parts;
}

function weight(params: readonly string[]): number | undefined {
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq === -1 || param.slice(0, eq).trim().toLowerCase() !== 'q') continue;
    const value = param.slice(eq + 1).trim();
    return Q_VALUE.test(value) ? Number(value) : undefined;
  }
  return 1;
}

function parseAccept(policy: ReaderSettings, accept: string): MediaCandidate[] {
  const candidates: MediaCandidate[] = [];
  const { mediaTypePrefix, suffixes } = policy;
  for (const member of splitList(accept)) {
    const [range = '', ...params] = member.split(';');
    const type = range.trim().toLowerCase();
    if (!type.startsWith(mediaTypePrefix)) continue;
    const plus = type.lastIndexOf('+');
    if (plus < mediaTypePrefix.length || !suffixes.includes(type.slice(plus + 1))) continue;
    const q = weight(params);
    // A range with an unreadable q is dropped rather than guessed at.
    if (q === undefined) continue;
    candidates.push({ raw: type.slice(mediaTypePrefix.length, plus), q });
  }
  return candidates;
}

/**
 * Media-type strategy: every `application/vnd.<vendor>.v<N>+<suffix>` range of Accept with its q.
 * Unrelated ranges and parameters (`application/signed-exchange;v=b3`) are ignored. Parsed lists
 * are cached per Accept string, since clients repeat the same header on every request.
 */
export function readAccept(
  policy: ReaderSettings,
  headers: HeaderBag | undefined,
): readonly MediaCandidate[] {
  let accept = headerValue(headers, 'accept');
  if (accept === undefined || accept === '') return [];
  if (accept.length > MAX_ACCEPT_LENGTH) {
    // Cut at a member boundary so a half-read range cannot pose as a different version.
    const cut = accept.lastIndexOf(',', MAX_ACCEPT_LENGTH);
    accept = cut === -1 ? '' : accept.slice(0, cut);
  }
  const cached = policy.acceptCache.get(accept);
  if (cached !== undefined) return cached;
  const candidates = parseAccept(policy, accept);
  if (policy.acceptCache.size >= CACHE_SIZE) policy.acceptCache.clear();
  policy.acceptCache.set(accept, candidates);
  return candidates;
}
