import { readFile } from 'node:fs/promises';
import { Document, Spectral } from '@stoplight/spectral-core';
// A CommonJS package whose named exports Node's ESM loader cannot detect: use the default export.
import parsers from '@stoplight/spectral-parsers';
import { createRuleset, notApplicableRules, type RulesetOptions } from './create-ruleset.js';
import { checkOpenApi, looksLikeJson, readOpenApi, stripBom } from './document.js';
import { LINT_RULES, type Severity } from './rules.js';
import {
  buildScorecard,
  documentRule,
  type Evidence,
  ruleInfo,
  ruleResult,
  type Scorecard,
} from './scorecard.js';

/**
 * One problem found in an OpenAPI document.
 *
 * @example
 * ```ts
 * const finding: Finding = {
 *   rule: 'plumbline-delete-204', severity: 'error', section: '4.2, 7.1',
 *   link: 'https://github.com/plumbline/plumbline/blob/main/docs/conventions.md#s-4-2',
 *   message: 'DELETE /v1/projects/{id} documents 200 instead of 204',
 *   path: ['paths', '/v1/projects/{id}', 'delete', 'responses'], line: 41,
 *   fix: 'Document 204 (and no other 2xx) for DELETE.',
 * };
 * ```
 */
export interface Finding {
  /** Rule id, or Spectral's code for parser and `$ref` problems (scored as `document-valid`). */
  readonly rule: string;
  readonly severity: Severity;
  readonly section: string;
  /** Absolute link to the rule in docs/conventions.md (or docs/design.md). */
  readonly link: string;
  readonly message: string;
  readonly path: readonly (string | number)[];
  /** 1-based line in the source text. */
  readonly line?: number;
  readonly fix: string;
}

/**
 * Options for {@link lint}.
 *
 * @example
 * ```ts
 * const options: LintOptions = { source: 'openapi.yaml', ruleset: { disable: ['plumbline-sunset-header'] } };
 * ```
 */
export interface LintOptions {
  /** Name shown in findings and used to pick the parser (`.yaml`/`.yml` → YAML). */
  readonly source?: string;
  readonly ruleset?: RulesetOptions;
  /** Called with each phase (`rule 3/15 plumbline-path-casing`), for progress on large documents. */
  readonly onProgress?: (phase: string) => void;
}

/**
 * What {@link lint} returns: the findings, an array as before, carrying (not enumerable, so
 * equality checks on the array are unchanged) the rules that had nothing to judge in the document.
 *
 * @example
 * ```ts
 * const findings: LintFindings = await lint(text);
 * findings.notApplicable['plumbline-delete-204']; // 'no DELETE operation' when there is none
 * ```
 */
export type LintFindings = Finding[] & {
  /** Rule id → why the document gives it nothing to judge; {@link scoreFindings} reports them "not applicable". */
  readonly notApplicable: Readonly<Record<string, string>>;
};

/**
 * Lints an OpenAPI 3.x document (object, JSON text or YAML text) with the Plumbline ruleset.
 * Text is read with {@link readOpenApi} (a byte-order mark is dropped); empty, unparsable and
 * non-OpenAPI-3 input (Swagger 2.0, `openapi: 4.0.0`, no `openapi` member) throws
 * {@link DocumentError} before any rule runs.
 *
 * @example
 * ```ts
 * const findings = await lint(await readFile('openapi.json', 'utf8'), { source: 'openapi.json' });
 * findings.filter((f) => f.severity === 'error').length; // 0 for a conforming document
 * ```
 */
export async function lint(document: string | object, options: LintOptions = {}): Promise<LintFindings> {
  const source = options.source ?? 'openapi';
  const text = typeof document === 'string' ? stripBom(document) : JSON.stringify(document, null, 2);
  const data = typeof document === 'string' ? readOpenApi(text, source) : checkOpenApi(document, source);
  const spectral = new Spectral();
  const onProgress = options.onProgress;
  const rulesetOptions: RulesetOptions =
    onProgress === undefined
      ? (options.ruleset ?? {})
      : {
          ...options.ruleset,
          onRule: (id, index, total) => {
            options.ruleset?.onRule?.(id, index, total);
            onProgress(`rule ${index + 1}/${total} ${id}`);
          },
        };
  spectral.setRuleset(createRuleset(rulesetOptions) as Parameters<Spectral['setRuleset']>[0]);
  onProgress?.('parsing the document and resolving $refs');
  const parsed = looksLikeJson(text, options.source)
    ? new Document(text, parsers.Json, source)
    : new Document(text, parsers.Yaml, source);
  const results = await spectral.run(parsed);
  const findings = results
    .map((result): Finding => {
      const rule = ruleInfo(String(result.code));
      return {
        rule: String(result.code),
        severity: rule.id === 'document-valid' ? (result.severity === 0 ? 'error' : 'warn') : rule.severity,
        section: rule.section,
        link: rule.link,
        message: result.message,
        path: result.path,
        line: result.range.start.line + 1,
        fix: rule.fix,
      };
    })
    .sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || a.rule.localeCompare(b.rule));
  Object.defineProperty(findings, 'notApplicable', {
    value: notApplicableRules(data, options.ruleset),
    enumerable: false,
  });
  return findings as LintFindings;
}

function location(finding: Finding): string {
  const path = finding.path.map(String).join('.');
  return finding.line === undefined ? path : `${path} (line ${finding.line})`;
}

/**
 * Turns findings into a scorecard: every rule of the ruleset passes or fails, or is "not
 * applicable" when the document gave it nothing to judge (read from {@link lint}'s
 * `notApplicable`); findings from the parser or the `$ref` resolver fail an extra
 * `document-valid` rule.
 *
 * @example
 * ```ts
 * const card = scoreFindings(await lint(text), 'openapi.json');
 * card.ok; // false when an error-severity rule has findings
 * ```
 */
export function scoreFindings(findings: readonly Finding[] | LintFindings, target: string): Scorecard {
  const evidence = (finding: Finding): Evidence => ({ location: location(finding), note: finding.message });
  const nothing = 'notApplicable' in findings ? findings.notApplicable : {};
  const results = LINT_RULES.map((rule) => {
    const mine = findings.filter((finding) => finding.rule === rule.id);
    const reason = nothing[rule.id];
    if (mine.length === 0 && reason !== undefined)
      return ruleResult(rule, 'not-applicable', [{ note: `not applicable: ${reason}` }]);
    return ruleResult(rule, mine.length === 0 ? 'pass' : 'fail', mine.map(evidence));
  });
  const foreign = findings.filter((finding) => ruleInfo(finding.rule).id === 'document-valid');
  const blocking = foreign.filter((finding) => finding.severity === 'error');
  if (blocking.length > 0) results.unshift(ruleResult(documentRule(), 'fail', blocking.map(evidence)));
  return buildScorecard('lint', target, results);
}

/**
 * Reads the text of an OpenAPI document from a file path or an http(s) URL, without a leading
 * byte-order mark. Parse it with {@link readOpenApi} (as `lint` does).
 *
 * @example
 * ```ts
 * const text = await loadDocument('http://127.0.0.1:3000/openapi.json');
 * ```
 */
export async function loadDocument(location: string, timeoutMs = 10_000): Promise<string> {
  if (/^https?:\/\//i.test(location)) {
    const response = await fetch(location, {
      headers: { accept: 'application/json, application/yaml;q=0.9, */*;q=0.1' },
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'error',
    });
    if (!response.ok) throw new Error(`GET ${location} answered ${response.status}`);
    return stripBom(await response.text());
  }
  return stripBom(await readFile(location, 'utf8'));
}
