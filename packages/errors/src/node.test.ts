import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rawExchange } from '@plumbline/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientErrorCode } from './client-error.js';
import { clientErrorHandler } from './node.js';

describe('clientErrorCode', () => {
  it.each([
    ['HPE_HEADER_OVERFLOW', 'headers_too_large'],
    ['HPE_CHUNK_EXTENSIONS_OVERFLOW', 'payload_too_large'],
    ['ERR_HTTP_REQUEST_TIMEOUT', 'request_timeout'],
    ['HPE_INVALID_METHOD', 'malformed_request'],
    ['HPE_INVALID_HEADER_TOKEN', 'malformed_request'],
    ['HPE_INVALID_URL', 'malformed_request'],
    ['HPE_INVALID_VERSION', 'malformed_request'],
    ['ECONNRESET', undefined],
    ['EPIPE', undefined],
    [undefined, undefined],
  ])('%s → %s', (code, expected) => {
    expect(clientErrorCode(code)).toBe(expected);
  });
});

const REQUEST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('clientErrorHandler on a real http.Server', () => {
  let port = 0;
  // The app reads the body before answering, as a real one does: errors in the body reach the parser first.
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  server.on('clientError', clientErrorHandler({ headers: () => ({ 'API-Supported-Versions': '1, 2' }) }));
  beforeAll(async () => {
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const DETAIL = {
    headers_too_large:
      'The request line and header fields are too large; shorten the URL, query string or headers.',
    malformed_request: 'The request is not well-formed HTTP/1.1 and could not be read.',
    payload_too_large: 'The request body is too large.',
  } as const;
  const TITLE = {
    400: 'Bad Request',
    413: 'Payload Too Large',
    431: 'Request Header Fields Too Large',
  } as const;
  const long = (n: number) => 'a'.repeat(n);
  // [case, status, error_code, instance (only a short, printable origin-form target is echoed), bytes]
  it.each([
    [
      'a 20 KiB path',
      431,
      'headers_too_large',
      undefined,
      `GET /${long(20 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    ],
    [
      'a 100 KB query string',
      431,
      'headers_too_large',
      '/',
      `GET /?q=${long(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    ],
    [
      'a 1 MB header',
      431,
      'headers_too_large',
      '/',
      `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${long(1_000_000)}\r\n\r\n`,
    ],
    ['lowercase get', 400, 'malformed_request', '/', 'get / HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['an unknown method', 400, 'malformed_request', '/', 'FOO / HTTP/1.1\r\nHost: x\r\n\r\n'],
    [
      'a control byte in a header',
      400,
      'malformed_request',
      '/',
      'GET / HTTP/1.1\r\nHost: x\r\nX-A: a\x01b\r\n\r\n',
    ],
    [
      'a raw UTF-8 byte in the path',
      400,
      'malformed_request',
      undefined,
      'GET /caf\u00c3\u00a9 HTTP/1.1\r\nHost: x\r\n\r\n',
    ],
    [
      'a space in a header name',
      400,
      'malformed_request',
      '/a',
      'GET /a?b=c HTTP/1.1\r\nHost: x\r\nX A: b\r\n\r\n',
    ],
    ['a bad HTTP version', 400, 'malformed_request', '/', 'GET / HTTP/9.9\r\nHost: x\r\n\r\n'],
    [
      'oversize chunk extensions',
      413,
      'payload_too_large',
      '/',
      `POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1;${long(20_000)}\r\na\r\n0\r\n\r\n`,
    ],
  ] as const)(
    '%s → %s %s, a problem document with the usual headers',
    async (_label, status, code, instance, bytes) => {
      const reply = await rawExchange(port, Buffer.from(bytes, 'latin1'));
      expect(reply.reset).toBe(false);
      expect(reply.statusLine).toBe(`HTTP/1.1 ${status} ${TITLE[status]}`);
      expect(reply.headers).toEqual({
        'api-supported-versions': '1, 2',
        'content-type': 'application/problem+json; charset=utf-8',
        'content-language': 'en',
        vary: 'Accept, Accept-Language',
        'x-content-type-options': 'nosniff',
        'x-request-id': expect.stringMatching(REQUEST_ID),
        date: expect.stringMatching(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/),
        'content-length': String(Buffer.byteLength(reply.body)),
        connection: 'close',
      });
      expect(JSON.parse(reply.body)).toEqual({
        type: `/errors/${code}`,
        title: TITLE[status],
        status,
        detail: DETAIL[code],
        message: DETAIL[code],
        error_code: code,
        request_id: reply.headers['x-request-id'],
        ...(instance === undefined ? {} : { instance }),
      });
    },
  );

  it('answers in the language, media type and request id the refused request asked for', async () => {
    const reply = await rawExchange(
      port,
      `GET /x?${long(20_000)} HTTP/1.1\r\nAccept: application/xml\r\nAccept-Language: de\r\nX-Request-Id: abc-123\r\n`,
    );
    expect(reply.statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(reply.headers['content-type']).toBe('application/problem+xml; charset=utf-8');
    expect(reply.headers['content-language']).toBe('de');
    expect(reply.headers['x-request-id']).toBe('abc-123');
    expect(reply.body).toContain('<request_id>abc-123</request_id>');
    expect(reply.body).toContain('<instance>/x</instance>');
  });

  it('a well-formed request still reaches the app', async () => {
    const reply = await rawExchange(port, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect([reply.statusLine, reply.body]).toEqual(['HTTP/1.1 200 OK', 'ok']);
  });
});
