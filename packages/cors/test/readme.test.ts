/**
 * The README's three framework examples run as written (only the port is made ephemeral), and each
 * answers the preflight, the actual request and the 404 the README shows with the headers it shows.
 * The Core example returns what its comments say.
 */
import { readFileSync } from 'node:fs';
import { readmeBlock, readmeFrameworkExamples, runReadmeExample, send } from '@plumbline/test-utils';
import { describe, expect, it } from 'vitest';
import type { CorsDecision } from '../src/index.js';

const here = new URL('.', import.meta.url);
const readme = new URL('../README.md', import.meta.url);

const text = readFileSync(readme, 'utf8');
// A header line the README shows, as `name: value` lower-cased name for comparison.
const shown = (line: string): [string, string] => {
  expect(text).toContain(line);
  const at = line.indexOf(': ');
  return [line.slice(0, at).toLowerCase(), line.slice(at + 2)];
};
const pick = (headers: Readonly<Record<string, string>>, names: readonly string[]) =>
  Object.fromEntries(names.map((name) => [name, headers[name]]));

const APP = 'https://app.example.com';
const PREFLIGHT = [
  'Access-Control-Allow-Origin: https://app.example.com',
  'Access-Control-Allow-Credentials: true',
  'Access-Control-Allow-Methods: GET, PATCH',
  'Access-Control-Allow-Headers: Authorization, Content-Type, Idempotency-Key, If-Match, If-None-Match, X-API-Key, X-Request-Id, Accept-Language',
  'Access-Control-Max-Age: 600',
  'Vary: Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
];
const ACTUAL = [
  'Access-Control-Allow-Origin: https://app.example.com',
  'Access-Control-Allow-Credentials: true',
  'Access-Control-Expose-Headers: Link, ETag, Location, RateLimit, RateLimit-Policy, Retry-After, Deprecation, Sunset, Content-Language, X-Request-Id, Idempotency-Key, Idempotent-Replayed, API-Supported-Versions, API-Deprecated-Versions, Accept-Post, Accept-Patch',
  'Vary: Origin',
];
const CORS_NAMES = [
  'access-control-allow-origin',
  'access-control-allow-credentials',
  'access-control-allow-methods',
  'access-control-expose-headers',
];

describe.each(readmeFrameworkExamples(here, readme, 'cors', { express: true }))(
  'README %s example',
  (_name, start) => {
    const port = start();

    it('answers the PATCH preflight with the 204 the README shows, without running the route', async () => {
      for (const line of [
        'OPTIONS /projects/1 HTTP/1.1',
        'Access-Control-Request-Method: PATCH',
        'Access-Control-Request-Headers: content-type,if-match',
        'HTTP/1.1 204 No Content',
      ])
        expect(text).toContain(line);
      const answer = await send(await port, {
        method: 'OPTIONS',
        path: '/projects/1',
        headers: {
          Origin: APP,
          'Access-Control-Request-Method': 'PATCH',
          'Access-Control-Request-Headers': 'content-type,if-match',
        },
      });
      const expected = Object.fromEntries(PREFLIGHT.map(shown));
      expect([answer.status, pick(answer.headers, Object.keys(expected)), answer.body]).toEqual([
        204,
        expected,
        '',
      ]);
    });

    it('sends the CORS headers the README shows on GET /projects and on the 404 problem', async () => {
      const expected = Object.fromEntries(ACTUAL.map(shown));
      const ok = await send(await port, { path: '/projects', headers: { Origin: APP } });
      expect([ok.status, pick(ok.headers, Object.keys(expected)), ok.body]).toEqual([
        200,
        expected,
        [{ id: 1, name: 'Apollo' }],
      ]);
      const missing = await send(await port, { path: '/nope', headers: { Origin: APP } });
      expect([missing.status, pick(missing.headers, Object.keys(expected))]).toEqual([
        404,
        { ...expected, vary: 'Origin, Accept, Accept-Language' },
      ]);
      expect((missing.body as { error_code?: unknown }).error_code).toBe('not_found');
    });

    it('serves an origin not listed, with Vary: Origin and no CORS headers', async () => {
      const other = await send(await port, {
        path: '/projects',
        headers: { Origin: 'https://app.example.com.evil.com' },
      });
      expect([other.status, pick(other.headers, [...CORS_NAMES, 'vary'])]).toEqual([
        200,
        { ...Object.fromEntries(CORS_NAMES.map((name) => [name, undefined])), vary: 'Origin' },
      ]);
    });
  },
);

describe('README Core example', () => {
  it('shows what it returns', async () => {
    const { preflight, evil } = await runReadmeExample<{ preflight: CorsDecision; evil: CorsDecision }>(
      here,
      'cors-core',
      readmeBlock(readme, '### Core'),
      ['preflight', 'evil'],
    );
    expect([
      preflight.preflight,
      preflight.headers['Access-Control-Max-Age'],
      evil.allowed,
      evil.headers['Access-Control-Allow-Origin'],
      evil.headers['Vary'],
    ]).toEqual([true, '600', false, undefined, 'Origin']);
  });
});
