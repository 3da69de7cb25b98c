/**
 * The service scores itself with @plumbline/conformance, as its CI should after every change: the
 * OpenAPI document passes every lint rule, and every live probe passes against the running service
 * (the write probes included, which delete what they create).
 */
import { formatTable, lint, probe, scoreFindings } from '@plumbline/conformance';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, startService } from './harness.js';

describe('conformance scorecard', () => {
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
    expect(card.results.length).toBeGreaterThan(0);
    expect(
      card.results.filter((r) => r.outcome !== 'pass'),
      formatTable(card),
    ).toEqual([]);
  });

  it('probe: every live rule passes, writes included, and nothing is left behind', async () => {
    const card = await probe({
      baseUrl: svc.url,
      apiKey: svc.credentials.apiKeys.readWrite,
      allowWrites: true,
      requestsPerSecond: 200,
    });
    expect(card.results.length).toBeGreaterThan(0);
    expect(
      card.results.filter((r) => r.outcome !== 'pass'),
      formatTable(card, { verbose: true }),
    ).toEqual([]);
    expect(card.cleanup?.notDeleted).toEqual([]);
    expect(card.cleanup?.deleted.length).toBe(card.cleanup?.created);
  });
});
