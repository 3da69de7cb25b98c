/**
 * The differential suite: one table of raw requests (test/differential/cases.ts, generated from
 * each versioning strategy's /openapi.json plus hand-written edge shapes) is sent to the service on
 * Express, Fastify and Hono, and the three answers to each request are compared after the
 * per-service values are replaced by names (test/differential/normalise.ts). A difference that is
 * not in test/differential/allowed.ts fails the suite; so does an allowance no case needs.
 *
 * It starts the three frameworks itself, so it runs in the `reference-service` project only.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildOpenApi } from '../src/openapi/document.js';
import { documentForStrategy } from '../src/openapi/strategy.js';
import type { Framework, VersioningStrategy } from '../src/service/config.js';
import { apiStrategy } from '../src/service/versioning.js';
import { ALLOWED_DIFFERENCES } from './differential/allowed.js';
import { type Case, casesFor } from './differential/cases.js';
import { type Budgets, type NormalResult, normalise, render } from './differential/normalise.js';
import { exchange } from './differential/wire.js';
import { type RunningService, startService } from './harness.js';

const FRAMEWORKS: readonly Framework[] = ['express', 'fastify', 'hono'];
const STRATEGIES: readonly VersioningStrategy[] = ['path', 'query', 'header', 'media-type'];

/** One service under test and the per-service values its requests and answers carry. */
interface Target {
  readonly framework: Framework;
  readonly service: RunningService;
  readonly port: number;
  readonly values: Map<string, string>;
  readonly budgets: Budgets;
}

function basic(id: string, secret: string): string {
  return Buffer.from(`${id}:${secret}`).toString('base64');
}

async function start(framework: Framework, strategy: VersioningStrategy): Promise<Target> {
  // One run is on PostgreSQL and Redis (idempotency records and rate limits in Redis), the others
  // on SQLite with in-memory state: the frameworks must agree on both.
  const shared = strategy === 'header';
  const service = await startService(
    { name: shared ? 'postgres + redis' : 'sqlite', postgres: shared, redis: shared },
    {
      ...(shared ? { IDEMPOTENCY_STORE: 'shared' } : {}),
      FRAMEWORK: framework,
      VERSIONING_STRATEGY: strategy,
      SEED_DEMO_DATA: 'false',
      // The session cookie's endpoints and the API taking it (the cookie itself is captured per service).
      SESSION_KEYS: `d:${Buffer.alloc(32, 1).toString('base64url')}`,
      // The table is one client's traffic; the rate limit has its own tests.
      RATE_LIMIT_PER_MINUTE: '1000000',
      // One run reads the client address behind a proxy (the X-Forwarded-For cases pick the bucket).
      ...(strategy === 'query' ? { TRUST_PROXY: '1' } : {}),
    },
  );
  const { apiKeys, clients } = service.credentials;
  const values = new Map<string, string>([
    ['rw', apiKeys.readWrite],
    ['ro', apiKeys.readOnly],
    ['cid:rw', clients.readWrite.clientId],
    ['secret:rw', clients.readWrite.clientSecret],
    ['cid:ro', clients.readOnly.clientId],
    ['secret:ro', clients.readOnly.clientSecret],
    ['basic:rw', basic(clients.readWrite.clientId, clients.readWrite.clientSecret)],
    ['basic:ro', basic(clients.readOnly.clientId, clients.readOnly.clientSecret)],
  ]);
  return { framework, service, port: Number(new URL(service.url).port), values, budgets: new Map() };
}

/** The bytes with this service's values in place of `{{name}}` (latin1 keeps a binary body as it is). */
function fillIn(bytes: string | Buffer, values: Map<string, string>): Buffer {
  const text = typeof bytes === 'string' ? bytes : bytes.toString('latin1');
  return Buffer.from(
    text.replace(/\{\{([^}]+)\}\}/g, (whole, name: string) => values.get(name) ?? whole),
    'latin1',
  );
}

