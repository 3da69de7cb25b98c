/**
 * One OpenAPI document per API version (`/openapi.json?version=<N>`, openapi/versions.ts): valid
 * OpenAPI 3.1, the version's operations and the version-neutral ones, v1's budget generated from
 * v2's through the declared change; and `plumbline-conformance diff` finds no unexcused breaking
 * change from v1's document to v2's: the budget change is excused as a new API version, v1's paths
 * as deprecated with Deprecation and Sunset headers.
 */
import { runCli } from '@plumbline/conformance';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchFresh, type RunningService, startService } from './harness.js';

// biome-ignore lint/suspicious/noExplicitAny: documents are checked by the assertions
type Json = Record<string, any>;

const API_PATHS = [
  '/projects',
  '/projects/search',
  '/projects/{project_id}',
  '/projects/{project_id}/tasks',
  '/projects/{project_id}/tasks/search',
  '/projects/{project_id}/tasks/{task_id}',
  '/tasks',
  '/tasks/search',
  '/tasks/{task_id}',
  '/tasks/{task_id}/comments',
  '/tasks/{task_id}/comments/{comment_id}',
];

describe('per-version OpenAPI documents (path strategy)', () => {
  let svc: RunningService;
  let all: Json;
  const get = async (query: string) => fetchFresh(`${svc.url}/openapi.json${query}`);
  beforeAll(async () => {
    svc = await startService({ name: 'sqlite + memory', postgres: false, redis: false });
    all = (await (await get('')).json()) as Json;
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it.each([
    ['1', true],
    ['2', false],
  ])(
    '?version=%s: valid OpenAPI 3.1 with that version’s operations and the neutral ones',
    async (version, deprecated) => {
      const res = await get(`?version=${version}`);
      expect([res.status, res.headers.get('content-type')]).toEqual([200, 'application/json; charset=utf-8']);
      const document = (await res.json()) as Json;
      const result = await new Validator().validate(document);
      expect(result.errors ?? []).toEqual([]);
      expect(document['info']['title']).toBe(`Plumbline reference service, API version ${version}`);
      const neutral = Object.keys(all['paths']).filter((path) => !/^\/v\d+\//.test(path));
      expect(Object.keys(document['paths'])).toEqual([
        ...API_PATHS.map((path) => `/v${version}${path}`),
        ...neutral,
      ]);
      expect(document['paths'][`/v${version}/projects`]['get']['deprecated']).toBe(deprecated || undefined);
      // Everything else is the full document's, operation for operation.
      for (const path of Object.keys(document['paths']))
        expect(document['paths'][path]).toEqual(all['paths'][path]);
    },
  );

  it("v1's budget is v2's amount, generated through the declared change", async () => {
    const v1 = (await (await get('?version=1')).json()) as Json;
    const v2 = (await (await get('?version=2')).json()) as Json;
    expect(v1['components']['schemas']['ProjectV1']['properties']['budget']).toEqual({
      anyOf: [{ type: 'number', minimum: 0, maximum: 1_000_000_000_000 }, { type: 'null' }],
    });
    expect(
      v2['components']['schemas']['ProjectV2']['properties']['budget']['anyOf'][0]['properties']['amount'],
    ).toEqual({
      type: 'number',
      minimum: 0,
      maximum: 1_000_000_000_000,
    });
  });

  it.each([
    ['?version=4', 'API version "4" is not supported; supported: 1, 2, 3.'],
    ['?version=v1', 'API version "v1" is not supported; supported: 1, 2, 3.'],
    ['?version=1&version=2', 'API version "1,2" is not supported; supported: 1, 2, 3.'],
  ])('%s → 400 unsupported_api_version', async (query, detail) => {
    const res = await get(query);
    expect([res.status, res.headers.get('content-type')]).toEqual([
      400,
      'application/problem+json; charset=utf-8',
    ]);
    const problem = (await res.json()) as Json;
    expect([problem['error_code'], problem['detail']]).toEqual(['unsupported_api_version', detail]);
  });

  it('the full document declares the version parameter of /openapi.json', () => {
    expect(all['paths']['/openapi.json']['get']['parameters']).toEqual([
      expect.objectContaining({
        name: 'version',
        in: 'query',
        required: false,
        schema: { type: 'string', enum: ['1', '2', '3'] },
      }),
    ]);
  });

  it('conformance diff v1 → v2: no unexcused breaking change (exit 0)', async () => {
    const output: string[] = [];
    const io = { stdout: (text: string) => output.push(text), stderr: (text: string) => output.push(text) };
    const [old, current] = [`${svc.url}/openapi.json?version=1`, `${svc.url}/openapi.json?version=2`];
    expect(await runCli(['diff', old, current], io)).toBe(0);
    expect(output.join('').split('\n')[0]).toBe(
      `plumbline-conformance diff ${old} ${current}: 0 breaking, 25 excused, 13 info OK`,
    );
    output.length = 0;
    expect(await runCli(['diff', old, current, '--format', 'json'], io)).toBe(0);
    const changes = (JSON.parse(output.join('')) as { changes: Json[] }).changes;
    expect(changes.filter((change) => change['level'] === 'error')).toEqual([]);
    const excused = changes.filter((change) => change['level'] === 'warning');
    // v1's paths went, announced by their Deprecation and Sunset headers.
    expect(
      excused.filter((change) => change['kind'] === 'path-removed').map((change) => change['location']),
    ).toEqual(API_PATHS.map((path) => `paths./v1${path}`));
    // The budget change, excused as a new API version: every body that carries a project.
    const budget = excused.filter((change) => change['kind'] === 'type-changed');
    expect(budget.map((change) => change['message'])).toEqual(
      Array(14).fill('type changed from number|null to object|null'),
    );
    expect(budget.every((change) => /\.budget$/.test(change['location']))).toBe(true);
    expect(budget.every((change) => String(change['excuse']).startsWith('new API version v2'))).toBe(true);
  });
});

// The other strategies: the same operations at the unprefixed paths, the version carried their way.
describe.each([
  ['query', { name: 'version', in: 'query', required: true }],
  ['header', { name: 'X-API-Version', in: 'header', required: true }],
  ['media-type', undefined],
] as const)('per-version OpenAPI documents under VERSIONING_STRATEGY=%s', (strategy, parameter) => {
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

  it.each(['1', '2'])('?version=%s', async (version) => {
    const res = await fetchFresh(`${svc.url}/openapi.json?version=${version}`);
    expect(res.status).toBe(200);
    const document = (await res.json()) as Json;
    expect((await new Validator().validate(document)).errors ?? []).toEqual([]);
    expect(Object.keys(document['paths']).filter((path) => API_PATHS.includes(path))).toEqual(API_PATHS);
    expect(Object.keys(document['paths']).filter((path) => /^\/v\d+\//.test(path))).toEqual([]);
    const list = document['paths']['/projects']['get'];
    expect(list['operationId']).toBe('list_projects');
    if (parameter === undefined) {
      expect(Object.keys(list['responses']['200']['content'])).toEqual(
        version === '2'
          ? [
              'application/json',
              'application/vnd.plumbline.v2+json',
              'application/xml',
              'application/vnd.plumbline.v2+xml',
            ]
          : ['application/vnd.plumbline.v1+json', 'application/vnd.plumbline.v1+xml'],
      );
    } else {
      expect(list['parameters'].at(-1)).toEqual({
        ...parameter,
        description: `The API version this document describes (${version}).`,
        schema: { type: 'string', enum: [version] },
      });
    }
  });

  it('the lifecycle headers: the query strategy reads ?version=1 as a v1 request, the others only pick the document', async () => {
    const res = await fetchFresh(`${svc.url}/openapi.json?version=1`);
    const lifecycle = {
      deprecation: res.headers.get('deprecation'),
      sunset: res.headers.get('sunset'),
    };
    expect(lifecycle).toEqual(
      strategy === 'query'
        ? { deprecation: '@1780272000', sunset: 'Wed, 30 Jun 2027 00:00:00 GMT' }
        : { deprecation: null, sunset: null },
    );
  });
});
