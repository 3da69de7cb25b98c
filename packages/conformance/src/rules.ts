/**
 * The rule catalogue: one entry per check, static (OpenAPI lint) and live (probe). The README's
 * rule table, the Spectral ruleset and the scorecards are all built from this list, so a rule's
 * id, severity, section and fix are written exactly once.
 */

/** `error`: a required rule (a failure makes the exit code 1). `warn`: recommended. */
export type Severity = 'error' | 'warn';

/** Whether a rule reads the OpenAPI document or talks to the running API. */
export type RuleKind = 'lint' | 'probe';

/**
 * One conformance rule.
 *
 * @example
 * ```ts
 * const rule: RuleInfo = RULES['probe-vary'];
 * rule.fix; // 'Send Vary: Accept on every negotiated response.'
 * ```
 */
export interface RuleInfo {
  readonly id: string;
  readonly kind: RuleKind;
  readonly severity: Severity;
  /**
   * The section of docs/conventions.md the rule enforces, e.g. `4.4 (3)` (section 4.4, rule 3) or
   * `2, 4.1` (several sections, the first one linked).
   */
  readonly section: string;
  /** The Plumbline decision in docs/design.md the rule also follows, e.g. `d-delete`. */
  readonly decision?: string;
  /**
   * Absolute link to the rule: docs/conventions.md `#r-<section>-<rule>` (or `#s-<section>`), or the
   * decision in docs/design.md when the rule enforces one.
   */
  readonly link: string;
  /** What the rule checks, one line. */
  readonly title: string;
  /** How to fix a failure, one line. */
  readonly fix: string;
  /** Live rules that change server state; they only run with `allowWrites`. */
  readonly writes?: boolean;
}

type Entry = Omit<RuleInfo, 'id' | 'kind' | 'link'>;

/** Where the rules live: the repository's docs, linked absolutely so a published README's links work. */
export const DOCS_BASE = 'https://github.com/plumbline/plumbline/blob/main/docs';

/**
 * The link for a section reference such as `4.4 (3)` → `…/conventions.md#r-4-4-3`, `2, 4.1` →
 * `…/conventions.md#s-2`; a decision id wins: `d-delete` → `…/design.md#d-delete`.
 *
 * @example
 * ```ts
 * ruleLink('4.4 (3)'); // 'https://github.com/plumbline/plumbline/blob/main/docs/conventions.md#r-4-4-3'
 * ```
 */
export function ruleLink(section: string, decision?: string): string {
  if (decision !== undefined) return `${DOCS_BASE}/design.md#${decision}`;
  const match = /^(\d+(?:\.\d+)?)(?:\s*\((\d+)[^)]*\))?/.exec(section.trim());
  if (match === null) return `${DOCS_BASE}/conventions.md`;
  const anchor = match[1]!.replace('.', '-');
  return `${DOCS_BASE}/conventions.md#${match[2] === undefined ? `s-${anchor}` : `r-${anchor}-${match[2]}`}`;
}

