import { describe, expect, it } from 'vitest';

// Guards the public API: adding or removing an export must be a deliberate, reviewed change.
describe('public exports', () => {
  it('@plumbline/conformance', async () => {
    expect(Object.keys(await import('./index.js')).sort()).toEqual([
      'BudgetExhausted',
      'CHANGE_KINDS',
      'DEFAULT_IGNORED_PATHS',
      'DIFF_FORMATS',
      'DocumentError',
      'EXIT',
      'LINT_RULES',
      'PROBE_RULES',
      'ProbeClient',
      'ProbeConfigError',
      'ProbeUnreachableError',
      'RULES',
      'USAGE',
      'buildScorecard',
      'checkOpenApi',
      'createRuleset',
      'diff',
      'discoverCollections',
      'formatDiff',
      'formatDiffMarkdown',
      'formatDiffSarif',
      'formatDiffText',
      'formatHtml',
      'formatJson',
      'formatJunit',
      'formatSarif',
      'formatScorecard',
      'formatTable',
      'lint',
      'loadDocument',
      'notApplicableRules',
      'planProbe',
      'probe',
      'readOpenApi',
      'ruleLink',
      'runCli',
      'scoreFindings',
      'stripBom',
    ]);
  });

  it('@plumbline/conformance/ruleset', async () => {
    const module = await import('./create-ruleset.js');
    expect(Object.keys(module).sort()).toEqual([
      'DEFAULT_IGNORED_PATHS',
      'createRuleset',
      'notApplicableRules',
    ]);
  });

  it('dist/ruleset.mjs (the file for spectral --ruleset) has a default export only', async () => {
    // Spectral evaluates the bundled ruleset without an `exports` binding: a named export breaks it.
    const module = await import('./ruleset.js');
    expect(Object.keys(module)).toEqual(['default']);
    expect(Object.keys(module.default.rules)).toHaveLength(15);
  });
});
