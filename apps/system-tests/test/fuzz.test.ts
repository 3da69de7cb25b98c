/**
 * HTTP fuzzing of a running service process: generated paths, query strings, headers and bodies,
 * plus hand-picked huge and malformed requests, written on raw sockets so nothing in a client
 * library tidies them up. No 5xx, no internals in any body, and the process stays up.
 */
import { Socket } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Cluster,
  createDatabase,
  type Database,
  deleteRedisKeys,
  environmentReady,
  REDIS_URL,
  request,
  startCluster,
  token,
} from './harness.js';

const ready = await environmentReady();

interface RawReply {
  readonly status: number;
  readonly head: string;
  readonly body: string;
}

/** Writes `raw` on a fresh connection and reads until the server closes it. */
function exchange(port: number, raw: string | Buffer): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const socket = new Socket();
    const chunks: Buffer[] = [];
    socket.setTimeout(15_000, () => {
      socket.destroy();
      reject(new Error('no answer within 15 s'));
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // The server may reset once it has answered (e.g. 413 before the whole body arrived).
    socket.on('error', () => {});
    socket.once('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      const head = split >= 0 ? text.slice(0, split) : text;
      resolve({
        status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0),
        head,
        body: split >= 0 ? text.slice(split + 4) : '',
      });
    });
    // write, not end: a half-closed request may be dropped before it is answered.
    socket.connect(port, '127.0.0.1', () => {
      socket.write(raw);
    });
  });
}

// What must never reach a client: stack frames, file paths, driver and runtime messages.
const LEAKS =
  /\n\s+at |at [\w.<>]+ \(|node_modules|\/src\/|\.m?[jt]s:\d+|SQLITE_|syntax error at|relation "|TypeError|ReferenceError|RangeError|ECONNREFUSED|ioredis/;

function checkReply(label: string, reply: RawReply): void {
  expect([label, reply.status > 0 && reply.status < 500]).toEqual([label, true]);
  expect([label, LEAKS.exec(reply.body)?.[0]]).toEqual([label, undefined]);
}

const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
});
const anyText = fc.string({ unit: 'binary', maxLength: 40 });

