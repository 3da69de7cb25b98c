/**
 * v3 is v2 plus one declared change (domain/versions.ts): `Project.description` is `Project.summary`,
 * in bodies, field errors, `fields=` and the OpenAPI schemas. The handlers know only v3; v2 and v1
 * see and write `description` through the change, and each version accepts only its own name in
 * `fields=`. Without a version the query, header and media-type strategies still serve v2.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchFresh, type RunningService, startService } from './harness.js';

// biome-ignore lint/suspicious/noExplicitAny: replies are checked by the assertions
type Json = Record<string, any>;

interface Reply {
  readonly status: number;
  readonly body: Json;
}

async function send(
  svc: RunningService,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const res = await fetch(`${svc.url}${path}`, {
    method,
    headers: {
      'x-api-key': svc.credentials.apiKeys.readWrite,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(method === 'POST' ? { 'idempotency-key': randomUUID() } : {}),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? {} : (JSON.parse(text) as Json) };
}

/** The field error of a `fields=` entry the version does not name: it lists the version's own fields. */
const notSelectable = (field: string) => ({
  detail: `Field "${field}" cannot be selected; selectable: id, name, ${
    field === 'summary' ? 'description' : 'summary'
  }, status, budget, created_at, updated_at.`,
  error_code: 'field_not_selectable',
  parameter: 'fields',
});

/** A project's members but the server-owned ones. */
const written = (project: Json): Json => {
  const { id: _id, created_at: _created, updated_at: _updated, ...rest } = project;
  return rest;
};