/** Stores what `c` captures from `target`'s answer. */
function capture(
  c: Case,
  target: Target,
  headers: readonly (readonly [string, string])[],
  body: Buffer,
): void {
  const header = (name: string) => headers.find(([n]) => n.toLowerCase() === name)?.[1];
  for (const spec of c.capture ?? []) {
    let value: string | undefined;
    if (spec.from === 'location') value = /([0-9a-f-]{36})(?:\?|$)/.exec(header('location') ?? '')?.[1];
    else if (spec.from === 'etag') value = header('etag');
    else if (spec.from === 'next') value = /<([^>]+)>;\s*rel="?next"?/.exec(header('link') ?? '')?.[1];
    else if (spec.from === 'cookie') value = /^[^=]+=([^;]+)/.exec(header('set-cookie') ?? '')?.[1];
    else {
      try {
        const member = (JSON.parse(body.toString('utf8')) as Record<string, unknown>)[spec.key];
        value = typeof member === 'string' ? member : undefined;
      } catch {
        value = undefined;
      }
    }
    if (value !== undefined) target.values.set(spec.name, value);
  }
}

/** Per-service values, longest first (so a value inside another is replaced after it). */
function scrubList(values: Map<string, string>): [string, string][] {
  return [...values].filter(([name]) => name !== 'next').sort(([, a], [, b]) => b.length - a.length);
}

interface Difference {
  readonly case: Case;
  readonly framework: Framework;
  readonly expected: string;
  readonly actual: string;
}

interface Outcome {
  readonly cases: number;
  /** What the harness's check of every exchange against /openapi.json found, per framework. */
  readonly contract: string;
  readonly differences: Difference[];
  readonly used: Set<string>;
}

async function runStrategy(strategy: VersioningStrategy): Promise<Outcome> {
  const targets = await Promise.all(FRAMEWORKS.map((framework) => start(framework, strategy)));
  const used = new Set<string>();
  const differences: Difference[] = [];
  let cases: Case[] = [];
  let contract = '';
  try {
    const document = documentForStrategy(
      apiStrategy(strategy),
      buildOpenApi(targets[0]!.service.ctx),
    ) as Record<string, unknown>;
    cases = casesFor(strategy, document);
    for (const c of cases) {
      const results = await Promise.all(
        targets.map(async (target) => {
          const result = await exchange(target.port, fillIn(c.bytes, target.values), c.methods);
          const last = result.responses.at(-1);
          if (last) capture(c, target, last.headers, last.body);
          return normalise(result, scrubList(target.values), target.budgets, c.body);
        }),
      );
      compare(c, results, differences, used);
    }
  } finally {
    const stops = await Promise.allSettled(targets.map((target) => target.service.stop()));
    contract = stops
      .map((stop, i) => (stop.status === 'rejected' ? `${FRAMEWORKS[i]}: ${String(stop.reason)}` : ''))
      .filter((text) => text !== '')
      .join('\n');
  }
  return { cases: cases.length, contract, differences, used };
}

function compare(c: Case, results: NormalResult[], differences: Difference[], used: Set<string>): void {
  const key = (r: NormalResult) => JSON.stringify(r);
  const raw = results.map(key);
  if (raw.every((r) => r === raw[0])) return;
  let erased = results;
  for (const allowance of ALLOWED_DIFFERENCES) {
    if (!allowance.applies(c)) continue;
    const before = erased.map(key);
    erased = erased.map((r) => allowance.erase(r));
    const after = erased.map(key);
    if (before.some((b, i) => b !== after[i])) used.add(allowance.id);
  }
  const [reference, ...others] = erased;
  others.forEach((result, i) => {
    if (key(result) !== key(reference!))
      differences.push({
        case: c,
        framework: FRAMEWORKS[i + 1]!,
        expected: render(reference!),
        actual: render(result),
      });
  });
}

/** A line diff of two renderings, enough to read a difference. */
function lineDiff(expected: string, actual: string): string {
  const a = expected.split('\n');
  const b = actual.split('\n');
  const out: string[] = [];
  const setA = new Set(a);
  const setB = new Set(b);
  for (const line of a) if (!setB.has(line)) out.push(`- ${line}`);
  for (const line of b) if (!setA.has(line)) out.push(`+ ${line}`);
  return out.join('\n');
}

const outcomes = new Map<VersioningStrategy, Outcome>();

const README = new URL('../README.md', import.meta.url);
const START =
  '<!-- differences: generated from test/differential/allowed.ts by test/differential.test.ts -->';
const END = '<!-- /differences -->';
const NAMES: Readonly<Record<Framework, string>> = { express: 'Express', fastify: 'Fastify', hono: 'Hono' };

