/**
 * End to end, through real HTTP on loopback, one table per section of docs/conventions.md. Each
 * backend runs the same tables: SQLite with in-memory state, and PostgreSQL with Redis state.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { postgresAvailable, redisAvailable } from '@plumbline/test-utils';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Backend, type RunningService, startService } from './harness.js';

const pgUp = await postgresAvailable();
const redisUp = await redisAvailable();

const backends: Backend[] = [
  { name: 'sqlite + memory', postgres: false, redis: false },
  ...(pgUp && redisUp ? [{ name: 'postgres + redis', postgres: true, redis: true }] : []),
];

interface Reply {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are read member by member
  body: any;
}

const STACK = /\bat .+:\d+:\d+|Error:|node_modules|\/src\/|SQLITE|syntax error|relation "|duplicate key/;

describe.each(backends)('reference service on $name', (backend) => {
  let svc: RunningService;
  let rw: Record<string, string>;
  let ro: Record<string, string>;

  async function call(
    method: string,
    path: string,
    options: { headers?: Record<string, string>; body?: unknown; auth?: Record<string, string> | null } = {},
  ): Promise<Reply> {
    const headers: Record<string, string> = {
      ...(options.auth === null ? {} : (options.auth ?? rw)),
      ...options.headers,
    };
    let body: string | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${svc.url}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body } : {}),
    });
    const text = await res.text();
    let parsed: unknown = text;
    if (/json/.test(res.headers.get('content-type') ?? '') && text !== '') parsed = JSON.parse(text);
    // Whatever happened, no error body may leak internals (docs/conventions.md 7.1 (3)).
    if (res.status >= 400) expect(text).not.toMatch(STACK);
    return { status: res.status, headers: res.headers, text, body: parsed };
  }
  const create = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    call('POST', path, { body, headers: { 'idempotency-key': randomUUID(), ...headers } });

  beforeAll(async () => {
    svc = await startService(backend);
    rw = { 'x-api-key': svc.credentials.apiKeys.readWrite };
    ro = { 'x-api-key': svc.credentials.apiKeys.readOnly };
  });
  afterAll(async () => {
    await svc?.stop();
  });

  describe('7.1 every status code from a real request', () => {
    it('200, 201 with a Location that resolves, 204, then 410; 404 for an id that never existed', async () => {
      const created = await create('/v2/projects', { name: `Status ${randomUUID()}` });
      expect(created.status).toBe(201);
      const location = created.headers.get('location')!;
      expect(location).toBe(`/v2/projects/${created.body.id}`);
      const fetched = await call('GET', location);
      expect([fetched.status, fetched.body]).toEqual([200, created.body]);
      expect((await call('DELETE', location)).status).toBe(204);
      const again = await call('DELETE', location);
      expect([again.status, again.body.error_code]).toEqual([410, 'gone']);
      expect((await call('GET', location)).status).toBe(410);
      expect((await call('PUT', location, { body: { name: 'x' } })).status).toBe(410);
      const never = await call('GET', `/v2/projects/${randomUUID()}`);
      expect([never.status, never.body.error_code]).toEqual([404, 'not_found']);
      expect((await call('GET', '/v2/projects/not-a-uuid')).status).toBe(404);
    });

    it.each([
      [
        '400 invalid sort',
        'GET',
        '/v2/projects?sort=password_hash',
        {},
        undefined,
        400,
        'sort_field_not_allowed',
      ],
      ['401 no credentials', 'GET', '/v2/projects', null, undefined, 401, 'unauthorized'],
      ['403 read-only key writes', 'POST', '/v2/projects', 'ro', { name: 'x' }, 403, 'insufficient_scope'],
      ['404 unknown path', 'GET', '/v2/nope', {}, undefined, 404, 'not_found'],
      ['404 unknown version', 'GET', '/v9/projects', {}, undefined, 404, 'unsupported_api_version'],
      ['405 wrong method', 'PATCH', '/v2/projects', {}, undefined, 405, 'method_not_allowed'],
      [
        '406 unservable Accept',
        'GET',
        '/v2/projects',
        { accept: 'text/csv' },
        undefined,
        406,
        'not_acceptable',
      ],
      ['409 duplicate name', 'POST', '/v2/projects', {}, { name: 'Apollo' }, 409, 'conflict'],
      [
        '413 body too large',
        'POST',
        '/v2/projects',
        {},
        { name: 'x'.repeat(1_100_000) },
        413,
        'payload_too_large',
      ],
      [
        '415 text/plain body',
        'POST',
        '/v2/projects',
        { 'content-type': 'text/plain' },
        'name=x',
        415,
        'unsupported_media_type',
      ],
    ] as const)('%s', async (_name, method, path, headers, body, status, code) => {
      const auth = headers === null ? null : headers === 'ro' ? ro : rw;
      const extra = headers === null || headers === 'ro' ? {} : headers;
      const reply = await call(method, path, {
        auth,
        headers: { 'idempotency-key': randomUUID(), ...extra },
        ...(body !== undefined ? { body } : {}),
      });
      expect(reply.status).toBe(status);
      expect(reply.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
      expect(reply.body).toMatchObject({ status, error_code: code, message: reply.body.detail });
      expect(reply.body.request_id).toBe(reply.headers.get('x-request-id'));
      if (status === 401) expect(reply.headers.get('www-authenticate')).toBe('Bearer realm="plumbline"');
      if (status === 405) expect(reply.headers.get('allow')).toBe('GET, POST, HEAD, OPTIONS');
      if (status === 406) expect(reply.body.detail).toMatch(/application\/json, application\/xml/);
      if (status === 415) expect(reply.headers.get('accept-post')).toBe('application/json');
    });

    it('429 with Retry-After once the per-principal limit is spent', async () => {
      const limited = await startService({ ...backend, postgres: false }, { RATE_LIMIT_PER_MINUTE: '3' });
      try {
        const headers = { 'x-api-key': limited.credentials.apiKeys.readOnly };
        const statuses: number[] = [];
        let last: Response | undefined;
        for (let i = 0; i < 4; i++) {
          last = await fetch(`${limited.url}/v2/projects?limit=1`, { headers });
          statuses.push(last.status);
        }
        expect(statuses).toEqual([200, 200, 200, 429]);
        expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(((await last!.json()) as { error_code: string }).error_code).toBe('rate_limited');
      } finally {
        await limited.stop();
      }
    });

    it('503 with Retry-After when the database is unreachable; 500 without internals on an unexpected failure', async () => {
      const broken = await startService({ ...backend, postgres: false, redis: false });
      try {
        const headers = { 'x-api-key': broken.credentials.apiKeys.readWrite };
        // An unexpected SQL failure (a table gone): a generic 500, nothing of the driver's message.
        await broken.ctx.db.run('DROP TABLE comments');
        const task = (
          (await (await fetch(`${broken.url}/v2/tasks?limit=1`, { headers })).json()) as {
            data: { id: string }[];
          }
        ).data[0]!;
        const failed = await fetch(`${broken.url}/v2/tasks/${task.id}/comments`, { headers });
        const text = await failed.text();
        expect(failed.status).toBe(500);
        expect(JSON.parse(text)).toMatchObject({
          error_code: 'internal_error',
          detail: 'An unexpected error occurred.',
        });
        expect(text).not.toMatch(STACK);
        // The database itself gone: the API key cannot be checked, so the request fails closed.
        await broken.ctx.db.close();
        const down = await fetch(`${broken.url}/v2/projects`, { headers });
        expect(down.status).toBe(503);
        expect(down.headers.get('retry-after')).toBe('1');
        expect(((await down.json()) as { error_code: string }).error_code).toBe('service_unavailable');
      } finally {
        await broken.stop().catch(() => {});
      }
    });
  });

  describe('4.2 methods', () => {
    let id: string;
    beforeAll(async () => {
      id = (
        await create('/v2/projects', {
          name: `Methods ${randomUUID()}`,
          description: 'd',
          status: 'archived',
          budget: { amount: 5, currency: 'USD' },
        })
      ).body.id;
    });

    it('PUT replaces: missing optional fields are reset, missing required fields are a 400', async () => {
      const put = await call('PUT', `/v2/projects/${id}`, { body: { name: `Renamed ${id}` } });
      expect(put.status).toBe(200);
      expect(put.body).toMatchObject({
        name: `Renamed ${id}`,
        description: null,
        status: 'active',
        budget: null,
      });
      const bad = await call('PUT', `/v2/projects/${id}`, { body: { description: 'no name' } });
      expect(bad.status).toBe(400);
      expect(bad.body.errors).toEqual([
        { pointer: '#/name', error_code: 'invalid_value', detail: 'This field is required.' },
      ]);
      expect((await call('PUT', `/v2/projects/${randomUUID()}`, { body: { name: 'x' } })).status).toBe(404);
    });

    it('PATCH merges (RFC 7396), null removes, and advertises Accept-Patch', async () => {
      const patched = await call('PATCH', `/v2/projects/${id}`, {
        body: { description: 'patched', budget: { amount: 7, currency: 'EUR' } },
        headers: { 'content-type': 'application/merge-patch+json' },
      });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ description: 'patched', budget: { amount: 7, currency: 'EUR' } });
      expect(patched.headers.get('accept-patch')).toBe('application/merge-patch+json, application/json');
      const cleared = await call('PATCH', `/v2/projects/${id}`, { body: { description: null } });
      expect(cleared.body.description).toBeNull();
      const xml = await call('PATCH', `/v2/projects/${id}`, {
        body: '<a/>',
        headers: { 'content-type': 'application/xml' },
      });
      expect([xml.status, xml.headers.get('accept-patch')]).toEqual([
        415,
        'application/merge-patch+json, application/json',
      ]);
    });

    it('HEAD has no body; OPTIONS lists Allow', async () => {
      const head = await call('HEAD', `/v2/projects/${id}`);
      expect([head.status, head.text]).toEqual([200, '']);
      const options = await call('OPTIONS', `/v2/projects/${id}`);
      expect([options.status, options.headers.get('allow')]).toEqual([
        204,
        'GET, PUT, PATCH, DELETE, HEAD, OPTIONS',
      ]);
    });

    it('tasks live under their project; comments under their task; the author is the principal', async () => {
      const task = await create(`/v2/projects/${id}/tasks`, {
        title: 'Write tests',
        priority: 5,
        due_date: '2027-01-31',
      });
      expect(task.status).toBe(201);
      expect(task.headers.get('location')).toBe(`/v2/projects/${id}/tasks/${task.body.id}`);
      expect(task.body).toMatchObject({ project_id: id, status: 'todo', priority: 5 });
      expect((await call('GET', `/v2/tasks/${task.body.id}`)).body).toEqual(task.body);
      expect((await call('GET', `/v2/projects/${randomUUID()}/tasks/${task.body.id}`)).status).toBe(404);
      const comment = await create(`/v2/tasks/${task.body.id}/comments`, { body: 'Looks good' });
      expect(comment.status).toBe(201);
      expect(comment.body).toMatchObject({
        task_id: task.body.id,
        author: 'demo-read-write',
        body: 'Looks good',
      });
      const list = await call('GET', `/v2/tasks/${task.body.id}/comments`);
      expect(list.body.data.map((c: { id: string }) => c.id)).toEqual([comment.body.id]);
      expect((await call('DELETE', `/v2/projects/${id}`)).status).toBe(204);
      expect((await call('GET', `/v2/tasks/${task.body.id}`)).status).toBe(410);
      expect((await call('GET', `/v2/tasks/${task.body.id}/comments/${comment.body.id}`)).status).toBe(410);
    });
  });

  describe('4.3 idempotency keys', () => {
    it('replays the first result, refuses a reused key with another body, requires a key on POST /projects', async () => {
      const key = randomUUID();
      const body = { name: `Idem ${key}` };
      const first = await call('POST', '/v2/projects', { body, headers: { 'idempotency-key': key } });
      const second = await call('POST', '/v2/projects', { body, headers: { 'idempotency-key': key } });
      expect(first.status).toBe(201);
      expect([second.status, second.text, second.headers.get('location')]).toEqual([
        201,
        first.text,
        first.headers.get('location'),
      ]);
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      const reused = await call('POST', '/v2/projects', {
        body: { name: 'other' },
        headers: { 'idempotency-key': key },
      });
      expect([reused.status, reused.body.error_code]).toEqual([422, 'idempotency_key_reused']);
      const missing = await call('POST', '/v2/projects', { body });
      expect([missing.status, missing.body.error_code]).toEqual([400, 'idempotency_key_missing']);
      const invalid = await call('POST', '/v2/projects', { body, headers: { 'idempotency-key': 'a,b' } });
      expect([invalid.status, invalid.body.error_code]).toEqual([400, 'idempotency_key_invalid']);
      // Another client with the same key never sees this response.
      const other = await call('POST', '/v2/projects', { body, headers: { 'idempotency-key': key, ...ro } });
      expect(other.status).toBe(403);
    });
  });

  describe('4.3 idempotency: decisions from the audit', () => {
    it('a key fixes the representation: an XML original is replayed as XML to a JSON retry', async () => {
      const key = randomUUID();
      const body = { name: `Accept ${key}` };
      const xml = await call('POST', '/v2/projects', {
        body,
        headers: { 'idempotency-key': key, accept: 'application/xml' },
      });
      const json = await call('POST', '/v2/projects', {
        body,
        headers: { 'idempotency-key': key, accept: 'application/json' },
      });
      expect([xml.status, xml.headers.get('content-type')]).toEqual([201, 'application/xml; charset=utf-8']);
      expect([
        json.status,
        json.headers.get('content-type'),
        json.text,
        json.headers.get('idempotent-replayed'),
      ]).toEqual([201, 'application/xml; charset=utf-8', xml.text, 'true']);
    });

    it.each([
      [
        'a structured-field string with a parameter, then without',
        (k: string) => `"${k}";p=1`,
        (k: string) => `"${k}"`,
      ],
      ['a bare key, then the same as a structured-field string', (k: string) => k, (k: string) => `"${k}"`],
    ])('%s: one key', async (_name, first, second) => {
      const k = `sf-${randomUUID()}`;
      const body = { name: `SF ${k}` };
      const a = await call('POST', '/v2/projects', { body, headers: { 'idempotency-key': first(k) } });
      const b = await call('POST', '/v2/projects', { body, headers: { 'idempotency-key': second(k) } });
      expect([a.status, b.status, b.text, b.headers.get('idempotent-replayed')]).toEqual([
        201,
        201,
        a.text,
        'true',
      ]);
    });

    it('an invalid comment is judged after the key is taken: its 400 is stored and replayed', async () => {
      const project = await create('/v2/projects', { name: `Replay ${randomUUID()}` });
      const task = await create(`/v2/projects/${project.body.id}/tasks`, { title: 'Replay a 400' });
      const key = randomUUID();
      const post = () =>
        call('POST', `/v2/tasks/${task.body.id}/comments`, {
          body: { body: '' },
          headers: { 'idempotency-key': key },
        });
      const first = await post();
      const again = await post();
      expect([first.status, first.body.error_code, first.body.errors]).toEqual([
        400,
        'validation_failed',
        [{ pointer: '#/body', error_code: 'invalid_value', detail: 'Must be at least 1 character.' }],
      ]);
      expect([again.status, again.text, again.headers.get('idempotent-replayed')]).toEqual([
        400,
        first.text,
        'true',
      ]);
    });

    it('a conflicting create (409) is rolled back and not stored: the retry runs again', async () => {
      const name = `Taken ${randomUUID()}`;
      expect((await create('/v2/projects', { name })).status).toBe(201);
      const key = randomUUID();
      const first = await call('POST', '/v2/projects', {
        body: { name },
        headers: { 'idempotency-key': key },
      });
      const again = await call('POST', '/v2/projects', {
        body: { name },
        headers: { 'idempotency-key': key },
      });
      expect([
        first.status,
        first.body.error_code,
        again.status,
        again.headers.get('idempotent-replayed'),
      ]).toEqual([409, 'conflict', 409, null]);
    });
  });

  describe('4.4 collection queries', () => {
    it.each([
      ['unknown parameter', '/v2/projects?colour=red', 'unknown_parameter'],
      ['search too short', '/v2/projects?q=ab', 'search_too_short'],
      ['limit too large', '/v2/projects?limit=1000', 'limit_too_large'],
      ['filter on a non-filterable field', '/v2/projects?description=x', 'field_not_filterable'],
      ['operator not allowed', '/v2/tasks?priority[ne]=2', 'operator_not_allowed'],
      ['bad enum value', '/v2/projects?status=deleted', 'invalid_value'],
      ['credentials in the query', '/v2/projects?api_key=x', 'credentials_in_query'],
      ['conflicting pagination', '/v2/projects?page=2&offset=20', 'conflicting_pagination'],
      ['a field that cannot be selected', '/v2/projects?fields=password_hash', 'field_not_selectable'],
    ])('%s → 400 %s', async (_name, path, code) => {
      const reply = await call('GET', path);
      expect(reply.status).toBe(400);
      expect([
        reply.body.error_code,
        ...(reply.body.errors ?? []).map((e: { error_code: string }) => e.error_code),
      ]).toContain(code);
    });

    it('filters, searches and sorts; all three sort shapes agree and links use the canonical one', async () => {
      const shapes = ['-priority,title', 'priority:desc,title:asc', 'priority_desc,title'];
      const bodies = await Promise.all(
        shapes.map((sort) => call('GET', `/v2/tasks?status=todo&priority[gte]=2&sort=${sort}&limit=5`)),
      );
      for (const reply of bodies) {
        expect(reply.status).toBe(200);
        expect(reply.body.data).toEqual(bodies[0]!.body.data);
        expect(reply.body.links.self).toBe(
          '/v2/tasks?status=todo&priority[gte]=2&sort=-priority,title&limit=5&offset=0',
        );
      }
      for (const task of bodies[0]!.body.data)
        expect(task).toMatchObject({ status: 'todo', priority: expect.any(Number) });
      const priorities = bodies[0]!.body.data.map((t: { priority: number }) => t.priority);
      expect(priorities).toEqual([...priorities].sort((a: number, b: number) => b - a));
      const search = await call('GET', '/v2/projects?q=MOON');
      expect(search.body.data.map((p: { name: string }) => p.name)).toEqual(['Apollo']);
    });

    it.each([
      ['offset', '/v2/tasks?limit=3'],
      ['page', '/v2/tasks?page=1&size=3'],
      ['cursor', '/v2/tasks?limit=3&sort=title'],
    ])('%s links, followed to the end, visit every task exactly once', async (_mode, start) => {
      const total = (await call('GET', '/v2/tasks?limit=1', { headers: { prefer: 'count=exact' } })).body.page
        .total;
      expect(total).toBeGreaterThanOrEqual(20);
      const seen: string[] = [];
      let next: string | undefined = start;
      let cursorStarted = false;
      while (next) {
        const page: Reply = await call('GET', next);
        expect(page.status).toBe(200);
        expect(page.body.data.length).toBeLessThanOrEqual(3);
        seen.push(...page.body.data.map((t: { id: string }) => t.id));
        expect(page.headers.get('link')).toContain('rel="self"');
        if (_mode === 'cursor' && !cursorStarted && page.body.page.next_cursor) {
          cursorStarted = true;
          next = `/v2/tasks?limit=3&sort=title&cursor=${page.body.page.next_cursor}`;
          continue;
        }
        next = page.body.links.next;
      }
      expect(seen.length).toBe(total);
      expect(new Set(seen).size).toBe(total);
    });

    it('POST /search takes the same query as a JSON body', async () => {
      const viaGet = await call('GET', '/v2/tasks?status=done&sort=-priority&limit=4');
      const viaPost = await call('POST', '/v2/tasks/search', {
        body: { filter: { status: 'done' }, sort: '-priority', limit: 4 },
      });
      expect(viaPost.status).toBe(200);
      expect(viaPost.body.data).toEqual(viaGet.body.data);
    });

    it('field selection keeps id; parent-scoped collections only show their children', async () => {
      const projects = await call('GET', '/v2/projects?fields=name&limit=2');
      for (const p of projects.body.data) expect(Object.keys(p).sort()).toEqual(['id', 'name']);
      const apollo = (await call('GET', '/v2/projects?name=Apollo')).body.data[0];
      const tasks = await call('GET', `/v2/projects/${apollo.id}/tasks`);
      expect(tasks.body.data.length).toBe(4);
      for (const t of tasks.body.data) expect(t.project_id).toBe(apollo.id);
      expect((await call('GET', `/v2/projects/${randomUUID()}/tasks`)).status).toBe(404);
    });
  });

  describe('4.5 content negotiation', () => {
    it.each([
      ['absent', undefined, 'application/json; charset=utf-8'],
      ['XML', 'application/xml', 'application/xml; charset=utf-8'],
      ['q-values prefer XML', 'application/json;q=0.5, application/xml', 'application/xml; charset=utf-8'],
      ['q-values prefer JSON', 'application/xml;q=0.5, application/json', 'application/json; charset=utf-8'],
      ['wildcard', '*/*', 'application/json; charset=utf-8'],
    ])('Accept %s → %s, with Vary', async (_name, accept, type) => {
      const reply = await call('GET', '/v2/projects?limit=1', { headers: accept ? { accept } : {} });
      expect(reply.status).toBe(200);
      expect(reply.headers.get('content-type')).toBe(type);
      expect(reply.headers.get('vary')).toMatch(/Accept, Accept-Language/);
      if (type.startsWith('application/xml')) {
        const doc = new XMLParser().parse(reply.text);
        expect(doc.projects.page.limit).toBe(1);
      }
    });

    it('answers errors in German with Content-Language: de', async () => {
      const reply = await call('GET', `/v2/projects/${randomUUID()}`, {
        headers: { 'accept-language': 'de-DE,de;q=0.9' },
      });
      expect(reply.headers.get('content-language')).toBe('de');
      expect(reply.body.detail).toBe('Die angeforderte Ressource existiert nicht.');
    });

    it('415 without a Content-Type on a body, and never 415 without a body', async () => {
      const res = await fetch(`${svc.url}/v2/projects`, {
        method: 'POST',
        headers: { ...rw, 'idempotency-key': randomUUID() },
        body: new Uint8Array([123, 125]),
      });
      expect(res.status).toBe(415);
      expect((await call('DELETE', `/v2/projects/${randomUUID()}`)).status).toBe(404);
    });
  });

  describe('5 authentication', () => {
    it.each([
      [
        'bearer JWT with the scope',
        async () => ({ authorization: `Bearer ${await svc.token('read:projects')}` }),
        'GET',
        200,
        undefined,
      ],
      [
        'bearer JWT without the scope',
        async () => ({ authorization: `Bearer ${await svc.token('read:tasks')}` }),
        'GET',
        403,
        'insufficient_scope',
      ],
      [
        'read-only client cannot get write scopes',
        async () => ({ authorization: `Bearer ${await svc.token('read:projects', 'readOnly')}` }),
        'POST',
        403,
        'insufficient_scope',
      ],
      [
        'tampered JWT',
        async () => ({ authorization: `Bearer ${(await svc.token('read:projects')).slice(0, -4)}AAAA` }),
        'GET',
        401,
        'invalid_token',
      ],
      [
        'alg none',
        async () => ({
          authorization: `Bearer ${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{"sub":"x"}').toString('base64url')}.`,
        }),
        'GET',
        401,
        'invalid_token',
      ],
      [
        'API key and bearer together',
        async () => ({ ...rw, authorization: 'Bearer abc' }),
        'GET',
        400,
        'invalid_request',
      ],
      [
        'wrong API key',
        async () => ({ 'x-api-key': 'plk_00000000000000000000000000000000000000' }),
        'GET',
        401,
        'unauthorized',
      ],
    ])('%s → %i', async (_name, headers, method, status, code) => {
      const reply = await call(method, '/v2/projects', {
        auth: await headers(),
        headers: { 'idempotency-key': randomUUID() },
        ...(method === 'POST' ? { body: { name: `Auth ${randomUUID()}` } } : {}),
      });
      expect(reply.status).toBe(status);
      if (code) expect(reply.body.error_code).toBe(code);
      if (status === 401) expect(reply.headers.get('www-authenticate')).toMatch(/^Bearer realm="plumbline"/);
      if (code === 'insufficient_scope')
        expect(reply.headers.get('www-authenticate')).toMatch(/error="insufficient_scope", scope="/);
    });

    it('rotates refresh tokens and revokes the family on reuse', async () => {
      const { clientId, clientSecret } = svc.credentials.clients.readWrite;
      const token = (body: Record<string, string>) =>
        fetch(`${svc.url}/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ client_id: clientId, client_secret: clientSecret, ...body }),
        });
      const first = await token({ grant_type: 'client_credentials', scope: 'read:projects offline_access' });
      expect(first.headers.get('cache-control')).toBe('no-store');
      const { refresh_token: r1 } = (await first.json()) as { refresh_token: string };
      const second = await token({ grant_type: 'refresh_token', refresh_token: r1 });
      const { refresh_token: r2 } = (await second.json()) as { refresh_token: string };
      expect(second.status).toBe(200);
      const reuse = await token({ grant_type: 'refresh_token', refresh_token: r1 });
      expect([reuse.status, ((await reuse.json()) as { error: string }).error]).toEqual([
        400,
        'invalid_grant',
      ]);
      expect((await token({ grant_type: 'refresh_token', refresh_token: r2 })).status).toBe(400);
    });

    it('revokes an access token (RFC 7009): the owner revokes, the token is refused from then on', async () => {
      const token = await svc.token('read:projects');
      const bearer = { authorization: `Bearer ${token}` };
      expect((await call('GET', '/v2/projects?limit=1', { auth: bearer })).status).toBe(200);
      const revoke = (client: 'readWrite' | 'readOnly', value: string) =>
        fetch(`${svc.url}/oauth/revoke`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            client_id: svc.credentials.clients[client].clientId,
            client_secret: svc.credentials.clients[client].clientSecret,
            token: value,
          }),
        });
      // Another client cannot revoke it (answered like an unknown token), a bad secret is 401.
      expect((await revoke('readOnly', token)).status).toBe(200);
      expect((await call('GET', '/v2/projects?limit=1', { auth: bearer })).status).toBe(200);
      const badSecret = (authorization: Record<string, string>, body: Record<string, string>) =>
        fetch(`${svc.url}/oauth/revoke`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...authorization },
          body: new URLSearchParams({ token, ...body }),
        });
      const inBody = await badSecret({}, { client_id: 'demo-read-write', client_secret: 'wrong' });
      expect([inBody.status, inBody.headers.get('www-authenticate')]).toEqual([
        401,
        'Basic realm="plumbline"',
      ]);
      const overBasic = await badSecret(
        { authorization: `Basic ${Buffer.from('demo-read-write:wrong').toString('base64')}` },
        {},
      );
      expect([overBasic.status, overBasic.headers.get('www-authenticate')]).toEqual([
        401,
        'Basic realm="plumbline"',
      ]);
      expect((await revoke('readWrite', token)).status).toBe(200);
      const refused = await call('GET', '/v2/projects?limit=1', { auth: bearer });
      expect([refused.status, refused.body.error_code]).toEqual([401, 'invalid_token']);
      expect((await revoke('readWrite', 'not-a-token')).status).toBe(200);
    });

    it('publishes the JWKS the tokens verify against', async () => {
      const jwks = await call('GET', '/.well-known/jwks.json', { auth: null });
      expect(jwks.body.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256' });
      expect(jwks.body.keys[0]).not.toHaveProperty('d');
    });
  });

  describe('9 versioning', () => {
    it('v1 is deprecated (Deprecation, Sunset, Link) and shows budget as a number; v2 as an object', async () => {
      const v1 = await call('GET', '/v1/projects?name=Apollo');
      const v2 = await call('GET', '/v2/projects?name=Apollo');
      expect(v1.headers.get('deprecation')).toMatch(/^@\d+$/);
      expect(new Date(v1.headers.get('sunset')!).toISOString()).toBe('2027-06-30T00:00:00.000Z');
      expect(v1.headers.get('link')).toContain('rel="successor-version"');
      expect(v2.headers.get('deprecation')).toBeNull();
      expect(v2.headers.get('sunset')).toBeNull();
      for (const reply of [v1, v2]) expect(reply.headers.get('api-supported-versions')).toBe('1, 2, 3');
      expect(v1.body.data[0].budget).toBe(25_400_000);
      expect(v2.body.data[0].budget).toEqual({ amount: 25_400_000, currency: 'USD' });
    });

    it('both versions write the same row; v1 keeps the currency it cannot see', async () => {
      const created = await create('/v2/projects', {
        name: `Versions ${randomUUID()}`,
        budget: { amount: 10, currency: 'GBP' },
      });
      const id = created.body.id;
      const v1 = await call('PATCH', `/v1/projects/${id}`, { body: { budget: 20 } });
      expect(v1.body.budget).toBe(20);
      expect((await call('GET', `/v2/projects/${id}`)).body.budget).toEqual({ amount: 20, currency: 'GBP' });
      const v1Wrong = await call('PATCH', `/v1/projects/${id}`, {
        body: { budget: { amount: 1, currency: 'EUR' } },
      });
      expect(v1Wrong.status).toBe(400);
    });

    it('a v1 create is migrated up (EUR) and its replay answers the same v1 body', async () => {
      const key = randomUUID();
      const body = { name: `V1 ${randomUUID()}`, budget: 12 };
      const first = await call('POST', '/v1/projects', { body, headers: { 'idempotency-key': key } });
      expect([first.status, first.body.budget]).toEqual([201, 12]);
      const again = await call('POST', '/v1/projects', { body, headers: { 'idempotency-key': key } });
      expect([again.status, again.headers.get('idempotent-replayed'), again.text]).toEqual([
        201,
        'true',
        first.text,
      ]);
      const v2 = await call('GET', `/v2/projects/${first.body.id}`);
      expect(v2.body.budget).toEqual({ amount: 12, currency: 'EUR' });
    });

    it('v1 field errors point at /budget; a v1 merge patch with budget null clears it', async () => {
      const tooBig = await create('/v1/projects', { name: 'x', budget: 1e13 });
      expect([tooBig.status, tooBig.body.errors]).toEqual([
        400,
        [{ pointer: '#/budget', error_code: 'invalid_value', detail: 'Must be at most 1000000000000.' }],
      ]);
      const created = await create('/v2/projects', {
        name: `Versions ${randomUUID()}`,
        budget: { amount: 3, currency: 'CHF' },
      });
      const id = created.body.id;
      const cleared = await call('PATCH', `/v1/projects/${id}`, { body: { budget: null } });
      expect([cleared.status, cleared.body.budget]).toEqual([200, null]);
      const again = await call('PUT', `/v1/projects/${id}`, { body: { name: created.body.name, budget: 4 } });
      expect([again.status, again.body.budget]).toEqual([200, 4]);
      expect((await call('GET', `/v2/projects/${id}`)).body.budget).toEqual({ amount: 4, currency: 'EUR' });
    });

    it('v1 collections filter and sort on the amount, and show every item as v1', async () => {
      const v1 = await call('GET', '/v1/projects?budget[gte]=1&sort=-budget&fields=name,budget&limit=50');
      expect(v1.status).toBe(200);
      expect(v1.body.data.length).toBeGreaterThan(0);
      const amounts = v1.body.data.map((item: { budget: unknown }) => item.budget);
      for (const amount of amounts) expect(typeof amount).toBe('number');
      expect(amounts).toEqual([...amounts].sort((a: number, b: number) => b - a));
      const search = await call('POST', '/v1/projects/search', { body: { sort: '-budget', limit: 50 } });
      expect(search.status).toBe(200);
      for (const item of search.body.data)
        expect(item.budget === null || typeof item.budget === 'number').toBe(true);
    });

    it('errors carry the version headers too', async () => {
      const reply = await call('GET', `/v1/projects/${randomUUID()}`);
      expect(reply.status).toBe(404);
      expect(reply.headers.get('deprecation')).toMatch(/^@\d+$/);
    });
  });

  describe('service routes', () => {
    it.each([
      ['/health', 200],
      ['/ready', 200],
      ['/openapi.json', 200],
      ['/errors/not_found', 200],
      ['/errors/nope', 404],
      ['/docs/deprecations/v1', 200],
    ])('GET %s → %i without credentials', async (path, status) => {
      expect((await call('GET', path, { auth: null })).status).toBe(status);
    });

    it('/ready names each dependency it checked', async () => {
      const reply = await call('GET', '/ready', { auth: null });
      expect([reply.status, reply.body]).toEqual([
        200,
        { status: 'ready', checks: backend.redis ? { database: 'ok', redis: 'ok' } : { database: 'ok' } },
      ]);
    });

    it.each([
      ['invalid_sort', 'd-sort'],
      ['idempotency_key_reused', 'd-idempotency'],
      ['gone', 'd-delete'],
      ['api_version_sunset', 'd-versioning'],
      ['internal_error', 'd-errors'],
    ])('the page of %s links to docs/design.md#%s', async (code, section) => {
      const reply = await call('GET', `/errors/${code}`, { auth: null });
      expect([reply.status, reply.body.error_code, reply.body.documentation]).toEqual([
        200,
        code,
        `https://github.com/plumbline/plumbline/blob/main/docs/design.md#${section}`,
      ]);
    });

    it('every error page links to an anchor that docs/design.md has', async () => {
      const design = await readFile(new URL('../../../docs/design.md', import.meta.url), 'utf8');
      const reply = await call('GET', '/errors', { auth: null });
      const anchors = new Set<string>(
        reply.body.data.map((page: { documentation: string }) => page.documentation.split('#')[1]),
      );
      expect([...anchors].filter((anchor) => !design.includes(`<a id="${anchor}"></a>`))).toEqual([]);
      expect(anchors.size).toBeGreaterThan(5);
    });

    it('query strings over 2 KiB are refused', async () => {
      const reply = await call('GET', `/v2/projects?q=${'a'.repeat(5000)}`);
      expect([reply.status, reply.body.error_code]).toEqual([400, 'query_too_long']);
    });
  });
});
