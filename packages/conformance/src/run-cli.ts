import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { diff } from './diff.js';
import { DocumentError, readOpenApi } from './document.js';
import {
  DIFF_FORMATS,
  type DiffFormat,
  FORMATS,
  type Format,
  formatDiff,
  formatScorecard,
} from './format.js';
import { lint, loadDocument, scoreFindings } from './lint.js';
import { type PlannedRequest, planProbe } from './plan.js';
import { ProbeConfigError, ProbeUnreachableError, probe } from './probe.js';

/**
 * Where the CLI writes; injectable so the CLI can be tested in-process.
 *
 * @example
 * ```ts
 * const io: CliIo = { stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t), env: process.env };
 * ```
 */
export interface CliIo {
  /** Where results go (the CLI: stdout). */
  readonly stdout: (text: string) => void;
  /** Where errors and warnings go (the CLI: stderr). */
  readonly stderr: (text: string) => void;
  /** Environment: `PLUMBLINE_TOKEN` and `PLUMBLINE_API_KEY` keep secrets out of the process list. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Where progress goes on runs longer than a second (the CLI: stderr). None when absent. */
  readonly progress?: (text: string) => void;
  /** Milliseconds since some origin; injectable for tests. Default `performance.now`. */
  readonly now?: () => number;
}

/** Progress of a long run: nothing for the first second, then one line per phase with the time. */
class Progress {
  private started = 0;
  private shown = false;
  private task = '';

  constructor(
    private readonly io: CliIo,
    private readonly write: ((text: string) => void) | undefined,
  ) {}

  private now(): number {
    return (this.io.now ?? (() => performance.now()))();
  }

  private current = 'starting';
  private printed = '';
  private timer: ReturnType<typeof setInterval> | undefined;

  /** `announce`: say at once that a long phase starts (a large document parses for seconds, blocking the ticks). */
  start(task: string, announce = false): void {
    this.task = task;
    this.started = this.now();
    if (announce && this.write !== undefined) {
      this.shown = true;
      this.write(`plumbline-conformance: ${task}: parsing the document and resolving $refs\n`);
    }
    // A tick reports a long phase while it runs (when the event loop gets a turn).
    if (this.write !== undefined) {
      this.timer = setInterval(() => this.show(), 1_000);
      this.timer.unref();
    }
  }

  phase(phase: string): void {
    this.current = phase;
    this.show();
  }

  private show(): void {
    const elapsed = this.now() - this.started;
    if (this.write === undefined || elapsed < 1_000) return;
    const line = `plumbline-conformance: ${this.task}: ${this.current}`;
    if (line === this.printed && elapsed % 5_000 > 1_000) return;
    this.printed = line;
    this.shown = true;
    this.write(`${line} (${(elapsed / 1000).toFixed(1)} s)\n`);
  }

  done(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    if (this.shown && this.write !== undefined)
      this.write(
        `plumbline-conformance: ${this.task}: done in ${((this.now() - this.started) / 1000).toFixed(1)} s\n`,
      );
  }
}

function formatPlan(target: string, plan: readonly PlannedRequest[]): string {
  const lines = [
    `plumbline-conformance probe ${target} --dry-run: ${plan.length} requests planned, none sent`,
    '',
  ];
  plan.forEach((request, index) => {
    const headers = Object.entries(request.headers ?? {}).map(([name, value]) => `${name}: ${value}`);
    lines.push(
      `${String(index + 1).padStart(3)}. ${request.method} ${request.path}  [${request.rule}]` +
        (request.conditional === undefined ? '' : ` (${request.conditional})`),
    );
    for (const header of headers) lines.push(`       ${header}`);
    if (request.body !== undefined) lines.push(`       body: ${request.body}`);
  });
  return `${lines.join('\n')}\n`;
}

/**
 * Exit codes: every required rule passed (or the score reached `--min-score`, or `diff` found no
 * unexcused breaking change); a required rule failed (or the score is below `--min-score`, or
 * `diff` found an unexcused breaking change); usage or configuration error, a refused document, or
 * the service could not be reached (or stopped answering mid-run).
 */
export const EXIT = { ok: 0, failed: 1, usage: 2, unreachable: 2 } as const;

/**
 * The CLI's usage text, printed by `--help` and after a usage error.
 *
 * @example
 * ```ts
 * process.stdout.write(USAGE);
 * ```
 */
