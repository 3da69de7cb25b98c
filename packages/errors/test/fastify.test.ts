// What only Fastify forces: its content-type parser, schema validation and 404 become our problems.
import { connect } from 'node:net';
import { send } from '@plumbline/test-utils';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { plumblineErrors } from '../src/fastify.js';

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
