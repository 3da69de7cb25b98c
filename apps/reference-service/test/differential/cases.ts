/**
 * The differential suite's request table: exact request bytes, generated per versioning strategy
 * from the strategy's own `/openapi.json` (every operation with valid and invalid input) plus
 * hand-written shapes (odd paths, encodings, duplicate headers, auth variants, idempotency,
 * preconditions, request smuggling, pipelining). Values that differ per service (credentials,
 * created ids, ETags, cursors) are `{{name}}` placeholders filled in per service when sent, and
 * captured from earlier answers where the table says so.
 */
import { gzipSync } from 'node:zlib';
import type { VersioningStrategy } from '../../src/service/config.js';

/** Where a captured value comes from in a response. */
type Capture =
  | { readonly name: string; readonly from: 'location' }
  | { readonly name: string; readonly from: 'etag' }
  | { readonly name: string; readonly from: 'json'; readonly key: string }
  | { readonly name: string; readonly from: 'next' }
  | { readonly name: string; readonly from: 'cookie' };

export interface Case {
  /** Unique across the whole table: `<strategy> <label>`. */
  readonly id: string;
  readonly strategy: VersioningStrategy;
  /** The OpenAPI operation the case exercises (`GET /v2/projects`), if any. */
  readonly operation?: string;
  /** The request methods in order, one per request on the connection (for reading the answers). */
  readonly methods: readonly string[];
  /** The bytes to send; `{{name}}` placeholders are filled in per service. */
  readonly bytes: string | Buffer;
  readonly capture?: readonly Capture[];
  /** How to compare the body: `metrics` compares series names and labels, not values. */
  readonly body?: 'metrics';
}

type Headers = readonly (readonly [string, string])[];

/** A request for the table: serialised with `Host`, `Content-Length` (when a body is sent) and `Connection: close`. */
interface Request {
  readonly method: string;
  readonly target: string;
  readonly headers?: Headers;
  readonly body?: string | Buffer;
  /** Leave out `Content-Length` (the headers frame the body themselves). */
  readonly noLength?: boolean;
}

const HOST = 'api.test';

function serialise(request: Request): string | Buffer {
  const lines = [`${request.method} ${request.target} HTTP/1.1`, `Host: ${HOST}`];
  for (const [name, value] of request.headers ?? []) lines.push(`${name}: ${value}`);
  if (request.body !== undefined && !request.noLength)
    lines.push(`Content-Length: ${Buffer.byteLength(request.body)}`);
  lines.push('Connection: close', '', '');
  const head = lines.join('\r\n');
  if (request.body === undefined) return head;
  return typeof request.body === 'string'
    ? head + request.body
    : Buffer.concat([Buffer.from(head), request.body]);
}

/** The strategy's way of asking for `version` of `path` (`/projects/{{p1}}`, query string included). */
function versioned(
  strategy: VersioningStrategy,
  version: number,
  path: string,
  headers: Headers = [],
): { target: string; headers: Headers } {
  switch (strategy) {
    case 'path':
      return { target: `/v${version}${path}`, headers };
    case 'query':
      return { target: `${path}${path.includes('?') ? '&' : '?'}version=${version}`, headers };
    case 'header':
      return { target: path, headers: [['X-API-Version', String(version)], ...headers] };
    case 'media-type':
      return headers.some(([name]) => name.toLowerCase() === 'accept')
        ? { target: path, headers }
        : { target: path, headers: [['Accept', `application/vnd.plumbline.v${version}+json`], ...headers] };
  }
}

const KEY: Headers = [['X-API-Key', '{{rw}}']];
const RO: Headers = [['X-API-Key', '{{ro}}']];
const BEARER: Headers = [['Authorization', 'Bearer {{tok}}']];
const JSON_TYPE: Headers = [['Content-Type', 'application/json']];

/** A valid body per resource, per version (v2's budget is money, v1's a number; v3 names description summary). */
function validBody(resource: string, version: number, label: string): string | undefined {
  switch (resource) {
    case 'projects':
      return JSON.stringify({
        name: `Differential ${label}`,
        [version >= 3 ? 'summary' : 'description']: 'made by the differential suite',
        budget: version >= 2 ? { amount: 1200, currency: 'EUR' } : 1200,
      });
    case 'tasks':
      return JSON.stringify({ title: `Task ${label}`, priority: 2, due_date: '2027-01-15' });
    case 'comments':
      return JSON.stringify({ body: `Comment ${label}` });
    case 'search':
      return JSON.stringify({ filter: { status: 'active' }, sort: '-created_at' });
    default:
      return undefined;
  }
}

/** What a path template's resource is: the last named collection in it. */
function resourceOf(template: string): string {
  const parts = template.split('/').filter((part) => part !== '' && !part.startsWith('{'));
  return parts.at(-1) ?? '';
}

function fill(template: string): string {
  return template
    .replaceAll('{project_id}', '{{p1}}')
    .replaceAll('{task_id}', '{{t1}}')
    .replaceAll('{comment_id}', '{{c1}}')
    .replaceAll('{file}', 'swagger-ui.css')
    .replaceAll('{error_code}', 'not_found');
}

type Json = Record<string, unknown>;

/** An operation of the strategy's document. */
interface Operation {
  readonly method: string;
  readonly template: string;
  readonly secured: boolean;
  readonly hasBody: boolean;
  readonly bodyTypes: readonly string[];
  readonly requiresKey: boolean;
}

/** Every operation in `document`, in document order. */
function operations(document: Json): Operation[] {
  const list: Operation[] = [];
  const root = document as { paths: Record<string, Record<string, Json>>; security?: unknown[] };
  for (const [template, item] of Object.entries(root.paths)) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) {
      const op = item[method];
      if (!op) continue;
      const security = (op['security'] ?? root.security ?? []) as Json[];
      const content = ((op['requestBody'] as Json | undefined)?.['content'] ?? {}) as Json;
      const parameters = [
        ...((item['parameters'] as Json[] | undefined) ?? []),
        ...((op['parameters'] as Json[] | undefined) ?? []),
      ];
      list.push({
        method: method.toUpperCase(),
        template,
        secured: security.some((entry) => Object.keys(entry).length > 0),
        hasBody: Object.keys(content).length > 0,
        bodyTypes: Object.keys(content),
        requiresKey: parameters.some(
          (p) =>
            ((p['$ref'] as string | undefined)?.endsWith('/IdempotencyKey') ?? false) ||
            (String(p['name']).toLowerCase() === 'idempotency-key' && p['required'] === true),
        ),
      });
    }
  }
  return list;
}

class Table {
  readonly cases: Case[] = [];
  private readonly ids = new Set<string>();
  constructor(readonly strategy: VersioningStrategy) {}

