/**
 * The example API on Express, Fastify and Hono: one scenario of real requests (create, retry,
 * read, list, change with If-Match, nested tasks, both versions, the refusals), each answer checked
 * exactly, all three frameworks byte-for-byte the same, and every exchange conforming to the
 * version's generated OpenAPI document.
 */
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { generateApiKey } from '@plumbline/auth';
import {
  ContractValidator,
  describeViolations,
  type Exchange,
  type HttpRequestSpec,
  recordExchanges,
  send,
} from '@plumbline/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp as expressApp } from '../src/express.ts';
import { createApp as fastifyApp } from '../src/fastify.ts';
import { createApp as honoApp } from '../src/hono.ts';
import { settings } from '../src/settings.ts';

const KEYS = { read: generateApiKey(), write: generateApiKey() };

interface Step {
  readonly name: string;
  readonly request: HttpRequestSpec;
  readonly status: number;
  /** Headers that must have exactly these values. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The body must equal this (or, for a function, pass it). */
  readonly body?: unknown;
}

const P1 = '00000000-0000-4000-8000-000000000001';
const P2 = '00000000-0000-4000-8000-000000000002';
const T3 = '00000000-0000-4000-8000-000000000003';
const write = { 'x-api-key': KEYS.write, 'content-type': 'application/json' };
const read = { 'x-api-key': KEYS.read };

const json = (body: unknown) => JSON.stringify(body);
const STEPS: readonly Step[] = [
  {
    name: 'v2: create a project',
    request: {
      method: 'POST',
      path: '/v2/projects',
      headers: { ...write, 'idempotency-key': 'create-1' },
      body: json({ name: 'Apollo', budget: { amount: 1000, currency: 'USD' } }),
    },
    status: 201,
    headers: { location: `/v2/projects/${P1}`, 'content-language': 'en' },
    body: {
      id: P1,
      name: 'Apollo',
      budget: { amount: 1000, currency: 'USD' },
      updated_at: '2026-11-01T00:00:01.000Z',
    },
  },
  {
    name: 'v2: the retry is replayed',
    request: {
      method: 'POST',
      path: '/v2/projects',
      headers: { ...write, 'idempotency-key': 'create-1' },
      body: json({ name: 'Apollo', budget: { amount: 1000, currency: 'USD' } }),
    },
    status: 201,
    headers: { location: `/v2/projects/${P1}`, 'idempotent-replayed': 'true' },
  },
  {
    name: 'v2: a second project',
    request: { method: 'POST', path: '/v2/projects', headers: write, body: json({ name: 'Gemini' }) },
    status: 201,
    body: { id: P2, name: 'Gemini', budget: null, updated_at: '2026-11-01T00:00:02.000Z' },
  },
  {
    name: 'v2: every invalid field at once',
    request: {
      method: 'POST',
      path: '/v2/projects',
      headers: write,
      body: json({ name: '', budget: { amount: -1, currency: 'XXX' } }),
    },
    status: 400,
  },
  {
    name: 'v2: list, sorted by name, one per page',
    request: { path: '/v2/projects?limit=1', headers: read },
    status: 200,
    headers: {
      link: '</v2/projects?sort=name&limit=1&offset=0>; rel="self", </v2/projects?sort=name&limit=1&offset=0>; rel="first", </v2/projects?sort=name&limit=1&offset=1>; rel="next"',
    },
  },
  {
    name: 'v2: an unknown sort field is refused',
    request: { path: '/v2/projects?sort=budget', headers: read },
    status: 400,
  },
  {
    name: 'v2: read',
    request: { path: `/v2/projects/${P1}`, headers: read },
    status: 200,
    headers: { 'last-modified': 'Sun, 01 Nov 2026 00:00:01 GMT' },
  },
  {
    name: 'v1: the same project, budget as v1 shows it, with the deprecation headers',
    request: { path: `/v1/projects/${P1}`, headers: { ...read, 'accept-language': 'de' } },
    status: 200,
    headers: { sunset: 'Tue, 01 Jun 2027 00:00:00 GMT', 'content-language': 'de' },
    body: { id: P1, name: 'Apollo', budget: 1000, updated_at: '2026-11-01T00:00:01.000Z' },
  },
  {
    name: 'v2: a change without If-Match is refused',
    request: {
      method: 'PATCH',
      path: `/v2/projects/${P1}`,
      headers: { ...write, 'content-type': 'application/merge-patch+json' },
      body: json({ name: 'Apollo 11' }),
    },
    status: 428,
  },
  {
    name: 'v2: a read-only key cannot write',
    request: { method: 'DELETE', path: `/v2/projects/${P2}`, headers: read },
    status: 403,
  },
  {
    name: 'v2: no key at all',
    request: { path: '/v2/projects' },
    status: 401,
    headers: { 'www-authenticate': 'Bearer realm="plumbline"' },
  },
  {
    name: 'v2: a task, the key is required',
    request: {
      method: 'POST',
      path: `/v2/projects/${P1}/tasks`,
      headers: write,
      body: json({ title: 'Launch' }),
    },
    status: 400,
  },
  {
    name: 'v2: a task',
    request: {
      method: 'POST',
      path: `/v2/projects/${P1}/tasks`,
      headers: { ...write, 'idempotency-key': 'task-1' },
      body: json({ title: 'Launch' }),
    },
    status: 201,
    headers: { location: `/v2/projects/${P1}/tasks/${T3}` },
    body: { id: T3, project_id: P1, title: 'Launch', done: false, updated_at: '2026-11-01T00:00:03.000Z' },
  },
  {
    name: 'v2: the tasks of a project',
    request: { path: `/v2/projects/${P1}/tasks?done=false`, headers: read },
    status: 200,
  },
  {
    name: 'v2: a task is not under another project',
    request: { path: `/v2/projects/${P2}/tasks/${T3}`, headers: read },
    status: 404,
  },
  {
    name: 'v1: delete a project',
    request: { method: 'DELETE', path: `/v1/projects/${P2}`, headers: write },
    status: 204,
  },
  { name: 'v2: it is gone', request: { path: `/v2/projects/${P2}`, headers: read }, status: 404 },
  { name: 'v3 does not exist', request: { path: '/v3/projects', headers: read }, status: 404 },
  {
    name: 'XML on request',
    request: { path: `/v2/projects/${P1}/tasks/${T3}`, headers: { ...read, accept: 'application/xml' } },
    status: 200,
    headers: { 'content-type': 'application/xml; charset=utf-8' },
  },
];