export const USAGE = `Usage:
  plumbline-conformance lint <openapi.json|openapi.yaml|url> [options]
  plumbline-conformance probe <base-url> [options]
  plumbline-conformance diff <old-openapi> <new-openapi> [--format text|json|sarif|markdown]
                             [--output <file>]

Common options:
  --format <table|json|junit|sarif|html>
                                output format (default table); sarif is SARIF 2.1.0 for code
                                scanning, html one self-contained page
  --output <file>               write the report to a file instead of stdout
  --min-score <0-100>           pass when the score reaches it (exit 1 below it), instead of
                                failing on any failed required rule
  --verbose                     table: show evidence for passing rules too
  --quiet                       no progress on stderr
  -h, --help                    show this help

Diff: breaking changes from the old document to the new one (files or URLs). Formats: text
(default), json, sarif, markdown (a pull-request comment). Exit 0 when every breaking change is
excused (a new version prefix, or deprecated with a Deprecation/Sunset header), 1 on an
unexcused breaking change, 2 when a document cannot be read or is refused.

Probe options:
  --openapi <file|url>          OpenAPI document for discovery (default <base-url>/openapi.json)
  --collection <path>           collection to probe, repeatable (e.g. /v2/projects)
  --token <token>               bearer token (or env PLUMBLINE_TOKEN)
  --api-key <key>               API key (or env PLUMBLINE_API_KEY)
  --api-key-header <name>       API key header (default X-API-Key)
  --idempotency-header <name>   idempotency key header (default Idempotency-Key)
  --allow-writes                run probes that create and delete resources (deleted at the end)
  --dry-run                     list every request the probe would send, send none (needs
                                --openapi or --collection)
  --timeout <ms>                per-request timeout (default 5000)
  --max-requests <n>            request budget of the run (default 300)
  --rps <n>                     requests per second (default 10)
  --max-page-size <n>           largest acceptable default page (default 100)

Documents: OpenAPI 3.x, JSON or YAML (a UTF-8 byte-order mark is fine). Empty, unparsable and
Swagger 2.0 (convert it: npx swagger2openapi) documents are refused with exit 2.
Rules with nothing to judge are N/A: not passed, not in the score.

Exit codes: 0 all required rules pass (or the score reaches --min-score), 1 a required rule
failed (or the score is below --min-score), 2 usage or configuration error, a document that
is refused, no score under --min-score (nothing to judge), or the service cannot be reached
or stopped answering.
`;

const OPTIONS = {
  format: { type: 'string' },
  output: { type: 'string' },
  verbose: { type: 'boolean' },
  quiet: { type: 'boolean' },
  'min-score': { type: 'string' },
  'dry-run': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  openapi: { type: 'string' },
  collection: { type: 'string', multiple: true },
  token: { type: 'string' },
  'api-key': { type: 'string' },
  'api-key-header': { type: 'string' },
  'idempotency-header': { type: 'string' },
  'allow-writes': { type: 'boolean' },
  timeout: { type: 'string' },
  'max-requests': { type: 'string' },
  rps: { type: 'string' },
  'max-page-size': { type: 'string' },
} as const;

class UsageError extends Error {}

function positiveNumber(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) throw new UsageError(`--${name} must be a positive number`);
  return number;
}

async function readText(location: string): Promise<string> {
  return loadDocument(location).catch((error: unknown) => {
    throw new UsageError(
      `cannot read ${location}: ${error instanceof Error ? error.message : String(error)}`,
    );
  });
}

