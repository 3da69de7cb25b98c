/**
 * The probe against small real HTTP servers (node:http on 127.0.0.1), each written here to get one
 * thing right or wrong: idempotency, Location, and the shapes of pagination metadata.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { probe } from './probe.js';
import { EXIT, runCli } from './run-cli.js';
import type { Scorecard } from './scorecard.js';

interface Widget {
  readonly id: number;
  readonly name: string;
}

type Idempotency = 'honour' | 'ignore' | 'stateless';
type Created = 'location' | 'body-id' | 'nothing';
/** How a page describes itself: [page headers, page body] for items, offset, limit, total. */
type Shape = (
  items: Widget[],
  offset: number,
  limit: number,
  total: number,
) => [Record<string, string>, unknown];

interface Behaviour {
  readonly idempotency?: Idempotency;
  /** What a 201 says about the new widget: a Location header, only its id in the body, or neither. */
  readonly created?: Created;
  readonly shape?: Shape;
}

const next = (offset: number, limit: number, total: number): number | undefined =>
  offset + limit < total ? offset + limit : undefined;

const SHAPES: Record<string, Shape> = {
  'Link header': (items, offset, limit, total) => {
    const after = next(offset, limit, total);
    const links = ['</v1/widgets?offset=0>; rel="first"'];
    if (after !== undefined) links.push(`</v1/widgets?limit=${limit}&offset=${after}>; rel="next"`);
    return [{ link: links.join(', ') }, items];
  },
  'body next': (items, offset, limit, total) => {
    const after = next(offset, limit, total);
    return [
      {},
      { data: items, next: after === undefined ? null : `/v1/widgets?limit=${limit}&offset=${after}` },
    ];
  },
  'body cursor': (items, offset, limit, total) => {
    const after = next(offset, limit, total);
    return [{}, { data: items, cursor: after === undefined ? null : `o${after}` }];
  },
  'body nextCursor': (items, offset, limit, total) => {
    const after = next(offset, limit, total);
    return [{}, { items, meta: { nextCursor: after === undefined ? null : `o${after}` } }];
  },
  'body hasNextPage': (items, offset, limit, total) => [
    {},
    { data: items, pageInfo: { hasNextPage: next(offset, limit, total) !== undefined } },
  ],
  'body hasMore': (items, offset, limit, total) => [
    {},
    { data: items, hasMore: next(offset, limit, total) !== undefined },
  ],
  'body continuationToken': (items, offset, limit, total) => {
    const after = next(offset, limit, total);
    return [{}, { results: items, continuationToken: after === undefined ? null : `o${after}` }];
  },
  'body nextPageToken': (items, offset, limit, total) => {
    const after = next(offset, limit, total);
    return [{}, { items, nextPageToken: after === undefined ? '' : `o${after}` }];
  },
  'body next_page_token': (items, offset, limit, total) => {
    const after = next(offset, limit, total);
    return [{}, { data: items, next_page_token: after === undefined ? null : `o${after}` }];
  },
  'body total': (items, _offset, _limit, total) => [{}, { data: items, total }],
  'body totalCount': (items, _offset, _limit, total) => [
    {},
    { data: items, pagination: { totalCount: total } },
  ],
};

const OPENAPI = {
  openapi: '3.1.0',
  info: { title: 'widgets', version: '1' },
  paths: {
    '/v1/widgets': {
      get: {
        parameters: ['limit', 'offset', 'cursor', 'q'].map((name) => ({ name, in: 'query' })),
        responses: { '200': { description: 'a page' } },
      },
      post: {
        requestBody: {
          content: {
            'application/json': {
              schema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
            },
          },
        },
        responses: { '201': { description: 'created' } },
      },
    },
    '/v1/widgets/{id}': {
      get: {
        parameters: [{ name: 'id', in: 'path', schema: { type: 'integer' } }],
        responses: { '200': { description: 'a widget' } },
      },
      delete: { responses: { '204': { description: 'deleted' } } },
    },
  },
};

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (text += chunk));
    request.on('end', () => resolve(text));
  });
}