describe('v3 on the path strategy', () => {
  let svc: RunningService;
  let id = '';
  const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    send(svc, method, path, body, headers);
  beforeAll(async () => {
    svc = await startService({ name: 'sqlite + memory', postgres: false, redis: false });
    const created = await call('POST', '/v3/projects', {
      name: 'Orrery v3',
      summary: 'A clockwork planetarium',
      budget: { amount: 1200, currency: 'USD' },
    });
    expect(created.status).toBe(201);
    id = created.body['id'];
    await call('POST', '/v3/projects', { name: 'Astrolabe v3', summary: 'A clockwork astrolabe' });
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('each version reads the same project in its own shape', async () => {
    const replies = await Promise.all(['1', '2', '3'].map((v) => call('GET', `/v${v}/projects/${id}`)));
    expect(replies.map((reply) => [reply.status, written(reply.body)])).toEqual([
      [200, { name: 'Orrery v3', description: 'A clockwork planetarium', status: 'active', budget: 1200 }],
      [
        200,
        {
          name: 'Orrery v3',
          description: 'A clockwork planetarium',
          status: 'active',
          budget: { amount: 1200, currency: 'USD' },
        },
      ],
      [
        200,
        {
          name: 'Orrery v3',
          summary: 'A clockwork planetarium',
          status: 'active',
          budget: { amount: 1200, currency: 'USD' },
        },
      ],
    ]);
  });

  it('a v3 merge patch writes summary, a v2 one description: the same column', async () => {
    const patch = { 'content-type': 'application/merge-patch+json' };
    const v3 = await call('PATCH', `/v3/projects/${id}`, { summary: 'A brass orrery' }, patch);
    expect([v3.status, v3.body['summary'], Object.hasOwn(v3.body, 'description')]).toEqual([
      200,
      'A brass orrery',
      false,
    ]);
    expect((await call('GET', `/v2/projects/${id}`)).body['description']).toBe('A brass orrery');
    const v2 = await call('PATCH', `/v2/projects/${id}`, { description: 'A clockwork planetarium' }, patch);
    expect([v2.status, v2.body['description'], Object.hasOwn(v2.body, 'summary')]).toEqual([
      200,
      'A clockwork planetarium',
      false,
    ]);
    expect((await call('GET', `/v3/projects/${id}`)).body['summary']).toBe('A clockwork planetarium');
  });

  it.each([
    ['/v3/projects/{id}?fields=summary', 200, { summary: 'A clockwork planetarium' }],
    ['/v2/projects/{id}?fields=description', 200, { description: 'A clockwork planetarium' }],
    [
      '/v1/projects/{id}?fields=description,budget',
      200,
      { description: 'A clockwork planetarium', budget: 1200 },
    ],
    ['/v3/projects/{id}?fields=description', 400, 'description'],
    ['/v2/projects/{id}?fields=summary', 400, 'summary'],
    ['/v1/projects/{id}?fields=summary', 400, 'summary'],
  ])('GET %s → %i', async (path, status, expected) => {
    const reply = await call('GET', path.replace('{id}', id));
    expect(reply.status).toBe(status);
    if (status === 200) expect(reply.body).toEqual({ id, ...(expected as Json) });
    else expect(reply.body['errors']).toEqual([notSelectable(expected as string)]);
  });

  it.each([
    [
      'v3 filters, sorts and selects summary',
      '/v3/projects?q=clockwork&sort=name&fields=name,summary',
      [
        { name: 'Astrolabe v3', summary: 'A clockwork astrolabe' },
        { name: 'Orrery v3', summary: 'A clockwork planetarium' },
      ],
    ],
    [
      'v3, a name filter and the descending sort',
      '/v3/projects?name=Orrery%20v3&sort=-name&fields=summary',
      [{ summary: 'A clockwork planetarium' }],
    ],
    [
      'v2 selects and searches description',
      '/v2/projects?q=astrolabe&fields=name,description',
      [{ name: 'Astrolabe v3', description: 'A clockwork astrolabe' }],
    ],
    [
      'v1 the same, with its bare budget',
      '/v1/projects?q=clockwork&sort=-name&fields=description,budget',
      [
        { description: 'A clockwork planetarium', budget: 1200 },
        { description: 'A clockwork astrolabe', budget: null },
      ],
    ],
  ])('%s', async (_name, path, items) => {
    const reply = await call('GET', path);
    expect(reply.status).toBe(200);
    expect(reply.body['data'].map(({ id: _id, ...rest }: Json) => rest)).toEqual(items);
  });

  it.each([
    ['/v3/projects?fields=description', 'description'],
    ['/v2/projects?fields=name,summary', 'summary'],
  ])('GET %s → 400 field_not_selectable', async (path, field) => {
    const reply = await call('GET', path);
    expect([reply.status, reply.body['error_code'], reply.body['errors']]).toEqual([
      400,
      'field_not_selectable',
      [notSelectable(field)],
    ]);
  });

  // Neither name is filterable; the other version's name gets the same answer (README, API versions).
  it.each([
    ['/v3/projects?description=x', 'description'],
    ['/v3/projects?summary=x', 'summary'],
    ['/v2/projects?summary=x', 'summary'],
    ['/v2/projects?description=x', 'description'],
  ])('GET %s → 400 field_not_filterable', async (path, parameter) => {
    const reply = await call('GET', path);
    expect([reply.status, reply.body['error_code'], reply.body['errors'][0]['parameter']]).toEqual([
      400,
      'field_not_filterable',
      parameter,
    ]);
  });

  it('the search body selects each version’s name', async () => {
    const v3 = await call('POST', '/v3/projects/search', { q: 'astrolabe', fields: ['summary'] });
    const v2 = await call('POST', '/v2/projects/search', { q: 'astrolabe', fields: ['description'] });
    expect([v3.status, v3.body['data'][0]['summary'], v2.status, v2.body['data'][0]['description']]).toEqual([
      200,
      'A clockwork astrolabe',
      200,
      'A clockwork astrolabe',
    ]);
  });

  it.each([
    ['v3, too long a summary', '3', { name: 'Long v3', summary: 'x'.repeat(2001) }, '#/summary'],
    ['v2, too long a description', '2', { name: 'Long v2', description: 'x'.repeat(2001) }, '#/description'],
    ['v1, too long a description', '1', { name: 'Long v1', description: 'x'.repeat(2001) }, '#/description'],
  ])('%s: the field error points where the version names it', async (_name, version, body, pointer) => {
    const reply = await call('POST', `/v${version}/projects`, body);
    expect([
      reply.status,
      reply.body['error_code'],
      reply.body['errors'].map((e: Json) => e['pointer']),
    ]).toEqual([400, 'validation_failed', [pointer]]);
  });

  it.each([
    [
      'v3 does not take v2’s description',
      '3',
      { name: 'Unknown 3', description: 'old name' },
      ['#/description'],
    ],
    ['v2 does not take v3’s summary', '2', { name: 'Unknown 2', summary: 'new name' }, ['#/summary']],
    ['v1 does not take v3’s summary', '1', { name: 'Unknown 1', summary: 'new name' }, ['#/summary']],
    [
      'v2 with both names: summary is the unknown one',
      '2',
      { name: 'Unknown both', description: 'old name', summary: 'new name' },
      ['#/summary'],
    ],
  ])('%s: 400, the member is not part of the resource', async (_name, version, body, pointers) => {
    const reply = await call('POST', `/v${version}/projects`, body);
    expect([reply.status, reply.body['error_code'], reply.body['errors']]).toEqual([
      400,
      'validation_failed',
      pointers.map((pointer) => ({
        pointer,
        error_code: 'invalid_value',
        detail: 'This field is not part of the resource.',
      })),
    ]);
    // The name the member is carried under on its way up (fieldRenamed) never reaches the client.
    expect(JSON.stringify(reply.body)).not.toContain('\\u0000');
  });

  it('/openapi.json?version=3 carries ProjectV3 and ProjectInputV3 with summary; v2’s keep description', async () => {
    const v3 = (await (await fetchFresh(`${svc.url}/openapi.json?version=3`)).json()) as Json;
    const v2 = (await (await fetchFresh(`${svc.url}/openapi.json?version=2`)).json()) as Json;
    const names = (document: Json, schema: string) =>
      Object.keys(document['components']['schemas'][schema]['properties']);
    expect({
      ProjectV3: names(v3, 'ProjectV3'),
      ProjectInputV3: names(v3, 'ProjectInputV3'),
      ProjectV2: names(v2, 'ProjectV2'),
      ProjectInputV2: names(v2, 'ProjectInputV2'),
    }).toEqual({
      ProjectV3: ['id', 'name', 'summary', 'status', 'budget', 'created_at', 'updated_at'],
      ProjectInputV3: ['id', 'created_at', 'updated_at', 'name', 'summary', 'status', 'budget'],
      ProjectV2: ['id', 'name', 'description', 'status', 'budget', 'created_at', 'updated_at'],
      ProjectInputV2: ['id', 'created_at', 'updated_at', 'name', 'description', 'status', 'budget'],
    });
    const query = (document: Json, path: string) => {
      const parameters = document['paths'][path]['get']['parameters'] as Json[];
      return {
        fields: parameters.find((p) => p['name'] === 'fields')?.['schema']['items']['enum'],
        q: parameters.find((p) => p['name'] === 'q')?.['description'],
      };
    };
    expect([query(v3, '/v3/projects'), query(v2, '/v2/projects')]).toEqual([
      {
        fields: ['id', 'name', 'summary', 'status', 'budget', 'created_at', 'updated_at'],
        q: 'Literal, case-insensitive search in name, summary.',
      },
      {
        fields: ['id', 'name', 'description', 'status', 'budget', 'created_at', 'updated_at'],
        q: 'Literal, case-insensitive search in name, description.',
      },
    ]);
    expect(v3['paths']['/v3/projects/{project_id}']['get']['deprecated']).toBeUndefined();
  });

  it('the changelog lists v3’s change first', async () => {
    const res = await fetch(`${svc.url}/changelog`, { headers: { accept: 'application/json' } });
    const body = (await res.json()) as Json;
    expect(
      body['data'].map((entry: Json) => [entry['version'], entry['changes'].map((c: Json) => c['kind'])]),
    ).toEqual([
      ['3', ['field-renamed']],
      ['2', ['custom']],
      ['1', []],
    ]);
  });
});

describe.each(['query', 'header', 'media-type'])('VERSIONING_STRATEGY=%s: v3 is opt-in', (strategy) => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService(
      { name: 'sqlite + memory', postgres: false, redis: false },
      { VERSIONING_STRATEGY: strategy },
    );
  });
  afterAll(async () => {
    await svc?.stop();
  });

  const asVersion = (version: string | undefined): { path: string; headers: Record<string, string> } => {
    if (version === undefined) return { path: '/projects', headers: {} };
    if (strategy === 'query') return { path: `/projects?version=${version}`, headers: {} };
    if (strategy === 'header') return { path: '/projects', headers: { 'x-api-version': version } };
    return { path: '/projects', headers: { accept: `application/vnd.plumbline.v${version}+json` } };
  };

  it('no version serves v2 (description); version 3 serves summary', async () => {
    const create = asVersion('3');
    const created = await send(
      svc,
      'POST',
      create.path,
      { name: `Default ${strategy}`, summary: 'Opt in' },
      create.headers,
    );
    expect([created.status, created.body['summary']]).toEqual([201, 'Opt in']);
    const read = async (version: string | undefined) => {
      const target = asVersion(version);
      const path = target.path.replace('/projects', `/projects/${created.body['id']}`);
      const reply = await send(svc, 'GET', path, undefined, target.headers);
      return [reply.status, reply.body['description'], reply.body['summary']];
    };
    expect([await read(undefined), await read('2'), await read('3')]).toEqual([
      [200, 'Opt in', undefined],
      [200, 'Opt in', undefined],
      [200, undefined, 'Opt in'],
    ]);
  });
});
