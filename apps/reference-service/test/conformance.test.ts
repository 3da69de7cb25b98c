/**
 * The reference service scored by @plumbline/conformance: its OpenAPI document passes every lint
 * rule and the live probes (writes included) pass every rule, on each CI run. The conformance
 * README's commands with the built CLI and Spectral are in conformance.built.test.ts.
 */
import { formatTable, lint, probe, scoreFindings } from '@plumbline/conformance';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, startService } from './harness.js';

describe('conformance scorecard of the reference service', () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService({ name: 'sqlite + memory', postgres: false, redis: false });
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('lint: the OpenAPI document passes every rule', () => lintPasses(svc));

  it('probe: every live rule passes, writes included', () => probePasses(svc, UNKNOWN_VERSION_REQUEST.path));
});

// The other versioning strategies: the document describes the strategy, and the probes (which
// read it from the document) pass against the service run under it.
describe.each(['query', 'header', 'media-type'] as const)(
  'conformance under VERSIONING_STRATEGY=%s',
  (strategy) => {
    let svc: RunningService;
    beforeAll(async () => {
      svc = await startService(
        { name: 'sqlite + memory', postgres: false, redis: false },
        { VERSIONING_STRATEGY: strategy },
      );
    });
    afterAll(async () => {
      await svc?.stop();
    });

    // Only the path strategy keeps a deprecated v1: the deprecation rules have nothing to judge.
    it('lint: the OpenAPI document passes every rule that applies', () =>
      lintPasses(svc, ['plumbline-deprecation-header', 'plumbline-sunset-header']));
    it('probe: every live rule passes, writes included', () =>
      probePasses(svc, UNKNOWN_VERSION_REQUEST[strategy]));
  },
);

/** The request the probe sends for version 9999 under each strategy. */
const UNKNOWN_VERSION_REQUEST = {
  path: 'GET /v9999/projects\nX-API-Key: ***\nAccept: application/json',
  query: 'GET /projects?version=9999\nX-API-Key: ***\nAccept: application/json',
  header: 'GET /projects\nX-API-Key: ***\nAccept: application/json\nX-API-Version: 9999',
  'media-type': 'GET /projects\nX-API-Key: ***\nAccept: application/vnd.plumbline.v9999+json',
} as const;

async function lintPasses(svc: RunningService, notApplicable: readonly string[] = []): Promise<void> {
  const document = (await (await fetch(`${svc.url}/openapi.json`)).json()) as object;
  const card = scoreFindings(await lint(document), `${svc.url}/openapi.json`);
  expect(
    card.results.filter((r) => r.outcome !== 'pass' && r.outcome !== 'not-applicable'),
    formatTable(card),
  ).toEqual([]);
  // A rule with nothing to judge is reported as such, never as a pass.
  expect(card.results.filter((r) => r.outcome === 'not-applicable').map((r) => r.id)).toEqual(notApplicable);
  expect(card.percent).toBe(100);
}

async function probePasses(svc: RunningService, unknownVersionRequest: string): Promise<void> {
  const card = await probe({
    baseUrl: svc.url,
    apiKey: svc.credentials.apiKeys.readWrite,
    allowWrites: true,
    requestsPerSecond: 200,
  });
  expect(
    card.results.filter((r) => r.outcome !== 'pass'),
    formatTable(card, { verbose: true }),
  ).toEqual([]);
  expect(card.results.length).toBe(19);
  // The unknown version (9999) was asked for the strategy's way, and refused.
  const versions = card.results.find((r) => r.id === 'probe-version-headers')?.evidence ?? [];
  expect(versions.filter((e) => e.note === 'unknown version refused with 4xx').map((e) => e.request)).toEqual(
    [unknownVersionRequest],
  );
  // Everything the write probes created was deleted again.
  expect(card.cleanup?.notDeleted).toEqual([]);
  expect(card.cleanup?.deleted.length).toBe(card.cleanup?.created);
}
