// The README's Fastify and Hono examples run as written (only the port is made ephemeral).
import { once } from 'node:events';
import type { RequestListener, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listen, readmeBlock, readmeFrameworkExamples, runReadmeExample, send } from '@plumbline/test-utils';
import type { FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';

const here = new URL('.', import.meta.url);
const readme = new URL('../README.md', import.meta.url);
const examples = readmeFrameworkExamples(here, readme, 'negotiation');

describe.each(examples)('README %s example', (_name, start) => {
  const port = start();

  it('represents a project as XML in German', async () => {
    const outcome = await send(await port, {
      path: '/projects/7',
      headers: { Accept: 'application/xml', 'Accept-Language': 'de-DE' },
    });
    expect(outcome.status).toBe(200);
    expect(outcome.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(outcome.headers['content-language']).toBe('de');
    expect(outcome.headers['vary']).toBe('Accept, Accept-Language');
    expect(outcome.body).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><data><id>7</id><name>Bridge</name><language>de</language></data>',
    );
  });

  it('answers text/html with 406 listing the available types', async () => {
    const outcome = await send(await port, { path: '/projects/7', headers: { Accept: 'text/html' } });
    expect(outcome.status).toBe(406);
    expect(outcome.body).toMatchObject({
      error_code: 'not_acceptable',
      available: ['application/json', 'application/xml'],
    });
  });

  it('creates with JSON, and refuses a text body with 415 and Accept-Post', async () => {
    const created = await send(await port, {
      method: 'POST',
      path: '/projects',
      headers: { 'Content-Type': 'application/json' },
      body: '{"name":"Dam"}',
    });
    expect([created.status, created.headers['location'], created.body]).toEqual([
      201,
      '/projects/8',
      { id: 8, name: 'Dam' },
    ]);
    const refused = await send(await port, {
      method: 'POST',
      path: '/projects',
      headers: { 'Content-Type': 'text/plain' },
      body: 'Dam',
    });
    expect([refused.status, refused.headers['accept-post']]).toEqual([415, 'application/json']);
  });
});

// The conditional-request examples, run as written (the port made ephemeral), on all three frameworks.
const closers: (() => Promise<unknown>)[] = [];
afterAll(() => Promise.all(closers.map((close) => close())));
const conditionalExamples: [string, () => Promise<number>][] = [
  [
    'Express',
    async () => {
      const { app } = await runReadmeExample<{ app: RequestListener }>(
        here,
        'negotiation-conditional-express',
        readmeBlock(readme, '#### Conditional requests with Express'),
        ['app'],
        [['app.listen(3000);', '']],
      );
      const server = await listen(app);
      closers.push(() => server.close());
      return server.port;
    },
  ],
  [
    'Fastify',
    async () => {
      const { app } = await runReadmeExample<{ app: FastifyInstance }>(
        here,
        'negotiation-conditional-fastify',
        readmeBlock(readme, '#### Conditional requests with Fastify'),
        ['app'],
        [['port: 3000', "port: 0, host: '127.0.0.1'"]],
      );
      closers.push(() => app.close());
      return (app.server.address() as AddressInfo).port;
    },
  ],
  [
    'Hono',
    async () => {
      const { server } = await runReadmeExample<{ server: Server }>(
        here,
        'negotiation-conditional-hono',
        readmeBlock(readme, '#### Conditional requests with Hono'),
        ['server'],
        [['port: 3000', "port: 0, hostname: '127.0.0.1'"]],
      );
      if (!server.listening) await once(server, 'listening');
      closers.push(() => new Promise((resolve) => server.close(resolve)));
      return (server.address() as AddressInfo).port;
    },
  ],
];

describe.each(conditionalExamples)('README conditional requests with %s', (_name, start) => {
  it('GET gives a strong ETag; writes need it: 428 without, 412 with a stale one, 200 with the current one; 304 on GET', async () => {
    const port = await start();
    const got = await send(port, { path: '/notes/1' });
    expect([got.status, got.body]).toEqual([
      200,
      { id: '1', text: 'Weld the bridge', updated_at: '2026-01-02T03:04:05.000Z' },
    ]);
    const etag = got.headers['etag']!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    expect(got.headers['last-modified']).toBe('Fri, 02 Jan 2026 03:04:05 GMT');
    const put = (headers: Record<string, string>) =>
      send(port, {
        method: 'PUT',
        path: '/notes/1',
        headers: { 'Content-Type': 'application/json', ...headers },
        body: '{"text":"Paint the bridge"}',
      });
    const required = await put({});
    expect([required.status, (required.body as { error_code: string }).error_code]).toEqual([
      428,
      'precondition_required',
    ]);
    const wrong = await put({ 'If-Match': '"wrong"' });
    expect([wrong.status, (wrong.body as { error_code: string }).error_code]).toEqual([
      412,
      'precondition_failed',
    ]);
    const done = await put({ 'If-Match': etag });
    expect(done.status).toBe(200);
    expect((done.body as { text: string }).text).toBe('Paint the bridge');
    const next = done.headers['etag']!;
    expect(next).not.toBe(etag);
    expect((await put({ 'If-Match': etag })).status).toBe(412);
    const cached = await send(port, { path: '/notes/1', headers: { 'If-None-Match': next } });
    expect([cached.status, cached.headers['etag'], cached.body]).toEqual([304, next, '']);
    expect((await send(port, { path: '/notes/2' })).status).toBe(404);
  });
});

// The JSON body examples, run as written (the port made ephemeral).
const jsonBodyExamples: [string, () => Promise<number>][] = [
  [
    'Fastify',
    async () => {
      const { app } = await runReadmeExample<{ app: FastifyInstance }>(
        here,
        'negotiation-json-fastify',
        readmeBlock(readme, '#### JSON bodies with Fastify'),
        ['app'],
        [['port: 3000', "port: 0, host: '127.0.0.1'"]],
      );
      closers.push(() => app.close());
      return (app.server.address() as AddressInfo).port;
    },
  ],
  [
    'Hono',
    async () => {
      const { server } = await runReadmeExample<{ server: Server }>(
        here,
        'negotiation-json-hono',
        readmeBlock(readme, '#### JSON bodies with Hono'),
        ['server'],
        [['port: 3000', "port: 0, hostname: '127.0.0.1'"]],
      );
      if (!server.listening) await once(server, 'listening');
      closers.push(() => new Promise((resolve) => server.close(resolve)));
      return (server.address() as AddressInfo).port;
    },
  ],
];

describe.each(jsonBodyExamples)('README JSON bodies with %s', (_name, start) => {
  it('reads merge-patch and JSON bodies; 400, 413 and 415 as express.json answers them', async () => {
    const port = await start();
    const patch = (contentType: string, body: string) =>
      send(port, { method: 'PATCH', path: '/projects/7', headers: { 'Content-Type': contentType }, body });
    expect(await patch('application/merge-patch+json', '{"name":"Dam"}')).toMatchObject({
      status: 200,
      body: { id: '7', name: 'Dam' },
    });
    expect(await patch('application/json', '\ufeff {"name":"Weir"}')).toMatchObject({
      status: 200,
      body: { id: '7', name: 'Weir' },
    });
    expect(await patch('application/json', '"Dam"')).toMatchObject({
      status: 400,
      body: { error_code: 'malformed_json' },
    });
    expect(await patch('application/json', JSON.stringify({ name: 'x'.repeat(70_000) }))).toMatchObject({
      status: 413,
      body: { error_code: 'payload_too_large', detail: 'The request body must be at most 65536 bytes.' },
    });
    const refused = await patch('text/plain', 'Dam');
    expect([refused.status, refused.headers['accept-patch']]).toEqual([
      415,
      'application/merge-patch+json, application/json',
    ]);
  });
});

// The notModified examples, run as written (the port made ephemeral).
const notModifiedExamples: [string, () => Promise<number>][] = [
  [
    'Express',
    async () => {
      const { app } = await runReadmeExample<{ app: RequestListener }>(
        here,
        'negotiation-not-modified-express',
        readmeBlock(readme, '#### `notModified` with Express'),
        ['app'],
        [['app.listen(3000);', '']],
      );
      const server = await listen(app);
      closers.push(() => server.close());
      return server.port;
    },
  ],
  [
    'Fastify',
    async () => {
      const { app } = await runReadmeExample<{ app: FastifyInstance }>(
        here,
        'negotiation-not-modified-fastify',
        readmeBlock(readme, '#### `notModified` with Fastify'),
        ['app'],
        [['port: 3000', "port: 0, host: '127.0.0.1'"]],
      );
      closers.push(() => app.close());
      return (app.server.address() as AddressInfo).port;
    },
  ],
  [
    'Hono',
    async () => {
      const { server } = await runReadmeExample<{ server: Server }>(
        here,
        'negotiation-not-modified-hono',
        readmeBlock(readme, '#### `notModified` with Hono'),
        ['server'],
        [['port: 3000', "port: 0, hostname: '127.0.0.1'"]],
      );
      if (!server.listening) await once(server, 'listening');
      closers.push(() => new Promise((resolve) => server.close(resolve)));
      return (server.address() as AddressInfo).port;
    },
  ],
];

describe.each(notModifiedExamples)('README notModified with %s', (_name, start) => {
  it("304 to the route's own ETag (with fetch's Cache-Control: no-cache) and Last-Modified; HEAD has the GET's length", async () => {
    const port = await start();
    const path = '/reports/r42';
    const got = await send(port, { path });
    expect([got.status, got.headers['etag'], got.body]).toEqual([
      200,
      '"r42-v3"',
      { id: 'r42', total: 1250 },
    ]);
    const revalidated = await send(port, {
      path,
      headers: { 'If-None-Match': '"r42-v3"', 'Cache-Control': 'no-cache' },
    });
    expect([revalidated.status, revalidated.body, revalidated.headers['content-type']]).toEqual([
      304,
      '',
      undefined,
    ]);
    expect([revalidated.headers['etag'], revalidated.headers['cache-control']]).toEqual([
      '"r42-v3"',
      'no-cache',
    ]);
    const dated = await send(port, {
      path,
      headers: { 'If-Modified-Since': 'Fri, 02 Jan 2026 03:04:05 GMT' },
    });
    expect(dated.status).toBe(304);
    const stale = await send(port, { path, headers: { 'If-None-Match': '"r42-v2"' } });
    expect(stale.status).toBe(200);
    const head = await send(port, { method: 'HEAD', path });
    // {"id":"r42","total":1250}: 25 bytes, on the GET and the HEAD alike.
    expect([got.headers['content-length'], head.status, head.headers['content-length'], head.body]).toEqual([
      '25',
      200,
      '25',
      '',
    ]);
  });
});
