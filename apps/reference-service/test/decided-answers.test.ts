/**
 * The answers decided for the classes of difference the differential suite found (issue 29): the
 * differential suite proves the three frameworks answer alike; this table pins what they answer,
 * so all three cannot drift together. Runs once per framework (vitest.config.ts).
 */
import { gzipSync } from 'node:zlib';
import { rawExchange } from '@plumbline/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, startService } from './harness.js';

interface Expected {
  readonly status: number;
  readonly code?: string;
  readonly headers?: Readonly<Record<string, string | null>>;
}

describe('decided answers', () => {
  let svc: RunningService;
  let port = 0;
  let key = '';
  beforeAll(async () => {
    svc = await startService({ name: 'sqlite', postgres: false, redis: false });
    port = Number(new URL(svc.url).port);
    key = svc.credentials.apiKeys.readWrite;
  });
  afterAll(async () => {
    await svc?.stop();
  });

  const json = { 'content-type': 'application/json' };
  it.each<[string, string, string, Record<string, string>, string | Buffer | undefined, Expected]>([
    [
      'an unknown method is 405 with Allow',
      'PROPFIND',
      '/v2/projects',
      {},
      undefined,
      {
        status: 405,
        code: 'method_not_allowed',
        headers: { allow: 'GET, POST, HEAD, OPTIONS' },
      },
    ],
    ['paths are case-sensitive', 'GET', '/V2/projects', {}, undefined, { status: 404, code: 'not_found' }],
    [
      'a trailing slash is another path',
      'GET',
      '/v2/projects/',
      {},
      undefined,
      { status: 404, code: 'not_found' },
    ],
    [
      'a trailing slash on a neutral route too',
      'GET',
      '/health/',
      {},
      undefined,
      { status: 404, code: 'not_found' },
    ],
    [
      'a gzip body is 415',
      'POST',
      '/v2/projects',
      { ...json, 'content-encoding': 'gzip', 'idempotency-key': 'd-1' },
      gzipSync('{"name":"Zipped"}'),
      { status: 415, code: 'unsupported_media_type' },
    ],
    [
      'an unknown coding is 415',
      'POST',
      '/v2/projects',
      { ...json, 'content-encoding': 'bogus', 'idempotency-key': 'd-2' },
      '{"name":"Bogus"}',
      { status: 415, code: 'unsupported_media_type' },
    ],
    [
      'an empty JSON body is {}: the name is missing',
      'POST',
      '/v2/projects',
      { ...json, 'idempotency-key': 'd-3' },
      '',
      { status: 400, code: 'validation_failed' },
    ],
    [
      'a byte order mark before JSON is ignored',
      'POST',
      '/v2/projects',
      { ...json, 'idempotency-key': 'd-4' },
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"name":"With BOM"}')]),
      { status: 201 },
    ],
    [
      'an empty search body is a search without criteria',
      'POST',
      '/v2/projects/search',
      json,
      '',
      { status: 200 },
    ],
    [
      'If-None-Match: * on a neutral route is 304',
      'GET',
      '/health',
      { 'if-none-match': '*' },
      undefined,
      { status: 304, headers: { 'content-type': null } },
    ],
    [
      'If-None-Match: * with no-cache (as fetch sends it) is 304',
      'GET',
      '/openapi.json',
      { 'if-none-match': '*', 'cache-control': 'no-cache' },
      undefined,
      { status: 304 },
    ],
    [
      'no automatic ETag on a neutral route',
      'GET',
      '/health',
      {},
      undefined,
      { status: 200, headers: { etag: null } },
    ],
    [
      'OPTIONS on the docs script names its methods',
      'OPTIONS',
      '/docs/init.js',
      {},
      undefined,
      { status: 204, headers: { allow: 'GET, HEAD, OPTIONS' } },
    ],
    [
      'OPTIONS on a docs asset names its methods',
      'OPTIONS',
      '/docs/assets/swagger-ui.css',
      {},
      undefined,
      { status: 204, headers: { allow: 'GET, HEAD, OPTIONS' } },
    ],
  ])('%s: %s %s', async (_label, method, path, headers, body, expected) => {
    const res = await fetch(`${svc.url}${path}`, {
      method,
      headers: { 'x-api-key': key, ...headers },
      ...(body === undefined ? {} : { body }),
    });
    const text = await res.text();
    expect(res.status, text).toBe(expected.status);
    if (expected.code) expect(JSON.parse(text).error_code).toBe(expected.code);
    for (const [name, value] of Object.entries(expected.headers ?? {}))
      expect(res.headers.get(name)).toBe(value);
  });

  it('a HEAD answer carries the Content-Length of the GET body', async () => {
    const get = await fetch(`${svc.url}/health`);
    const body = await get.text();
    const head = await rawExchange(port, 'HEAD /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect([head.statusLine, head.headers['content-length'], head.body]).toEqual([
      'HTTP/1.1 200 OK',
      String(Buffer.byteLength(body)),
      '',
    ]);
  });

  it('two Content-Type lines are 400 malformed_request before routing', async () => {
    const body = '{"name":"Two types"}';
    const reply = await rawExchange(
      port,
      `POST /v2/projects HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(reply.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(JSON.parse(reply.body)).toMatchObject({
      error_code: 'malformed_request',
      reason: 'content_type_repeated',
    });
  });

  it('two Idempotency-Key lines are one refusal with one detail on every framework', async () => {
    const body = '{"name":"Two keys"}';
    const reply = await rawExchange(
      port,
      `POST /v2/projects HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nIdempotency-Key: a\r\nIdempotency-Key: b\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(reply.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(JSON.parse(reply.body)).toMatchObject({
      error_code: 'idempotency_key_invalid',
      detail: 'The idempotency key is invalid: the header is sent more than once.',
    });
  });

  it('an HTTP/1.0 request without Host is served', async () => {
    const reply = await rawExchange(port, 'GET /health HTTP/1.0\r\n\r\n');
    expect([reply.statusLine.split(' ')[1], reply.body]).toEqual(['200', '{"status":"ok"}']);
  });
});
