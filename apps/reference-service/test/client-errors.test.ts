/**
 * Requests Node's HTTP parser refuses before the app runs (issue 24 items 1 and 8) get problem
 * documents with the headers every other error of the service carries, over raw sockets: what a
 * client wrote goes out byte for byte.
 */
import { rawExchange } from '@plumbline/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, startService } from './harness.js';

const REQUEST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HTTP_DATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;
const long = (n: number) => 'a'.repeat(n);

describe('requests the HTTP server refuses', () => {
  let svc: RunningService;
  let port = 0;
  beforeAll(async () => {
    svc = await startService({ name: 'sqlite + memory', postgres: false, redis: false });
    port = Number(new URL(svc.url).port);
  });
  afterAll(async () => {
    await svc?.stop();
  });

  // [case, status line, error_code, instance, bytes]
  it.each([
    [
      'a 20 KiB path',
      'HTTP/1.1 431 Request Header Fields Too Large',
      'headers_too_large',
      undefined,
      `GET /v2/${long(20 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    ],
    [
      'a 100 KB query string',
      'HTTP/1.1 431 Request Header Fields Too Large',
      'headers_too_large',
      '/v2/projects',
      `GET /v2/projects?q=${long(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    ],
    [
      'a 64 KiB cookie',
      'HTTP/1.1 431 Request Header Fields Too Large',
      'headers_too_large',
      '/v2/projects',
      `GET /v2/projects HTTP/1.1\r\nHost: x\r\nCookie: a=${long(64 * 1024)}\r\n\r\n`,
    ],
    [
      'lowercase get',
      'HTTP/1.1 400 Bad Request',
      'malformed_request',
      '/health',
      'get /health HTTP/1.1\r\nHost: x\r\n\r\n',
    ],
    [
      'method FOO',
      'HTTP/1.1 400 Bad Request',
      'malformed_request',
      '/health',
      'FOO /health HTTP/1.1\r\nHost: x\r\n\r\n',
    ],
    [
      'a control byte in a header',
      'HTTP/1.1 400 Bad Request',
      'malformed_request',
      '/health',
      'GET /health HTTP/1.1\r\nHost: x\r\nX-Note: a\x07b\r\n\r\n',
    ],
    [
      'a raw UTF-8 path',
      'HTTP/1.1 400 Bad Request',
      'malformed_request',
      undefined,
      'GET /v2/projects/caf\u00c3\u00a9 HTTP/1.1\r\nHost: x\r\n\r\n',
    ],
    [
      'a chunk extension over 16 KiB',
      'HTTP/1.1 413 Payload Too Large',
      'payload_too_large',
      '/oauth/token',
      `POST /oauth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n1;${long(20_000)}\r\na\r\n0\r\n\r\n`,
    ],
  ] as const)('%s → %s', async (_label, statusLine, code, instance, bytes) => {
    const reply = await rawExchange(port, Buffer.from(bytes, 'latin1'));
    expect(reply.reset).toBe(false);
    expect(reply.statusLine).toBe(statusLine);
    // The headers of every problem the app sends (see a 404 below), framed for a closing connection.
    expect(reply.headers).toEqual({
      'api-supported-versions': '1, 2, 3',
      'api-deprecated-versions': '1',
      'content-type': 'application/problem+json; charset=utf-8',
      'content-language': 'en',
      vary: 'Accept, Accept-Language',
      'x-content-type-options': 'nosniff',
      'x-request-id': expect.stringMatching(REQUEST_ID),
      date: expect.stringMatching(HTTP_DATE),
      'content-length': String(Buffer.byteLength(reply.body)),
      connection: 'close',
    });
    const body = JSON.parse(reply.body);
    expect(body).toMatchObject({
      type: `/errors/${code}`,
      status: Number(statusLine.split(' ')[1]),
      error_code: code,
      request_id: reply.headers['x-request-id'],
    });
    expect(body.instance).toBe(instance);
  });

  it('carries the same header names as a problem the app itself sends', async () => {
    const app404 = await fetch(`${svc.url}/nope`);
    const raw = await rawExchange(port, 'get /nope HTTP/1.1\r\nHost: x\r\n\r\n');
    const names = (list: Iterable<string>) =>
      [...list]
        .filter((name) => !['connection', 'keep-alive', 'date', 'content-length'].includes(name))
        .sort();
    expect(names(Object.keys(raw.headers))).toEqual(names(app404.headers.keys()));
  });

  it('the error page the problem links to exists', async () => {
    for (const code of ['headers_too_large', 'malformed_request', 'request_timeout']) {
      const res = await fetch(`${svc.url}/errors/${code}`);
      expect([code, res.status]).toEqual([code, 200]);
    }
  });
});
