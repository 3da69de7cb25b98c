/**
 * The README's API table is generated from /openapi.json: this test renders it from the document
 * and fails when the README's copy differs (run with PLUMBLINE_WRITE_README=1 to rewrite it).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, startService } from './harness.js';

type Json = Record<string, unknown>;

const README = new URL('../README.md', import.meta.url);
const START = '<!-- api-table: generated from /openapi.json by test/readme-api-table.test.ts -->';
const END = '<!-- /api-table -->';
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const PAGING = new Set(['limit', 'offset', 'page', 'size', 'cursor']);

function resolve(document: Json, node: Json): Json {
  const ref = node['$ref'];
  if (typeof ref !== 'string') return node;
  return ref
    .slice(2)
    .split('/')
    .reduce<Json>((n, key) => n[key] as Json, document);
}

/** `status`, `status[ne]`, `status[in]` → `status`, `status[ne\|in]`. */
function filters(names: readonly string[]): string {
  const byField = new Map<string, string[]>();
  for (const name of names) {
    const [field, op] = name.includes('[')
      ? [name.slice(0, name.indexOf('[')), name.slice(name.indexOf('[') + 1, -1)]
      : [name, ''];
    byField.set(field, [...(byField.get(field) ?? []), op]);
  }
  return [...byField]
    .flatMap(([field, ops]) => [
      ...(ops.includes('') ? [`\`${field}\``] : []),
      ...(ops.some((op) => op !== '') ? [`\`${field}[${ops.filter((op) => op !== '').join('\\|')}]\``] : []),
    ])
    .join(', ');
}

function queryText(document: Json, operation: Json): string {
  const parameters = ((operation['parameters'] ?? []) as Json[])
    .map((p) => resolve(document, p))
    .filter((p) => p['in'] === 'query');
  const names = parameters.map((p) => String(p['name']));
  const parts: string[] = [];
  const filterNames = names.filter((n) => !['q', 'sort', 'fields'].includes(n) && !PAGING.has(n));
  if (filterNames.length > 0) parts.push(`filter ${filters(filterNames)}`);
  const sort = parameters.find((p) => p['name'] === 'sort');
  if (sort)
    parts.push(
      `sort ${/Sortable: (.*)\.$/
        .exec(String(sort['description']))?.[1]
        ?.split(', ')
        .map((f) => `\`${f}\``)
        .join(', ')}`,
    );
  const q = parameters.find((p) => p['name'] === 'q');
  if (q)
    parts.push(
      `search ${/search in (.*)\.$/
        .exec(String(q['description']))?.[1]
        ?.split(', ')
        .map((f) => `\`${f}\``)
        .join(', ')}`,
    );
  if (names.some((n) => PAGING.has(n))) parts.push('paging');
  if (names.includes('fields')) parts.push('`fields`');
  return parts.join('; ');
}

/** The table: one row per path (v1 and v2 together when they offer the same operations). */
function apiTable(document: Json): string {
  const rows = new Map<string, string>();
  for (const [path, item] of Object.entries(document['paths'] as Record<string, Json>)) {
    const cells: string[] = [];
    const queries: string[] = [];
    const scopes = new Set<string>();
    for (const method of METHODS) {
      const operation = item[method] as Json | undefined;
      if (!operation) continue;
      const params = ((operation['parameters'] ?? []) as Json[]).map((p) => String(p['$ref'] ?? ''));
      cells.push(
        `${method.toUpperCase()}${params.some((r) => r.endsWith('/IdempotencyKeyRequired')) ? ' (Idempotency-Key required)' : ''}`,
      );
      const query = queryText(document, operation);
      if (query !== '') queries.push(`${method.toUpperCase()}: ${query}`);
      for (const requirement of (operation['security'] ?? []) as Json[])
        for (const scope of (requirement['oauth2'] ?? []) as string[]) scopes.add(`\`${scope}\``);
    }
    const row = `| ${cells.join(', ')} | ${queries.join('<br>') || '–'} | ${[...scopes].join(', ') || 'none'} |`;
    const key = path.replace(/^\/v[12]\//, '/v{1,2}/');
    const other = rows.get(key);
    if (other !== undefined && other !== row) rows.set(path, row);
    else rows.set(key, row);
  }
  return [
    '| path | methods | query parameters | scopes |',
    '|---|---|---|---|',
    ...[...rows].map(([path, row]) => `| \`${path}\` ${row}`),
  ].join('\n');
}

describe('README API table', () => {
  let svc: RunningService;
  let document: Json;
  beforeAll(async () => {
    svc = await startService({ name: 'sqlite + memory', postgres: false, redis: false });
    document = (await (await fetch(`${svc.url}/openapi.json`)).json()) as Json;
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('is the table the document generates', () => {
    const readme = readFileSync(README, 'utf8');
    const start = readme.indexOf(START);
    const end = readme.indexOf(END);
    expect(start, `README needs the markers ${START} … ${END}`).toBeGreaterThan(0);
    const expected = `${START}\n${apiTable(document)}\n${END}`;
    const actual = readme.slice(start, end + END.length);
    if (actual !== expected && process.env['PLUMBLINE_WRITE_README'] === '1') {
      writeFileSync(README, readme.replace(actual, expected));
      return;
    }
    expect(actual).toBe(expected);
  });

  it('lists the filters the service accepts, and no /search for comments', () => {
    const table = apiTable(document);
    expect(table).toContain('`status[ne\\|in]`');
    expect(table).toContain('`project_id[in]`');
    expect(table).toContain('`created_at[gte\\|lt]`');
    expect(table).not.toContain('comments/search');
  });
});
