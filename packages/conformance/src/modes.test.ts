/**
 * The CI-facing modes: honest probes (needs credentials, unreachable, stopped mid-run, cleanup),
 * dry-run, --min-score, SARIF validated against the SARIF 2.1.0 JSON schema, the HTML report,
 * progress, and the rule links every finding carries.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AjvDraft04 from 'ajv-draft-04';
import ajvFormats from 'ajv-formats';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compliantApp } from './__fixtures__/compliant-app.js';
import { listen, type Started } from './__fixtures__/listen.js';
import { goodOpenApi } from './__fixtures__/openapi.js';
import { wrongApp } from './__fixtures__/wrong-app.js';
import { formatHtml, formatSarif } from './format.js';
import { lint, scoreFindings } from './lint.js';
import { planProbe } from './plan.js';
import { NEEDS_CREDENTIALS, ProbeUnreachableError, probe } from './probe.js';
import { RULES, ruleLink } from './rules.js';
import { EXIT, runCli } from './run-cli.js';
import type { Scorecard } from './scorecard.js';

const FAST = { requestsPerSecond: 1000, timeoutMs: 5_000 };
const require = createRequire(import.meta.url);
let dir = '';
let apiKey = '';
let good: Started;
let wrong: Started;
let goodRequests = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plumbline-modes-'));
  const compliant = compliantApp();
  apiKey = compliant.apiKey;
  const counted = express();
  counted.use((_req, _res, next) => {
    goodRequests += 1;
    next();
  });
  counted.use(compliant.app);
  good = await listen(counted);
  wrong = await listen(wrongApp('secret'));
  await writeFile(join(dir, 'good.json'), JSON.stringify(goodOpenApi()));
  const oneVerb = goodOpenApi() as { paths: Record<string, unknown> };
  oneVerb.paths['/v2/tasks/{task_id}/archive-now'] = {
    post: { responses: { '204': { description: 'ok' } } },
  };
  await writeFile(join(dir, 'one-verb.json'), JSON.stringify(oneVerb));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await good.close();
  await wrong.close();
});

async function cli(args: string[], extra: { now?: () => number } = {}) {
  let stdout = '';
  let stderr = '';
  let progress = '';
  const code = await runCli(args, {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    progress: (t) => (progress += t),
    ...extra,
  });
  return { code, stdout, stderr, progress };
}

describe('probe without credentials', () => {
  it('reports what needs credentials as not run, with the flags, and scores only what ran', async () => {
    const card = await probe({ baseUrl: good.url, allowWrites: true, ...FAST });
    const byId = Object.fromEntries(card.results.map((r) => [r.id, r]));
    expect(byId['probe-auth-401']!.outcome).toBe('pass');
    for (const id of [
      'probe-vary',
      'probe-sort-unknown-400',
      'probe-not-found-404',
      'probe-create-201-location',
    ]) {
      expect(byId[id]!.outcome, id).toBe('skip');
      expect(byId[id]!.evidence[0]!.note, id).toBe(NEEDS_CREDENTIALS);
    }
    expect(card.failed).toBe(0);
    expect(card.ok).toBe(true);
    expect(NEEDS_CREDENTIALS).toContain('--api-key');
    expect(NEEDS_CREDENTIALS).toContain('--token');
  });

  it('the table says so in its headline', async () => {
    const { code, stdout } = await cli(['probe', good.url, '--rps', '1000']);
    expect(code).toBe(EXIT.ok);
    expect(stdout.split('\n')[0]).toMatch(/OK \(\d+ rules not run: needs credentials\)$/);
  });
});

describe('an unreachable service is not a conformance result', () => {
  it('nothing listening: ProbeUnreachableError, and the CLI exits 2 with no scorecard', async () => {
    const closed = await listen(express());
    await closed.close();
    await expect(probe({ baseUrl: closed.url, apiKey: 'k', ...FAST })).rejects.toThrow(ProbeUnreachableError);
    const { code, stdout, stderr } = await cli(['probe', closed.url, '--api-key', 'k']);
    expect(code).toBe(EXIT.unreachable);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain(`cannot reach ${closed.url} (GET /openapi.json: failed:`);
    expect(stderr).toContain('Not a conformance result');
  });

  it('a service that stops answering mid-run: exit 2, the run is void', async () => {
    const compliant = compliantApp();
    let seen = 0;
    const dying = express();
    dying.use((req, _res, next) => {
      seen += 1;
      if (seen > 6) req.socket.destroy();
      else next();
    });
    dying.use(compliant.app);
    const started = await listen(dying);
    try {
      const error = await probe({ baseUrl: started.url, apiKey: compliant.apiKey, ...FAST }).catch((e) => e);
      expect(error).toBeInstanceOf(ProbeUnreachableError);
      expect((error as Error).message).toMatch(
        /stopped answering after 6 requests \(GET \/.+: failed: .+\); the run is void$/,
      );
    } finally {
      await started.close();
    }
  });
});

describe('--allow-writes cleans up after itself', () => {
  async function count(url: string, key: string): Promise<number> {
    const response = await fetch(`${url}/v2/projects?limit=100`, { headers: { 'X-API-Key': key } });
    return ((await response.json()) as { data: unknown[] }).data.length;
  }

  it('deletes everything it created', async () => {
    const before = await count(good.url, apiKey);
    const card = await probe({ baseUrl: good.url, apiKey, allowWrites: true, ...FAST });
    expect(card.cleanup?.notDeleted).toEqual([]);
    expect(card.cleanup?.created).toBe(card.cleanup?.deleted.length);
    expect(card.cleanup?.created).toBeGreaterThan(0);
    expect(await count(good.url, apiKey)).toBe(before);
  });

  it('says what it could not delete, and why', async () => {
    const compliant = compliantApp();
    const stubborn = express();
    stubborn.use((req, res, next) => {
      if (req.method === 'DELETE') res.status(409).json({ error_code: 'conflict', message: 'kept' });
      else next();
    });
    stubborn.use(compliant.app);
    const started = await listen(stubborn);
    try {
      const card = await probe({
        baseUrl: started.url,
        apiKey: compliant.apiKey,
        allowWrites: true,
        ...FAST,
      });
      expect(card.cleanup?.deleted).toEqual([]);
      expect(card.cleanup?.notDeleted.length).toBe(card.cleanup?.created);
      expect(card.cleanup?.notDeleted[0]).toEqual({
        location: expect.stringMatching(/^\/v\d\/projects\/\d+$/),
        reason: 'DELETE answered 409',
      });
      const { stdout } = await cli([
        'probe',
        started.url,
        '--api-key',
        compliant.apiKey,
        '--allow-writes',
        '--rps',
        '1000',
      ]);
      expect(stdout).toMatch(
        /\ncleanup: created \d+, deleted 0\n {2}NOT DELETED \/v\d\/projects\/\d+: DELETE answered 409\n/,
      );
    } finally {
      await started.close();
    }
  });
});

describe('bounds are printed', () => {
  it('requests against the budget, the rate and the timeout', async () => {
    const { stdout } = await cli([
      'probe',
      good.url,
      '--api-key',
      apiKey,
      '--rps',
      '500',
      '--max-requests',
      '200',
    ]);
    expect(stdout).toMatch(
      /\nrequests: \d+ of a budget of 200, at most 500\/s, timeout 5000 ms \(--max-requests, --rps, --timeout\)\n/,
    );
  });
});

describe('--dry-run', () => {
  it('lists every request it would send and sends none', async () => {
    const before = goodRequests;
    const { code, stdout } = await cli([
      'probe',
      good.url,
      '--openapi',
      join(dir, 'good.json'),
      '--api-key',
      apiKey,
      '--allow-writes',
      '--dry-run',
    ]);
    expect(goodRequests).toBe(before);
    expect(code).toBe(EXIT.ok);
    const plan = planProbe({ baseUrl: good.url, openapi: goodOpenApi(), apiKey, allowWrites: true });
    expect(stdout.split('\n')[0]).toBe(
      `plumbline-conformance probe ${good.url} --dry-run: ${plan.length} requests planned, none sent`,
    );
    expect(stdout).toContain('GET /v2/projects?sort=plumbline_no_such_field  [probe-sort-unknown-400]');
    expect(stdout).toContain('POST /v2/projects  [probe-unsupported-media-415]');
    expect(stdout).toContain('DELETE <each Location created and not deleted yet>  [cleanup]');
    // The plan covers every rule the real run checks with a request of its own.
    const planned = new Set(plan.map((request) => request.rule));
    for (const rule of Object.values(RULES).filter((r) => r.kind === 'probe'))
      if (
        !['probe-error-body', 'probe-no-200-errors', 'probe-no-stack-traces', 'probe-vary'].includes(rule.id)
      )
        expect(planned, rule.id).toContain(rule.id);
  });
});

describe('--min-score', () => {
  it('passes at or above the score, fails below it, and keeps the default gate without it', async () => {
    const file = join(dir, 'one-verb.json');
    const plain = await cli(['lint', file]);
    expect(plain.code).toBe(EXIT.failed);
    expect(plain.stdout.split('\n')[0]).toContain(': 86% (13 passed, 2 failed, 0 skipped) FAILED');
    expect((await cli(['lint', file, '--min-score', '86'])).code).toBe(EXIT.ok);
    const below = await cli(['lint', file, '--min-score', '87']);
    expect(below.code).toBe(EXIT.failed);
    expect(below.stderr).toBe('plumbline-conformance: score 86% is below --min-score 87\n');
  });
});

describe('SARIF 2.1.0', () => {
  const schema = JSON.parse(
    require('node:fs').readFileSync(
      require.resolve('@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json'),
      'utf8',
    ),
  ) as object;
  // CommonJS packages: their default export is the module object under Node's ESM loader.
  type AjvClass = new (
    options: object,
  ) => {
    compile(schema: object): ((data: unknown) => boolean) & { errors?: unknown };
  };
  const Ajv = ((AjvDraft04 as unknown as { default?: AjvClass }).default ??
    AjvDraft04) as unknown as AjvClass;
  const addFormats = ((ajvFormats as unknown as { default?: unknown }).default ?? ajvFormats) as (
    ajv: unknown,
  ) => void;
  // The schema's language-tag pattern is not valid with the `u` flag; it is valid ECMAScript.
  const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
  addFormats(ajv);
  const validate = ajv.compile(schema);

  async function lintCard(): Promise<Scorecard> {
    const document = goodOpenApi() as { paths: Record<string, unknown> };
    document.paths['/v2/getReports'] = { get: { responses: { '200': { description: 'ok' } } } };
    return scoreFindings(
      await lint(JSON.stringify(document, null, 2), { source: 'openapi.json' }),
      'openapi.json',
    );
  }

  it('a lint report validates against the schema, with rule links and line numbers', async () => {
    const log = JSON.parse(formatSarif(await lintCard(), '1.2.3'));
    expect(validate(log), JSON.stringify(validate.errors)).toBe(true);
    expect(log.version).toBe('2.1.0');
    const run = log.runs[0];
    expect(run.tool.driver.semanticVersion).toBe('1.2.3');
    const verbs = run.tool.driver.rules.find((rule: { id: string }) => rule.id === 'plumbline-path-no-verbs');
    expect(verbs.helpUri).toBe(
      'https://github.com/plumbline/plumbline/blob/main/docs/conventions.md#r-4-1-1',
    );
    const result = run.results.find((r: { ruleId: string }) => r.ruleId === 'plumbline-path-no-verbs');
    expect(result.level).toBe('error');
    expect(result.locations[0].physicalLocation.artifactLocation.uri).toBe('openapi.json');
    expect(result.locations[0].physicalLocation.region.startLine).toBeGreaterThan(1);
  });

  it('a probe report (request and response evidence) validates too', async () => {
    const card = await probe({
      baseUrl: wrong.url,
      token: 'secret',
      collections: ['/api/v2/items'],
      ...FAST,
    });
    const log = JSON.parse(formatSarif(card));
    expect(validate(log), JSON.stringify(validate.errors)).toBe(true);
    const sort = log.runs[0].results.find((r: { ruleId: string }) => r.ruleId === 'probe-sort-unknown-400');
    expect(sort.message.text).toContain('> GET /api/v2/items?sort=plumbline_no_such_field');
    expect(sort.message.text).toContain('< HTTP 200');
  });

  it('a document that breaks the schema is refused by the validator (the check can fail)', () => {
    expect(validate({ version: '2.1.0', runs: [{ results: [] }] })).toBe(false);
  });
});

describe('HTML report', () => {
  it('is one self-contained page with scores per area and escaped evidence', async () => {
    const card = await probe({
      baseUrl: wrong.url,
      token: 'secret',
      collections: ['/api/v2/items'],
      ...FAST,
    });
    const page = formatHtml(card);
    expect(page.startsWith('<!doctype html>')).toBe(true);
    expect(page).not.toMatch(/<script|<link|<img|<iframe|src=|@import|url\(/i);
    expect(page).toContain('<h2>Score per area</h2>');
    expect(page).toMatch(/<tr><td>4\.4 Collection query parameters<\/td><td>\d+%<\/td>/);
    expect(page).toContain('&gt; GET /api/v2/items?sort=plumbline_no_such_field'.replace('&gt; ', ''));
    expect(page).toContain(
      'href="https://github.com/plumbline/plumbline/blob/main/docs/conventions.md#r-4-4-3"',
    );
    // A response body with markup is shown, never interpreted.
    const hostile = { ...card, target: '<script>alert(1)</script>' };
    expect(formatHtml(hostile)).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(formatHtml(hostile)).not.toContain('<script>');
  });

  it('the CLI writes it with --format html --output', async () => {
    const output = join(dir, 'report.html');
    const { code } = await cli(['lint', join(dir, 'good.json'), '--format', 'html', '--output', output]);
    expect(code).toBe(EXIT.ok);
    expect(await readFile(output, 'utf8')).toContain(
      '<strong>100%</strong>: 15 passed, 0 failed, 0 skipped. OK',
    );
  });
});

describe('progress', () => {
  it('says nothing for a run under a second, then one line per phase with the time', async () => {
    const quick = await cli(['lint', join(dir, 'good.json')], { now: () => 0 });
    expect(quick.progress).toBe('');
    let clock = 0;
    const slow = await cli(['lint', join(dir, 'good.json')], { now: () => (clock += 400) });
    expect(slow.progress).toContain(
      `plumbline-conformance: linting ${join(dir, 'good.json')} (0.0 MB): rule 15/15 plumbline-sunset-header (`,
    );
    expect(slow.progress).toMatch(/: done in \d+\.\d s\n$/);
    const quiet = await cli(['lint', join(dir, 'good.json'), '--quiet'], { now: () => (clock += 400) });
    expect(quiet.progress).toBe('');
  });
});

describe('rule links', () => {
  it.each([
    ['4.4 (3)', undefined, 'conventions.md#r-4-4-3'],
    ['4.1 (5, 6)', undefined, 'conventions.md#r-4-1-5'],
    ['2, 4.1', undefined, 'conventions.md#s-2'],
    ['7.2', undefined, 'conventions.md#s-7-2'],
    ['9 (5, 6)', undefined, 'conventions.md#r-9-5'],
    ['4.2 (5)', 'd-delete', 'design.md#d-delete'],
    ['-', undefined, 'conventions.md'],
  ])('%s %s → %s', (section, decision, anchor) => {
    expect(ruleLink(section, decision)).toBe(
      `https://github.com/plumbline/plumbline/blob/main/docs/${anchor}`,
    );
  });

  it('every lint finding carries its rule link', async () => {
    const document = goodOpenApi() as { paths: Record<string, unknown> };
    document.paths['/v2/getReports'] = { get: { responses: { '200': { description: 'ok' } } } };
    const findings = await lint(document);
    expect(findings.find((f) => f.rule === 'plumbline-path-no-verbs')?.link).toBe(
      'https://github.com/plumbline/plumbline/blob/main/docs/conventions.md#r-4-1-1',
    );
    for (const finding of findings)
      expect(finding.link).toMatch(/^https:\/\/github\.com\/plumbline\/plumbline\/blob\/main\/docs\//);
  });
});