interface WidgetServer {
  readonly url: string;
  /** Widgets that exist now. */
  readonly widgets: Map<number, Widget>;
}

const SEED = 3;
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function widgetServer(behaviour: Behaviour = {}): Promise<WidgetServer> {
  const { idempotency = 'honour', created = 'location', shape = SHAPES['Link header']! } = behaviour;
  const widgets = new Map<number, Widget>();
  for (let id = 1; id <= SEED; id += 1) widgets.set(id, { id, name: `widget ${id}` });
  const gone = new Set<number>();
  const replies = new Map<
    string,
    { fingerprint: string; status: number; headers: Record<string, string>; body: string }
  >();
  let nextId = SEED + 1;

  const send = (
    response: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ): void => {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    response.writeHead(status, { 'content-type': 'application/json', vary: 'Accept', ...headers });
    response.end(status === 204 ? undefined : text);
  };
  const problem = (response: ServerResponse, status: number, code: string): void =>
    send(response, status, { error_code: code, message: code.replaceAll('_', ' ') });

  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const body = await readBody(request);
    if (url.pathname === '/openapi.json') return send(response, 200, OPENAPI);
    if ((request.headers.accept ?? '').includes('x-plumbline-unservable'))
      return problem(response, 406, 'not_acceptable');
    if (url.pathname === '/v1/widgets' && request.method === 'GET') {
      if (url.searchParams.has('sort') || url.searchParams.get('q')?.length === 1)
        return problem(response, 400, 'bad_query');
      const limit = Number(url.searchParams.get('limit') ?? 10);
      if (limit > 100) return problem(response, 400, 'limit_too_large');
      const token = ['cursor', 'page_token', 'pageToken', 'continuationToken']
        .map((name) => url.searchParams.get(name))
        .find(Boolean);
      const offset = token ? Number(token.slice(1)) : Number(url.searchParams.get('offset') ?? 0);
      const all = [...widgets.values()];
      const [headers, page] = shape(all.slice(offset, offset + limit), offset, limit, all.length);
      return send(response, 200, page, headers);
    }
    if (url.pathname === '/v1/widgets' && request.method === 'POST') {
      if (!(request.headers['content-type'] ?? '').includes('json'))
        return problem(response, 415, 'unsupported_media_type');
      const key = String(request.headers['idempotency-key'] ?? '');
      if (idempotency === 'stateless')
        return send(response, 201, { id: 1, name: 'widget 1' }, { location: '/v1/widgets/1' });
      const stored = idempotency === 'honour' ? replies.get(key) : undefined;
      if (stored !== undefined) {
        if (stored.fingerprint !== body) return problem(response, 422, 'idempotency_key_reused');
        return send(response, stored.status, stored.body, {
          ...stored.headers,
          'idempotent-replayed': 'true',
        });
      }
      const widget = { id: nextId, name: String((JSON.parse(body) as { name?: unknown }).name) };
      nextId += 1;
      widgets.set(widget.id, widget);
      const headers: Record<string, string> =
        created === 'location' ? { location: `/v1/widgets/${widget.id}` } : {};
      const reply = created === 'nothing' ? { name: widget.name } : widget;
      if (idempotency === 'honour')
        replies.set(key, { fingerprint: body, status: 201, headers, body: JSON.stringify(reply) });
      return send(response, 201, reply, headers);
    }
    const member = /^\/v1\/widgets\/(\d+)$/.exec(url.pathname);
    if (member !== null) {
      const id = Number(member[1]);
      if (request.method === 'DELETE') {
        if (idempotency === 'stateless') return send(response, 204, '');
        if (!widgets.delete(id)) return problem(response, gone.has(id) ? 410 : 404, 'not_found');
        gone.add(id);
        return send(response, 204, '');
      }
      if (idempotency === 'stateless') return send(response, 200, { id, name: `widget ${id}` });
      const widget = widgets.get(id);
      if (widget === undefined)
        return problem(response, gone.has(id) ? 410 : 404, gone.has(id) ? 'gone' : 'not_found');
      return send(response, 200, widget);
    }
    return problem(response, 404, 'not_found');
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, widgets };
}

