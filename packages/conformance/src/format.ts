import { CHANGE_KINDS, type Change, type ChangeKind, type DiffResult } from './diff.js';
import { DOCS_BASE } from './rules.js';
import type { Evidence, RuleResult, Scorecard } from './scorecard.js';

/** Output formats of the CLI. */
export type Format = 'table' | 'json' | 'junit' | 'sarif' | 'html';

/** Every format, in the order the CLI's help lists them. */
export const FORMATS: readonly Format[] = ['table', 'json', 'junit', 'sarif', 'html'];

/**
 * Options for {@link formatTable}.
 *
 * @example
 * ```ts
 * formatTable(card, { verbose: true }); // evidence for passing rules too
 * ```
 */
export interface TableOptions {
  /** Show evidence for passing and skipped rules too. Default false (failures only, skips one line). */
  readonly verbose?: boolean;
}

const LABEL = { pass: 'PASS', fail: 'FAIL', skip: 'SKIP', 'not-applicable': 'N/A' } as const;

/** `, 2 not applicable`, or nothing when every rule had something to judge. */
function notApplicable(card: Scorecard): string {
  return card.notApplicable === 0 ? '' : `, ${card.notApplicable} not applicable`;
}

/** The score as shown: `87%`, or `no score` when no rule passed or failed. */
function scoreText(card: Scorecard): string {
  return card.percent === null ? 'no score (nothing to judge)' : `${card.percent}%`;
}

function headline(card: Scorecard): string {
  const requests = card.requests === undefined ? '' : `, ${card.requests} requests`;
  const notRun = card.results.filter((r) =>
    r.evidence[0]?.note.startsWith('not run: needs credentials'),
  ).length;
  const credentials = notRun === 0 ? '' : ` (${notRun} rules not run: needs credentials)`;
  return (
    `plumbline-conformance ${card.mode} ${card.target}: ${scoreText(card)} ` +
    `(${card.passed} passed, ${card.failed} failed, ${card.skipped} skipped${notApplicable(card)}${requests}) ` +
    (card.ok ? 'OK' : 'FAILED') +
    credentials
  );
}

/** The closing lines: the run's bounds, what the write probes left behind, where the rules are. */
function footer(card: Scorecard): string[] {
  const lines: string[] = [''];
  if (card.limits !== undefined)
    lines.push(
      `requests: ${card.requests ?? 0} of a budget of ${card.limits.maxRequests}, at most ` +
        `${card.limits.requestsPerSecond}/s, timeout ${card.limits.timeoutMs} ms ` +
        '(--max-requests, --rps, --timeout)',
    );
  if (card.cleanup !== undefined) {
    const { created, deleted, notDeleted } = card.cleanup;
    lines.push(`cleanup: created ${created}, deleted ${deleted.length}`);
    for (const left of notDeleted) lines.push(`  NOT DELETED ${left.location}: ${left.reason}`);
  }
  lines.push(`rules: ${DOCS_BASE}/conventions.md (sections), ${DOCS_BASE}/design.md (d-… decisions)`);
  return lines;
}

function reference(result: RuleResult): string {
  return result.decision === undefined ? result.section : `${result.section}, ${result.decision}`;
}

function indent(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((line) => `${prefix}${line}`)
    .join('\n');
}

function evidenceLines(evidence: Evidence): string {
  const lines = [`      - ${evidence.note}`];
  if (evidence.location !== undefined) lines.push(`        at ${evidence.location}`);
  if (evidence.request !== undefined) lines.push(indent(evidence.request, '        > '));
  if (evidence.response !== undefined) lines.push(indent(evidence.response, '        < '));
  return lines.join('\n');
}

/**
 * A human-readable scorecard: one line per rule (result, severity, id, section, title), and under
 * each failure its evidence (the request, the relevant response lines) and the fix.
 *
 * @example
 * ```ts
 * console.info(formatTable(await probe({ baseUrl })));
 * ```
 */
