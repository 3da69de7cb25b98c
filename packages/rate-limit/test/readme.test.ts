/**
 * The README's three framework examples run as written (only the port is made ephemeral), and each
 * answers the requests the README shows with the bytes it shows: 60 counted requests, then the 429.
 */
import { readFileSync } from 'node:fs';
import { readmeBlock, readmeFrameworkExamples, runReadmeExample, send } from '@plumbline/test-utils';
import { describe, expect, it } from 'vitest';
import type { RateDecision } from '../src/index.js';

const here = new URL('.', import.meta.url);
const readme = new URL('../README.md', import.meta.url);

// The README's text, whose http blocks show the fields for a client at 127.0.0.1.
const text = readFileSync(readme, 'utf8');
const shown = (line: string) => {
  expect(text).toContain(line);
  return line;
};

const POLICY = '"60-in-1min"; q=60; w=60; pk=:NTA4Y2MwZmUyNjE4:';

describe.each(readmeFrameworkExamples(here, readme, 'rate-limit', { express: true }))(
  'README %s example',
  (_name, start) => {
    const port = start();

    it('the README shows the 429 as sent', () => {
      for (const line of [
        'Retry-After: 60',
        'RateLimit: "60-in-1min"; r=0; t=60',
        `RateLimit-Policy: ${POLICY}`,
      ])
        shown(line);
    });

    it('60 requests a minute pass with the fields the README shows; the 61st is the 429 it shows', async () => {
      const first = await send(await port, { path: '/projects' });
      expect([
        first.status,
        first.headers['ratelimit'],
        first.headers['ratelimit-policy'],
        first.body,
      ]).toEqual([200, shown('"60-in-1min"; r=59; t=60'), shown(POLICY), [{ id: 1, name: 'Apollo' }]]);
      for (let i = 2; i <= 60; i++) expect((await send(await port, { path: '/projects' })).status).toBe(200);
      const refused = await send(await port, { path: '/projects' });
      const { request_id, ...problem } = refused.body as Record<string, unknown>;
      // @plumbline/errors' Fastify and Hono adapters give every request an id; the Express example has no requestId().
      expect(request_id === undefined || /^[0-9a-f-]{36}$/.test(String(request_id))).toBe(true);
      expect([
        refused.status,
        refused.headers['content-type'],
        refused.headers['retry-after'],
        refused.headers['ratelimit'],
        refused.headers['ratelimit-policy'],
        problem,
      ]).toEqual([
        429,
        'application/problem+json; charset=utf-8',
        '60',
        '"60-in-1min"; r=0; t=60',
        POLICY,
        {
          type: '/errors/rate_limited',
          title: 'Too Many Requests',
          status: 429,
          detail: 'Too many requests; retry after 60 seconds.',
          instance: '/projects',
          error_code: 'rate_limited',
          message: 'Too many requests; retry after 60 seconds.',
        },
      ]);
    });
  },
);

describe('README Core example', () => {
  it('shows what it returns', async () => {
    const { key, decision } = await runReadmeExample<{ key: string; decision: RateDecision | undefined }>(
      here,
      'rate-limit-core',
      readmeBlock(readme, '### Core'),
      ['key', 'decision'],
    );
    expect([key, decision?.exceeded, decision?.headers['RateLimit'], decision?.error?.status]).toEqual([
      'client:demo',
      true,
      '"2-in-1min"; r=0; t=60',
      429,
    ]);
  });
});