const FAST = { requestsPerSecond: 1000, timeoutMs: 2000 };

function result(card: Scorecard, id: string): { outcome: string; notes: string[] } {
  const found = card.results.find((r) => r.id === id);
  return { outcome: found?.outcome ?? 'missing', notes: found?.evidence.map((e) => e.note) ?? [] };
}

describe('write probes against real servers', () => {
  it.each<[string, Behaviour, Record<string, { outcome: string; notes: string[] }>]>([
    [
      'a correct server',
      {},
      {
        'probe-create-201-location': { outcome: 'pass', notes: ['201, Location /v1/widgets/4 answers 200'] },
        'probe-idempotent-replay': {
          outcome: 'pass',
          notes: [
            'the retry replayed the first result (same status, body and Location, one resource at /v1/widgets/5); a POST with another key answered 201',
          ],
        },
        'probe-idempotency-key-reuse-422': {
          outcome: 'pass',
          notes: ['422 for a reused key with another body'],
        },
        'probe-gone-410': { outcome: 'pass', notes: ['DELETE 204, then 410 for the removed member'] },
      },
    ],
    [
      'a server that ignores Idempotency-Key',
      { idempotency: 'ignore' },
      {
        'probe-create-201-location': { outcome: 'pass', notes: ['201, Location /v1/widgets/4 answers 200'] },
        'probe-idempotent-replay': {
          outcome: 'fail',
          notes: [
            'the retry differs from the first result: Location /v1/widgets/5 then /v1/widgets/6, a different body',
          ],
        },
        'probe-idempotency-key-reuse-422': {
          outcome: 'fail',
          notes: ['expected 422 for a reused key with another body'],
        },
        'probe-gone-410': { outcome: 'pass', notes: ['DELETE 204, then 410 for the removed member'] },
      },
    ],
    [
      'a stateless mock that answers every POST alike',
      { idempotency: 'stateless' },
      {
        'probe-idempotent-replay': {
          outcome: 'fail',
          notes: [
            'a POST with another Idempotency-Key got the very same answer: the key is not what made the retry identical',
          ],
        },
      },
    ],
    [
      'a server answering 201 without Location',
      { created: 'body-id' },
      {
        'probe-create-201-location': {
          outcome: 'fail',
          notes: ["201 without a Location header; the body's id gives /v1/widgets/4, deleted at the end"],
        },
        'probe-idempotent-replay': {
          outcome: 'pass',
          notes: [
            'the retry replayed the first result (same status, body and Location, one resource at /v1/widgets/5); a POST with another key answered 201',
          ],
        },
      },
    ],
  ])('%s', async (_, behaviour, expected) => {
    const server = await widgetServer(behaviour);
    const card = await probe({ baseUrl: server.url, allowWrites: true, ...FAST });
    for (const [id, want] of Object.entries(expected)) expect(result(card, id), id).toEqual(want);
    // Everything created was deleted again, whatever the server said about it.
    expect(card.cleanup?.notDeleted).toEqual([]);
    expect(card.cleanup?.deleted).toHaveLength(card.cleanup?.created ?? -1);
    if (behaviour.idempotency !== 'stateless') expect([...server.widgets.keys()]).toEqual([1, 2, 3]);
  });

  it('a created resource with neither Location nor id is reported as possibly left behind', async () => {
    const server = await widgetServer({ created: 'nothing' });
    const card = await probe({ baseUrl: server.url, allowWrites: true, ...FAST });
    expect(result(card, 'probe-create-201-location')).toEqual({
      outcome: 'fail',
      notes: ['201 without a Location header, and no id in the body: the resource may be left behind'],
    });
    const reason = 'answered 2xx without a Location header or an id in the body; it may be left behind';
    expect(card.cleanup).toEqual({
      created: 4,
      deleted: [],
      notDeleted: [
        { location: 'create: POST /v1/widgets (201)', reason },
        { location: 'create: POST /v1/widgets (201)', reason },
        { location: 'control POST with another key: POST /v1/widgets (201)', reason },
        { location: 'create: POST /v1/widgets (201)', reason },
      ],
    });
    // The server does hold them: the report does not pretend otherwise.
    expect(server.widgets.size).toBe(SEED + 4);
  });

  it('the CLI report lists what was left behind', async () => {
    const server = await widgetServer({ created: 'nothing' });
    let stdout = '';
    const code = await runCli(['probe', server.url, '--allow-writes', '--rps', '1000'], {
      stdout: (text) => (stdout += text),
      stderr: () => undefined,
      env: {},
    });
    expect(code).toBe(EXIT.failed);
    const reason = 'answered 2xx without a Location header or an id in the body; it may be left behind';
    expect(stdout).toContain(
      [
        'cleanup: created 4, deleted 0',
        `  NOT DELETED create: POST /v1/widgets (201): ${reason}`,
        `  NOT DELETED create: POST /v1/widgets (201): ${reason}`,
        `  NOT DELETED control POST with another key: POST /v1/widgets (201): ${reason}`,
        `  NOT DELETED create: POST /v1/widgets (201): ${reason}`,
      ].join('\n'),
    );
  });
});

