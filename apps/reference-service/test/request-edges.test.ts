/**
 * Request shapes at the edge of the grammar (issue 24 item 12): an Accept element that is not a
 * media range, the asterisk-form and absolute-form request targets (RFC 9112 3.2), and a token
 * request that is not form-encoded.
 */
import { rawExchange } from '@plumbline/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, startService } from './harness.js';

describe('request edges', () => {
  let svc: RunningService;
  let port = 0;
  let apiKey = '';
  beforeAll(async () => {
    svc = await startService({ name: 'sqlite + memory', postgres: false, redis: false });
    port = Number(new URL(svc.url).port);
    apiKey = svc.credentials.apiKeys.readWrite;
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it.each([
    ['*/json', 406, 'application/problem+json; charset=utf-8'],
    ['*/json, application/xml;q=0.1', 200, 'application/xml; charset=utf-8'],
    ['json', 406, 'application/problem+json; charset=utf-8'],
    ['application/, application/json;q=0.5', 200, 'application/json; charset=utf-8'],
  ])('Accept: %s on a collection → %s', async (accept, status, type) => {
    const res = await fetch(`${svc.url}/v2/projects`, { headers: { accept, 'x-api-key': apiKey } });
    expect([res.status, res.headers.get('content-type')]).toEqual([status, type]);
    expect(res.headers.get('vary')).toContain('Accept');
    if (status === 406)
      expect(((await res.json()) as { error_code: string }).error_code).toBe('not_acceptable');
  });

  it('OPTIONS * answers 204 with the server-wide Allow and the common headers', async () => {
    const reply = await rawExchange(port, 'OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(reply.statusLine).toBe('HTTP/1.1 204 No Content');
    expect(reply.headers).toMatchObject({
      allow: 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS',
      'api-supported-versions': '1, 2, 3',
      'x-request-id': expect.any(String),
    });
    expect(reply.body).toBe('');
  });

  it('GET * is not a resource: 404 problem', async () => {
    const reply = await rawExchange(port, 'GET * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(reply.statusLine).toBe('HTTP/1.1 404 Not Found');
    expect(JSON.parse(reply.body).error_code).toBe('not_found');
  });

  it.each([
    [
      'a collection',
      (p: number) => `http://127.0.0.1:${p}/v2/projects?limit=1`,
      200,
      'application/json; charset=utf-8',
    ],
    [
      'the host from the target, not Host',
      () => 'http://api.example.com/health',
      200,
      'application/json; charset=utf-8',
    ],
    [
      'v1 with its successor link',
      (p: number) => `HTTP://127.0.0.1:${p}/v1/projects`,
      200,
      'application/json; charset=utf-8',
    ],
    ['an unknown path', () => 'http://127.0.0.1/nope', 404, 'application/problem+json; charset=utf-8'],
  ])('absolute-form: %s routes like origin-form', async (_label, target, status, type) => {
    const reply = await rawExchange(
      port,
      `GET ${target(port)} HTTP/1.1\r\nHost: elsewhere.example\r\nX-API-Key: ${apiKey}\r\nConnection: close\r\n\r\n`,
    );
    expect(reply.statusLine.split(' ')[1]).toBe(String(status));
    expect(reply.headers['content-type']).toBe(type);
  });

  it('absolute-form v1 carries the successor link derived from the path', async () => {
    const reply = await rawExchange(
      port,
      `GET http://127.0.0.1:${port}/v1/projects HTTP/1.1\r\nHost: x\r\nX-API-Key: ${apiKey}\r\nConnection: close\r\n\r\n`,
    );
    expect(reply.headers['link']).toContain('</v2/projects>; rel="successor-version"');
  });

  it.each([
    ['application/json', '{"grant_type":"client_credentials"}'],
    ['text/plain', 'grant_type=client_credentials'],
  ])(
    'the token endpoint answers %s with RFC 6749 400 invalid_request and Accept-Post',
    async (type, body) => {
      const res = await fetch(`${svc.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': type },
        body,
      });
      expect([res.status, res.headers.get('accept-post'), res.headers.get('cache-control')]).toEqual([
        400,
        'application/x-www-form-urlencoded',
        'no-store',
      ]);
      expect(await res.json()).toEqual({
        error: 'invalid_request',
        error_description: 'the body must be application/x-www-form-urlencoded',
      });
    },
  );
});
