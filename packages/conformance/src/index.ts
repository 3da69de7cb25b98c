/**
 * @plumbline/conformance: score any HTTP API against the Plumbline conventions, statically (a
 * Spectral ruleset over the OpenAPI document) and live (bounded probes against a running API).
 *
 * @packageDocumentation
 */

export {
  createRuleset,
  notApplicableRules,
  type RulesetOptions,
  type SpectralRuleset,
} from './create-ruleset.js';
export {
  CHANGE_KINDS,
  type Change,
  type ChangeKind,
  type ChangeLevel,
  type DiffOptions,
  type DiffResult,
  diff,
} from './diff.js';
export {
  checkOpenApi,
  DocumentError,
  type DocumentErrorCode,
  readOpenApi,
  stripBom,
} from './document.js';
export {
  DIFF_FORMATS,
  type DiffFormat,
  type Format,
  formatDiff,
  formatDiffMarkdown,
  formatDiffSarif,
  formatDiffText,
  formatHtml,
  formatJson,
  formatJunit,
  formatSarif,
  formatScorecard,
  formatTable,
  type TableOptions,
} from './format.js';
export {
  BudgetExhausted,
  type ClientLimits,
  type Exchange,
  ProbeClient,
  type ReceivedResponse,
  type SentRequest,
} from './http.js';
export {
  type Finding,
  type LintFindings,
  type LintOptions,
  lint,
  loadDocument,
  scoreFindings,
} from './lint.js';
export {
  type CollectionInfo,
  DEFAULT_IGNORED_PATHS,
  discoverCollections,
  type JsonObject,
  type PaginationStyle,
} from './openapi.js';
export { type PlannedRequest, planProbe } from './plan.js';
export { ProbeConfigError, type ProbeOptions, ProbeUnreachableError, probe } from './probe.js';
export {
  LINT_RULES,
  PROBE_RULES,
  RULES,
  type RuleInfo,
  type RuleKind,
  ruleLink,
  type Severity,
} from './rules.js';
export { type CliIo, EXIT, runCli, USAGE } from './run-cli.js';
export {
  buildScorecard,
  type Cleanup,
  type Evidence,
  type Outcome,
  type ProbeLimits,
  type RuleResult,
  type Scorecard,
} from './scorecard.js';
