/**
 * No response header grows with client input past its stated bound (docs/design.md#d-limits). The
 * page links repeat the query, and a search body's filters go into them too: both are measured as
 * the links write them (at most MAX_QUERY_BYTES, else 400 query_too_long), so the Link header stays
 * within MAX_LINK_HEADER_BYTES and the whole header section within the 16 KiB a Node client reads
 * (fetch fails a longer one with a headers-overflow error). The harness also checks every response
 * against /openapi.json, which declares those bounds as the headers' maxLength.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_LINK_HEADER_BYTES, MAX_QUERY_BYTES } from '../src/service/limits.js';
import { type RunningService, startService } from './harness.js';

type Json = Record<string, unknown>;

/** What a Node client reads of the header section: every line `name: value\r\n`. */
function headerSection(res: Response): number {
  let bytes = 0;
  res.headers.forEach((value, name) => {
    bytes += Buffer.byteLength(`${name}: ${value}\r\n`);
  });
  return bytes;
}

const x = (n: number) => 'x'.repeat(n);
const TOO_LONG = 'The query string must be at most 2048 bytes.';
const bodyTooLong = (length: number) =>
  `The search body is ${length} bytes long as a query string; at most 2048 are allowed.`;

describe('response headers stay within their stated bounds', () => {
  let svc: RunningService;
  let apiKey = '';
  beforeAll(async () => {
    svc = await startService({ name: 'sqlite', postgres: false, redis: false });
    apiKey = svc.credentials.apiKeys.readWrite;
  });
  afterAll(async () => {
    await svc?.stop();
  });

  async function send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const res = await fetch(`${svc.url}${path}`, {
      method,
      headers: {
        'x-api-key': apiKey,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { res, body: (await res.json()) as Json };
  }

  /** A page's links: each query at most MAX_QUERY_BYTES, the Link header within its bound. */
  function expectBoundedPage(res: Response, body: Json, rels: readonly string[]) {
    const links = body['links'] as Record<string, string>;
    expect(Object.keys(links)).toEqual(rels);
    for (const href of Object.values(links)) {
      expect(href.slice(href.indexOf('?') + 1).length).toBeLessThanOrEqual(MAX_QUERY_BYTES);
    }
    const link = res.headers.get('link') ?? '';
    expect(link.length).toBeLessThanOrEqual(MAX_LINK_HEADER_BYTES);
    for (const rel of rels) expect(link).toContain(`; rel="${rel}"`);
    expect(headerSection(res)).toBeLessThan(16 * 1024);
  }

  // The longest project query its links can write: name=<n>&sort=-created_at&limit=20&offset=10000,
  // n + 44 bytes. So a name of 2004 characters is at the bound, 2005 one byte over it.
  it.each([
    [
      'search body, a filter value at the bound',
      'POST',
      '/v2/projects/search',
      { filter: { name: x(2004) } },
      200,
    ],
    [
      'search body, on v1 (with its deprecation links)',
      'POST',
      '/v1/projects/search',
      { filter: { name: x(2004) } },
      200,
    ],
    [
      'search body, one byte over',
      'POST',
      '/v2/projects/search',
      { filter: { name: x(2005) } },
      bodyTooLong(2049),
    ],
    [
      'search body, the 14,000 characters of the report',
      'POST',
      '/v2/projects/search',
      { filter: { name: x(14_000) } },
      bodyTooLong(14_044),
    ],
    [
      'search body, 700 spaces (%20 in a link)',
      'POST',
      '/v2/projects/search',
      { filter: { name: ' '.repeat(700) } },
      bodyTooLong(2144),
    ],
    ['query string at the bound', 'GET', `/v2/projects?name=${x(2004)}`, undefined, 200],
    [
      'query string one byte over once written in its links',
      'GET',
      `/v2/projects?name=${x(2005)}`,
      undefined,
      TOO_LONG,
    ],
    [
      'query string of 700 +, 715 bytes as sent (%20 in a link)',
      'GET',
      `/v2/projects?name=${'+'.repeat(700)}`,
      undefined,
      TOO_LONG,
    ],
    ['query string over 2 KiB as sent', 'GET', `/v2/projects?name=${x(2044)}`, undefined, TOO_LONG],
  ] as const)('%s', async (_name, method, path, searchBody, expected) => {
    // offset=20 and a total: self, first, prev and last (no row matches, so no next).
    const offset = method === 'GET' ? `${path}&offset=20` : path;
    const body = searchBody === undefined ? undefined : { ...searchBody, offset: 20 };
    const { res, body: answer } = await send(method, offset, body, { prefer: 'count=exact' });
    if (expected === 200) {
      expect(res.status).toBe(200);
      expectBoundedPage(res, answer, ['self', 'first', 'prev', 'last']);
    } else {
      expect([res.status, answer]).toEqual([
        400,
        {
          type: '/errors/query_too_long',
          title: 'Bad Request',
          status: 400,
          detail: expected,
          instance: path.split('?')[0],
          error_code: 'query_too_long',
          message: expected,
          request_id: res.headers.get('x-request-id'),
        },
      ]);
    }
  });

  // The longest page: all five relations, the v1 links, a query at the bound, and the longest
  // collection path, a nested one whose id is percent-encoded (Express and Fastify keep it so in
  // the links: 127 bytes; Hono decodes it).
  it('a v1 page of tasks with all five relations and a query at the bound', async () => {
    const project = await send(
      'POST',
      '/v2/projects',
      { name: `bounds ${randomUUID()}` },
      { 'idempotency-key': randomUUID() },
    );
    const id = project.body['id'] as string;
    for (let i = 1; i <= 3; i += 1) {
      const task = await send('POST', `/v2/projects/${id}/tasks`, { title: `${'z'.repeat(150)} ${i}` });
      expect(task.res.status).toBe(201);
    }
    // project_id[in]=<50 ids>&q=<q>&sort=-created_at&limit=1&offset=10000: 1864 + 3 + q + 38 bytes.
    const ids = [id, ...Array.from({ length: 49 }, () => randomUUID())];
    const encoded = [...id].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('');
    const search = (q: string) =>
      send(
        'POST',
        `/v1/projects/${encoded}/tasks/search`,
        { filter: { project_id: { in: ids } }, q, limit: 1, offset: 1 },
        { prefer: 'count=exact' },
      );
    const at = await search('z'.repeat(143));
    expect(at.res.status).toBe(200);
    expect(at.body['page']).toMatchObject({ limit: 1, offset: 1, has_more: true, total: 3 });
    expectBoundedPage(at.res, at.body, ['self', 'first', 'prev', 'next', 'last']);
    const link = at.res.headers.get('link') ?? '';
    expect(link).toMatch(
      /^<\/docs\/deprecations\/v1>; rel="deprecation", <\/docs\/sunset-policy>; rel="sunset", /,
    );
    expect(link).toMatch(/\/tasks\/search>; rel="successor-version", </);

    const over = await search('z'.repeat(144));
    expect([over.res.status, over.body['detail']]).toEqual([400, bodyTooLong(2049)]);
  });

  it.each([
    [`/v1/${x(15_000)}`, '</docs/deprecations/v1>; rel="deprecation", </docs/sunset-policy>; rel="sunset"'],
    [
      `/v1/${x(2044)}`,
      `</docs/deprecations/v1>; rel="deprecation", </docs/sunset-policy>; rel="sunset", </v2/${x(2044)}>; rel="successor-version"`,
    ],
  ])(
    'a v1 path of %#: the successor-version link repeats it only up to 2048 characters',
    async (path, link) => {
      const res = await fetch(`${svc.url}${path}`, { headers: { 'x-api-key': apiKey } });
      expect([res.status, res.headers.get('link')]).toEqual([404, link]);
      expect(headerSection(res)).toBeLessThan(4 * 1024);
      await res.body?.cancel();
    },
  );

  it.each([
    ['128 characters, echoed', 'r'.repeat(128), true],
    ['129 characters, replaced by a new id', 'r'.repeat(129), false],
  ])('X-Request-Id of %s', async (_name, id, echoed) => {
    const res = await fetch(`${svc.url}/v2/projects?limit=1`, {
      headers: { 'x-api-key': apiKey, 'x-request-id': id },
    });
    const sent = res.headers.get('x-request-id') ?? '';
    expect([res.status, sent === id]).toEqual([200, echoed]);
    expect(sent.length).toBeLessThanOrEqual(128);
    await res.body?.cancel();
  });
});