describe('pagination metadata shapes', () => {
  it.each(Object.keys(SHAPES))('%s: a bounded page whose next page is followed', async (name) => {
    const server = await widgetServer({ shape: SHAPES[name]! });
    const card = await probe({ baseUrl: server.url, ...FAST });
    expect(result(card, 'probe-default-page-bounded')).toEqual({
      outcome: 'pass',
      notes: ['3 items with pagination metadata'],
    });
    const links = result(card, 'probe-pagination-links');
    expect(links.outcome).toBe('pass');
    expect(links.notes[0]).toMatch(
      /^next link \/v1\/widgets\?limit=1&(offset|cursor)=o?1 returned the following item$/,
    );
  });

  it('a page metadata shape the probe does not recognise is not a fail', async () => {
    const server = await widgetServer({
      shape: (items) => [{}, { data: items, window: { later: 'opaque' } }],
    });
    const card = await probe({ baseUrl: server.url, ...FAST });
    expect(result(card, 'probe-default-page-bounded')).toEqual({
      outcome: 'skip',
      notes: ['3 items; page metadata not recognised (window): not judged'],
    });
    expect(result(card, 'probe-pagination-links')).toEqual({
      outcome: 'skip',
      notes: ['page metadata not recognised (window): no next link found to follow'],
    });
  });

  it('a page size that is not applied is reported with the real count', async () => {
    const server = await widgetServer({
      shape: (_items, _offset, _limit, total) => [
        {},
        { data: [...Array(total).keys()].map((i) => ({ id: i + 1 })), total },
      ],
    });
    const card = await probe({ baseUrl: server.url, ...FAST });
    expect(result(card, 'probe-pagination-links')).toEqual({
      outcome: 'skip',
      notes: [
        'asked for a page of 1 item, got 3 and no next link: the page size was not applied, so there is no next page to follow',
      ],
    });
  });

  it('a collection with one item: pagination is not applicable, with the real count', async () => {
    const server = await widgetServer();
    server.widgets.delete(2);
    server.widgets.delete(3);
    const card = await probe({ baseUrl: server.url, ...FAST });
    expect(result(card, 'probe-pagination-links')).toEqual({
      outcome: 'not-applicable',
      notes: [
        'not applicable: /v1/widgets has 1 item, a next page needs at least 2; create some (or use --allow-writes)',
      ],
    });
  });
});
