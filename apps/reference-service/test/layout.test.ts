/**
 * The layout of `src/` as rules (README, "Where the code is"): framework code lives only in
 * `http/<framework>/`, a wiring never reaches into another framework's folder, nothing outside
 * `http/` depends on a wiring (except listener.ts, which loads the configured one with `import()`),
 * the files import each other without a cycle, and each framework's folder stays under 300 lines.
 * Each rule lists every offending import, so a failure names the file and what it imports.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '../src');
const FRAMEWORKS = ['express', 'fastify', 'hono'] as const;
type Framework = (typeof FRAMEWORKS)[number];

/**
 * Which framework a package specifier belongs to. Not listed, because it is framework-free: `pino`
 * (the access log runs on Node's request and response, service/logging.ts).
 */
const FRAMEWORK_PACKAGES: ReadonlyArray<readonly [RegExp, Framework]> = [
  [/^express$/, 'express'],
  [/^@plumbline\/[^/]+\/express$/, 'express'],
  [/^fastify$/, 'fastify'],
  [/^@fastify\//, 'fastify'],
  [/^@plumbline\/[^/]+\/fastify$/, 'fastify'],
  [/^hono(?:\/|$)/, 'hono'],
  [/^@hono\//, 'hono'],
  [/^@plumbline\/[^/]+\/hono$/, 'hono'],
];

interface Import {
  /** The importing file, relative to `src/` (`http/express/app.ts`). */
  readonly file: string;
  /** The specifier as written. */
  readonly specifier: string;
  /** For a relative specifier, the imported file relative to `src/`; undefined for a package. */
  readonly target: string | undefined;
  readonly dynamic: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [relative(SRC, path).split('\\').join('/')] : [];
  });
}

// Static imports and re-exports start a line (a `from` may follow on a later line of the same
// statement); TSDoc examples are inside comments, whose lines start with `*` or `//`.
const STATIC = /^(?:import|export)\s[^;]*?\sfrom\s*['"]([^'"]+)['"]/gm;
const BARE = /^import\s*['"]([^'"]+)['"]/gm;
const DYNAMIC = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

function importsOf(file: string): Import[] {
  const text = readFileSync(join(SRC, file), 'utf8');
  const code = text
    .split('\n')
    .filter((line) => !/^\s*(?:\*|\/\*|\/\/)/.test(line))
    .join('\n');
  const found: Import[] = [];
  const add = (specifier: string, dynamic: boolean) => {
    const target = specifier.startsWith('.')
      ? posix.normalize(posix.join(posix.dirname(file), specifier)).replace(/\.js$/, '.ts')
      : undefined;
    found.push({ file, specifier, target, dynamic });
  };
  for (const match of code.matchAll(STATIC)) add(match[1]!, false);
  for (const match of code.matchAll(BARE)) add(match[1]!, false);
  for (const match of code.matchAll(DYNAMIC)) add(match[1]!, true);
  return found;
}

const FILES = sourceFiles(SRC).sort();
const IMPORTS = FILES.flatMap(importsOf);

/** `http/fastify/app.ts` → `fastify`; undefined outside `http/<framework>/`. */
function frameworkFolder(file: string): Framework | undefined {
  const match = /^http\/([^/]+)\//.exec(file);
  return match ? FRAMEWORKS.find((f) => f === match[1]) : undefined;
}

function frameworkPackage(specifier: string): Framework | undefined {
  return FRAMEWORK_PACKAGES.find(([pattern]) => pattern.test(specifier))?.[1];
}

/** The one exception to "nothing outside http/ imports from http/": listener.ts's `import()` of a wiring. */
function listenerLoadsWiring(imp: Import): boolean {
  return (
    imp.file === 'listener.ts' &&
    imp.dynamic &&
    FRAMEWORKS.some((framework) => imp.target === `http/${framework}/app.ts`)
  );
}

const show = (imp: Import) => `${imp.file} imports '${imp.specifier}'${imp.dynamic ? ' (dynamic)' : ''}`;

const RULES: ReadonlyArray<{ readonly rule: string; readonly offends: (imp: Import) => boolean }> = [
  {
    rule: 'framework packages only inside http/<framework>/',
    offends: (imp) =>
      frameworkPackage(imp.specifier) !== undefined && frameworkFolder(imp.file) === undefined,
  },
  {
    rule: "http/<framework>/ imports no other framework's packages",
    offends: (imp) => {
      const own = frameworkFolder(imp.file);
      const used = frameworkPackage(imp.specifier);
      return own !== undefined && used !== undefined && used !== own;
    },
  },
  {
    rule: 'http/<framework>/ imports nothing from another http/<framework>/',
    offends: (imp) => {
      const own = frameworkFolder(imp.file);
      return (
        own !== undefined &&
        imp.target?.startsWith('http/') === true &&
        !imp.target.startsWith(`http/${own}/`)
      );
    },
  },
  {
    rule: "nothing outside http/ imports from http/ (except listener.ts's import() of a wiring)",
    offends: (imp) =>
      !imp.file.startsWith('http/') && imp.target?.startsWith('http/') === true && !listenerLoadsWiring(imp),
  },
  {
    rule: 'every relative import names a file of src/',
    offends: (imp) => imp.target !== undefined && !FILES.includes(imp.target),
  },
];

/** Every cycle among the src files' relative imports (static, dynamic and type-only alike), as `a → b → a`. */
function cycles(): string[] {
  const edges = new Map<string, string[]>(FILES.map((file) => [file, []]));
  for (const imp of IMPORTS) if (imp.target !== undefined) edges.get(imp.file)?.push(imp.target);
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const found: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of edges.get(file) ?? []) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next].join(' → '));
      else if (state.get(next) === undefined) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of FILES) if (state.get(file) === undefined) visit(file);
  return found;
}

describe('src/ layout', () => {
  it('reads the wirings and sees their framework imports', () => {
    // Guards the scanner itself: a parser that saw no imports would pass every rule below.
    for (const framework of FRAMEWORKS) {
      const wiring = IMPORTS.filter((imp) => imp.file === `http/${framework}/app.ts`);
      expect(wiring.map((imp) => frameworkPackage(imp.specifier))).toContain(framework);
    }
    expect(IMPORTS.filter(listenerLoadsWiring).map((imp) => imp.target)).toEqual(
      FRAMEWORKS.map((framework) => `http/${framework}/app.ts`),
    );
  });

  for (const { rule, offends } of RULES) {
    it(rule, () => {
      expect(IMPORTS.filter(offends).map(show)).toEqual([]);
    });
  }

  it('has no import cycle among the src files', () => {
    expect(cycles()).toEqual([]);
  });

  // A wiring is what a team copies and reads top to bottom: what a framework lacks belongs in a
  // package, not in a folder that grows. Lines in all, comments and blank lines included.
  it('keeps each http/<framework>/ folder under 300 lines', () => {
    const over = FRAMEWORKS.map((framework) => {
      const lines = FILES.filter((file) => file.startsWith(`http/${framework}/`))
        .map((file) => readFileSync(join(SRC, file), 'utf8').split('\n').length - 1)
        .reduce((sum, count) => sum + count, 0);
      return [framework, lines] as const;
    });
    expect(over.every(([, lines]) => lines > 0)).toBe(true);
    expect(over.filter(([, lines]) => lines >= 300)).toEqual([]);
  });
});
