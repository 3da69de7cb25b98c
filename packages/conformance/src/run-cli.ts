import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { type Format, formatScorecard } from './format.js';
import { lint, loadDocument, scoreFindings } from './lint.js';
import { ProbeConfigError, probe } from './probe.js';

/**
 * Where the CLI writes; injectable so the CLI can be tested in-process.
 *
 * @example
 * ```ts
 * const io: CliIo = { stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t), env: process.env };
 * ```
 */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Environment: `PLUMBLINE_TOKEN` and `PLUMBLINE_API_KEY` keep secrets out of the process list. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** Exit codes: every required rule passed, a required rule failed, usage or configuration error. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

export const USAGE = `Usage:
  plumbline-conformance lint <openapi.json|openapi.yaml|url> [options]
  plumbline-conformance probe <base-url> [options]

Common options:
  --format <table|json|junit>   output format (default table)
  --output <file>               write the report to a file instead of stdout
  --verbose                     table: show evidence for passing rules too
  -h, --help                    show this help

Probe options:
  --openapi <file|url>          OpenAPI document for discovery (default <base-url>/openapi.json)
  --collection <path>           collection to probe, repeatable (e.g. /v2/projects)
  --token <token>               bearer token (or env PLUMBLINE_TOKEN)
  --api-key <key>               API key (or env PLUMBLINE_API_KEY)
  --api-key-header <name>       API key header (default X-API-Key)
  --idempotency-header <name>   idempotency key header (default Idempotency-Key)
  --allow-writes                run probes that create and delete resources
  --timeout <ms>                per-request timeout (default 5000)
  --max-requests <n>            request budget of the run (default 300)
  --rps <n>                     requests per second (default 10)
  --max-page-size <n>           largest acceptable default page (default 100)

Exit codes: 0 all required rules pass, 1 a required rule failed, 2 usage or configuration error.
`;

const OPTIONS = {
  format: { type: 'string' },
  output: { type: 'string' },
  verbose: { type: 'boolean' },
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

function parseDocument(text: string, source: string): object {
  const value: unknown = /^\s*[{[]/.test(text) ? JSON.parse(text) : parseYaml(text);
  if (typeof value !== 'object' || value === null)
    throw new UsageError(`${source} is not an OpenAPI document`);
  return value;
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
    if (command === undefined || target === undefined || rest.length > 0)
      throw new UsageError('expected a command and one target');
    const format = (values.format ?? 'table') as Format;
    if (!['table', 'json', 'junit'].includes(format)) throw new UsageError(`unknown format ${format}`);

    let card: Awaited<ReturnType<typeof probe>>;
    if (command === 'lint') {
      const text = await loadDocument(target).catch((error: unknown) => {
        throw new UsageError(
          `cannot read ${target}: ${error instanceof Error ? error.message : String(error)}`,
        );
      });
      card = scoreFindings(await lint(text, { source: target }), target);
    } else if (command === 'probe') {
      const token = values.token ?? io.env?.['PLUMBLINE_TOKEN'];
      const apiKey = values['api-key'] ?? io.env?.['PLUMBLINE_API_KEY'];
      const openapi =
        values.openapi === undefined
          ? undefined
          : parseDocument(await loadDocument(values.openapi), values.openapi);
      const numbers = {
        timeoutMs: positiveNumber('timeout', values.timeout),
        maxRequests: positiveNumber('max-requests', values['max-requests']),
        requestsPerSecond: positiveNumber('rps', values.rps),
        maxPageSize: positiveNumber('max-page-size', values['max-page-size']),
      };
      card = await probe({
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
      });
    } else {
      throw new UsageError(`unknown command ${command}`);
    }
    const report = formatScorecard(card, format, { verbose: values.verbose ?? false });
    if (values.output === undefined) io.stdout(report);
    else await writeFile(values.output, report);
    return card.ok ? EXIT.ok : EXIT.failed;
  } catch (error) {
    if (error instanceof UsageError || error instanceof ProbeConfigError || isParseArgsError(error)) {
      io.stderr(`plumbline-conformance: ${(error as Error).message}\n\n${USAGE}`);
      return EXIT.usage;
    }
    io.stderr(`plumbline-conformance: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT.usage;
  }
}

function isParseArgsError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}