describe.skipIf(!ready)('HTTP fuzzing of a running service', () => {
  let db: Database;
  let cluster: Cluster;
  let port = 0;
  let bearer = '';

  beforeAll(async () => {
    db = await createDatabase('fuzz');
    cluster = await startCluster({ count: 1, database: db });
    port = cluster.at(0).port;
    bearer = (await token(cluster.at(0).url, cluster.credentials, 'read:projects read:tasks write:projects'))
      .access_token;
  });
  afterAll(async () => {
    await cluster?.stop();
    await deleteRedisKeys(REDIS_URL, cluster?.redisKeyPrefix ?? 'st_none:');
    await db?.drop();
  });

  const path = fc.oneof(
    fc.constantFrom(
      '/v2/projects',
      '/v1/projects',
      '/v2/tasks',
      '/v2/projects/search',
      '/v2/tasks/search',
      '/v2/projects/00000000-0000-4000-8000-000000000000',
      '/v2/projects/00000000-0000-4000-8000-000000000000/tasks',
      '/v2/tasks/00000000-0000-4000-8000-000000000000/comments',
      '/oauth/token',
      '/oauth/revoke',
      '/health',
      '/openapi.json',
      '/.well-known/jwks.json',
      '/docs',
      '/v3/projects',
      '/',
    ),
    fc
      .tuple(fc.constantFrom('/v2/', '/v1/', '/v2/projects/', '/', '/v2/tasks/'), anyText)
      .map(([base, tail]) => base + encodeURIComponent(tail)),
    fc.constantFrom(
      '/v2/%zz',
      '/v2/projects/%00',
      '/..%2f..%2fetc/passwd',
      '//v2//projects',
      '/v2/projects/%E0%A4%A',
    ),
  );
  const queryName = fc.oneof(
    fc.constantFrom(
      'status',
      'sort',
      'limit',
      'offset',
      'cursor',
      'q',
      'fields',
      'priority[gte]',
      'priority[in]',
      'due_date[lt]',
      'filter[status]',
      '__proto__',
      'constructor',
      'sort[]',
    ),
    anyText,
  );
  const queryValue = fc.oneof(
    fc.constantFrom('todo', '-priority', 'priority,-due_date', '0', '-1', '1e9', '101', 'null', '[]', ''),
    anyText,
    fc.integer().map(String),
  );
  const query = fc.oneof(
    fc.constant(''),
    fc
      .array(fc.tuple(queryName, queryValue), { maxLength: 6 })
      .map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')),
    fc.constantFrom('%', '%%', 'a=%zz', '&&&=', 'sort=%2Cpriority', 'limit=1&limit=2'),
  );
  const headerValue = fc.oneof(
    fc.constantFrom(
      'application/json',
      'application/xml',
      'application/*;q=0',
      '*/*',
      'text/html',
      'application/json; charset=utf-16',
      'multipart/form-data; boundary=x',
      'de-DE,de;q=0.9',
      '',
    ),
    printable,
  );
  const body = fc.oneof(
    fc.constant(''),
    fc.json({ maxDepth: 3 }),
    fc.record({ name: fc.oneof(printable, fc.integer(), fc.constant(null)) }).map((v) => JSON.stringify(v)),
    printable,
    fc.integer({ min: 1, max: 2000 }).map((n) => '['.repeat(n)),
  );
  const auth = fc.constantFrom('none', 'api-key', 'bearer', 'garbage-bearer', 'basic', 'garbage-key');

  it('answers every generated request without a 5xx or a leak, and stays up', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'FOO'),
        path,
        query,
        auth,
        fc.record({
          accept: headerValue,
          'content-type': headerValue,
          'accept-language': headerValue,
          'idempotency-key': printable,
          'x-request-id': printable,
          'if-none-match': printable,
          'if-match': printable,
          'if-unmodified-since': printable,
          prefer: fc.constantFrom('count=exact', 'return=minimal', printable),
        }),
        body,
        async (method, target, qs, authKind, headers, payload) => {
          const lines = [`${method} ${target}${qs ? `?${qs}` : ''} HTTP/1.1`, `Host: 127.0.0.1:${port}`];
          if (authKind === 'api-key') lines.push(`X-API-Key: ${cluster.credentials.apiKey}`);
          if (authKind === 'garbage-key') lines.push('X-API-Key: plk_notakey');
          if (authKind === 'bearer') lines.push(`Authorization: Bearer ${bearer}`);
          if (authKind === 'garbage-bearer') lines.push('Authorization: Bearer eyJ.e30.x');
          if (authKind === 'basic') lines.push('Authorization: Basic Og==');
          for (const [name, value] of Object.entries(headers))
            if (value !== '') lines.push(`${name}: ${value}`);
          const bytes = Buffer.from(payload);
          if (bytes.length > 0) lines.push(`Content-Length: ${bytes.length}`);
          lines.push('Connection: close', '', '');
          const reply = await exchange(
            port,
            Buffer.concat([Buffer.from(lines.join('\r\n'), 'latin1'), bytes]),
          );
          checkReply(`${method} ${target}`, reply);
        },
      ),
      { numRuns: 400, seed: 20261122 },
    );
    expect(cluster.at(0).child.exitCode).toBe(null);
    expect((await request(`${cluster.at(0).url}/health`)).status).toBe(200);
  });

  const host = () => `Host: 127.0.0.1:${port}`;
  const post = (body: string, key: string) =>
    `POST /v2/projects HTTP/1.1\r\n${host()}\r\nX-API-Key: ${cluster.credentials.apiKey}\r\nIdempotency-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
  const get = (target: string, extra = '') =>
    `GET ${target} HTTP/1.1\r\n${host()}\r\n${extra}Connection: close\r\n\r\n`;
  const huge: [string, () => string, readonly number[]][] = [
    ['2 MiB JSON body', () => post(`{"name":"${'x'.repeat(2 * 1048576)}"}`, 'huge-1'), [413]],
    ['10 KiB query string', () => get(`/v2/tasks?q=${'a'.repeat(10_240)}`), [400, 414]],
    ['64 KiB header', () => get('/health', `X-Big: ${'b'.repeat(65_536)}\r\n`), [431]],
    [
      '1000 headers',
      () => get('/health', Array.from({ length: 1000 }, (_, i) => `X-H${i}: v\r\n`).join('')),
      [200, 431],
    ],
    ['not HTTP at all', () => 'HELLO\r\n\r\n', [400]],
    [
      'bad Content-Length',
      () => `POST /v2/projects HTTP/1.1\r\n${host()}\r\nContent-Length: abc\r\nConnection: close\r\n\r\n`,
      [400],
    ],
    [
      'Content-Length and chunked',
      () =>
        `POST /v2/projects HTTP/1.1\r\n${host()}\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n`,
      [400],
    ],
    ['invalid JSON', () => post('{"name":', 'bad-json'), [400]],
    // 2000 levels answer 500 (stack overflow in the idempotency fingerprint): pending/deep-json.test.ts.
    ['JSON nested 1000 levels', () => post(`{"name":${'['.repeat(1000)}${']'.repeat(1000)}}`, 'deep'), [400]],
    ['NUL in path', () => get('/v2/pro\0jects'), [400]],
    [
      '2000 sort fields (18 KiB request line)',
      () =>
        get(
          `/v2/tasks?sort=${Array.from({ length: 2000 }, () => 'priority').join(',')}`,
          `X-API-Key: ${cluster.credentials.apiKey}\r\n`,
        ),
      [400, 414, 431],
    ],
    [
      'huge bearer token',
      () => get('/v2/projects', `Authorization: Bearer ${'A'.repeat(15_000)}\r\n`),
      [401],
    ],
    ['__proto__ body', () => post('{"__proto__":{"admin":true},"name":"p"}', 'proto'), [201, 400]],
  ];

  it.each(huge)('%s', async (_label, raw, expected) => {
    const reply = await exchange(port, raw());
    checkReply(_label, reply);
    expect([_label, expected.includes(reply.status) ? 'expected' : reply.status]).toEqual([
      _label,
      'expected',
    ]);
    expect(cluster.at(0).child.exitCode).toBe(null);
  });
});