const LINT: Record<string, Entry> = {
  'plumbline-path-plural-nouns': {
    severity: 'error',
    section: '2, 4.1',
    title: 'Collection segments are plural nouns',
    fix: 'Rename the collection to its plural, e.g. /project/{id} → /projects/{id}.',
  },
  'plumbline-path-no-verbs': {
    severity: 'error',
    section: '4.1 (1)',
    title: 'Paths contain no verbs or RPC-style names',
    fix: 'Express the action with the HTTP method on a noun path, e.g. POST /create-project → POST /projects.',
  },
  'plumbline-path-casing': {
    severity: 'error',
    section: '4.1 (3)',
    title: 'Path segments use one casing style: lower-case words joined by hyphens',
    fix: 'Rename segments to kebab-case, e.g. /taskLists or /task_lists → /task-lists.',
  },
  'plumbline-path-nesting': {
    severity: 'error',
    section: '4.1 (2)',
    title: 'Nesting is at most two collection levels deep',
    fix: 'Expose the deeper relation as a top-level collection filtered by query, e.g. /comments?task_id=….',
  },
  'plumbline-path-no-extensions': {
    severity: 'error',
    section: '4.5 (1)',
    title: 'Paths carry no file extensions; the format is negotiated with Accept',
    fix: 'Drop the extension (/projects.json → /projects) and serve formats through Accept.',
  },
  'plumbline-path-no-filter-subpaths': {
    severity: 'error',
    section: '4.1 (5, 6)',
    title: 'No filtering, sorting or searching sub-paths such as /active or /sorted-by-name',
    fix: 'Use query parameters on the collection, e.g. /projects?status=active&sort=name.',
  },
  'plumbline-path-identifiers': {
    severity: 'error',
    section: '2, 4.1 (5)',
    title: 'Members are addressed by an identifier that is a whole path segment after its collection',
    fix: 'Address members as /<collection>/{id}; PUT, PATCH and DELETE target that member path.',
  },
  'plumbline-post-201-location': {
    severity: 'error',
    section: '4.2 (6), 7.1',
    title: 'POST to a collection documents 201 with a Location header',
    fix: 'Document a 201 response with a Location header pointing to the new member.',
  },
  'plumbline-delete-204': {
    severity: 'error',
    section: '4.2, 7.1',
    title: 'DELETE documents 204 No Content as its success response',
    fix: 'Document 204 (and no other 2xx) for DELETE.',
  },
  'plumbline-error-responses': {
    severity: 'error',
    section: '7.1, 7.2',
    title: 'Every operation documents 4xx and 5xx responses with the error schema (error_code, message)',
    fix: 'Add 4XX/5XX (or default) responses whose schema has error_code and message, e.g. a shared Problem schema.',
  },
  'plumbline-collection-pagination': {
    severity: 'error',
    section: '4.4 (2)',
    title: 'Collection GETs declare limit/offset, page/size or cursor',
    fix: 'Declare limit and offset (or page and size, or cursor) query parameters on the collection GET.',
  },
  'plumbline-security-headers-only': {
    severity: 'error',
    section: '5 (2)',
    title: 'Credentials travel in headers, never in the query string',
    fix: 'Use `in: header` (X-API-Key) or the http bearer scheme instead of query parameters.',
  },
  'plumbline-version-consistent': {
    severity: 'error',
    section: '9 (1)',
    title: 'One versioning strategy is used consistently across the interface',
    fix: 'Pick one strategy (e.g. /v<N>/ path prefix) and apply it to every resource path.',
  },
  'plumbline-deprecation-header': {
    severity: 'error',
    section: '9 (5)',
    title: 'Deprecated operations document the Deprecation response header',
    fix: 'Declare a Deprecation header on every 2xx response of a deprecated operation.',
  },
  'plumbline-sunset-header': {
    severity: 'warn',
    section: '9 (6)',
    title: 'Deprecated operations document the Sunset response header',
    fix: 'Declare a Sunset header (HTTP-date) on every 2xx response of a deprecated operation.',
  },
};