/** The steps that change a resource use the current ETag: read it first. */
async function scenario(port: number) {
  const outcomes = [];
  for (const step of STEPS) {
    outcomes.push(await send(port, step.request));
  }
  // If-Match with the current ETag changes the project.
  const current = await send(port, { path: `/v2/projects/${P1}`, headers: read });
  const changed = await send(port, {
    method: 'PATCH',
    path: `/v2/projects/${P1}`,
    headers: {
      ...write,
      'content-type': 'application/merge-patch+json',
      'if-match': current.headers['etag'] ?? 'none',
    },
    body: json({ name: 'Apollo 11' }),
  });
  const notModified = await send(port, {
    path: `/v2/projects/${P1}`,
    headers: { ...read, 'if-none-match': changed.headers['etag'] ?? 'none' },
  });
  return { outcomes, changed, notModified };
}

type Start = () => Promise<{ port: number; exchanges: Exchange[]; close: () => Promise<void> }>;
async function serve(listener: RequestListener) {
  const recorded = recordExchanges(listener as never);
  const server = createServer(recorded.handler as RequestListener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    exchanges: recorded.exchanges,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
const FRAMEWORKS: Record<string, Start> = {
  express: () => serve(expressApp(settings(KEYS)) as unknown as RequestListener),
  fastify: async () => {
    const app = await fastifyApp(settings(KEYS));
    await app.ready();
    const running = await serve((req, res) => app.routing(req, res));
    return {
      ...running,
      close: async () => {
        await running.close();
        await app.close();
      },
    };
  },
  hono: () => serve(getRequestListener(honoApp(settings(KEYS)).fetch)),
};

const results: Record<string, Awaited<ReturnType<typeof scenario>> & { exchanges: Exchange[] }> = {};
const closers: (() => Promise<void>)[] = [];
beforeAll(async () => {
  for (const [name, start] of Object.entries(FRAMEWORKS)) {
    const running = await start();
    closers.push(running.close);
    results[name] = { ...(await scenario(running.port)), exchanges: running.exchanges };
  }
}, 60_000);
afterAll(async () => {
  for (const close of closers) await close();
});

describe.each(Object.keys(FRAMEWORKS))('the example API on %s', (framework) => {
  it.each(STEPS.map((step, i) => [step.name, i] as const))('%s', (_name, i) => {
    const step = STEPS[i]!;
    const outcome = results[framework]!.outcomes[i]!;
    expect(outcome.status, JSON.stringify(outcome.body)).toBe(step.status);
    for (const [name, value] of Object.entries(step.headers ?? {}))
      expect(outcome.headers[name], name).toBe(value);
    if (step.body !== undefined) expect(outcome.body).toEqual(step.body);
    if (step.status >= 400)
      expect(outcome.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  });

  it('a change with the current ETag, then 304 for the new one', () => {
    const { changed, notModified } = results[framework]!;
    expect([changed.status, (changed.body as { name: string }).name]).toEqual([200, 'Apollo 11']);
    expect(notModified.status).toBe(304);
  });

  it("every exchange conforms to its version's generated OpenAPI document", () => {
    const documents = settings(KEYS).documents;
    const exchanges = results[framework]!.exchanges.filter((e) => !e.url.startsWith('/v3'));
    for (const version of ['1', '2']) {
      const validator = new ContractValidator(documents[`v${version}.json`] as never);
      const mine = exchanges
        .filter((e) => e.url.startsWith(`/v${version}/`))
        .map((e) => ({
          ...e,
          responseHeaders: Object.fromEntries(
            Object.entries(e.responseHeaders).filter(([n]) => n !== 'x-powered-by'),
          ),
        }));
      expect(mine.length).toBeGreaterThan(0);
      expect(describeViolations(validator, mine)).toBe('');
    }
  });
});

it('the three frameworks answer byte for byte the same (apart from request ids and dates)', () => {
  const comparable = (name: string) =>
    [...results[name]!.outcomes, results[name]!.changed, results[name]!.notModified].map((o) => ({
      status: o.status,
      body:
        typeof o.body === 'object' && o.body !== null && 'request_id' in o.body
          ? { ...o.body, request_id: '<id>' }
          : o.body,
      headers: Object.fromEntries(
        Object.entries(o.headers).filter(
          ([n]) =>
            ![
              'date',
              'x-request-id',
              'replayed-by-request-id',
              'connection',
              'keep-alive',
              'x-powered-by',
            ].includes(n),
        ),
      ),
    }));
  expect(comparable('fastify')).toEqual(comparable('express'));
  expect(comparable('hono')).toEqual(comparable('express'));
});
