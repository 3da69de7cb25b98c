/**
 * Reflected input (issue 29, security round 2): no problem document, log line or HTML page echoes a
 * request path decoded. A percent-encoded `<script>` stays percent-encoded in a problem's `instance`
 * and in the access log, an HTML page escapes what it shows, and a target each framework would read
 * differently is refused before routing. Runs once per framework (vitest.config.ts).
 */
import { rawExchange } from '@plumbline/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refusedTarget } from '../src/service/request-target.js';
import { captureLogs, type RunningService, startService } from './harness.js';

const MARKUP = /<script|<\/script|<img|onerror=/i;

describe('refusedTarget', () => {
  it.each([
    ['/v2/projects', [], undefined],
    ['/v2/projects?q=%&x=..', [], undefined],
    ['/v2/projects/%2e%2e/tasks', [], 'dot_segment'],
    ['/v2/projects/%2E%2e/tasks', [], 'dot_segment'],
    ['/v2/projects/../tasks', [], 'dot_segment'],
    ['/v2/./projects', [], 'dot_segment'],
    ['/v2/projects/..', [], 'dot_segment'],
    ['/v2/projects/.%2e', [], 'dot_segment'],
    ['/v2/projects/...', [], undefined],
    ['/v2/projects/a..b', [], undefined],
    ['/v2/projects/%ZZ', [], 'bad_percent_encoding'],
    ['/v2/projects/%', [], 'bad_percent_encoding'],
    ['/v2/projects/%c0%ae', [], 'bad_percent_encoding'],
    ['/v2/projects/%C3%BC', [], undefined],
    ['/v2\\projects', [], 'backslash'],
    ['/v2/projects#x', [], 'fragment'],
    ['*', [], undefined],
    ['/v2/projects', ['Content-Type', 'a/b', 'content-type', 'a/b'], 'content_type_repeated'],
    ['/v2/projects', ['Content-Type', 'a/b'], undefined],
    ['/health', ['Host', ''], 'invalid_host'],
    ['/health', ['Host', 'a.test/x'], 'invalid_host'],
    ['/health', ['Host', 'a b'], 'invalid_host'],
    ['/health', ['Host', 'api.example.com:8443'], undefined],
    ['/health', ['Host', '[::1]:3000'], undefined],
  ] as const)('%s %j → %s', (target, rawHeaders, reason) => {
    expect(refusedTarget(target, rawHeaders)).toBe(reason);
  });
});

describe('reflected input', () => {
  let svc: RunningService;
  let port = 0;
  const { logger, lines } = captureLogs();
  beforeAll(async () => {
    svc = await startService({ name: 'sqlite', postgres: false, redis: false }, {}, { logger });
    port = Number(new URL(svc.url).port);
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it.each([
    ['/%3Cscript%3Ealert(1)%3C%2Fscript%3E', 404, '/%3Cscript%3Ealert(1)%3C%2Fscript%3E'],
    [
      '/v2/projects/%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E',
      404,
      '/v2/projects/%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E',
    ],
    ['/v1/projects/%3Cscript%3E', 404, '/v1/projects/%3Cscript%3E'],
  ])('GET %s: %s, instance and log line keep the encoding', async (path, status, instance) => {
    const res = await fetch(`${svc.url}${path}`, {
      headers: { 'x-api-key': svc.credentials.apiKeys.readWrite },
    });
    const body = await res.text();
    expect(res.status).toBe(status);
    expect(JSON.parse(body).instance).toBe(instance);
    expect(body).not.toMatch(MARKUP);
    // v1's successor link names the path as sent, not decoded.
    expect(res.headers.get('link') ?? '').not.toMatch(MARKUP);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const logged = lines.filter((line) => line.includes(path.slice(0, 12)));
    expect(logged.length, 'the access log has the request').toBeGreaterThan(0);
    for (const line of logged) expect(line).not.toMatch(MARKUP);
  });

  it.each([
    ['/errors/%3Cscript%3Ealert(1)%3C%2Fscript%3E'],
    ['/errors/%22%3E%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E'],
  ])('an error page for %s as HTML escapes what it shows', async (path) => {
    const res = await fetch(`${svc.url}${path}`, { headers: { accept: 'text/html' } });
    const body = await res.text();
    expect(res.status).toBe(404);
    expect(body).not.toMatch(MARKUP);
  });

  it.each([
    ['GET /v2/projects/%2e%2e/tasks HTTP/1.1', 'dot_segment'],
    ['GET /v2/projects/%ZZ HTTP/1.1', 'bad_percent_encoding'],
    ['GET /v2\\projects HTTP/1.1', 'backslash'],
  ])('%s is refused before routing: 400 malformed_request (%s)', async (line, reason) => {
    const reply = await rawExchange(
      port,
      `${line}\r\nHost: x\r\nAccept: text/html\r\nConnection: close\r\n\r\n`,
    );
    expect(reply.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(reply.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(reply.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(reply.headers['api-supported-versions']).toBe('1, 2, 3');
    const problem = JSON.parse(reply.body);
    expect([problem.error_code, problem.reason, problem.instance]).toEqual([
      'malformed_request',
      reason,
      undefined,
    ]);
  });
});