const PROBE: Record<string, Entry> = {
  'probe-auth-401': {
    severity: 'error',
    section: '5 (3)',
    title: 'Missing or invalid credentials get 401 with WWW-Authenticate',
    fix: 'Answer unauthenticated requests with 401 and a WWW-Authenticate challenge (RFC 9110 11.6.1).',
  },
  'probe-not-acceptable-406': {
    severity: 'error',
    section: '4.5 (3)',
    title: 'An Accept header that cannot be served gets 406',
    fix: 'Negotiate the response type and answer 406 when nothing acceptable is offered.',
  },
  'probe-accept-q': {
    severity: 'error',
    section: '4.5 (2)',
    title: 'The highest q-value among served types wins',
    fix: 'Pick the response type by q-value (e.g. with the negotiator package), not by list order.',
  },
  'probe-vary': {
    severity: 'error',
    section: '4.5',
    title: 'Negotiated responses carry Vary: Accept',
    fix: 'Send Vary: Accept (and Accept-Language when the language is negotiated) on negotiated responses.',
  },
  'probe-unsupported-media-415': {
    severity: 'error',
    section: '4.5 (4)',
    title: 'A request body with an unsupported Content-Type gets 415',
    fix: 'Check Content-Type before parsing and answer 415 with Accept-Post/Accept for unsupported types.',
    writes: true,
  },
  'probe-sort-unknown-400': {
    severity: 'error',
    section: '4.4 (3)',
    title: 'Sorting by an unknown field gets 400, it is not ignored',
    fix: 'Validate sort fields against the documented list and answer 400 with a descriptive message.',
  },
  'probe-limit-over-max-400': {
    severity: 'error',
    section: '4.4 (2), 8',
    title: 'A page size above the maximum gets 400',
    fix: 'Validate limit/size against the maximum page size and answer 400.',
  },
  'probe-search-too-short-400': {
    severity: 'error',
    section: '4.4, 8',
    decision: 'd-search',
    title: 'A search text below the minimum length gets 400',
    fix: 'Enforce the minimum length of q and answer 400 below it.',
  },
  'probe-default-page-bounded': {
    severity: 'error',
    section: '4.4 (2)',
    title: 'A collection without paging parameters returns a bounded, paginated page',
    fix: 'Apply a default page size and describe the page (Link header or page/links members).',
  },
  'probe-pagination-links': {
    severity: 'error',
    section: '4.4 (8)',
    decision: 'd-pagination',
    title: 'The next-page link works, stays on the same host and returns the following items',
    fix: 'Emit next links (Link header rel="next" or links.next) that return the following page.',
  },
  'probe-error-body': {
    severity: 'error',
    section: '7.2',
    title: 'Every error body has error_code and message',
    fix: 'Render every 4xx/5xx with one error body shape holding error_code and message.',
  },
  'probe-no-200-errors': {
    severity: 'error',
    section: '7.1 (1)',
    title: 'A failure is never reported with a 2xx status',
    fix: 'Send the 4xx/5xx status that matches the failure instead of 200 with an error body.',
  },
  'probe-no-stack-traces': {
    severity: 'error',
    section: '7.1 (3)',
    title: 'No error response leaks a stack trace, file path or driver message',
    fix: 'Replace the framework default error handler with one that sends a generic message.',
  },
  'probe-not-found-404': {
    severity: 'error',
    section: '7.1',
    title: 'A member that never existed gets 404',
    fix: 'Answer 404 with an error body for unknown identifiers.',
  },
  'probe-create-201-location': {
    severity: 'error',
    section: '4.2 (6), 7.1',
    title: 'POST to a collection answers 201 with a Location that resolves',
    fix: 'Answer 201 Created with a Location header pointing to the new member.',
    writes: true,
  },
  'probe-gone-410': {
    severity: 'warn',
    section: '4.2 (5)',
    decision: 'd-delete',
    title: 'DELETE answers 204; the removed member then answers 410',
    fix: 'Keep a tombstone for deleted members and answer 410 for them (404 only for never-existing ids).',
    writes: true,
  },
  'probe-idempotent-replay': {
    severity: 'error',
    section: '4.3 (1)',
    title: 'A POST repeated with the same Idempotency-Key replays the first result',
    fix: 'Store the first result under the key and return it for retries without running the operation again.',
    writes: true,
  },
  'probe-idempotency-key-reuse-422': {
    severity: 'warn',
    section: '4.3',
    decision: 'd-idempotency',
    title: 'Reusing an Idempotency-Key with a different body gets 422',
    fix: 'Fingerprint the request and answer 422 when a key is reused for a different request.',
    writes: true,
  },
  'probe-version-headers': {
    severity: 'error',
    section: '9 (5, 6)',
    title:
      'Deprecated versions send Deprecation (and a valid Sunset); current ones do not; unknown versions get 4xx',
    fix: 'Send Deprecation: true (or @<seconds>) and Sunset: <IMF-fixdate> on every response of a deprecated version.',
  },
};

function build(kind: RuleKind, entries: Record<string, Entry>): Record<string, RuleInfo> {
  return Object.fromEntries(
    Object.entries(entries).map(([id, entry]) => [
      id,
      { id, kind, ...entry, link: ruleLink(entry.section, entry.decision) },
    ]),
  );
}

/**
 * Every rule by id.
 *
 * @example
 * ```ts
 * RULES['plumbline-delete-204'].section; // '4.2, 7.1'
 * ```
 */
export const RULES: Readonly<Record<string, RuleInfo>> = Object.freeze({
  ...build('lint', LINT),
  ...build('probe', PROBE),
});

/**
 * The static rules in catalogue order.
 *
 * @example
 * ```ts
 * LINT_RULES.map((rule) => rule.id); // ['plumbline-path-plural-nouns', ...]
 * ```
 */
export const LINT_RULES: readonly RuleInfo[] = Object.values(RULES).filter((rule) => rule.kind === 'lint');

/**
 * The live rules in the order the probe runs them.
 *
 * @example
 * ```ts
 * PROBE_RULES.filter((rule) => rule.writes).length; // 5
 * ```
 */
export const PROBE_RULES: readonly RuleInfo[] = Object.values(RULES).filter((rule) => rule.kind === 'probe');