/**
 * Runs the CLI with arguments (without `node` and the script) and returns the exit code.
 *
 * @example
 * ```ts
 * const code = await runCli(['lint', 'openapi.yaml', '--format', 'junit'], { stdout: console.info, stderr: console.error });
 * ```
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    const { values, positionals } = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true });
    if (values.help) {
      io.stdout(USAGE);
      return EXIT.ok;
    }
    const [command, target, ...rest] = positionals;
    if (command === 'diff') return await runDiff(rest, target, values, io);
    if (command === undefined || target === undefined || rest.length > 0)
      throw new UsageError('expected a command and one target');
    const format = (values.format ?? 'table') as Format;
    if (!FORMATS.includes(format)) throw new UsageError(`unknown format ${format}`);
    const minScore = values['min-score'] === undefined ? undefined : Number(values['min-score']);
    if (minScore !== undefined && !(Number.isInteger(minScore) && minScore >= 0 && minScore <= 100))
      throw new UsageError('--min-score must be an integer from 0 to 100');
    const progress = new Progress(io, values.quiet ? undefined : io.progress);

    let card: Awaited<ReturnType<typeof probe>>;
    if (command === 'lint') {
      const text = await readText(target);
      const megabytes = Buffer.byteLength(text) / 1_048_576;
      progress.start(`linting ${target} (${megabytes.toFixed(1)} MB)`, megabytes >= 1);
      card = scoreFindings(
        await lint(text, { source: target, onProgress: (phase) => progress.phase(phase) }),
        target,
      );
      progress.done();
    } else if (command === 'probe') {
      const token = values.token ?? io.env?.['PLUMBLINE_TOKEN'];
      const apiKey = values['api-key'] ?? io.env?.['PLUMBLINE_API_KEY'];
      const openapi =
        values.openapi === undefined
          ? undefined
          : readOpenApi(await readText(values.openapi), values.openapi);
      const numbers = {
        timeoutMs: positiveNumber('timeout', values.timeout),
        maxRequests: positiveNumber('max-requests', values['max-requests']),
        requestsPerSecond: positiveNumber('rps', values.rps),
        maxPageSize: positiveNumber('max-page-size', values['max-page-size']),
      };
      const probeOptions = {
        baseUrl: target,
        ...(openapi === undefined ? {} : { openapi }),
        ...(values.collection === undefined ? {} : { collections: values.collection }),
        ...(token === undefined || token === '' ? {} : { token }),
        ...(apiKey === undefined || apiKey === '' ? {} : { apiKey }),
        ...(values['api-key-header'] === undefined ? {} : { apiKeyHeader: values['api-key-header'] }),
        ...(values['idempotency-header'] === undefined
          ? {}
          : { idempotencyHeader: values['idempotency-header'] }),
        allowWrites: values['allow-writes'] ?? false,
        ...Object.fromEntries(Object.entries(numbers).filter(([, value]) => value !== undefined)),
      };
      if (values['dry-run']) {
        const plan = planProbe(probeOptions);
        io.stdout(formatPlan(target, plan));
        return EXIT.ok;
      }
      card = await probe(probeOptions);
    } else {
      throw new UsageError(`unknown command ${command}`);
    }
    const report = formatScorecard(card, format, { verbose: values.verbose ?? false });
    if (values.output === undefined) io.stdout(report);
    else await writeFile(values.output, report);
    if (minScore !== undefined) {
      if (card.percent === null) {
        io.stderr(
          `plumbline-conformance: ${target}: no score, no rule had anything to judge; --min-score ${minScore} cannot be met\n`,
        );
        return EXIT.usage;
      }
      if (card.percent < minScore)
        io.stderr(`plumbline-conformance: score ${card.percent}% is below --min-score ${minScore}\n`);
      return card.percent >= minScore ? EXIT.ok : EXIT.failed;
    }
    return card.ok ? EXIT.ok : EXIT.failed;
  } catch (error) {
    if (error instanceof ProbeUnreachableError) {
      io.stderr(
        `plumbline-conformance: ${error.message}\nNot a conformance result: nothing was scored. Is the service running at that address?\n`,
      );
      return EXIT.unreachable;
    }
    if (error instanceof DocumentError) {
      io.stderr(`plumbline-conformance: ${error.message}\n`);
      return EXIT.usage;
    }
    if (error instanceof UsageError || error instanceof ProbeConfigError || isParseArgsError(error)) {
      io.stderr(`plumbline-conformance: ${(error as Error).message}\n\n${USAGE}`);
      return EXIT.usage;
    }
    io.stderr(`plumbline-conformance: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT.usage;
  }
}

/** `diff <old> <new>`: exit 1 on an unexcused breaking change, 0 otherwise. */
async function runDiff(
  rest: readonly string[],
  oldTarget: string | undefined,
  values: { readonly format?: string | undefined; readonly output?: string | undefined },
  io: CliIo,
): Promise<number> {
  const [newTarget, ...extra] = rest;
  if (oldTarget === undefined || newTarget === undefined || extra.length > 0)
    throw new UsageError('diff expects two documents: diff <old> <new>');
  const format = (values.format ?? 'text') as DiffFormat;
  if (!DIFF_FORMATS.includes(format))
    throw new UsageError(`unknown diff format ${format} (text, json, sarif or markdown)`);
  const before = readOpenApi(await readText(oldTarget), oldTarget);
  const after = readOpenApi(await readText(newTarget), newTarget);
  const result = diff(before, after, { oldSource: oldTarget, newSource: newTarget });
  const report = formatDiff(result, format);
  if (values.output === undefined) io.stdout(report);
  else await writeFile(values.output, report);
  if (!result.ok)
    io.stderr(
      `plumbline-conformance: ${result.breaking} unexcused breaking change${result.breaking === 1 ? '' : 's'} from ${oldTarget} to ${newTarget}\n`,
    );
  return result.ok ? EXIT.ok : EXIT.failed;
}

function isParseArgsError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}