export function formatTable(card: Scorecard, options: TableOptions = {}): string {
  const idWidth = Math.max(4, ...card.results.map((result) => result.id.length));
  const sectionWidth = Math.max(7, ...card.results.map((result) => reference(result).length));
  const rows = [
    headline(card),
    '',
    `RESULT  SEVERITY  ${'RULE'.padEnd(idWidth)}  ${'SECTION'.padEnd(sectionWidth)}  CHECK`,
  ];
  for (const result of card.results) {
    rows.push(
      `${LABEL[result.outcome].padEnd(6)}  ${result.severity.padEnd(8)}  ${result.id.padEnd(idWidth)}  ` +
        `${reference(result).padEnd(sectionWidth)}  ${result.title}`,
    );
    const show = result.outcome === 'fail' || options.verbose;
    if (show) for (const evidence of result.evidence) rows.push(evidenceLines(evidence));
    else if ((result.outcome === 'skip' || result.outcome === 'not-applicable') && result.evidence[0])
      rows.push(`      - ${result.evidence[0].note}`);
    if (result.outcome === 'fail') rows.push(`      fix: ${result.fix}`, `      rule: ${result.link}`);
  }
  rows.push(...footer(card));
  return `${rows.join('\n')}\n`;
}

/**
 * The scorecard as indented JSON.
 *
 * @example
 * ```ts
 * JSON.parse(formatJson(card)).ok; // true
 * ```
 */
export function formatJson(card: Scorecard): string {
  return `${JSON.stringify(card, null, 2)}\n`;
}

const XML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

