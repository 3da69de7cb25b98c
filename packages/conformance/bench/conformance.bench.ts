import { bench, describe } from 'vitest';
import { badOpenApi, goodOpenApi } from '../src/__fixtures__/openapi.js';
import { createRuleset } from '../src/create-ruleset.js';
import { formatJunit, formatTable } from '../src/format.js';
import { stackTraceIn } from '../src/inspect.js';
import { lint, scoreFindings } from '../src/lint.js';

const good = goodOpenApi();
const bad = badOpenApi();
const goodText = JSON.stringify(good);
const rules = Object.values(createRuleset().rules);
const card = scoreFindings(await lint(bad), 'bad.json');
const body = JSON.stringify({
  data: Array.from({ length: 100 }, (_, id) => ({ id, name: `project ${id}` })),
});

describe('lint', () => {
  bench('lint(): Spectral run of the good document (JSON text)', async () => {
    await lint(goodText);
  });
  bench('all 15 rule functions over the bad document (no Spectral)', () => {
    for (const rule of rules) rule.then.function(bad);
  });
});

describe('probe helpers', () => {
  bench('stackTraceIn(): 100-item page body', () => {
    stackTraceIn(body);
  });
  bench('formatTable() + formatJunit() of the bad lint scorecard', () => {
    formatTable(card);
    formatJunit(card);
  });
});