/** The README's account of what the suite sends and what differences it allows. */
function differencesText(runs: ReadonlyMap<VersioningStrategy, Outcome>): string {
  const counts = STRATEGIES.map(
    (strategy) => `${(runs.get(strategy)?.cases ?? 0).toLocaleString('en')} under \`${strategy}\``,
  );
  const total = [...runs.values()].reduce((sum, o) => sum + o.cases, 0);
  const lines = [
    `\`test/differential.test.ts\` sends the same ${total.toLocaleString('en')} requests (${counts.join(', ')}) to the service on`,
    'Express, Fastify and Hono as raw bytes (under `header` on PostgreSQL and Redis, the others on SQLite',
    'with in-memory state), and compares the three answers: status line, every header',
    'value, body byte for byte, and how the connection ended. Left out of the comparison are the case and',
    'order of header names (RFC 9110 5.1 and 5.3 make them insignificant) and the values that differ per',
    'instance: ids, request ids, dates, ETags, cursors, credentials and signing keys. The requests cover every',
    'operation of `/openapi.json` with valid and invalid input, unknown methods, odd paths and encodings,',
    'duplicate headers, auth variants, idempotency, preconditions and raw-socket shapes (request',
    'smuggling, obs-fold, bad chunk sizes, pipelining, absolute-form, backslashes, 20 KiB header lines).',
    ...(ALLOWED_DIFFERENCES.length === 0
      ? ['No difference is allowed today: any difference fails it.']
      : [
          'Any difference not listed here fails it:',
          '',
          ...ALLOWED_DIFFERENCES.map(
            (d) => `- ${d.frameworks.map((f) => NAMES[f]).join(', ')}: ${d.summary} Why: ${d.reason}`,
          ),
        ]),
    '',
  ];
  return `${lines.join('\n')}\n`;
}

describe('the same answers on Express, Fastify and Hono', () => {
  for (const strategy of STRATEGIES) {
    it(`VERSIONING_STRATEGY=${strategy}: every request gets the same answer, or an allowed difference`, async () => {
      const outcome = await runStrategy(strategy);
      outcomes.set(strategy, outcome);
      // PLUMBLINE_DIFFERENTIAL_REPORT=<file> writes every difference in full (the failure shows 40).
      const file = process.env['PLUMBLINE_DIFFERENTIAL_REPORT'];
      if (file)
        writeFileSync(
          `${file}.${strategy}`,
          outcome.differences
            .map(
              (d) =>
                `■ ${d.case.id} — ${d.framework}\n--- express\n${d.expected}\n--- ${d.framework}\n${d.actual}`,
            )
            .join('\n\n'),
        );
      const report = outcome.differences
        .slice(0, 40)
        .map(
          (d) => `■ ${d.case.id} — ${d.framework} differs from express:\n${lineDiff(d.expected, d.actual)}`,
        )
        .join('\n\n');
      expect(
        outcome.differences.length,
        `${outcome.differences.length} of ${outcome.cases} requests differ:\n\n${report}`,
      ).toBe(0);
      expect(outcome.contract, 'every answer matches /openapi.json').toBe('');
    }, 180_000);
  }

  it('every allowed difference is still needed', () => {
    expect(outcomes.size, 'runs after the strategies').toBe(STRATEGIES.length);
    const used = new Set([...outcomes.values()].flatMap((o) => [...o.used]));
    expect(ALLOWED_DIFFERENCES.filter((a) => !used.has(a.id)).map((a) => a.id)).toEqual([]);
  });

  it('the table holds at least 1,000 distinct requests', () => {
    const total = [...outcomes.values()].reduce((sum, o) => sum + o.cases, 0);
    expect(total).toBeGreaterThanOrEqual(1000);
  });

  // The README's list of differences is this file's allowed list (PLUMBLINE_WRITE_README=1 rewrites it).
  it("the README's list of differences is the allowed list", () => {
    expect(outcomes.size, 'runs after the strategies').toBe(STRATEGIES.length);
    const readme = readFileSync(README, 'utf8');
    const start = readme.indexOf(START);
    const end = readme.indexOf(END);
    expect(start, `README has ${START}`).toBeGreaterThan(-1);
    const block = `${START}\n${differencesText(outcomes)}${END}`;
    if (process.env['PLUMBLINE_WRITE_README'] === '1')
      writeFileSync(README, readme.slice(0, start) + block + readme.slice(end + END.length));
    else expect(readme.slice(start, end + END.length)).toBe(block);
  });
});