  add(
    label: string,
    request: Request,
    extra: Partial<Pick<Case, 'capture' | 'body' | 'operation'>> = {},
  ): void {
    // Metrics bodies hold timings and counters of the process: their series are compared.
    const metrics = /^\/metrics/i.test(request.target) ? ({ body: 'metrics' } as const) : {};
    this.raw(label, [request.method], serialise(request), { ...metrics, ...extra });
  }

  raw(
    label: string,
    methods: readonly string[],
    bytes: string | Buffer,
    extra: Partial<Pick<Case, 'capture' | 'body' | 'operation'>> = {},
  ): void {
    const id = `${this.strategy} ${label}`;
    if (this.ids.has(id)) throw new Error(`duplicate case ${id}`);
    this.ids.add(id);
    this.cases.push({ id, strategy: this.strategy, methods, bytes, ...extra });
  }

  /** A request to `path` as `version` under this strategy. */
  api(
    label: string,
    method: string,
    version: number,
    path: string,
    headers: Headers = [],
    body?: string | Buffer,
    extra: Partial<Pick<Case, 'capture' | 'operation'>> & { noLength?: boolean } = {},
  ): void {
    const { noLength, ...rest } = extra;
    const at = versioned(this.strategy, version, path, headers);
    this.add(
      label,
      {
        method,
        target: at.target,
        headers: at.headers,
        ...(body === undefined ? {} : { body }),
        ...(noLength ? { noLength } : {}),
      },
      rest,
    );
  }
}

/** `/v2/projects/{project_id}` → version 2 and `/projects/{project_id}` (path strategy); others as they are. */
function splitVersion(
  strategy: VersioningStrategy,
  template: string,
): { version: number; path: string } | undefined {
  if (strategy === 'path') {
    const match = /^\/v(\d+)(\/.*)$/.exec(template);
    return match ? { version: Number(match[1]), path: match[2]! } : undefined;
  }
  return undefined;
}

/** The fixtures every strategy's cases use: a token, a project, a task, a comment, a deleted project. */
function fixtures(t: Table): void {
  const form = (body: string, basic: string): Request => ({
    method: 'POST',
    target: '/oauth/token',
    headers: [
      ['Authorization', `Basic {{${basic}}}`],
      ['Content-Type', 'application/x-www-form-urlencoded'],
    ],
    body,
  });
  t.add(
    'fixture: token (all scopes)',
    form(
      'grant_type=client_credentials&scope=read%3Aprojects+write%3Aprojects+read%3Atasks+write%3Atasks+read%3Acomments+write%3Acomments',
      'basic:rw',
    ),
    { capture: [{ name: 'tok', from: 'json', key: 'access_token' }] },
  );
  t.add('fixture: read-only token', form('grant_type=client_credentials&scope=read%3Aprojects', 'basic:ro'), {
    capture: [{ name: 'tok:ro', from: 'json', key: 'access_token' }],
  });
  const create = (label: string, path: string, body: string, name: string) =>
    t.api(label, 'POST', 2, path, [...KEY, ...JSON_TYPE, ['Idempotency-Key', `fixture-${name}`]], body, {
      capture: [
        { name, from: 'location' },
        { name: `etag:${name}`, from: 'etag' },
      ],
    });
  create('fixture: project', '/projects', validBody('projects', 2, 'fixture')!, 'p1');
  create('fixture: task', '/projects/{{p1}}/tasks', validBody('tasks', 2, 'fixture')!, 't1');
  create('fixture: comment', '/tasks/{{t1}}/comments', validBody('comments', 2, 'fixture')!, 'c1');
  create('fixture: project to delete', '/projects', validBody('projects', 2, 'deleted')!, 'p2');
  t.api('fixture: delete it', 'DELETE', 2, '/projects/{{p2}}', KEY);
  t.api(
    'fixture: a second task',
    'POST',
    2,
    '/projects/{{p1}}/tasks',
    [...KEY, ...JSON_TYPE],
    validBody('tasks', 2, 'second'),
  );
}

