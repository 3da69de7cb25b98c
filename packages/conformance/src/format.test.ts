import { describe, expect, it } from 'vitest';
import { formatJson, formatJunit, formatScorecard, formatTable } from './format.js';
import { RULES } from './rules.js';
import { buildScorecard, ruleResult } from './scorecard.js';

const card = buildScorecard(
  'probe',
  'http://127.0.0.1:3000',
  [
    ruleResult(RULES['probe-vary']!, 'pass', [{ note: 'Vary names Accept' }]),
    ruleResult(RULES['probe-sort-unknown-400']!, 'fail', [
      {
        request: 'GET /v2/items?sort=<x>&y',
        response: 'HTTP 200\n{"error":"bad \u0001 sort"}',
        note: 'an unknown sort field was accepted with 200; expected 400',
      },
    ]),
    ruleResult(RULES['probe-gone-410']!, 'skip', [{ note: 'write probe: run with --allow-writes' }]),
  ],
  12,
);

describe('formatters', () => {
  it('table: headline, one row per rule, evidence and fix under failures', () => {
    expect(formatTable(card)).toBe(
      [
        'plumbline-conformance probe http://127.0.0.1:3000: 50% (1 passed, 1 failed, 1 skipped, 12 requests) FAILED',
        '',
        'RESULT  SEVERITY  RULE                    SECTION            CHECK',
        'PASS    error     probe-vary              4.5                Negotiated responses carry Vary: Accept',
        'FAIL    error     probe-sort-unknown-400  4.4 (3)            Sorting by an unknown field gets 400, it is not ignored',
        '      - an unknown sort field was accepted with 200; expected 400',
        '        > GET /v2/items?sort=<x>&y',
        '        < HTTP 200',
        '        < {"error":"bad \u0001 sort"}',
        '      fix: Validate sort fields against the documented list and answer 400 with a descriptive message.',
        '      rule: https://github.com/plumbline/plumbline/blob/main/docs/conventions.md#r-4-4-3',
        'SKIP    warn      probe-gone-410          4.2 (5), d-delete  DELETE answers 204; the removed member then answers 410',
        '      - write probe: run with --allow-writes',
        '',
        'rules: https://github.com/plumbline/plumbline/blob/main/docs/conventions.md (sections), https://github.com/plumbline/plumbline/blob/main/docs/design.md (d-… decisions)',
        '',
      ].join('\n'),
    );
  });

  it('table --verbose shows evidence of passing rules', () => {
    expect(formatTable(card, { verbose: true })).toContain(
      'probe-vary              4.5                Negotiated responses carry Vary: Accept\n      - Vary names Accept\n',
    );
  });

  it('json round-trips the scorecard', () => {
    expect(JSON.parse(formatJson(card))).toEqual(card);
    expect(formatScorecard(card, 'json')).toBe(formatJson(card));
  });

  it('junit: one test case per rule, escaped, control characters replaced', () => {
    const xml = formatJunit(card);
    expect(xml).toContain('<testsuites name="plumbline-conformance" tests="3" failures="1" skipped="1">');
    expect(xml).toContain(
      '<testcase classname="plumbline-conformance.probe" name="probe-vary: Negotiated responses carry Vary: Accept"/>',
    );
    expect(xml).toContain('<skipped message="write probe: run with --allow-writes"/>');
    expect(xml).toContain(
      '<failure message="[error] docs/conventions.md 4.4 (3): an unknown sort field was accepted with 200; expected 400" type="error">',
    );
    expect(xml).toContain('&gt; GET /v2/items?sort=&lt;x&gt;&amp;y');
    expect(xml).toContain('{&quot;error&quot;:&quot;bad \uFFFD sort&quot;}');
    expect(xml.includes('\u0001')).toBe(false);
    expect(formatScorecard(card, 'junit')).toBe(xml);
  });
});
