/**
 * The README's reference parts are generated from the code they describe, so they cannot drift:
 * the usage block is USAGE, the rules table is the catalogue (ids, severities, sections, links).
 * The CI example's commands are run against the reference service by its conformance test.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CHANGE_KINDS } from '../src/diff.js';
import { RULES } from '../src/rules.js';
import { USAGE } from '../src/run-cli.js';

const readme = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../README.md'), 'utf8');

describe('README', () => {
  it('shows the CLI usage exactly as --help prints it', () => {
    expect(readme).toContain(`\`\`\`\n${USAGE}\`\`\``);
  });

  it('lists every rule as the catalogue defines it, with its link', () => {
    const rows = Object.values(RULES).map((rule) => {
      const kind = rule.kind === 'probe' && rule.writes ? 'probe (write)' : rule.kind;
      const section = rule.decision === undefined ? rule.section : `${rule.section}, ${rule.decision}`;
      return `| \`${rule.id}\` | ${kind} | ${rule.severity} | [${section}](${rule.link}) | ${rule.title} | ${rule.fix} |`;
    });
    const table = ['| id | kind | severity | section | checks | fix |', '|---|---|---|---|---|---|', ...rows];
    const section = /<!-- rules:start -->\n([\s\S]*?)\n<!-- rules:end -->/.exec(readme);
    expect(section?.[1]).toBe(table.join('\n'));
  });

  it('lists every diff change kind as CHANGE_KINDS defines it', () => {
    const rows = Object.entries(CHANGE_KINDS).map(
      ([kind, info]) => `| \`${kind}\` | ${info.breaking ? 'yes' : 'no'} | ${info.title} |`,
    );
    const table = ['| kind | breaking | change |', '|---|---|---|', ...rows];
    const section = /<!-- diff-kinds:start -->\n([\s\S]*?)\n<!-- diff-kinds:end -->/.exec(readme);
    expect(section?.[1]).toBe(table.join('\n'));
  });

  it('links only inside the repository or to absolute URLs (never ../shared)', () => {
    expect(readme).not.toMatch(/\]\(\.\.\/|shared\/(CONVENTIONS|DESIGN)/);
    expect(readme).not.toMatch(/\bCONVENTIONS\.md\b|\bDESIGN\.md\b/);
  });
});
