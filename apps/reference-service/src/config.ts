/**
 * Service configuration from environment variables, validated once at start. Every variable is
 * listed in {@link CONFIG_HELP} (printed by `--help`).
 */

export interface ServiceConfig {
  readonly port: number;
  readonly host: string;
}

/** Thrown when an environment variable has an invalid value; the message names it. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** One line per variable: name, default, meaning. */
export const CONFIG_HELP: readonly (readonly [string, string, string])[] = [
  ['PORT', '3000', 'TCP port to listen on (1-65535; 0 picks a free port)'],
  ['HOST', '127.0.0.1', 'Interface to bind (use 0.0.0.0 to listen on all interfaces)'],
];

function parsePort(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 3000;
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65535) {
    throw new ConfigError(`PORT must be an integer from 0 to 65535, got "${raw}"`);
  }
  return Number(raw);
}

/** Reads and validates the configuration; throws {@link ConfigError} with a clear message. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): ServiceConfig {
  const host = env['HOST'] === undefined || env['HOST'] === '' ? '127.0.0.1' : env['HOST'];
  return { port: parsePort(env['PORT']), host };
}

/** The `--help` text. */
export function helpText(): string {
  const width = Math.max(...CONFIG_HELP.map(([name]) => name.length));
  const rows = CONFIG_HELP.map(([name, def, text]) => `  ${name.padEnd(width)}  ${text} (default: ${def})`);
  return ['Plumbline reference service', '', 'Environment variables:', ...rows, ''].join('\n');
}
