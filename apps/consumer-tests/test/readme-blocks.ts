/**
 * Fenced code blocks of every README in the repository (root, packages/*, apps/*), and the shown
 * output inside TypeScript examples: a comment after a statement whose text is a literal value
 * (`// 'de'`, `// { ok: true, ... }`, `// body: '<?xml ...'`).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { repoRoot } from './support.js';

export interface Block {
  /** README path relative to the repository root. */
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly lang: string;
  readonly code: string;
  /** The `## ` heading the block is under. */
  readonly section: string;
}

export function readmeFiles(): string[] {
  const files = ['README.md'];
  for (const group of ['packages', 'apps']) {
    for (const name of readdirSync(join(repoRoot, group)).sort()) {
      if (existsSync(join(repoRoot, group, name, 'README.md'))) files.push(`${group}/${name}/README.md`);
    }
  }
  return files;
}

export function extractBlocks(file: string): Block[] {
  const lines = readFileSync(join(repoRoot, file), 'utf8').split('\n');
  const blocks: Block[] = [];
  let section = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith('## ')) section = line.slice(3).trim();
    const open = /^(`{3,})(\S*)\s*$/.exec(line);
    if (!open) continue;
    const fence = open[1]!;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !lines[j]!.startsWith(fence)) body.push(lines[j++]!);
    blocks.push({ file, line: i + 1, lang: open[2]!, code: `${body.join('\n')}\n`, section });
    i = j;
  }
  return blocks;
}

/** A comment showing what a statement produces. */
export interface Shown {
  /** 1-based line within the block of the statement. */
  readonly line: number;
  /** The comment text (continuation lines joined with a space). */
  readonly text: string;
  /** The statement (without its trailing comment). */
  readonly statement: string;
  /** The variable whose value the comment shows; absent: the statement's own value. */
  readonly variable?: string;
  /** The literal, when the comment is a plain literal (or `name: literal`). */
  readonly literal?: string;
  /** `a | b | c` of literals: the value is one of them. */
  readonly oneOf?: readonly string[];
}

const OUTPUT_START = /^(\{|\[|'|")/;
const NAMED = /^([A-Za-z_$][\w$]*): (.*)$/s;

/** Whether source text is a literal: strings, numbers, booleans, null, undefined, arrays and objects of them. */
function isLiteral(text: string): boolean {
  const file = ts.createSourceFile('x.ts', `(${text});`, ts.ScriptTarget.Latest, true);
  const [statement] = file.statements;
  if (file.statements.length !== 1 || !statement || !ts.isExpressionStatement(statement)) return false;
  if ((file as unknown as { parseDiagnostics: unknown[] }).parseDiagnostics.length > 0) return false;
  const literal = (node: ts.Expression): boolean => {
    if (ts.isParenthesizedExpression(node)) return literal(node.expression);
    if (ts.isStringLiteral(node) || ts.isNumericLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node))
      return true;
    if (node.kind === ts.SyntaxKind.TrueKeyword || node.kind === ts.SyntaxKind.FalseKeyword) return true;
    if (node.kind === ts.SyntaxKind.NullKeyword) return true;
    if (ts.isIdentifier(node)) return node.text === 'undefined';
    if (ts.isPrefixUnaryExpression(node))
      return node.operator === ts.SyntaxKind.MinusToken && ts.isNumericLiteral(node.operand);
    if (ts.isArrayLiteralExpression(node)) return node.elements.every(literal);
    if (ts.isObjectLiteralExpression(node)) {
      return node.properties.every(
        (p) => ts.isPropertyAssignment(p) && !ts.isComputedPropertyName(p.name) && literal(p.initializer),
      );
    }
    return false;
  };
  return literal(statement.expression);
}

/**
 * Output-looking comments of a TypeScript block: trailing (`expr; // value`) or on the lines right
 * after a statement (`expr;\n// value\n//   continued`). Prose comments are not output.
 */
export function shownOutputs(code: string): Shown[] {
  const lines = code.split('\n');
  const found: Shown[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim().startsWith('//') || !line.trim()) continue;
    const trailing = /^(.*?;)\s*\/\/\s?(.*)$/.exec(line);
    let statement: string;
    let text: string;
    if (trailing && !trailing[1]!.includes('//')) {
      statement = trailing[1]!;
      text = trailing[2]!.trim();
    } else if (line.trim().endsWith(';') && lines[i + 1]?.trim().startsWith('//')) {
      statement = line;
      const parts: string[] = [];
      let j = i + 1;
      while (lines[j]?.trim().startsWith('//')) parts.push(lines[j++]!.trim().replace(/^\/\/\s?/, ''));
      text = parts.join(' ').trim();
    } else continue;
    // Control flow and method-chain continuations do not produce a shown value.
    if (/^\s*(if|for|while|throw|return|import|export|\.)/.test(statement)) continue;
    const named = NAMED.exec(text);
    const valueText = named ? named[2]!.trim() : text;
    if (!OUTPUT_START.test(valueText) && !isLiteral(valueText)) continue;
    const declared = /^\s*(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=/.exec(statement);
    const variable = named ? named[1] : declared?.[1];
    const alternatives = valueText.split(' | ');
    found.push({
      line: i + 1,
      text,
      statement,
      ...(variable ? { variable } : {}),
      ...(isLiteral(valueText) ? { literal: valueText } : {}),
      ...(alternatives.length > 1 && alternatives.every(isLiteral) ? { oneOf: alternatives } : {}),
    });
  }
  return found;
}
