/**
 * `diff` on real history:
 *
 * - the reference service's /openapi.json at two commits of this repository, served by the service
 *   itself (a scratch worktree at each commit, the document fetched from the running service):
 *   7f6588c (27 Nov, SQLite through node:sqlite) and 131b7dd (28 Nov, main when `diff` was
 *   written). In between, 35cadd2 widened the page metadata (`limit`, `offset`, `page`, `size`) from
 *   `integer` to `["integer", "string"]`: a response may now carry a string where clients expected an
 *   integer. That is breaking on v2; on v1 it is excused, v1 being deprecated with Deprecation and
 *   Sunset headers. The same widening of the search request bodies is info.
 * - GitHub Enterprise Server's published documents 3.17 and 3.19 from @octokit/openapi (a dev
 *   dependency, also used by the lint corpus): no breaking change, 47 paths added.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type Change, diff } from '../src/diff.js';
import { readOpenApi } from '../src/document.js';
import { EXIT, runCli } from '../src/run-cli.js';

const here = dirname(fileURLToPath(import.meta.url));
const OLD = join(here, 'history/reference-service-7f6588c.json');
const NEW = join(here, 'history/reference-service-131b7dd.json');
const GHES = join(here, '../node_modules/@octokit/openapi/generated');

function read(file: string) {
  return readOpenApi(readFileSync(file, 'utf8'), file);
}

function countByKind(changes: readonly Change[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const change of changes)
    counts[`${change.level} ${change.kind}`] = (counts[`${change.level} ${change.kind}`] ?? 0) + 1;
  return counts;
}

/** Every paginated response of a version: its page metadata fields, per media type. */
function pageFields(version: string): string[] {
  const lists = [
    `/${version}/projects.get`,
    `/${version}/projects/search.post`,
    `/${version}/projects/{project_id}/tasks.get`,
    `/${version}/projects/{project_id}/tasks/search.post`,
    `/${version}/tasks.get`,
    `/${version}/tasks/search.post`,
    `/${version}/tasks/{task_id}/comments.get`,
  ];
  return lists.flatMap((operation) =>
    ['application/json', 'application/xml'].flatMap((type) =>
      ['limit', 'offset', 'page', 'size'].map(
        (field) =>
          `paths.${operation}.responses.200.content.${type}.schema.properties.page.properties.${field}`,
      ),
    ),
  );
}

describe('diff on real history', () => {
  it('reference service, 7f6588c → 131b7dd: the page metadata widened to integer|string', async () => {
    const result = diff(read(OLD), read(NEW));
    const at = (level: string) => result.changes.filter((change) => change.level === level);
    expect(at('error').map((change) => change.location)).toEqual(pageFields('v2'));
    expect(new Set(at('error').map((change) => `${change.kind}: ${change.message}`))).toEqual(
      new Set(['type-changed: type changed from integer to integer|string']),
    );
    expect(at('warning').map((change) => change.location)).toEqual(pageFields('v1'));
    expect(at('warning')[0]?.excuse).toBe(
      'GET /v1/projects is deprecated in the new document and announces it with a Deprecation/Sunset header',
    );
    expect(countByKind(result.changes)).toEqual({
      'error type-changed': 56,
      'warning type-changed': 56,
      'info response-status-added': 11,
      'info description-changed': 6,
      'info type-widened': 24,
    });
    expect(at('info').filter((change) => change.kind === 'type-widened')[0]?.location).toBe(
      'paths./v1/projects/search.post.requestBody.content.application/json.schema.properties.limit',
    );

    let stdout = '';
    const code = await runCli(['diff', OLD, NEW], { stdout: (text) => (stdout += text), stderr: () => {} });
    expect(code).toBe(EXIT.failed);
    expect(stdout.split('\n')[0]).toBe(
      `plumbline-conformance diff ${OLD} ${NEW}: 56 breaking, 56 excused, 41 info FAILED`,
    );
  });

  it('the reference service document against itself: no change', () => {
    expect(diff(read(NEW), read(NEW)).changes).toEqual([]);
  });

  it('GitHub Enterprise Server 3.17 → 3.19 (@octokit/openapi): no breaking change', () => {
    const result = diff(read(join(GHES, 'ghes-3.17.json')), read(join(GHES, 'ghes-3.19.json')));
    expect(result.ok).toBe(true);
    expect(countByKind(result.changes)).toEqual({
      'info description-changed': 453,
      'info response-property-added': 122,
      'info request-property-added': 21,
      'info path-added': 47,
      'info parameter-added': 4,
      'info operation-added': 1,
      'info response-status-added': 1,
    });
  });
});
