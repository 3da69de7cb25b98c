/**
 * The reference service scored by @plumbline/conformance: its OpenAPI document passes every lint
 * rule and the live probes (writes included) pass every rule, on each CI run.
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

  it('lint: the OpenAPI document passes every rule', async () => {
    const document = (await (await fetch(`${svc.url}/openapi.json`)).json()) as object;
    const card = scoreFindings(await lint(document), `${svc.url}/openapi.json`);
    expect(
      card.results.filter((r) => r.outcome !== 'pass'),
      formatTable(card),
    ).toEqual([]);
  });

  it('probe: every live rule passes, writes included', async () => {
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
  });
});