function xml(text: string): string {
  // XML 1.0 cannot carry most control characters, even escaped; a response body may hold them.
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD')
    .replace(/[&<>"']/g, (char) => XML_ESCAPES[char]!);
}

function evidenceText(result: RuleResult): string {
  return result.evidence
    .map((evidence) =>
      [
        evidence.note,
        evidence.location && `at ${evidence.location}`,
        evidence.request && indent(evidence.request, '> '),
        evidence.response && indent(evidence.response, '< '),
      ]
        .filter(Boolean)
        .join('\n'),
    )
    .join('\n\n');
}

/**
 * The scorecard as a JUnit XML report: one test case per rule, failures of `warn` rules reported
 * as failures too (CI shows them) while `ok` and the exit code only count `error` rules.
 *
 * @example
 * ```ts
 * await writeFile('conformance.xml', formatJunit(card));
 * ```
 */
export function formatJunit(card: Scorecard): string {
  const suite = `plumbline-conformance.${card.mode}`;
  const cases = card.results.map((result) => {
    const open = `    <testcase classname="${xml(suite)}" name="${xml(`${result.id}: ${result.title}`)}">`;
    if (result.outcome === 'pass') return `${open.slice(0, -1)}/>`;
    if (result.outcome === 'skip' || result.outcome === 'not-applicable')
      return `${open}\n      <skipped message="${xml(result.evidence[0]?.note ?? 'skipped')}"/>\n    </testcase>`;
    const message = `[${result.severity}] docs/conventions.md ${reference(result)}: ${result.evidence[0]?.note ?? 'failed'}`;
    const body = `${evidenceText(result)}\n\nfix: ${result.fix}\nrule: ${result.link}`;
    return `${open}\n      <failure message="${xml(message)}" type="${xml(result.severity)}">${xml(body)}</failure>\n    </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="plumbline-conformance" tests="${card.results.length}" failures="${card.failed}" skipped="${card.skipped}">`,
    `  <testsuite name="${xml(`${suite} ${card.target}`)}" tests="${card.results.length}" failures="${card.failed}" skipped="${card.skipped}" errors="0">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

/**
 * Formats a scorecard in the given format.
 *
 * @example
 * ```ts
 * process.stdout.write(formatScorecard(card, 'junit'));
 * ```
 */
export function formatScorecard(card: Scorecard, format: Format, options: TableOptions = {}): string {
  if (format === 'json') return formatJson(card);
  if (format === 'junit') return formatJunit(card);
  if (format === 'sarif') return formatSarif(card);
  if (format === 'html') return formatHtml(card);
  return formatTable(card, options);
}

// ---------------------------------------------------------------------------------------------
// SARIF 2.1.0 (code-scanning platforms)

/** The SARIF version written, and the schema it validates against (checked by a test). */
const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';

const PACKAGE_URI = 'https://github.com/plumbline/plumbline/tree/main/packages/conformance';

function sarifLevel(result: RuleResult): 'error' | 'warning' {
  return result.severity === 'error' ? 'error' : 'warning';
}

function evidenceMessage(evidence: Evidence): string {
  return [
    evidence.note,
    evidence.request && indent(evidence.request, '> '),
    evidence.response && indent(evidence.response, '< '),
  ]
    .filter(Boolean)
    .join('\n');
}

/**
 * The scorecard as a SARIF 2.1.0 log: one rule per checked rule (with its help link into
 * docs/conventions.md), one result per failure. Lint results point at the document and line; probe
 * results carry the request and response in the message and point at the base URL.
 *
 * @example
 * ```ts
 * await writeFile('conformance.sarif', formatSarif(card)); // upload with github/codeql-action/upload-sarif
 * ```
 */
export function formatSarif(card: Scorecard, version?: string): string {
  const rules = card.results.map((result) => ({
    id: result.id,
    name: result.id,
    shortDescription: { text: result.title },
    fullDescription: { text: `${result.title} (docs/conventions.md ${reference(result)})` },
    help: { text: `${result.fix}\n${result.link}` },
    helpUri: result.link,
    defaultConfiguration: { level: sarifLevel(result) },
    properties: { kind: result.kind, section: result.section },
  }));
  const results = card.results.flatMap((result, ruleIndex): Record<string, unknown>[] =>
    result.outcome === 'not-applicable'
      ? [
          {
            ruleId: result.id,
            ruleIndex,
            kind: 'notApplicable',
            level: 'none',
            message: { text: result.evidence[0]?.note ?? 'not applicable' },
            locations: [{ physicalLocation: { artifactLocation: { uri: card.target } } }],
          },
        ]
      : result.outcome !== 'fail'
        ? []
        : result.evidence.map((evidence) => {
            const line = /\(line (\d+)\)$/.exec(evidence.location ?? '')?.[1];
            const region = line === undefined ? {} : { region: { startLine: Number(line) } };
            return {
              ruleId: result.id,
              ruleIndex,
              level: sarifLevel(result),
              message: { text: `${evidenceMessage(evidence)}\nfix: ${result.fix}` },
              locations: [
                {
                  physicalLocation: { artifactLocation: { uri: card.target }, ...region },
                  ...(evidence.location === undefined
                    ? {}
                    : {
                        logicalLocations: [
                          { fullyQualifiedName: evidence.location.replace(/ \(line \d+\)$/, '') },
                        ],
                      }),
                },
              ],
            };
          }),
  );
  return sarifLog({
    rules,
    results,
    automationId: `plumbline-conformance/${card.mode}/`,
    properties: { target: card.target, percent: card.percent, ok: card.ok },
    ...(version === undefined ? {} : { version }),
  });
}

/** One SARIF 2.1.0 run of plumbline-conformance, as written by every SARIF formatter. */
function sarifLog(run: {
  readonly rules: readonly Record<string, unknown>[];
  readonly results: readonly Record<string, unknown>[];
  readonly automationId: string;
  readonly properties: Record<string, unknown>;
  readonly version?: string;
}): string {
  const log = {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'plumbline-conformance',
            informationUri: PACKAGE_URI,
            ...(run.version === undefined ? {} : { semanticVersion: run.version }),
            rules: run.rules,
          },
        },
        automationDetails: { id: run.automationId },
        results: run.results,
        properties: run.properties,
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

// ---------------------------------------------------------------------------------------------
// HTML (one self-contained file a person opens)

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

function html(text: string): string {
  return text.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char]!);
}

/** The area of a rule: the top-level section of its first reference (`4.4 (3)` → `4.4`). */
function areaOf(result: RuleResult): string {
  const match = /^\d+(?:\.\d+)?/.exec(result.section);
  return match === null ? 'document' : match[0];
}

const AREA_NAMES: Record<string, string> = {
  '2': 'Resources',
  '4.1': 'Path shapes',
  '4.2': 'Method semantics',
  '4.3': 'Idempotency key',
  '4.4': 'Collection query parameters',
  '4.5': 'Content negotiation',
  '5': 'Authentication',
  '7.1': 'Status codes',
  '7.2': 'Error body shape',
  '8': 'Limits',
  '9': 'Versioning',
  document: 'Document',
};

/**
 * The scorecard as one self-contained HTML page (inline CSS, no script, nothing fetched): the score,
 * a score per area of docs/conventions.md, and every rule with its result, evidence, fix and link.
 *
 * @example
 * ```ts
 * await writeFile('conformance.html', formatHtml(card));
 * ```
 */
export function formatHtml(card: Scorecard): string {
  const areas = new Map<string, RuleResult[]>();
  for (const result of card.results)
    areas.set(areaOf(result), [...(areas.get(areaOf(result)) ?? []), result]);
  const areaRows = [...areas.entries()].map(([area, results]) => {
    const passed = results.filter((r) => r.outcome === 'pass').length;
    const failed = results.filter((r) => r.outcome === 'fail').length;
    const score = passed + failed === 0 ? '-' : `${Math.floor((passed * 100) / (passed + failed))}%`;
    const na = results.filter((r) => r.outcome === 'not-applicable').length;
    return `<tr><td>${html(area)} ${html(AREA_NAMES[area] ?? '')}</td><td>${score}</td><td>${passed}</td><td>${failed}</td><td>${results.length - passed - failed - na}</td><td>${na}</td></tr>`;
  });
  const rules = card.results.map((result) => {
    const evidence = result.evidence
      .map(
        (item) =>
          `<li><p>${html(item.note)}</p>${item.location ? `<p>at <code>${html(item.location)}</code></p>` : ''}${item.request ? `<pre class="req">${html(item.request)}</pre>` : ''}${item.response ? `<pre class="res">${html(item.response)}</pre>` : ''}</li>`,
      )
      .join('');
    return `<section class="rule ${result.outcome}" id="${html(result.id)}"><h3><span class="badge">${LABEL[result.outcome]}</span> ${html(result.id)} <small>${html(result.severity)} · <a href="${html(result.link)}">${html(reference(result))}</a></small></h3><p>${html(result.title)}</p>${result.outcome === 'fail' ? `<p class="fix">fix: ${html(result.fix)}</p>` : ''}${evidence ? `<ul>${evidence}</ul>` : ''}</section>`;
  });
  const extra = footer(card)
    .filter((line) => line !== '')
    .map((line) => `<p>${html(line)}</p>`);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>plumbline-conformance ${html(card.mode)} ${html(card.target)}</title>
<style>
body{font:15px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:60rem;padding:0 1rem;color:#1d2330}
h1{font-size:1.4rem}table{border-collapse:collapse;margin:1rem 0}td,th{border:1px solid #ccd;padding:.3rem .6rem;text-align:left}
.rule{border-left:.35rem solid #999;padding:.2rem 1rem;margin:1rem 0;background:#f7f8fa}.rule.pass{border-color:#2a7}.rule.fail{border-color:#c33}.rule.skip{border-color:#bb8}.rule.not-applicable{border-color:#ccc}
.badge{font-size:.75rem;padding:.1rem .4rem;border-radius:.2rem;background:#dde}.fail .badge{background:#fcc}.pass .badge{background:#cfe}
pre{background:#fff;border:1px solid #dde;padding:.5rem;overflow-x:auto;white-space:pre-wrap}.fix{font-weight:600}small{font-weight:400;color:#556}
</style></head><body>
<h1>plumbline-conformance ${html(card.mode)}: ${html(card.target)}</h1>
<p><strong>${html(scoreText(card))}</strong>: ${card.passed} passed, ${card.failed} failed, ${card.skipped} skipped${notApplicable(card)}. ${card.ok ? 'OK' : 'FAILED'}</p>
<h2>Score per area</h2>
<table><thead><tr><th>area</th><th>score</th><th>passed</th><th>failed</th><th>skipped</th><th>not applicable</th></tr></thead><tbody>${areaRows.join('')}</tbody></table>
<h2>Rules</h2>
${rules.join('\n')}
${extra.join('\n')}
</body></html>
`;
}

// ---------------------------------------------------------------------------------------------
// diff: breaking changes between two documents

/** Output formats of `plumbline-conformance diff`. */
export type DiffFormat = 'text' | 'json' | 'sarif' | 'markdown';

/** Every `diff` format, in the order the CLI's help lists them. */
export const DIFF_FORMATS: readonly DiffFormat[] = ['text', 'json', 'sarif', 'markdown'];

/** Where the README explains the `diff` rules (the SARIF help link of every change kind). */
const DIFF_DOCS = `${PACKAGE_URI}#breaking-changes-diff`;

const DIFF_LABEL = { error: 'BREAKING', warning: 'EXCUSED', info: 'INFO' } as const;

function diffSummary(result: DiffResult): string {
  return (
    `plumbline-conformance diff ${result.old} ${result.new}: ${result.breaking} breaking, ` +
    `${result.excused} excused, ${result.info} info ${result.ok ? 'OK' : 'FAILED'}`
  );
}

function changeText(change: Change): string {
  return change.excuse === undefined ? change.message : `${change.message}; excused: ${change.excuse}`;
}

/**
 * The diff as text: a summary line, then one line per change (breaking first): level, kind,
 * location, what changed and, for an excused change, why it passes.
 *
 * @example
 * ```ts
 * process.stdout.write(formatDiffText(diff(before, after)));
 * // BREAKING  path-removed  paths./v1/projects  path /v1/projects was removed
 * ```
 */
export function formatDiffText(result: DiffResult): string {
  const kindWidth = Math.max(4, ...result.changes.map((change) => change.kind.length));
  const lines = [diffSummary(result)];
  if (result.changes.length > 0) lines.push('');
  for (const change of result.changes)
    lines.push(
      `${DIFF_LABEL[change.level].padEnd(8)}  ${change.kind.padEnd(kindWidth)}  ${change.location}  ${changeText(change)}`,
    );
  return `${lines.join('\n')}\n`;
}

function markdownCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/**
 * The diff as Markdown for a pull-request comment: a one-line summary, then a table of the changes,
 * breaking first, then excused, then info.
 *
 * @example
 * ```ts
 * await writeFile('api-diff.md', formatDiffMarkdown(diff(before, after)));
 * ```
 */
export function formatDiffMarkdown(result: DiffResult): string {
  const icon = { error: '❌ breaking', warning: '⚠️ excused', info: 'ℹ️ info' } as const;
  const summary = result.ok
    ? `**No unexcused breaking change** between \`${markdownCell(result.old)}\` and \`${markdownCell(result.new)}\``
    : `**${result.breaking} breaking change${result.breaking === 1 ? '' : 's'}** between \`${markdownCell(result.old)}\` and \`${markdownCell(result.new)}\``;
  const lines = [`${summary}: ${result.breaking} breaking, ${result.excused} excused, ${result.info} info.`];
  if (result.changes.length > 0)
    lines.push(
      '',
      '| | change | location | details |',
      '|---|---|---|---|',
      ...result.changes.map(
        (change) =>
          `| ${icon[change.level]} | \`${change.kind}\` | \`${markdownCell(change.location)}\` | ${markdownCell(changeText(change))} |`,
      ),
    );
  return `${lines.join('\n')}\n`;
}

/**
 * The diff as a SARIF 2.1.0 log, like the lint SARIF: one rule per change kind (its id is the
 * kind), one result per change: `error` breaking, `warning` excused, `note` info. Removals point
 * at the old document, everything else at the new one; the logical location is the change's
 * location.
 *
 * @example
 * ```ts
 * await writeFile('diff.sarif', formatDiffSarif(diff(before, after, { oldSource: 'main.yaml', newSource: 'openapi.yaml' })));
 * ```
 */
export function formatDiffSarif(result: DiffResult, version?: string): string {
  const kinds = Object.keys(CHANGE_KINDS) as ChangeKind[];
  const rules = kinds.map((kind) => ({
    id: kind,
    name: kind,
    shortDescription: { text: CHANGE_KINDS[kind].title },
    helpUri: DIFF_DOCS,
    defaultConfiguration: { level: CHANGE_KINDS[kind].breaking ? 'error' : 'note' },
    properties: { breaking: CHANGE_KINDS[kind].breaking },
  }));
  const results = result.changes.map((change) => ({
    ruleId: change.kind,
    ruleIndex: kinds.indexOf(change.kind),
    level: change.level === 'info' ? 'note' : change.level,
    message: { text: changeText(change) },
    locations: [
      {
        physicalLocation: {
          artifactLocation: { uri: /-removed$/.test(change.kind) ? result.old : result.new },
        },
        logicalLocations: [{ fullyQualifiedName: change.location }],
      },
    ],
    ...(change.excuse === undefined
      ? {}
      : { suppressions: [{ kind: 'external', justification: change.excuse }] }),
  }));
  return sarifLog({
    rules,
    results,
    automationId: 'plumbline-conformance/diff/',
    properties: {
      old: result.old,
      new: result.new,
      breaking: result.breaking,
      excused: result.excused,
      info: result.info,
      ok: result.ok,
    },
    ...(version === undefined ? {} : { version }),
  });
}

/**
 * Formats a diff in the given format (`json`: the {@link DiffResult} as indented JSON).
 *
 * @example
 * ```ts
 * process.stdout.write(formatDiff(diff(before, after), 'markdown'));
 * ```
 */
export function formatDiff(result: DiffResult, format: DiffFormat): string {
  if (format === 'json') return `${JSON.stringify(result, null, 2)}\n`;
  if (format === 'sarif') return formatDiffSarif(result);
  if (format === 'markdown') return formatDiffMarkdown(result);
  return formatDiffText(result);
}