/** Cases generated from one operation of the document. */
function operationCases(t: Table, op: Operation, version: number, path: string): void {
  const name = `${op.method} ${op.template}`;
  const resource = resourceOf(op.template);
  const filled = fill(path);
  const creates =
    op.method === 'POST' && !op.template.endsWith('/search') && !op.template.startsWith('/oauth');
  const mutates = op.method === 'PUT' || op.method === 'PATCH' || op.method === 'DELETE';
  // Mutations of the fixtures come at the end of the table (see tail()); here they target ids that
  // do not exist or are gone, or are refused before they apply.
  const safePath = mutates ? filled.replace('{{p1}}', '{{p2}}') : filled;
  const body = op.hasBody
    ? validBody(op.template.endsWith('/search') ? 'search' : resource, version, name)
    : undefined;
  const type: Headers = op.hasBody
    ? [['Content-Type', op.method === 'PATCH' ? 'application/merge-patch+json' : 'application/json']]
    : [];
  const key = (suffix: string): Headers =>
    op.requiresKey || creates ? [['Idempotency-Key', `${name}:${suffix}`.replace(/[^\x21-\x7e]/g, '_')]] : [];
  const extra = { operation: name };
  const send = (
    label: string,
    headers: Headers,
    payload: string | Buffer | undefined = body,
    target = safePath,
  ) => t.api(`${name}: ${label}`, op.method, version, target, headers, payload, extra);

  if (!op.secured) {
    // Version-neutral routes (no credentials, no version): a plain request and the negotiation variants.
    if (t.strategy !== 'path') return;
    const plain = (label: string, method: string, headers: Headers = [], target = filled, payload = body) =>
      t.add(
        `${name}: ${label}`,
        {
          method,
          target,
          headers: [...headers, ...type],
          ...(payload === undefined ? {} : { body: payload }),
        },
        extra,
      );
    plain('plain', op.method);
    plain('Accept: application/xml', op.method, [['Accept', 'application/xml']]);
    plain('Accept: text/html', op.method, [['Accept', 'text/html']]);
    plain('Accept: text/csv', op.method, [['Accept', 'text/csv']]);
    plain('Accept-Language: de', op.method, [['Accept-Language', 'de']]);
    if (op.method === 'GET') {
      plain('HEAD', 'HEAD');
      plain('trailing slash', 'GET', [], slashed(filled));
      plain('upper case', 'GET', [], upper(filled));
      plain('If-None-Match *', 'GET', [['If-None-Match', '*']]);
      // What fetch sends when it revalidates.
      plain('If-None-Match * and no-cache', 'GET', [
        ['If-None-Match', '*'],
        ['Cache-Control', 'no-cache'],
        ['Pragma', 'no-cache'],
      ]);
    }
    plain('OPTIONS', 'OPTIONS', [], filled, undefined);
    plain('PROPFIND', 'PROPFIND', [], filled, undefined);
    plain(
      op.method === 'DELETE' ? 'PATCH' : 'DELETE',
      op.method === 'DELETE' ? 'PATCH' : 'DELETE',
      [],
      filled,
      undefined,
    );
    return;
  }

  // Authorised and valid (mutations on the gone project: 410, or on its tasks).
  send('API key', [...KEY, ...type, ...key('ok')]);
  if (op.method === 'GET') {
    send('bearer token', BEARER);
    send('read-only bearer token', [['Authorization', 'Bearer {{tok:ro}}']]);
    send('Accept: application/xml', [...KEY, ['Accept', 'application/xml']]);
    send('Accept: text/csv', [...KEY, ['Accept', 'text/csv']]);
    send('Accept: */*;q=0', [...KEY, ['Accept', '*/*;q=0']]);
    send('Accept-Language: de', [...KEY, ['Accept-Language', 'de']]);
    send('Accept-Language: fr, en;q=0.1', [...KEY, ['Accept-Language', 'fr, en;q=0.1']]);
    send('fields=id', [...KEY], undefined, `${filled}${filled.includes('?') ? '&' : '?'}fields=id`);
    send('fields=nope', [...KEY], undefined, `${filled}?fields=nope`);
    const at = versioned(t.strategy, version, filled, KEY);
    t.add(`${name}: HEAD`, { method: 'HEAD', target: at.target, headers: at.headers }, extra);
  }
  // Without credentials, with bad ones, with read-only ones.
  send('no credentials', [...type, ...key('anon')]);
  send('unknown API key', [['X-API-Key', 'pk_nope'], ...type, ...key('bad-key')]);
  send('malformed bearer', [['Authorization', 'Bearer not.a.jwt'], ...type, ...key('bad-bearer')]);
  send('alg none token', [['Authorization', `Bearer ${NONE_TOKEN}`], ...type, ...key('none')]);
  send('Basic credentials', [['Authorization', 'Basic {{basic:rw}}'], ...type, ...key('basic')]);
  send('lower-case bearer scheme', [['Authorization', 'bearer {{tok}}'], ...type, ...key('lower')]);
  send('two X-API-Key lines', [...KEY, ...RO, ...type, ...key('two-keys')]);
  send('API key and bearer', [...KEY, ...BEARER, ...type, ...key('both')]);
  if (op.method !== 'GET') send('read-only API key', [...RO, ...type, ...key('ro')]);
  // Methods and paths around the operation.
  send('OPTIONS', [...KEY]);
  const at = versioned(t.strategy, version, filled, KEY);
  t.add(`${name}: PROPFIND`, { method: 'PROPFIND', target: at.target, headers: at.headers }, extra);
  t.add(
    `${name}: lower-case method`,
    { method: op.method.toLowerCase(), target: at.target, headers: at.headers },
    extra,
  );
  t.add(
    `${name}: trailing slash`,
    {
      method: op.method,
      target: slashed(at.target),
      headers: [...at.headers, ...type, ...key('slash')],
      ...(body ? { body } : {}),
    },
    extra,
  );
  t.add(
    `${name}: upper-case path`,
    {
      method: op.method,
      target: upper(at.target),
      headers: [...at.headers, ...type, ...key('upper')],
      ...(body ? { body } : {}),
    },
    extra,
  );
  t.add(
    `${name}: doubled slash`,
    {
      method: op.method,
      target: at.target.replace(/\/([^/?]+)(\?|$)/, '//$1$2'),
      headers: [...at.headers, ...type, ...key('double')],
      ...(body ? { body } : {}),
    },
    extra,
  );
  if (op.template.includes('{')) {
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const [label, value] of [
      ['unknown id', unknown],
      ['malformed id', 'not-an-id'],
      ['id %ZZ', '%ZZ'],
      ['id %2e%2e', '%2e%2e'],
      ['id with encoded slash', 'a%2Fb'],
      ['id <script>', '%3Cscript%3Ealert(1)%3C%2Fscript%3E'],
      ['id with umlaut', '%C3%BC'],
      ['id *', '*'],
    ] as const) {
      const lastId = /\{\{(p1|t1|c1)\}\}(?!.*\{\{)/.exec(filled)?.[1] ?? 'p1';
      send(label, [...KEY, ...type, ...key(label)], body, filled.replace(`{{${lastId}}}`, value));
    }
  }
  if (op.hasBody) {
    const bodyCases: [string, Headers, string | Buffer][] = [
      ['text/plain body', [['Content-Type', 'text/plain']], body ?? ''],
      ['no Content-Type', [], body ?? ''],
      ['invalid JSON', type, '{"name": '],
      ['empty body', type, ''],
      ['JSON null', type, 'null'],
      ['JSON array', type, '[]'],
      ['JSON string', type, '"x"'],
      ['unknown field', type, JSON.stringify({ ...JSON.parse(body ?? '{}'), colour: 'red' })],
      [
        'wrong types',
        type,
        JSON.stringify({ name: 7, title: false, body: [], filter: 'x', budget: 'lots', priority: 'high' }),
      ],
      ['UTF-8 BOM', type, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(body ?? '{}')])],
      ['gzip', [...type, ['Content-Encoding', 'gzip']], gzipSync(body ?? '{}')],
      ['Content-Encoding: bogus', [...type, ['Content-Encoding', 'bogus']], body ?? '{}'],
      ['Content-Encoding: identity', [...type, ['Content-Encoding', 'identity']], body ?? '{}'],
      ['two Content-Type lines', [...type, ['Content-Type', 'application/json']], body ?? '{}'],
      ['charset=latin1', [['Content-Type', 'application/json; charset=latin1']], body ?? '{}'],
      ['charset=utf-8', [['Content-Type', 'application/json; charset=utf-8']], body ?? '{}'],
      ['application/merge-patch+json', [['Content-Type', 'application/merge-patch+json']], body ?? '{}'],
      ['form body', [['Content-Type', 'application/x-www-form-urlencoded']], 'name=x'],
      ['duplicate JSON key', type, '{"name":"a","name":"b","title":"abc","body":"x"}'],
      ['deep nesting', type, `${'['.repeat(200)}${']'.repeat(200)}`],
      ['lone surrogate', type, '{"name":"\\ud800","title":"\\ud800x","body":"\\ud800"}'],
      ['huge number', type, '{"name":"n","budget":1e400,"priority":1e400}'],
    ];
    for (const [label, headers, payload] of bodyCases)
      send(label, [...KEY, ...headers, ...key(label)], payload, mutates ? filled : safePath);
  }
}

