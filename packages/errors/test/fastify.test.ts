// What only Fastify forces: its content-type parser, schema validation and 404 become our problems.
import { METHODS } from 'node:http';
import { connect } from 'node:net';
import { send } from '@plumbline/test-utils';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { methodNotAllowed, plumblineErrors, routeEveryMethod } from '../src/fastify.js';

async function app() {
  const fastify = Fastify();
  await fastify.register(plumblineErrors, { onError: () => {} });
  fastify.post(
    '/projects',
    { schema: { body: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } } },
    async (request) => request.body,
  );
  fastify.register(
    async (child) => {
      child.get('/items/:id', async () => ({ ok: true }));
    },
    { prefix: '/v1' },
  );
  return fastify;
}

describe('plumblineErrors on Fastify', () => {
  it.each([
    ['binary body', { 'content-type': 'application/octet-stream' }, 'hello', 415, 'unsupported_media_type'],
    ['schema failure', { 'content-type': 'application/json' }, '{"name":{"a":1}}', 400, 'validation_failed'],
    ['missing property', { 'content-type': 'application/json' }, '{}', 400, 'validation_failed'],
    ['empty JSON body', { 'content-type': 'application/json' }, '', 400, 'malformed_json'],
  ])('%s → %i %s', async (_name, headers, payload, status, code) => {
    const fastify = await app();
    const res = await fastify.inject({ method: 'POST', url: '/projects', headers, payload });
    expect(res.statusCode).toBe(status);
    expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(res.json()).toMatchObject({ status, error_code: code, instance: '/projects' });
  });

  it('lists schema failures as errors', async () => {
    const fastify = await app();
    const res = await fastify.inject({ method: 'POST', url: '/projects', payload: {} });
    expect(res.json().errors).toEqual([
      { pointer: '#/name', error_code: 'invalid_value', detail: "must have required property 'name'" },
    ]);
  });

  it('answers 405 for a path registered in a child context, 404 for an unknown one', async () => {
    const fastify = await app();
    const wrong = await fastify.inject({ method: 'PUT', url: '/v1/items/7?x=1' });
    expect([wrong.statusCode, wrong.headers['allow'], wrong.json().error_code]).toEqual([
      405,
      'GET, HEAD, OPTIONS',
      'method_not_allowed',
    ]);
    const unknown = await fastify.inject({ method: 'PUT', url: '/v1/nothing' });
    expect([unknown.statusCode, unknown.json().error_code]).toEqual([404, 'not_found']);
  });

  it('leaves 405 to the app when methodNotAllowed is false, and ids off when requestId is false', async () => {
    const fastify = Fastify();
    await fastify.register(plumblineErrors, { methodNotAllowed: false, requestId: false, onError: () => {} });
    fastify.get('/x', async () => ({}));
    const res = await fastify.inject({ method: 'DELETE', url: '/x' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['x-request-id']).toBeUndefined();
    expect(res.json()).not.toHaveProperty('request_id');
  });

  it('logs 5xx through Fastify by default and hands every error to onError', async () => {
    const seen: number[] = [];
    const fastify = Fastify();
    await fastify.register(plumblineErrors, { onError: (event) => seen.push(event.error.status) });
    fastify.get('/boom', async () => {
      throw new Error('boom');
    });
    await fastify.inject({ url: '/boom' });
    await fastify.inject({ url: '/missing' });
    expect(seen).toEqual([500, 404]);
  });

  it('closes the connection when the response had already started', async () => {
    const events: boolean[] = [];
    const fastify = Fastify();
    await fastify.register(plumblineErrors, { onError: (event) => events.push(event.headersSent) });
    fastify.get('/late', async (_request, reply) => {
      reply.raw.writeHead(200, { 'Content-Type': 'text/plain' });
      reply.raw.write('partial');
      throw new Error('late failure');
    });
    await fastify.listen({ port: 0, host: '127.0.0.1' });
    const { port } = fastify.server.address() as { port: number };
    const outcome = await send(port, { path: '/late' }).then(
      (res) => ({ ok: true, status: res.status, text: String(res.body) }),
      (error: Error) => ({ ok: false, message: error.message }),
    );
    await fastify.close();
    // Either the socket was torn down or the partial body ended without a second response.
    if (outcome.ok) expect((outcome as { text: string }).text).not.toMatch(/problem|internal_error/);
    else expect((outcome as { message: string }).message).toMatch(/aborted|socket hang up|ECONNRESET/i);
    expect(events).toEqual([true]);
  });

  it('sends nothing to a client whose connection closed mid-body, and still reports the error', async () => {
    let report: (code: string | undefined) => void = () => {};
    const reported = new Promise<string | undefined>((resolve) => {
      report = resolve;
    });
    let sent = 0;
    const fastify = Fastify();
    await fastify.register(plumblineErrors, {
      onError: (event) => report((event.original as { code?: string }).code),
    });
    fastify.addHook('onSend', async (_request, _reply, payload) => {
      sent += 1;
      return payload;
    });
    fastify.post('/upload', async (request) => request.body);
    await fastify.listen({ port: 0, host: '127.0.0.1' });
    const { port } = fastify.server.address() as { port: number };
    const socket = connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      'POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a"',
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    const code = await reported;
    await fastify.close();
    expect([code, sent]).toEqual(['ECONNRESET', 0]);
  });
});

describe('methodNotAllowed and routeEveryMethod on Fastify', () => {
  const answer = async (fastify: ReturnType<typeof Fastify>, method: string, url: string, headers = {}) => {
    const res = await fastify.inject({ method, url, headers });
    return [res.statusCode, res.headers['allow'], res.statusCode === 204 ? '' : res.json().error_code];
  };

  it('routeEveryMethod makes every method Node parses but CONNECT routable, once', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    process.on('warning', onWarning);
    const fastify = Fastify();
    expect(routeEveryMethod(fastify)).toBe(fastify);
    routeEveryMethod(fastify);
    methodNotAllowed(fastify, '/x', ['GET']);
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', onWarning);
    expect([...fastify.supportedMethods].sort()).toEqual(METHODS.filter((method) => method !== 'CONNECT'));
    expect(warnings).toEqual([]);
  });

  it('an app.all() route registered after routeEveryMethod takes PROPFIND, as on Express and Hono', async () => {
    const fastify = routeEveryMethod(Fastify());
    fastify.all('/anything', async (request) => ({ method: request.method }));
    const res = await fastify.inject({ method: 'PROPFIND', url: '/anything' });
    expect(res.json()).toEqual({ method: 'PROPFIND' });
  });

  it('answers in a prefixed scope, for the prefixed path only', async () => {
    const fastify = Fastify();
    await fastify.register(plumblineErrors, { methodNotAllowed: false, onError: () => {} });
    await fastify.register(
      async (scope) => {
        scope.get('/things', async () => ({ ok: true }));
        methodNotAllowed(scope, '/things', ['GET']);
      },
      { prefix: '/v1' },
    );
    expect(await answer(fastify, 'DELETE', '/v1/things')).toEqual([
      405,
      'GET, HEAD, OPTIONS',
      'method_not_allowed',
    ]);
    expect(await answer(fastify, 'OPTIONS', '/v1/things')).toEqual([204, 'GET, HEAD, OPTIONS', '']);
    expect(await answer(fastify, 'DELETE', '/things')).toEqual([404, undefined, 'not_found']);
  });

  it('takes handleOptions: false (OPTIONS is 405 too), lower-case methods and a single onRequest hook', async () => {
    const fastify = Fastify();
    await fastify.register(plumblineErrors, { onError: () => {} });
    const seen: string[] = [];
    fastify.get('/x', async () => ({}));
    methodNotAllowed(fastify, '/x', ['get'], {
      handleOptions: false,
      onRequest: async (request) => void seen.push(request.method),
      onSend: async (_request, reply, payload) => {
        reply.header('X-Seen', 'yes');
        return payload;
      },
    });
    expect(await answer(fastify, 'OPTIONS', '/x')).toEqual([405, 'GET, HEAD', 'method_not_allowed']);
    const res = await fastify.inject({ method: 'PUT', url: '/x' });
    expect([res.statusCode, res.headers['x-seen']]).toEqual([405, 'yes']);
    expect(seen).toEqual(['OPTIONS', 'PUT']);
  });

  it('leaves OPTIONS to the path when allowed lists it, and registers nothing when every method is allowed', async () => {
    const fastify = Fastify();
    await fastify.register(plumblineErrors, { onError: () => {} });
    fastify.get('/x', async () => ({}));
    fastify.options('/x', async (_request, reply) => reply.code(200).send('own'));
    methodNotAllowed(fastify, '/x', ['GET', 'OPTIONS']);
    fastify.all('/all', async () => ({}));
    methodNotAllowed(fastify, '/all', fastify.supportedMethods);
    const own = await fastify.inject({ method: 'OPTIONS', url: '/x' });
    expect([own.statusCode, own.body]).toEqual([200, 'own']);
    expect(await answer(fastify, 'DELETE', '/x')).toEqual([405, 'GET, OPTIONS, HEAD', 'method_not_allowed']);
  });

  it('takes route constraints: each version of a path has its own Allow', async () => {
    const fastify = Fastify();
    await fastify.register(plumblineErrors, { methodNotAllowed: false, onError: () => {} });
    const versions: [string, string[]][] = [
      ['1.0.0', ['GET']],
      ['2.0.0', ['GET', 'POST']],
    ];
    for (const [version, allowed] of versions) {
      fastify.get('/x', { constraints: { version } }, async () => ({ version }));
      if (allowed.includes('POST'))
        fastify.post('/x', { constraints: { version } }, async () => ({ version }));
      methodNotAllowed(fastify, '/x', allowed, { constraints: { version } });
    }
    expect(await answer(fastify, 'DELETE', '/x', { 'accept-version': '1.x' })).toEqual([
      405,
      'GET, HEAD, OPTIONS',
      'method_not_allowed',
    ]);
    expect(await answer(fastify, 'DELETE', '/x', { 'accept-version': '2.x' })).toEqual([
      405,
      'GET, POST, HEAD, OPTIONS',
      'method_not_allowed',
    ]);
  });

  it('the automatic 405 counts every method the app routes but OPTIONS', async () => {
    const fastify = routeEveryMethod(Fastify());
    await fastify.register(plumblineErrors, { onError: () => {} });
    fastify.route({ method: ['PROPFIND', 'GET'], url: '/dav', handler: async () => ({}) });
    fastify.route({ method: 'SEARCH', url: '/search', handler: async () => ({}) });
    // A CORS plugin's `OPTIONS *` route does not make every unknown path a 405.
    fastify.options('/*', async (_request, reply) => reply.code(204).send());
    expect(await answer(fastify, 'PUT', '/dav')).toEqual([
      405,
      'GET, HEAD, PROPFIND, OPTIONS',
      'method_not_allowed',
    ]);
    expect(await answer(fastify, 'GET', '/search')).toEqual([405, 'SEARCH, OPTIONS', 'method_not_allowed']);
    expect(await answer(fastify, 'GET', '/nothing')).toEqual([404, undefined, 'not_found']);
  });
});
