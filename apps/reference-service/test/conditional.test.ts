/**
 * Conditional requests through the service (docs/design.md#d-conditional, issue 24 item 7): writes
 * honour If-Match, If-None-Match and If-Unmodified-Since with 412, GET keeps 304, the ETag is strong and
 * changes with the representation, REQUIRE_PRECONDITIONS=true answers 428, and two clients racing
 * with one ETag cannot both win.
 */
import { randomUUID } from 'node:crypto';
import { postgresAvailable, redisAvailable, send } from '@plumbline/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Repository } from '../src/storage/repository.js';
import { type Backend, type RunningService, startService } from './harness.js';

const pgUp = await postgresAvailable();
const redisUp = await redisAvailable();
const backends: Backend[] = [
  { name: 'sqlite + memory', postgres: false, redis: false },
  ...(pgUp && redisUp ? [{ name: 'postgres + redis', postgres: true, redis: true }] : []),
];

interface Reply {
  readonly status: number;
  readonly headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are read member by member
  readonly body: any;
}

function client(svc: () => RunningService) {
  return async (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) => {
    const res = await fetch(`${svc().url}${path}`, {
      method,
      headers: {
        'x-api-key': svc().credentials.apiKeys.readWrite,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    const json = /json/.test(res.headers.get('content-type') ?? '') && text !== '';
    return { status: res.status, headers: res.headers, body: json ? JSON.parse(text) : text } as Reply;
  };
}

const PROBLEM = 'application/problem+json; charset=utf-8';

describe.each(backends)('conditional requests on $name', (backend) => {
  let svc: RunningService;
  const call = client(() => svc);
  beforeAll(async () => {
    svc = await startService(backend);
  });
  afterAll(async () => {
    await svc?.stop();
  });

  const newProject = async () => {
    const created = await call(
      'POST',
      '/v2/projects',
      { 'idempotency-key': randomUUID() },
      { name: `p-${randomUUID()}`, budget: { amount: 100, currency: 'EUR' } },
    );
    expect(created.status).toBe(201);
    return `/v2/projects/${created.body.id}`;
  };
  const newTask = async () => {
    const project = await newProject();
    const created = await call('POST', `${project}/tasks`, {}, { title: 'Weld' });
    expect(created.status).toBe(201);
    return `/v2/tasks/${created.body.id}`;
  };
  const newComment = async () => {
    const task = await newTask();
    const created = await call('POST', `${task}/comments`, {}, { body: 'Looks good' });
    expect(created.status).toBe(201);
    return `${task}/comments/${created.body.id}`;
  };
  const etagOf = async (path: string, headers: Record<string, string> = {}) => {
    const got = await call('GET', path, headers);
    expect(got.status).toBe(200);
    return got.headers.get('etag') ?? '';
  };

  const PUT_PROJECT = { name: 'Renamed', status: 'active' };
  const writes = [
    ['PUT a project', newProject, 'PUT', () => ({ ...PUT_PROJECT, name: `r-${randomUUID()}` })],
    ['PATCH a project', newProject, 'PATCH', () => ({ description: 'patched' })],
    ['DELETE a project', newProject, 'DELETE', () => undefined],
    ['PUT a task', newTask, 'PUT', () => ({ title: 'Paint' })],
    ['PATCH a task', newTask, 'PATCH', () => ({ priority: 1 })],
    ['DELETE a task', newTask, 'DELETE', () => undefined],
    ['DELETE a comment', newComment, 'DELETE', () => undefined],
  ] as const;

  it.each(writes)(
    '%s with If-Match: "wrong" → 412 problem, nothing changed',
    async (_label, make, method, body) => {
      const path = await make();
      const before = await etagOf(path);
      const reply = await call(method, path, { 'if-match': '"wrong"' }, body());
      expect(reply.status).toBe(412);
      expect(reply.headers.get('content-type')).toBe(PROBLEM);
      expect(reply.body).toMatchObject({
        status: 412,
        error_code: 'precondition_failed',
        type: '/errors/precondition_failed',
      });
      expect(await etagOf(path)).toBe(before);
    },
  );

  it.each(writes)(
    '%s with the ETag from GET succeeds; the ETag changes',
    async (_label, make, method, body) => {
      const path = await make();
      const before = await etagOf(path);
      expect(before).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
      const reply = await call(method, path, { 'if-match': before }, body());
      if (method === 'DELETE') {
        expect(reply.status).toBe(204);
        expect((await call('GET', path)).status).toBe(410);
        return;
      }
      expect(reply.status).toBe(200);
      const after = reply.headers.get('etag');
      expect(after).not.toBe(before);
      expect(await etagOf(path)).toBe(after);
      // The old tag is now stale.
      expect((await call(method, path, { 'if-match': before }, body())).status).toBe(412);
    },
  );

  it.each([
    ['a project', newProject, { name: `n-${randomUUID()}` }],
    ['a task', newTask, { title: 'Again' }],
  ] as const)('PUT with If-None-Match: * to %s that exists → 412', async (_label, make, body) => {
    const path = await make();
    const reply = await call('PUT', path, { 'if-none-match': '*' }, body);
    expect([reply.status, reply.body.error_code]).toEqual([412, 'precondition_failed']);
  });

  it('If-Unmodified-Since: earlier than the last change → 412; later → 200; not a date → ignored', async () => {
    const path = await newProject();
    const { updated_at: updatedAt } = (await call('GET', path)).body;
    const earlier = new Date(Date.parse(updatedAt) - 60_000).toUTCString();
    const later = new Date(Date.parse(updatedAt) + 60_000).toUTCString();
    expect((await call('PATCH', path, { 'if-unmodified-since': earlier }, { description: 'x' })).status).toBe(
      412,
    );
    expect((await call('PATCH', path, { 'if-unmodified-since': later }, { description: 'y' })).status).toBe(
      200,
    );
    expect((await call('PATCH', path, { 'if-unmodified-since': 'soon' }, { description: 'z' })).status).toBe(
      200,
    );
  });

  it('a 404 or 410 comes before any precondition', async () => {
    const missing = `/v2/projects/${randomUUID()}`;
    expect((await call('PUT', missing, { 'if-match': '"x"' }, PUT_PROJECT)).status).toBe(404);
    const path = await newProject();
    expect((await call('DELETE', path)).status).toBe(204);
    expect((await call('PATCH', path, { 'if-match': '"x"' }, { description: 'x' })).status).toBe(410);
  });

  it('GET with If-None-Match: the current ETag → 304 with that ETag and no body', async () => {
    const path = await newProject();
    const etag = await etagOf(path);
    // node:http, not fetch: fetch adds Cache-Control: no-cache to conditional requests, and Express
    // then answers 200 (its freshness check treats no-cache as a reload).
    const reply = await send(Number(new URL(svc.url).port), {
      path,
      headers: { 'x-api-key': svc.credentials.apiKeys.readWrite, 'if-none-match': etag },
    });
    expect([reply.status, reply.headers['etag'], reply.body]).toEqual([304, etag, '']);
  });

  it('the ETag is strong and differs per representation: JSON, XML, German, v1; each works for If-Match', async () => {
    const path = await newProject();
    const variants = [{}, { accept: 'application/xml' }, { 'accept-language': 'de' }];
    const tags = [
      ...(await Promise.all(variants.map((h) => etagOf(path, h)))),
      await etagOf(path.replace('/v2/', '/v1/')),
    ];
    expect(new Set(tags).size).toBe(4);
    for (const tag of tags) expect(tag).not.toMatch(/^W\//);
    // The precondition compares with the representation this request would get: XML tag with Accept XML.
    expect(
      (await call('PATCH', path, { 'if-match': tags[0]!, accept: 'application/xml' }, { description: 'a' }))
        .status,
    ).toBe(412);
    const xmlTag = await etagOf(path, { accept: 'application/xml' });
    expect(
      (await call('PATCH', path, { 'if-match': xmlTag, accept: 'application/xml' }, { description: 'b' }))
        .status,
    ).toBe(200);
  });

  it('two clients racing with the same ETag: exactly one wins, the other gets 412', async () => {
    for (let round = 0; round < 5; round += 1) {
      const path = await newProject();
      const etag = await etagOf(path);
      const replies = await Promise.all(
        ['A', 'B', 'C'].map((who) => call('PATCH', path, { 'if-match': etag }, { description: who })),
      );
      expect(replies.map((r) => r.status).sort()).toEqual([200, 412, 412]);
      const winner = replies.find((r) => r.status === 200)!;
      expect((await call('GET', path)).body.description).toBe(winner.body.description);
    }
  });

  it('the store writes only the version that was checked (the WHERE clause, not the handler, decides)', async () => {
    const path = await newProject();
    const id = path.split('/').at(-1)!;
    const repo = new Repository(svc.ctx.db);
    const row = (await repo.getProject(id)) as { state: 'found'; row: { updated_at: string } };
    const data = {
      name: `w-${randomUUID()}`,
      description: null,
      status: 'active' as const,
      budget_amount: null,
      budget_currency: null,
    };
    const first = await repo.updateProject(id, data, {
      previous: row.row.updated_at,
      expected: row.row.updated_at,
    });
    expect((first?.updated_at ?? '') > row.row.updated_at).toBe(true);
    // A second writer that checked the same version finds nothing to change.
    expect(
      await repo.updateProject(
        id,
        { ...data, name: `x-${randomUUID()}` },
        { previous: row.row.updated_at, expected: row.row.updated_at },
      ),
    ).toBeUndefined();
    expect(await repo.deleteProject(id, { previous: row.row.updated_at, expected: row.row.updated_at })).toBe(
      false,
    );
    expect((await repo.getProject(id)).state).toBe('found');
  });
});

describe('REQUIRE_PRECONDITIONS=true', () => {
  let svc: RunningService;
  const call = client(() => svc);
  beforeAll(async () => {
    svc = await startService(backends[0]!, { REQUIRE_PRECONDITIONS: 'true' });
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('writes to an existing member without If-Match get 428; with it they succeed; reads and creates are not affected', async () => {
    const created = await call(
      'POST',
      '/v2/projects',
      { 'idempotency-key': randomUUID() },
      { name: `q-${randomUUID()}` },
    );
    expect(created.status).toBe(201);
    const path = `/v2/projects/${created.body.id}`;
    for (const method of ['PUT', 'PATCH', 'DELETE']) {
      const reply = await call(method, path, {}, method === 'DELETE' ? undefined : { name: 'Q' });
      expect(reply.status).toBe(428);
      expect(reply.headers.get('content-type')).toBe(PROBLEM);
      expect(reply.body).toMatchObject({ status: 428, error_code: 'precondition_required' });
    }
    const got = await call('GET', path);
    expect(got.status).toBe(200);
    const patched = await call(
      'PATCH',
      path,
      { 'if-match': got.headers.get('etag')! },
      { description: 'ok' },
    );
    expect(patched.status).toBe(200);
    const since = new Date(Date.now() + 60_000).toUTCString();
    expect((await call('DELETE', path, { 'if-unmodified-since': since })).status).toBe(204);
  });
});

describe('the OpenAPI document declares conditional requests', () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService(backends[0]!);
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('If-Match / If-None-Match / If-Unmodified-Since, 412 and 428 on every member write; ETag and 304 on member GET', async () => {
    // biome-ignore lint/suspicious/noExplicitAny: the document is read member by member
    const doc: any = await (await fetch(`${svc.url}/openapi.json`)).json();
    const members = Object.keys(doc.paths).filter((p) => /^\/v\d\/.*_id\}$/.test(p));
    expect(members).toHaveLength(12); // projects, project tasks, tasks, comments; v1, v2 and v3
    for (const path of members) {
      for (const method of ['put', 'patch', 'delete']) {
        const op = doc.paths[path][method];
        if (op === undefined) continue;
        expect(op.parameters).toEqual(
          expect.arrayContaining(
            ['IfMatch', 'IfNoneMatch', 'IfUnmodifiedSince'].map((n) => ({
              $ref: `#/components/parameters/${n}`,
            })),
          ),
        );
        expect(op.responses['412']).toEqual({ $ref: '#/components/responses/Error412' });
        expect(op.responses['428']).toEqual({ $ref: '#/components/responses/Error428' });
        if (method !== 'delete')
          expect(op.responses['200'].headers.ETag).toEqual({ $ref: '#/components/headers/ETag' });
      }
      const get = doc.paths[path].get;
      expect(get.responses['200'].headers.ETag).toEqual({ $ref: '#/components/headers/ETag' });
      expect(get.responses['304'].headers.ETag).toEqual({ $ref: '#/components/headers/ETag' });
    }
    expect(doc.components.parameters.IfMatch).toMatchObject({
      name: 'If-Match',
      in: 'header',
      required: false,
    });
    expect(doc.components.responses.Error412.content['application/problem+json']).toBeDefined();
  });
});