/** An access token signed with `alg: none` (RFC 7519 6.1): it must never be accepted. */
const NONE_TOKEN = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(
  '{"sub":"x","scope":"read:projects write:projects read:tasks","iss":"plumbline-reference","aud":"plumbline-api","exp":4102444800}',
).toString('base64url')}.`;

function slashed(target: string): string {
  const mark = target.indexOf('?');
  return mark < 0 ? `${target}/` : `${target.slice(0, mark)}/${target.slice(mark)}`;
}

/** Upper-cases the path's literal segments (`/v2/projects/{{p1}}` → `/V2/PROJECTS/{{p1}}`). */
function upper(target: string): string {
  const mark = target.indexOf('?');
  const path = mark < 0 ? target : target.slice(0, mark);
  return (
    path.replace(
      /(^|\/)([a-z0-9]+)(?=\/|$)/g,
      (_m, slash: string, part: string) => slash + part.toUpperCase(),
    ) + (mark < 0 ? '' : target.slice(mark))
  );
}

/** Collections: filters, sorting, paging, fields, search bodies. */
function collectionCases(t: Table): void {
  const list = (label: string, path: string, query: string, headers: Headers = KEY, capture?: Capture[]) =>
    t.api(
      `collection ${path}?${query}: ${label}`,
      'GET',
      2,
      `${path}?${query}`,
      headers,
      undefined,
      capture ? { capture } : {},
    );
  for (const [label, query] of [
    ['limit=1', 'limit=1'],
    ['limit=0', 'limit=0'],
    ['limit=101', 'limit=101'],
    ['limit=abc', 'limit=abc'],
    ['limit=1.5', 'limit=1.5'],
    ['limit=-1', 'limit=-1'],
    ['limit twice', 'limit=1&limit=2'],
    ['offset=1', 'offset=1&limit=1'],
    ['offset=-1', 'offset=-1'],
    ['page and size', 'page=2&size=1'],
    ['page=0', 'page=0'],
    ['offset with page', 'offset=1&page=1'],
    ['cursor garbage', 'cursor=garbage'],
    ['cursor empty', 'cursor='],
    ['sort=-name', 'sort=-name'],
    ['sort=name,-created_at', 'sort=name,-created_at'],
    ['sort unknown', 'sort=colour'],
    ['sort twice', 'sort=name&sort=-name'],
    ['status=active', 'status=active'],
    ['status=bogus', 'status=bogus'],
    ['status[in]', 'status[in]=active,archived'],
    ['status[ne]', 'status[ne]=archived'],
    ['status[gt]', 'status[gt]=active'],
    ['budget[gte]=100', 'budget[gte]=100'],
    ['budget[gte]=abc', 'budget[gte]=abc'],
    ['created_at[gte]', 'created_at[gte]=2020-01-01T00:00:00Z'],
    ['created_at[gte] bad', 'created_at[gte]=yesterday'],
    ['name twice', 'name=a&name=b'],
    ['unknown filter', 'colour=red'],
    ['q', 'q=differential'],
    ['q empty', 'q='],
    ['fields=name,id', 'fields=name,id'],
    ['fields empty', 'fields='],
    ['encoded brackets', 'status%5Bne%5D=archived'],
    ['plus in value', 'name=a+b'],
    ['percent garbage', 'name=%ZZ'],
    ['long value', `name=${'x'.repeat(3000)}`],
    ['many parameters', Array.from({ length: 60 }, (_, i) => `a${i}=1`).join('&')],
    ['semicolon separator', 'limit=1;offset=1'],
    ['empty parameter names', '&&=&limit=1'],
  ] as const)
    list(label, '/projects', query);
  list('Prefer count', '/projects', 'limit=1', [...KEY, ['Prefer', 'count=exact']]);
  list('Prefer unknown', '/projects', 'limit=1', [...KEY, ['Prefer', 'respond-async']]);
  list('first page', '/tasks', 'limit=1', KEY, [{ name: 'next', from: 'next' }]);
  t.add(
    'collection: follow next link',
    { method: 'GET', target: '{{next}}', headers: versioned(t.strategy, 2, '/x', KEY).headers },
    {},
  );
  for (const [label, query] of [
    ['priority[gte]', 'priority[gte]=2'],
    ['priority=9', 'priority=9'],
    ['due_date', 'due_date=2027-01-15'],
    ['due_date bad', 'due_date=2027-13-45'],
    ['project_id[in]', 'project_id[in]={{p1}},{{p2}}'],
    ['project_id bad', 'project_id=nope'],
    ['sort=-priority,title', 'sort=-priority,title'],
  ] as const)
    list(label, '/tasks', query);
  list('comments by author', '/tasks/{{t1}}/comments', 'author=x');
  const search = (
    label: string,
    path: string,
    body: string | Buffer,
    headers: Headers = [...KEY, ...JSON_TYPE],
  ) => t.api(`search ${path}: ${label}`, 'POST', 2, path, headers, body);
  for (const [label, body] of [
    ['valid', '{"filter":{"status":"active"},"sort":"-created_at","limit":1}'],
    ['empty object', '{}'],
    ['unknown filter', '{"filter":{"colour":"red"}}'],
    ['bad operator', '{"filter":{"status":{"gt":"active"}}}'],
    ['filter not an object', '{"filter":"status=active"}'],
    ['limit as string', '{"limit":"1"}'],
    ['long filter value', JSON.stringify({ filter: { name: 'x'.repeat(14_000) } })],
    ['q', '{"q":"differential"}'],
    ['unknown member', '{"colour":"red"}'],
  ] as const)
    search(label, '/projects/search', body);
  search('tasks valid', '/tasks/search', '{"filter":{"priority":{"gte":1}}}');
  search('project tasks', '/projects/{{p1}}/tasks/search', '{"filter":{"status":"todo"}}');
}

/** Idempotency-Key: replay, reuse with another body, missing, malformed. */
function idempotencyCases(t: Table): void {
  const post = (label: string, key: string | undefined, body: string) =>
    t.api(
      `idempotency: ${label}`,
      'POST',
      2,
      '/projects',
      [...KEY, ...JSON_TYPE, ...(key === undefined ? [] : ([['Idempotency-Key', key]] as const))],
      body,
    );
  const body = validBody('projects', 2, 'idempotent')!;
  post('first', 'diff-idem-1', body);
  post('replay', 'diff-idem-1', body);
  post('same key, other body', 'diff-idem-1', validBody('projects', 2, 'other')!);
  post('missing key', undefined, validBody('projects', 2, 'nokey')!);
  post('empty key', '', validBody('projects', 2, 'empty')!);
  post('long key', 'k'.repeat(300), validBody('projects', 2, 'long')!);
  post('key with spaces', 'a b c', validBody('projects', 2, 'spaces')!);
  post('conflicting name', 'diff-idem-2', body);
  t.api(
    'idempotency: two key lines',
    'POST',
    2,
    '/projects',
    [...KEY, ...JSON_TYPE, ['Idempotency-Key', 'a'], ['Idempotency-Key', 'b']],
    validBody('projects', 2, 'two')!,
  );
}

/** Conditional requests on the fixtures, then the mutations that change or delete them. */
function tail(t: Table): void {
  t.api('preconditions: GET for ETag', 'GET', 2, '/projects/{{p1}}', KEY, undefined, {
    capture: [{ name: 'etag:p1', from: 'etag' }],
  });
  t.api('preconditions: If-None-Match current', 'GET', 2, '/projects/{{p1}}', [
    ...KEY,
    ['If-None-Match', '{{etag:p1}}'],
  ]);
  t.api('preconditions: If-None-Match *', 'GET', 2, '/projects/{{p1}}', [...KEY, ['If-None-Match', '*']]);
  t.api('preconditions: If-None-Match current, no-cache', 'GET', 2, '/projects/{{p1}}', [
    ...KEY,
    ['If-None-Match', '{{etag:p1}}'],
    ['Cache-Control', 'no-cache'],
  ]);
  t.api('preconditions: If-None-Match other', 'GET', 2, '/projects/{{p1}}', [
    ...KEY,
    ['If-None-Match', '"nope"'],
  ]);
  t.api('preconditions: If-None-Match weak current', 'GET', 2, '/projects/{{p1}}', [
    ...KEY,
    ['If-None-Match', 'W/{{etag:p1}}'],
  ]);
  t.api('preconditions: collection If-None-Match *', 'GET', 2, '/projects', [...KEY, ['If-None-Match', '*']]);
  t.api('preconditions: If-Modified-Since', 'GET', 2, '/projects/{{p1}}', [
    ...KEY,
    ['If-Modified-Since', 'Sat, 01 Jan 2000 00:00:00 GMT'],
  ]);
  const put = validBody('projects', 2, 'fixture')!;
  for (const [label, headers] of [
    ['If-Match wrong', [['If-Match', '"nope"']]],
    ['If-Match weak', [['If-Match', 'W/{{etag:p1}}']]],
    ['If-None-Match * on PUT', [['If-None-Match', '*']]],
    ['If-Unmodified-Since past', [['If-Unmodified-Since', 'Sat, 01 Jan 2000 00:00:00 GMT']]],
    ['If-Unmodified-Since garbage', [['If-Unmodified-Since', 'yesterday']]],
    ['If-Match list with current', [['If-Match', '"a", {{etag:p1}}']]],
  ] as const)
    t.api(
      `preconditions: PUT ${label}`,
      'PUT',
      2,
      '/projects/{{p1}}',
      [...KEY, ...JSON_TYPE, ...headers],
      put,
      { capture: [{ name: 'etag:p1', from: 'etag' }] },
    );
  t.api(
    'preconditions: PATCH If-Match current',
    'PATCH',
    2,
    '/projects/{{p1}}',
    [...KEY, ['Content-Type', 'application/merge-patch+json'], ['If-Match', '{{etag:p1}}']],
    '{"description":null}',
    { capture: [{ name: 'etag:p1', from: 'etag' }] },
  );
  t.api(
    'mutation: PUT project v1',
    'PUT',
    1,
    '/projects/{{p1}}',
    [...KEY, ...JSON_TYPE],
    validBody('projects', 1, 'fixture'),
  );
  t.api(
    'mutation: PATCH task',
    'PATCH',
    2,
    '/tasks/{{t1}}',
    [...KEY, ['Content-Type', 'application/merge-patch+json']],
    '{"status":"done"}',
  );
  t.api(
    'mutation: PUT task',
    'PUT',
    2,
    '/projects/{{p1}}/tasks/{{t1}}',
    [...KEY, ...JSON_TYPE],
    validBody('tasks', 2, 'replaced'),
  );
  t.api('mutation: DELETE comment', 'DELETE', 2, '/tasks/{{t1}}/comments/{{c1}}', KEY);
  t.api('mutation: DELETE comment again', 'DELETE', 2, '/tasks/{{t1}}/comments/{{c1}}', KEY);
  t.api('mutation: DELETE project', 'DELETE', 2, '/projects/{{p1}}', KEY);
  t.api('mutation: GET deleted task', 'GET', 2, '/tasks/{{t1}}', KEY);
  t.api('mutation: GET deleted project v1', 'GET', 1, '/projects/{{p1}}', KEY);
}

/** Client addresses behind a proxy: anonymous requests are limited per address (service/limits.ts). */
function forwardedCases(t: Table): void {
  for (const [label, values] of [
    ['one entry', ['203.0.113.7']],
    ['rotating first entry', ['198.51.100.1, 203.0.113.7']],
    ['rotating first entry again', ['198.51.100.2, 203.0.113.7']],
    ['two lines', ['198.51.100.3', '203.0.113.8']],
    ['port and spaces', [' 203.0.113.9:4711 ']],
    ['garbage', ['unknown, ,']],
    ['IPv6', ['2001:db8::1']],
  ] as const)
    t.api(
      `forwarded: ${label}`,
      'GET',
      2,
      '/projects',
      values.map((value) => ['X-Forwarded-For', value] as const),
    );
  t.api('forwarded: with X-Forwarded-Proto http', 'GET', 2, '/projects', [
    ['X-Forwarded-For', '203.0.113.7'],
    ['X-Forwarded-Proto', 'http'],
  ]);
}

/** Version selection: each strategy's ways of naming a version, and wrong ones. */
function versionCases(t: Table): void {
  const get = (label: string, target: string, headers: Headers) =>
    t.add(`version: ${label}`, { method: 'GET', target, headers: [...KEY, ...headers] });
  get('v1 path', '/v1/projects?limit=1', []);
  get('v3 path', '/v3/projects', []);
  get('V2 upper-case prefix', '/V2/projects?limit=1', []);
  get('no version', '/projects?limit=1', []);
  get('query version=1', '/projects?limit=1&version=1', []);
  get('query version=9', '/projects?version=9', []);
  get('query version twice', '/projects?version=1&version=2', []);
  get('header 1', '/projects?limit=1', [['X-API-Version', '1']]);
  get('header 2.0', '/projects?limit=1', [['X-API-Version', '2.0']]);
  get('header 9', '/projects', [['X-API-Version', '9']]);
  get('header twice', '/projects', [
    ['X-API-Version', '1'],
    ['X-API-Version', '2'],
  ]);
  get('media type v1', '/projects?limit=1', [['Accept', 'application/vnd.plumbline.v1+json']]);
  get('media type v1 xml', '/projects?limit=1', [['Accept', 'application/vnd.plumbline.v1+xml']]);
  get('media type v9', '/projects', [['Accept', 'application/vnd.plumbline.v9+json']]);
  get('media type mixed', '/projects', [
    ['Accept', 'application/vnd.plumbline.v1+json, application/vnd.plumbline.v2+json;q=0.5'],
  ]);
}

/** Paths nobody routes and encodings of them. */
function pathCases(t: Table): void {
  for (const [label, target] of [
    ['root', '/'],
    ['unknown top level', '/nope'],
    ['unknown under /v2', '/v2/nope'],
    ['unknown deep under /v2', '/v2/projects/x/y/z/w'],
    ['encoded dot-segments', '/v2/projects/%2e%2e/tasks'],
    ['encoded dot-segments upper', '/v2/projects/%2E%2E/tasks'],
    ['dot-segments', '/v2/projects/../tasks'],
    ['single dot', '/v2/./projects'],
    ['encoded slash', '/v2%2Fprojects'],
    ['percent garbage', '/v2/projects/%ZZ'],
    ['percent truncated', '/v2/projects/%'],
    ['null byte', '/v2/projects/%00'],
    ['encoded newline', '/v2/projects/%0d%0aX-Injected:%201'],
    ['overlong utf-8', '/v2/projects/%c0%ae%c0%ae'],
    ['backslash', '/v2\\projects'],
    ['semicolon parameter', '/v2/projects;jsessionid=1'],
    ['empty query', '/v2/projects?'],
    ['fragment', '/v2/projects#frag'],
    ['script in path', '/%3Cscript%3Ealert(1)%3C/script%3E'],
    ['html in unknown path', '/<b>x</b>'],
    ['long path', `/v2/projects/${'a'.repeat(4000)}`],
    ['many segments', `/v2${'/x'.repeat(500)}`],
    ['health trailing slash', '/health/'],
    ['docs asset missing', '/docs/assets/nope.js'],
    ['docs asset traversal', '/docs/assets/..%2F..%2Fpackage.json'],
    ['docs asset dot-dot', '/docs/assets/../init.js'],
    ['error page unknown', '/errors/nope'],
    ['error page html', '/errors/%3Cscript%3E'],
    ['openapi upper', '/OPENAPI.JSON'],
    ['metrics trailing', '/metrics/'],
  ] as const) {
    t.add(`path: ${label}`, { method: 'GET', target, headers: KEY });
  }
  t.add('path: OPTIONS docs asset', { method: 'OPTIONS', target: '/docs/assets/swagger-ui.css' });
  t.add('path: OPTIONS *', { method: 'OPTIONS', target: '*' });
  t.add('path: GET *', { method: 'GET', target: '*' });
  t.add('path: absolute-form', {
    method: 'GET',
    target: 'http://api.test/v2/projects?limit=1',
    headers: KEY,
  });
  t.add('path: absolute-form other host', { method: 'GET', target: 'http://elsewhere.test/health' });
  t.add('path: absolute-form https', { method: 'GET', target: 'https://api.test/health' });
  for (const method of ['PROPFIND', 'TRACE', 'CONNECT', 'MKCOL', 'QUERY', 'SEARCH', 'LINK', 'PURGE'])
    t.add(`method: ${method} on a collection`, { method, target: '/v2/projects', headers: KEY });
  t.add('method: PROPFIND on unknown under /v2', { method: 'PROPFIND', target: '/v2/nope', headers: KEY });
  t.add('method: DELETE on a collection', { method: 'DELETE', target: '/v2/projects', headers: KEY });
  t.add('method: POST on health', { method: 'POST', target: '/health', headers: JSON_TYPE, body: '{}' });
}

/** Header shapes: duplicates, odd values, oversize. */
function headerCases(t: Table): void {
  const get = (label: string, headers: Headers, target = '/v2/projects?limit=1') =>
    t.add(`header: ${label}`, { method: 'GET', target, headers });
  get('X-Request-Id echoed', [...KEY, ['X-Request-Id', 'abc-123']]);
  get('X-Request-Id too long', [...KEY, ['X-Request-Id', 'r'.repeat(300)]]);
  get('X-Request-Id with markup', [...KEY, ['X-Request-Id', '<script>']]);
  get('two Accept lines', [...KEY, ['Accept', 'application/xml'], ['Accept', 'application/json']]);
  get('two Accept-Language lines', [...KEY, ['Accept-Language', 'de'], ['Accept-Language', 'en']]);
  get('Accept with params', [...KEY, ['Accept', 'application/json; charset=utf-8; q=0.9']]);
  get('Accept garbage', [...KEY, ['Accept', ';;;,,,']]);
  get('Accept-Language garbage', [...KEY, ['Accept-Language', '*;q=x, 12345']]);
  get('traceparent', [...KEY, ['traceparent', '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01']]);
  get('traceparent garbage', [...KEY, ['traceparent', 'nope']]);
  get('X-Forwarded-For ignored', [...KEY, ['X-Forwarded-For', '203.0.113.9']]);
  get('X-Forwarded-Proto http', [...KEY, ['X-Forwarded-Proto', 'http']]);
  get('8 KiB header', [...KEY, ['X-Big', 'b'.repeat(8 * 1024)]]);
  get('Cookie', [...KEY, ['Cookie', 'a=b']]);
  get('Origin', [...KEY, ['Origin', 'https://evil.test']]);
  get('API key with spaces', [['X-API-Key', ' {{rw}} ']]);
  get('Authorization empty', [['Authorization', '']]);
  get('Authorization Bearer only', [['Authorization', 'Bearer']]);
  get('Authorization Bearer two spaces', [['Authorization', 'Bearer  {{tok}}']]);
  get('two Authorization lines', [
    ['Authorization', 'Bearer {{tok}}'],
    ['Authorization', 'Bearer {{tok}}'],
  ]);
  get('Content-Length on GET', [...KEY, ['Content-Length', '0']]);
  t.add('header: body on GET', {
    method: 'GET',
    target: '/v2/projects?limit=1',
    headers: [...KEY, ...JSON_TYPE],
    body: '{}',
  });
  get('health with Accept xml', [['Accept', 'application/xml']], '/health');
  get('health with Accept text/html', [['Accept', 'text/html']], '/health');
}

/** The session cookie (SESSION_KEYS): login with a token, the API with the cookie, CSRF, logout, replay. */
function sessionCases(t: Table): void {
  const cookie: Headers = [['Cookie', '__Host-session={{sess}}']];
  const page: Headers = [...cookie, ['Sec-Fetch-Site', 'same-origin'], ['X-Requested-With', 'fetch']];
  t.add(
    'session: login',
    { method: 'POST', target: '/session', headers: [['Authorization', 'Bearer {{tok}}']] },
    { capture: [{ name: 'sess', from: 'cookie' }] },
  );
  t.add('session: login without a token', { method: 'POST', target: '/session' });
  t.add('session: login with an API key', { method: 'POST', target: '/session', headers: KEY });
  t.add('session: GET', { method: 'GET', target: '/session' });
  t.api('session: read with the cookie', 'GET', 2, '/projects', cookie);
  t.api('session: write without the CSRF header', 'POST', 2, '/projects', [...cookie, ...JSON_TYPE], '{}');
  t.add('session: logout from another site', {
    method: 'DELETE',
    target: '/session',
    headers: [...cookie, ['Sec-Fetch-Site', 'cross-site'], ['X-Requested-With', 'fetch']],
  });
  t.add('session: logout', { method: 'DELETE', target: '/session', headers: page });
  t.api('session: the cookie replayed after logout', 'GET', 2, '/projects', cookie);
}

/** The token and revocation endpoints: grants, client authentication, bodies. */
function oauthCases(t: Table): void {
  const token = (label: string, headers: Headers, body: string) =>
    t.add(`oauth: ${label}`, { method: 'POST', target: '/oauth/token', headers, body });
  const form: Headers = [['Content-Type', 'application/x-www-form-urlencoded']];
  const basic: Headers = [['Authorization', 'Basic {{basic:rw}}'], ...form];
  token('no grant', basic, '');
  token('unknown grant', basic, 'grant_type=password&username=a&password=b');
  token('unknown scope', basic, 'grant_type=client_credentials&scope=admin');
  token('wrong secret', [['Authorization', 'Basic eDp5'], ...form], 'grant_type=client_credentials');
  token('no client auth', form, 'grant_type=client_credentials');
  token(
    'client in body',
    form,
    'grant_type=client_credentials&client_id={{cid:rw}}&client_secret={{secret:rw}}',
  );
  token(
    'JSON body',
    [['Authorization', 'Basic {{basic:rw}}'], ...JSON_TYPE],
    '{"grant_type":"client_credentials"}',
  );
  token('refresh garbage', basic, 'grant_type=refresh_token&refresh_token=nope');
  token('duplicate grant_type', basic, 'grant_type=client_credentials&grant_type=client_credentials');
  token(
    'read-only client asks for write',
    [['Authorization', 'Basic {{basic:ro}}'], ...form],
    'grant_type=client_credentials&scope=write%3Aprojects',
  );
  t.add('oauth: revoke garbage', {
    method: 'POST',
    target: '/oauth/revoke',
    headers: basic,
    body: 'token=nope',
  });
  t.add('oauth: revoke no token', { method: 'POST', target: '/oauth/revoke', headers: basic, body: '' });
  t.add('oauth: GET token', { method: 'GET', target: '/oauth/token' });
}

/** Raw bytes: request smuggling shapes, obs-fold, chunk sizes, pipelining, oversize lines. */
function rawCases(t: Table): void {
  const key = 'X-API-Key: {{rw}}\r\n';
  const post = (headers: string, body: string) =>
    `POST /v2/projects/search HTTP/1.1\r\nHost: ${HOST}\r\n${key}Content-Type: application/json\r\n${headers}\r\n${body}`;
  const search = '{"limit":1}';
  const raw = (label: string, methods: readonly string[], bytes: string) =>
    t.raw(`raw: ${label}`, methods, bytes);
  raw(
    'CL and TE',
    ['POST'],
    post(
      `Content-Length: 4\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n`,
      `b\r\n${search}\r\n0\r\n\r\n`,
    ),
  );
  raw(
    'two Content-Length',
    ['POST'],
    post(`Content-Length: 11\r\nContent-Length: 12\r\nConnection: close\r\n`, search),
  );
  raw(
    'two equal Content-Length',
    ['POST'],
    post(`Content-Length: 11\r\nContent-Length: 11\r\nConnection: close\r\n`, search),
  );
  raw('Content-Length list', ['POST'], post(`Content-Length: 11, 11\r\nConnection: close\r\n`, search));
  raw('Content-Length +11', ['POST'], post(`Content-Length: +11\r\nConnection: close\r\n`, search));
  raw(
    'TE xchunked',
    ['POST'],
    post(`Transfer-Encoding: xchunked\r\nConnection: close\r\n`, `b\r\n${search}\r\n0\r\n\r\n`),
  );
  raw(
    'TE chunked, identity',
    ['POST'],
    post(`Transfer-Encoding: chunked, identity\r\nConnection: close\r\n`, `b\r\n${search}\r\n0\r\n\r\n`),
  );
  raw(
    'TE with space before colon',
    ['POST'],
    post(`Transfer-Encoding : chunked\r\nConnection: close\r\n`, `b\r\n${search}\r\n0\r\n\r\n`),
  );
  raw(
    'TE obs-fold',
    ['POST'],
    post(`Transfer-Encoding:\r\n chunked\r\nConnection: close\r\n`, `b\r\n${search}\r\n0\r\n\r\n`),
  );
  raw(
    'obs-fold in a header',
    ['GET'],
    `GET /v2/projects?limit=1 HTTP/1.1\r\nHost: ${HOST}\r\n${key}X-Folded: a\r\n b\r\nConnection: close\r\n\r\n`,
  );
  raw(
    'chunked ok',
    ['POST'],
    post(`Transfer-Encoding: chunked\r\nConnection: close\r\n`, `b\r\n${search}\r\n0\r\n\r\n`),
  );
  raw(
    'chunk size zz',
    ['POST'],
    post(`Transfer-Encoding: chunked\r\nConnection: close\r\n`, `zz\r\n${search}\r\n0\r\n\r\n`),
  );
  raw(
    'chunk size negative',
    ['POST'],
    post(`Transfer-Encoding: chunked\r\nConnection: close\r\n`, `-b\r\n${search}\r\n0\r\n\r\n`),
  );
  raw(
    'chunk size huge',
    ['POST'],
    post(
      `Transfer-Encoding: chunked\r\nConnection: close\r\n`,
      `ffffffffffffffffff\r\n${search}\r\n0\r\n\r\n`,
    ),
  );
  raw(
    'chunk extension',
    ['POST'],
    post(`Transfer-Encoding: chunked\r\nConnection: close\r\n`, `b;ext=1\r\n${search}\r\n0\r\n\r\n`),
  );
  raw(
    'chunk LF only',
    ['POST'],
    post(`Transfer-Encoding: chunked\r\nConnection: close\r\n`, `b\n${search}\n0\n\n`),
  );
  raw(
    'chunked trailer',
    ['POST'],
    post(
      `Transfer-Encoding: chunked\r\nConnection: close\r\n`,
      `b\r\n${search}\r\n0\r\nX-Trailer: 1\r\n\r\n`,
    ),
  );
  raw('LF-only line endings', ['GET'], `GET /health HTTP/1.1\nHost: ${HOST}\nConnection: close\n\n`);
  raw(
    'space in header name',
    ['GET'],
    `GET /health HTTP/1.1\r\nHost: ${HOST}\r\nX Bad: 1\r\nConnection: close\r\n\r\n`,
  );
  raw(
    'header without colon',
    ['GET'],
    `GET /health HTTP/1.1\r\nHost: ${HOST}\r\nNoColon\r\nConnection: close\r\n\r\n`,
  );
  raw(
    'control char in header',
    ['GET'],
    `GET /health HTTP/1.1\r\nHost: ${HOST}\r\nX-C: a\u0001b\r\nConnection: close\r\n\r\n`,
  );
  raw('no Host', ['GET'], `GET /health HTTP/1.1\r\nConnection: close\r\n\r\n`);
  raw(
    'two Host',
    ['GET'],
    `GET /health HTTP/1.1\r\nHost: a.test\r\nHost: b.test\r\nConnection: close\r\n\r\n`,
  );
  raw('Host with path', ['GET'], `GET /health HTTP/1.1\r\nHost: a.test/x\r\nConnection: close\r\n\r\n`);
  raw('Host empty', ['GET'], `GET /health HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n`);
  raw('HTTP/1.0 without Host', ['GET'], `GET /health HTTP/1.0\r\n\r\n`);
  raw('HTTP/1.0 keep-alive', ['GET'], `GET /health HTTP/1.0\r\nConnection: keep-alive\r\n\r\n`);
  raw('HTTP/2.0 version', ['GET'], `GET /health HTTP/2.0\r\nHost: ${HOST}\r\nConnection: close\r\n\r\n`);
  raw('HTTP/1.2 version', ['GET'], `GET /health HTTP/1.2\r\nHost: ${HOST}\r\nConnection: close\r\n\r\n`);
  raw('lower-case method', ['GET'], `get /health HTTP/1.1\r\nHost: ${HOST}\r\nConnection: close\r\n\r\n`);
  raw(
    'two spaces in request line',
    ['GET'],
    `GET  /health HTTP/1.1\r\nHost: ${HOST}\r\nConnection: close\r\n\r\n`,
  );
  raw('tab in request line', ['GET'], `GET\t/health HTTP/1.1\r\nHost: ${HOST}\r\nConnection: close\r\n\r\n`);
  raw(
    'raw space in target',
    ['GET'],
    `GET /v2/pro jects HTTP/1.1\r\nHost: ${HOST}\r\nConnection: close\r\n\r\n`,
  );
  raw(
    'raw backslash',
    ['GET'],
    `GET /v2\\projects HTTP/1.1\r\nHost: ${HOST}\r\n${key}Connection: close\r\n\r\n`,
  );
  raw(
    'raw backslash unknown',
    ['GET'],
    `GET /\\\\evil.test/ HTTP/1.1\r\nHost: ${HOST}\r\nConnection: close\r\n\r\n`,
  );
  raw(
    'raw non-ASCII in target',
    ['GET'],
    `GET /v2/projects/\u00fc HTTP/1.1\r\nHost: ${HOST}\r\n${key}Connection: close\r\n\r\n`,
  );
  raw(
    '20 KiB header line',
    ['GET'],
    `GET /health HTTP/1.1\r\nHost: ${HOST}\r\nX-Big: ${'b'.repeat(20 * 1024)}\r\nConnection: close\r\n\r\n`,
  );
  raw(
    '20 KiB request line',
    ['GET'],
    `GET /health?${'q'.repeat(20 * 1024)} HTTP/1.1\r\nHost: ${HOST}\r\nConnection: close\r\n\r\n`,
  );
  raw(
    'pipelined GETs',
    ['GET', 'GET', 'GET'],
    `GET /health HTTP/1.1\r\nHost: ${HOST}\r\n\r\nGET /v2/projects?limit=1 HTTP/1.1\r\nHost: ${HOST}\r\n${key}\r\nGET /nope HTTP/1.1\r\nHost: ${HOST}\r\nConnection: close\r\n\r\n`,
  );
  raw(
    'pipelined POST then GET',
    ['POST', 'GET'],
    `${post(`Content-Length: 11\r\n`, search)}GET /health HTTP/1.1\r\nHost: ${HOST}\r\nConnection: close\r\n\r\n`,
  );
  raw(
    'pipelined after smuggled body',
    ['POST', 'GET'],
    `${post(`Content-Length: 0\r\n`, '')}GET /v2/projects?limit=1 HTTP/1.1\r\nHost: ${HOST}\r\n${key}Connection: close\r\n\r\n`,
  );
  raw(
    'Expect 100-continue',
    ['POST'],
    post(`Content-Length: 11\r\nExpect: 100-continue\r\nConnection: close\r\n`, search),
  );
  raw(
    'Expect unknown',
    ['POST'],
    post(`Content-Length: 11\r\nExpect: teapot\r\nConnection: close\r\n`, search),
  );
  raw(
    'body shorter than Content-Length',
    ['POST'],
    post(`Content-Length: 50\r\nConnection: close\r\n`, search),
  );
  raw(
    'Upgrade h2c',
    ['GET'],
    `GET /health HTTP/1.1\r\nHost: ${HOST}\r\nConnection: Upgrade, HTTP2-Settings, close\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n`,
  );
  raw(
    'Upgrade websocket',
    ['GET'],
    `GET /health HTTP/1.1\r\nHost: ${HOST}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  );
}

/** Every case of `strategy`, generated from `document` (the strategy's `/openapi.json`). */
export function casesFor(strategy: VersioningStrategy, document: Json): Case[] {
  const t = new Table(strategy);
  fixtures(t);
  for (const op of operations(document)) {
    // Version-neutral but secured (bearer token, then the cookie): sessionCases() sends its requests.
    if (op.template === '/session') continue;
    // Under path, `/v1/x` and `/v2/x` are separate operations; under the others one path serves
    // both versions (asked for as v2) and the version-neutral routes are covered under path.
    const split = splitVersion(strategy, op.template);
    operationCases(t, op, split?.version ?? 2, split?.path ?? op.template);
  }
  collectionCases(t);
  idempotencyCases(t);
  forwardedCases(t);
  versionCases(t);
  if (strategy === 'path') {
    pathCases(t);
    headerCases(t);
    oauthCases(t);
    sessionCases(t);
    rawCases(t);
  }
  tail(t);
  return t.cases;
}
