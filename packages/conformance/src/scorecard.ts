import { RULES, type RuleInfo, type RuleKind, ruleLink, type Severity } from './rules.js';

/**
 * What supports a result: the request sent and the relevant response lines (live rules), or the
 * document location (static rules), plus a note saying what was wrong or why a rule was skipped.
 *
 * @example
 * ```ts
 * const evidence: Evidence = { request: 'GET /v2/projects?sort=nope', response: 'HTTP 200\n{"data":[]}', note: 'expected 400' };
 * ```
 */
export interface Evidence {
  readonly request?: string;
  readonly response?: string;
  /** Where in the OpenAPI document (static rules), e.g. `paths./v1/projects.post (line 12)`. */
  readonly location?: string;
  readonly note: string;
}

/**
 * `skip`: the rule could not be run (no credentials, no `--allow-writes`, budget spent: the evidence
 * says why). `not-applicable`: the rule ran but had nothing to judge (a POST rule on a document
 * without POSTs, a pagination check on a collection with one page); it is never a pass and does
 * not count towards the score.
 */
export type Outcome = 'pass' | 'fail' | 'skip' | 'not-applicable';

/**
 * One rule's result in a scorecard.
 *
 * @example
 * ```ts
 * const failed = scorecard.results.filter((result: RuleResult) => result.outcome === 'fail');
 * ```
 */
export interface RuleResult {
  readonly id: string;
  readonly kind: RuleKind;
  readonly severity: Severity;
  readonly section: string;
  /** The docs/design.md decision the rule follows, when it follows one. */
  readonly decision?: string;
  /** Absolute link to the rule in docs/conventions.md (or the decision in docs/design.md). */
  readonly link: string;
  readonly title: string;
  readonly fix: string;
  readonly outcome: Outcome;
  readonly evidence: readonly Evidence[];
}

/**
 * The bounds a probe ran with.
 *
 * @example
 * ```ts
 * const limits: ProbeLimits = { maxRequests: 300, requestsPerSecond: 10, timeoutMs: 5000 };
 * ```
 */
export interface ProbeLimits {
  readonly maxRequests: number;
  readonly requestsPerSecond: number;
  readonly timeoutMs: number;
}

/**
 * What the write probes created, what was deleted at the end, and what could not be (with why).
 *
 * @example
 * ```ts
 * if (card.cleanup?.notDeleted.length) console.warn('left behind:', card.cleanup.notDeleted);
 * ```
 */
export interface Cleanup {
  readonly created: number;
  readonly deleted: readonly string[];
  readonly notDeleted: readonly { readonly location: string; readonly reason: string }[];
}

/**
 * The result of a lint or probe run.
 *
 * @example
 * ```ts
 * if (!scorecard.ok) process.exitCode = 1;
 * ```
 */
export interface Scorecard {
  readonly mode: 'lint' | 'probe';
  /** The document source (lint) or base URL (probe). */
  readonly target: string;
  /** True when no rule of severity `error` failed. */
  readonly ok: boolean;
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  /** Rules that had nothing to judge (outcome `not-applicable`); not in the score. */
  readonly notApplicable: number;
  /**
   * `passed / (passed + failed)` in percent, rounded down; `null` when no rule passed or failed
   * (nothing was judged): there is no score, and the CLI exits 2 under `--min-score`.
   */
  readonly percent: number | null;
  /** HTTP requests sent (probe only). */
  readonly requests?: number;
  /** The bounds of the run (probe only). */
  readonly limits?: ProbeLimits;
  /** What the write probes created and whether it was deleted again (probe with writes only). */
  readonly cleanup?: Cleanup;
  readonly results: readonly RuleResult[];
}

/**
 * A rule result from the catalogue entry, an outcome and its evidence.
 *
 * @example
 * ```ts
 * ruleResult(RULES['probe-vary']!, 'pass', []);
 * ```
 */
export function ruleResult(rule: RuleInfo, outcome: Outcome, evidence: readonly Evidence[]): RuleResult {
  const { id, kind, severity, section, decision, link, title, fix } = rule;
  return {
    id,
    kind,
    severity,
    section,
    ...(decision === undefined ? {} : { decision }),
    link,
    title,
    fix,
    outcome,
    evidence,
  };
}

/**
 * Totals a list of rule results into a scorecard.
 *
 * @example
 * ```ts
 * buildScorecard('probe', 'http://127.0.0.1:3000', results, 42).percent; // e.g. 100 (null: nothing judged)
 * ```
 */
export function buildScorecard(
  mode: 'lint' | 'probe',
  target: string,
  results: readonly RuleResult[],
  requests?: number,
): Scorecard {
  const count = (outcome: Outcome): number => results.filter((result) => result.outcome === outcome).length;
  const passed = count('pass');
  const failed = count('fail');
  const ok = !results.some((result) => result.outcome === 'fail' && result.severity === 'error');
  const percent = passed + failed === 0 ? null : Math.floor((passed * 100) / (passed + failed));
  return {
    mode,
    target,
    ok,
    passed,
    failed,
    skipped: count('skip'),
    notApplicable: count('not-applicable'),
    percent,
    ...(requests === undefined ? {} : { requests }),
    results,
  };
}

/** Catalogue entry for a Spectral code that is not one of ours (parser or `$ref` problems). */
export function documentRule(): RuleInfo {
  return {
    id: 'document-valid',
    kind: 'lint',
    severity: 'error',
    section: '-',
    link: ruleLink('-'),
    title: 'The document parses and its $refs resolve',
    fix: 'Fix the syntax or reference errors reported by the parser.',
  };
}

/** Looks a rule up, falling back to {@link documentRule} for foreign codes. */
export function ruleInfo(id: string): RuleInfo {
  return RULES[id] ?? documentRule();
}
