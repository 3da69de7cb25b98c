import type { Evidence, RuleResult, Scorecard } from './scorecard.js';

/** Output formats of the CLI. */
export type Format = 'table' | 'json' | 'junit';

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

const LABEL = { pass: 'PASS', fail: 'FAIL', skip: 'SKIP' } as const;

function headline(card: Scorecard): string {
  const requests = card.requests === undefined ? '' : `, ${card.requests} requests`;
  return (
    `plumbline-conformance ${card.mode} ${card.target}: ${card.percent}% ` +
    `(${card.passed} passed, ${card.failed} failed, ${card.skipped} skipped${requests}) ` +
    (card.ok ? 'OK' : 'FAILED')
  );
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
  const sectionWidth = Math.max(7, ...card.results.map((result) => result.section.length));
  const rows = [
    headline(card),
    '',
    `RESULT  SEVERITY  ${'RULE'.padEnd(idWidth)}  ${'SECTION'.padEnd(sectionWidth)}  CHECK`,
  ];
  for (const result of card.results) {
    rows.push(
      `${LABEL[result.outcome].padEnd(6)}  ${result.severity.padEnd(8)}  ${result.id.padEnd(idWidth)}  ` +
        `${result.section.padEnd(sectionWidth)}  ${result.title}`,
    );
    const show = result.outcome === 'fail' || options.verbose;
    if (show) for (const evidence of result.evidence) rows.push(evidenceLines(evidence));
    else if (result.outcome === 'skip' && result.evidence[0]) rows.push(`      - ${result.evidence[0].note}`);
    if (result.outcome === 'fail') rows.push(`      fix: ${result.fix}`);
  }
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
    if (result.outcome === 'skip')
      return `${open}\n      <skipped message="${xml(result.evidence[0]?.note ?? 'skipped')}"/>\n    </testcase>`;
    const message = `[${result.severity}] CONVENTIONS ${result.section}: ${result.evidence[0]?.note ?? 'failed'}`;
    const body = `${evidenceText(result)}\n\nfix: ${result.fix}`;
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
  return formatTable(card, options);
}
