import { randomUUID } from 'node:crypto';
import { checkOpenApi, readOpenApi } from './document.js';
import {
  BudgetExhausted,
  type ClientLimits,
  describeRequest,
  describeResponse,
  type Exchange,
  ProbeClient,
} from './http.js';
import {
  errorFields,
  errorMarker,
  hasPaginationMetadata,
  isDeprecationValue,
  isHttpDate,
  isJsonType,
  isXmlType,
  jsonBody,
  mediaTypeOf,
  nextLink,
  pageHasMore,
  pageItems,
  pageMetadata,
  stackTraceIn,
} from './inspect.js';
import {
  type CollectionInfo,
  DEFAULT_IGNORED_PATHS,
  discoverCollections,
  isObject,
  type JsonObject,
  type PaginationStyle,
  unknownVersionRequest,
  type VersionCarrier,
  versionCarrierOf,
} from './openapi.js';
import { PROBE_RULES } from './rules.js';
import {
  buildScorecard,
  type Cleanup,
  type Evidence,
  type Outcome,
  ruleResult,
  type Scorecard,
} from './scorecard.js';

/**
 * Options for {@link probe}.
 *
 * @example
 * ```ts
 * const options: ProbeOptions = { baseUrl: 'http://127.0.0.1:3000', apiKey: process.env.API_KEY, allowWrites: true };
 * ```
 */
export interface ProbeOptions extends ClientLimits {
  /** Base URL of the API. Only this origin is ever contacted. */
  readonly baseUrl: string;
  /**
   * The OpenAPI document (object or JSON text) used for discovery. Default: fetched from
   * `openapiPath` when no `collections` are given.
   */
  readonly openapi?: object | string;
  /** Where to fetch the document when `openapi` is not given. Default `/openapi.json`. */
  readonly openapiPath?: string;
  /** Collection paths to probe, e.g. `/v2/projects`; templated ones are filled from their parent. */
  readonly collections?: readonly string[];
  /** Sent as `Authorization: Bearer <token>`. */
  readonly token?: string;
  /** Sent in `apiKeyHeader`. */
  readonly apiKey?: string;
  /** Default `X-API-Key`. */
  readonly apiKeyHeader?: string;
  /** Run the probes that create and delete resources. Default false. */
  readonly allowWrites?: boolean;
  /** Default `Idempotency-Key`. */
  readonly idempotencyHeader?: string;
  /** POST bodies by collection path (template or concrete); otherwise from the document's example or schema. */
  readonly createBodies?: Readonly<Record<string, unknown>>;
  /** The largest page a collection may return without paging parameters. Default 100. */
  readonly maxPageSize?: number;
  /** More paths that are not resources, in addition to {@link DEFAULT_IGNORED_PATHS}. */
  readonly ignorePaths?: readonly RegExp[];
}

/**
 * Thrown when the service cannot be reached, or stops answering during the run (connection refused
 * or reset, DNS failure, timeout): that is not a convention failure, and the CLI exits 2.
 *
 * @example
 * ```ts
 * try { await probe({ baseUrl }); } catch (error) { if (error instanceof ProbeUnreachableError) process.exitCode = 2; }
 * ```
 */
export class ProbeUnreachableError extends Error {
  constructor(
    message: string,
    /** The request that got no response, with the reason. */
    readonly exchange: Exchange,
    /** Requests sent before it. */
    readonly requests: number,
  ) {
    super(message);
    this.name = 'ProbeUnreachableError';
  }
}

/** A request got no response; turned into a ProbeUnreachableError by `probe`. */
class NoResponse extends Error {
  constructor(readonly exchange: Exchange) {
    super(exchange.error ?? 'no response');
  }
}

/** Note of a rule that needs credentials the run does not have. */
export const NEEDS_CREDENTIALS =
  'not run: needs credentials; pass --api-key <key> or --token <token> (or PLUMBLINE_API_KEY / PLUMBLINE_TOKEN)';

/** Thrown for a configuration the probe cannot run with (the CLI exits 2). */
export class ProbeConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProbeConfigError';
  }
}

interface Target {
  readonly template: string;
  readonly path: string;
  readonly pagination: PaginationStyle;
  /** Query parameter names from the document; `undefined` when no document describes it. */
  readonly query?: readonly string[];
  /** From the document; `undefined` when unknown. */
  readonly deprecated?: boolean;
  readonly info?: CollectionInfo;
}

interface Observation {
  readonly outcome: Outcome;
  readonly evidence: Evidence;
}

/** The media type the 406 probe asks for. */
export const UNSERVABLE = 'application/x-plumbline-unservable';

class Run {
  readonly observations = new Map<string, Observation[]>();
  /** Locations of what the write probes created, deleted at the end. */
  readonly created: string[] = [];
  /** What the write probes created without a way to find it again (no Location, no id). */
  readonly unlocated: { location: string; reason: string }[] = [];
  /** Set when the API answered 401/403 to a run without credentials. */
  needsCredentials = false;
  /** How the document says the version travels, when not in the path. */
  versionCarrier: VersionCarrier | undefined;
  readonly client: ProbeClient;

  constructor(
    readonly options: ProbeOptions,
    credentials: Record<string, string>,
  ) {
    this.client = new ProbeClient(options.baseUrl, credentials, options);
  }

  get hasCredentials(): boolean {
    return this.options.token !== undefined || this.options.apiKey !== undefined;
  }

  note(
    rule: string,
    outcome: Outcome,
    exchange: Exchange | undefined,
    note: string,
    headers: string[] = [],
  ): void {
    const evidence: Evidence = exchange
      ? {
          request: describeRequest(exchange.request),
          response: describeResponse(exchange, headers),
          note,
        }
      : { note };
    const list = this.observations.get(rule) ?? [];
    list.push({ outcome, evidence });
    this.observations.set(rule, list);
  }

  get(path: string, headers: Record<string, string> = {}, anonymous = false): Promise<Exchange> {
    return this.send('GET', path, { headers: { Accept: 'application/json', ...headers }, anonymous });
  }

  post(path: string, body: string, headers: Record<string, string>): Promise<Exchange> {
    return this.send('POST', path, { headers: { Accept: 'application/json', ...headers }, body });
  }

  /** Sends a request; a request the service does not answer at all ends the run (NoResponse). */
  async send(
    method: string,
    path: string,
    options: Parameters<ProbeClient['send']>[2] = {},
  ): Promise<Exchange> {
    const exchange = await this.client.send(method, path, options);
    if (exchange.response === undefined && !exchange.error?.startsWith('refused:'))
      throw new NoResponse(exchange);
    return exchange;
  }
}

function status(exchange: Exchange): number {
  return exchange.response?.status ?? 0;
}

function is2xx(exchange: Exchange): boolean {
  const code = status(exchange);
  return code >= 200 && code < 300;
}

export function withQuery(path: string, query: string): string {
  return `${path}${path.includes('?') ? '&' : '?'}${query}`;
}

export function pageQuery(style: PaginationStyle, size: number): string {
  return style === 'page' ? `page=1&size=${size}` : `limit=${size}`;
}

// ---------------------------------------------------------------------------------------------
// Discovery

/** The most of a served OpenAPI document the probe reads (8 MiB). */
const MAX_DOCUMENT_BYTES = 8 * 1024 * 1024;

async function loadOpenApi(run: Run): Promise<unknown> {
  const { openapi, collections, openapiPath } = run.options;
  if (typeof openapi === 'string') return readOpenApi(openapi, 'the OpenAPI document');
  if (openapi !== undefined) return checkOpenApi(openapi, 'the OpenAPI document');
  if (collections !== undefined && collections.length > 0) return undefined;
  // The document describes every version of every operation: it may be far larger than a response
  // the rules judge, so it is read up to its own bound, not `maxBodyBytes`.
  const exchange = await run.send('GET', openapiPath ?? '/openapi.json', {
    headers: { Accept: 'application/json' },
    maxBodyBytes: Math.max(MAX_DOCUMENT_BYTES, run.options.maxBodyBytes ?? 0),
  });
  const json = exchange.response ? jsonBody(exchange.response) : undefined;
  const locked = [401, 403].includes(status(exchange)) && !run.hasCredentials;
  if (!is2xx(exchange) || !isObject(json))
    throw new ProbeConfigError(
      `no collections to probe: ${openapiPath ?? '/openapi.json'} answered ${status(exchange)}; ` +
        (locked
          ? 'it needs credentials: pass --api-key or --token (or --openapi <file>)'
          : 'pass --openapi or --collection'),
    );
  return checkOpenApi(json, openapiPath ?? '/openapi.json');
}

function firstId(json: unknown): string | undefined {
  const first = pageItems(json)?.[0];
  if (!isObject(first)) return undefined;
  const id = first['id'];
  return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}

async function concretePath(run: Run, template: string, style: PaginationStyle): Promise<string | undefined> {
  let path = template;
  for (let guard = 0; guard < 5; guard += 1) {
    const match = /\{[^}]+\}/.exec(path);
    if (match === null) return path;
    const parent = path.slice(0, match.index - 1);
    const exchange = await run.get(withQuery(parent, pageQuery(style, 1)));
    if ([401, 403].includes(status(exchange)) && !run.hasCredentials) run.needsCredentials = true;
    const id = exchange.response && is2xx(exchange) ? firstId(jsonBody(exchange.response)) : undefined;
    if (id === undefined) return undefined;
    path = `${path.slice(0, match.index)}${encodeURIComponent(id)}${path.slice(match.index + match[0].length)}`;
  }
  return undefined;
}

async function discover(run: Run): Promise<Target[]> {
  const document = await loadOpenApi(run);
  run.versionCarrier = document === undefined ? undefined : versionCarrierOf(document);
  const documented =
    document === undefined
      ? []
      : discoverCollections(document, [...DEFAULT_IGNORED_PATHS, ...(run.options.ignorePaths ?? [])]);
  const wanted = run.options.collections ?? documented.map((collection) => collection.path);
  if (wanted.length === 0)
    throw new ProbeConfigError('the OpenAPI document describes no paginated collection');
  const targets: Target[] = [];
  for (const template of wanted) {
    if (!template.startsWith('/')) throw new ProbeConfigError(`collection must be a path: ${template}`);
    const info = documented.find((collection) => collection.path === template);
    const pagination = info?.pagination ?? 'offset';
    const path = await concretePath(run, template, pagination);
    if (path === undefined) {
      run.note(
        'probe-default-page-bounded',
        'skip',
        undefined,
        run.needsCredentials ? NEEDS_CREDENTIALS : `${template}: no parent item to fill its path`,
      );
      continue;
    }
    targets.push({
      template,
      path,
      pagination,
      ...(info ? { info, query: info.query, deprecated: info.deprecated } : {}),
    });
  }
  return targets;
}

// ---------------------------------------------------------------------------------------------
// Per-API probes (run once, on the first collection)

async function probeAuth(run: Run, target: Target): Promise<void> {
  const rule = 'probe-auth-401';
  const anonymous = await run.get(target.path, {}, true);
  const challenge = anonymous.response?.headers.get('www-authenticate');
  if (is2xx(anonymous)) {
    if (run.hasCredentials)
      run.note(rule, 'fail', anonymous, 'answered without credentials', ['www-authenticate']);
    else
      run.note(
        rule,
        'skip',
        anonymous,
        'the API answers without credentials; pass --token or --api-key if it should not',
      );
    return;
  }
  if (status(anonymous) === 401 && challenge)
    run.note(rule, 'pass', anonymous, '401 with a challenge', ['www-authenticate']);
  else run.note(rule, 'fail', anonymous, 'expected 401 with WWW-Authenticate', ['www-authenticate']);
  const invalid = await run.get(
    target.path,
    run.options.apiKey !== undefined && run.options.token === undefined
      ? { [run.options.apiKeyHeader ?? 'X-API-Key']: 'plumbline-conformance-invalid-key' }
      : { Authorization: 'Bearer plumbline-conformance-invalid-token' },
    true,
  );
  if (status(invalid) === 401 && invalid.response?.headers.get('www-authenticate'))
    run.note(rule, 'pass', invalid, 'invalid credential: 401 with a challenge', ['www-authenticate']);
  else
    run.note(rule, 'fail', invalid, 'invalid credential: expected 401 with WWW-Authenticate', [
      'www-authenticate',
    ]);
}

async function probeNegotiation(run: Run, target: Target): Promise<void> {
  const refused = await run.get(target.path, { Accept: UNSERVABLE });
  run.note(
    'probe-not-acceptable-406',
    status(refused) === 406 ? 'pass' : 'fail',
    refused,
    status(refused) === 406 ? '406 for an unservable type' : `expected 406 for Accept: ${UNSERVABLE}`,
  );

  const rule = 'probe-accept-q';
  const xmlPreferred = await run.get(target.path, { Accept: 'application/json;q=0.5, application/xml' });
  const type = xmlPreferred.response?.headers.get('content-type');
  if (!is2xx(xmlPreferred)) {
    run.note(rule, 'fail', xmlPreferred, 'expected 2xx for an Accept listing JSON');
    return;
  }
  if (isXmlType(type)) run.note(rule, 'pass', xmlPreferred, 'XML (q=1) preferred over JSON (q=0.5)');
  else {
    const xmlOnly = await run.get(target.path, { Accept: 'application/xml' });
    if (is2xx(xmlOnly) && isXmlType(xmlOnly.response?.headers.get('content-type')))
      run.note(
        rule,
        'fail',
        xmlPreferred,
        `serves XML but answered ${mediaTypeOf(type)} although XML had the higher q`,
      );
    else run.note(rule, 'pass', xmlOnly, 'XML is not served, so JSON (q=0.5) is the best match');
  }
  const jsonPreferred = await run.get(target.path, { Accept: 'application/xml;q=0.5, application/json' });
  const jsonType = jsonPreferred.response?.headers.get('content-type');
  if (is2xx(jsonPreferred) && isJsonType(jsonType))
    run.note(rule, 'pass', jsonPreferred, 'JSON (q=1) preferred');
  else run.note(rule, 'fail', jsonPreferred, 'expected JSON, which has the higher q');
}

async function probeUnknownVersion(run: Run, target: Target): Promise<void> {
  const request = unknownVersionRequest(target.path, run.versionCarrier);
  if (request === undefined) return;
  const exchange = await run.get(request.path, request.headers);
  const code = status(exchange);
  run.note(
    'probe-version-headers',
    code >= 400 && code < 500 ? 'pass' : 'fail',
    exchange,
    code >= 400 && code < 500 ? 'unknown version refused with 4xx' : 'expected 4xx for an unknown version',
  );
}

// ---------------------------------------------------------------------------------------------
// Per-collection probes

function versionHeaders(run: Run, target: Target, exchange: Exchange): void {
  const rule = 'probe-version-headers';
  const headers = exchange.response?.headers;
  if (headers === undefined) return;
  const deprecation = headers.get('deprecation');
  const sunset = headers.get('sunset');
  const shown = ['deprecation', 'sunset', 'link'];
  if (sunset !== null && !isHttpDate(sunset)) {
    run.note(rule, 'fail', exchange, `Sunset "${sunset}" is not an IMF-fixdate`, shown);
    return;
  }
  if (target.deprecated === true) {
    if (deprecation !== null && isDeprecationValue(deprecation))
      run.note(rule, 'pass', exchange, 'deprecated version sends Deprecation', shown);
    else
      run.note(
        rule,
        'fail',
        exchange,
        'documented as deprecated but Deprecation is missing or malformed',
        shown,
      );
  } else if (deprecation !== null) {
    if (target.deprecated === false)
      run.note(
        rule,
        'fail',
        exchange,
        'sends Deprecation but the document does not mark it deprecated',
        shown,
      );
    else if (isDeprecationValue(deprecation))
      run.note(rule, 'pass', exchange, 'Deprecation is well-formed', shown);
    else
      run.note(rule, 'fail', exchange, `Deprecation "${deprecation}" is neither true nor @<seconds>`, shown);
  } else if (target.deprecated === false) {
    run.note(rule, 'pass', exchange, 'current version sends no Deprecation', shown);
  }
}

function checkFirstPage(run: Run, target: Target, exchange: Exchange): void {
  const response = exchange.response!;
  const vary = (response.headers.get('vary') ?? '').toLowerCase();
  const varies = vary.split(',').some((token) => ['accept', '*'].includes(token.trim()));
  run.note(
    'probe-vary',
    varies ? 'pass' : 'fail',
    exchange,
    varies ? 'Vary names Accept' : 'Vary does not name Accept',
    ['vary'],
  );

  const json = jsonBody(response);
  const items = pageItems(json);
  const max = run.options.maxPageSize ?? 100;
  const rule = 'probe-default-page-bounded';
  if (items === undefined) run.note(rule, 'fail', exchange, 'no item array found in the body', ['link']);
  else if (items.length > max)
    run.note(rule, 'fail', exchange, `${items.length} items (more than ${max})`, ['link']);
  else if (!hasPaginationMetadata(response.headers, json)) {
    const unknown = pageMetadata(response.headers, json).unrecognised;
    if (unknown.length > 0)
      run.note(
        rule,
        'skip',
        exchange,
        `${items.length} items; page metadata not recognised (${unknown.join(', ')}): not judged`,
        ['link'],
      );
    else
      run.note(rule, 'fail', exchange, `${items.length} items but no Link header or page metadata`, ['link']);
  } else run.note(rule, 'pass', exchange, `${items.length} items with pagination metadata`, ['link']);
  versionHeaders(run, target, exchange);
}

function expect400(run: Run, rule: string, exchange: Exchange, what: string): void {
  const code = status(exchange);
  if (code === 400) run.note(rule, 'pass', exchange, `400 for ${what}`);
  else if (is2xx(exchange))
    run.note(rule, 'fail', exchange, `${what} was accepted with ${code}; expected 400`);
  else run.note(rule, 'fail', exchange, `expected 400 for ${what}`);
}

async function probeQueryValidation(run: Run, target: Target): Promise<void> {
  const sort = await run.get(withQuery(target.path, 'sort=plumbline_no_such_field'));
  expect400(run, 'probe-sort-unknown-400', sort, 'an unknown sort field');

  const limit = await run.get(withQuery(target.path, pageQuery(target.pagination, 100_000)));
  expect400(run, 'probe-limit-over-max-400', limit, 'a page size of 100000');

  if (target.query !== undefined && !target.query.includes('q'))
    run.note(
      'probe-search-too-short-400',
      'not-applicable',
      undefined,
      `not applicable: ${target.template} documents no q parameter`,
    );
  else {
    const search = await run.get(withQuery(target.path, 'q=a'));
    expect400(run, 'probe-search-too-short-400', search, 'a one-character search');
  }
}

async function probePagination(run: Run, target: Target, unpagedCount: number): Promise<void> {
  const rule = 'probe-pagination-links';
  const first = await run.get(withQuery(target.path, pageQuery(target.pagination, 1)));
  if (!is2xx(first) || first.response === undefined) {
    run.note(rule, 'fail', first, 'a page of one item was refused', ['link']);
    return;
  }
  const json = jsonBody(first.response);
  const items = pageItems(json) ?? [];
  const next = nextLink(first.response.headers, json, first.request.url, target.query ?? []);
  if (next === undefined) {
    const more = pageHasMore(json);
    if (more === true)
      run.note(rule, 'fail', first, 'the page says more items follow but has no next link', ['link']);
    else if (items.length > 1)
      run.note(
        rule,
        'skip',
        first,
        `asked for a page of 1 item, got ${items.length} and no next link: the page size was not applied, so there is no next page to follow`,
        ['link'],
      );
    else if (pageMetadata(first.response.headers, json).unrecognised.length > 0)
      run.note(
        rule,
        'skip',
        first,
        `page metadata not recognised (${pageMetadata(first.response.headers, json).unrecognised.join(', ')}): no next link found to follow`,
        ['link'],
      );
    else if (unpagedCount > items.length)
      run.note(
        rule,
        'fail',
        first,
        `${unpagedCount} items exist but a page of ${items.length} has no next link`,
        ['link'],
      );
    else
      run.note(
        rule,
        'not-applicable',
        first,
        `not applicable: ${target.template} has ${unpagedCount} item${unpagedCount === 1 ? '' : 's'}, a next page needs at least 2; create some (or use --allow-writes)`,
        ['link'],
      );
    return;
  }
  if (run.client.resolve(next) === undefined) {
    run.note(rule, 'fail', first, `next link ${next} leaves ${run.client.base.origin}`, ['link']);
    return;
  }
  const second = await run.get(next);
  const nextItems = second.response ? (pageItems(jsonBody(second.response)) ?? []) : [];
  if (!is2xx(second)) run.note(rule, 'fail', second, 'the next link does not answer 2xx');
  else if (nextItems.length === 0) run.note(rule, 'fail', second, 'the next page is empty');
  else if (JSON.stringify(nextItems[0]) === JSON.stringify(items[0]))
    run.note(rule, 'fail', second, 'the next page repeats the first item');
  else run.note(rule, 'pass', second, `next link ${next} returned the following item`, ['link']);
}

function knownIdFormat(target: Target): boolean {
  const schema = target.info?.idSchema;
  return schema?.['type'] === 'integer' || schema?.['type'] === 'number' || schema?.['format'] === 'uuid';
}

function missingId(target: Target): string {
  const schema = target.info?.idSchema;
  return schema?.['type'] === 'integer' || schema?.['type'] === 'number' ? '2147480001' : randomUUID();
}

async function probeNotFound(run: Run, target: Target): Promise<void> {
  const rule = 'probe-not-found-404';
  const exchange = await run.get(`${target.path}/${missingId(target)}`);
  const code = status(exchange);
  if (code === 404) run.note(rule, 'pass', exchange, '404 for an id that never existed');
  else if (code === 400 && !knownIdFormat(target))
    run.note(rule, 'skip', exchange, 'the probe id format was refused; document the id as integer or uuid');
  else run.note(rule, 'fail', exchange, 'expected 404 for an id that never existed');
}

// ---------------------------------------------------------------------------------------------
// Write probes

function sample(schema: JsonObject | undefined, depth = 0): unknown {
  if (schema === undefined || depth > 4) return 'plumbline-conformance';
  if (schema['example'] !== undefined) return schema['example'];
  if (Array.isArray(schema['enum']) && schema['enum'].length > 0) return schema['enum'][0];
  const type = Array.isArray(schema['type']) ? schema['type'][0] : schema['type'];
  if (type === 'integer' || type === 'number')
    return typeof schema['minimum'] === 'number' ? schema['minimum'] : 1;
  if (type === 'boolean') return true;
  if (type === 'array') return [];
  if (type === 'object' || isObject(schema['properties'])) {
    const properties = isObject(schema['properties']) ? schema['properties'] : {};
    const required = Array.isArray(schema['required'])
      ? schema['required'].map(String)
      : Object.keys(properties);
    const value: JsonObject = {};
    for (const name of required) {
      const property = properties[name];
      value[name] = sample(isObject(property) ? property : undefined, depth + 1);
    }
    return value;
  }
  if (schema['format'] === 'uuid') return randomUUID();
  if (schema['format'] === 'date-time') return '2026-01-01T00:00:00Z';
  if (schema['format'] === 'date') return '2026-01-01';
  // Unique per body: APIs often keep names unique (409 on a second create), which would turn the
  // replay and key-reuse probes into probes of the uniqueness rule instead.
  const text = `plumbline-conformance-${randomUUID().slice(0, 8)}`;
  return typeof schema['maxLength'] === 'number' ? text.slice(0, Math.max(1, schema['maxLength'])) : text;
}

function createBody(run: Run, target: Target): unknown {
  const given = run.options.createBodies;
  if (given?.[target.template] !== undefined) return given[target.template];
  if (given?.[target.path] !== undefined) return given[target.path];
  if (target.info?.createExample !== undefined) return target.info.createExample;
  return sample(target.info?.createSchema ?? { type: 'object' });
}

function changed(body: unknown): unknown {
  if (!isObject(body)) return { plumbline_conformance: 'changed' };
  const key = Object.keys(body).find((name) => typeof body[name] === 'string');
  return key === undefined
    ? { ...body, plumbline_conformance: 'changed' }
    : { ...body, [key]: `${body[key]}-changed` };
}

function forbidden(run: Run, rule: string, exchange: Exchange): boolean {
  if (status(exchange) !== 403 && status(exchange) !== 401) return false;
  if (!run.hasCredentials) run.needsCredentials = true;
  run.note(
    rule,
    'skip',
    exchange,
    run.hasCredentials
      ? 'not run: the credentials may not write here; pass read-write credentials'
      : NEEDS_CREDENTIALS,
  );
  return true;
}

/** Where a created resource is: its Location, else the body's `self` link or `id` under the collection. */
function createdLocation(target: Target, exchange: Exchange): { location?: string; from?: string } {
  const header = exchange.response?.headers.get('location');
  if (header) return { location: header, from: 'Location' };
  const json = exchange.response ? jsonBody(exchange.response) : undefined;
  const body = isObject(json) && isObject(json['data']) ? json['data'] : json;
  if (!isObject(body)) return {};
  const links = isObject(body['links']) ? body['links'] : isObject(body['_links']) ? body['_links'] : {};
  for (const self of [body['self'], links['self']]) {
    const href = typeof self === 'string' ? self : isObject(self) ? self['href'] : undefined;
    if (typeof href === 'string' && href !== '') return { location: href, from: "the body's self link" };
  }
  const id = body['id'];
  if (typeof id === 'string' || typeof id === 'number')
    return { location: `${target.path}/${encodeURIComponent(String(id))}`, from: "the body's id" };
  return {};
}

/**
 * Records what a POST created (any 2xx) so the cleanup deletes it, whatever the status and headers;
 * without a Location or an id in the body it is reported as possibly left behind.
 */
function track(run: Run, target: Target, exchange: Exchange, what: string): string | undefined {
  if (!is2xx(exchange)) return undefined;
  const { location } = createdLocation(target, exchange);
  if (location !== undefined) run.created.push(location);
  else
    run.unlocated.push({
      location: `${what}: POST ${target.path} (${status(exchange)})`,
      reason: 'answered 2xx without a Location header or an id in the body; it may be left behind',
    });
  return location;
}

async function create(
  run: Run,
  target: Target,
  body: unknown,
  key: string = randomUUID(),
  what = 'create',
): Promise<Exchange> {
  const exchange = await run.post(target.path, JSON.stringify(body), {
    'Content-Type': 'application/json',
    [run.options.idempotencyHeader ?? 'Idempotency-Key']: key,
  });
  track(run, target, exchange, what);
  return exchange;
}

/** How two answers to a POST differ: status, `Location`, body; empty when they are the same. */
function differences(first: Exchange, second: Exchange): string[] {
  const found: string[] = [];
  if (status(first) !== status(second)) found.push(`status ${status(first)} then ${status(second)}`);
  const a = first.response?.headers.get('location') ?? null;
  const b = second.response?.headers.get('location') ?? null;
  if (a !== b) found.push(`Location ${a ?? '(none)'} then ${b ?? '(none)'}`);
  if (first.response?.body !== second.response?.body) found.push('a different body');
  return found;
}

async function probeReplay(
  run: Run,
  target: Target,
  body: unknown,
  key: string,
  original: Exchange,
): Promise<void> {
  const rule = 'probe-idempotent-replay';
  const shown = ['location', 'idempotent-replayed'];
  const replay = await run.post(target.path, JSON.stringify(body), {
    'Content-Type': 'application/json',
    [run.options.idempotencyHeader ?? 'Idempotency-Key']: key,
  });
  const changedAnswer = differences(original, replay);
  // An identical answer names the first resource (tracked already); any other may be a second one.
  if (changedAnswer.length > 0) track(run, target, replay, 'idempotent retry');
  if (changedAnswer.length > 0)
    run.note(
      rule,
      'fail',
      replay,
      `the retry differs from the first result: ${changedAnswer.join(', ')}`,
      shown,
    );
  else {
    // The same answer twice proves a replay only if a POST with another key answers differently:
    // a service that ignores the key (or answers every POST alike) would repeat itself here too.
    const control = await create(run, target, body, randomUUID(), 'control POST with another key');
    const location = createdLocation(target, original).location;
    const exists =
      location !== undefined && run.client.resolve(location) !== undefined
        ? await run.get(location)
        : undefined;
    if (differences(original, control).length === 0)
      run.note(
        rule,
        'fail',
        control,
        'a POST with another Idempotency-Key got the very same answer: the key is not what made the retry identical',
        shown,
      );
    else if (exists !== undefined && !is2xx(exists))
      run.note(rule, 'fail', exists, `the replayed resource ${location} does not answer 2xx`, shown);
    else
      run.note(
        rule,
        'pass',
        replay,
        `the retry replayed the first result (same status, body and Location${location === undefined ? '' : `, one resource at ${location}`}); a POST with another key answered ${status(control)}`,
        shown,
      );
  }
  const reused = await create(run, target, changed(body), key, 'key reuse with another body');
  run.note(
    'probe-idempotency-key-reuse-422',
    status(reused) === 422 ? 'pass' : 'fail',
    reused,
    status(reused) === 422
      ? '422 for a reused key with another body'
      : 'expected 422 for a reused key with another body',
  );
}

async function probeWrites(run: Run, target: Target): Promise<void> {
  const keyHeader = run.options.idempotencyHeader ?? 'Idempotency-Key';
  const unsupported = await run.post(target.path, 'plumbline conformance', {
    'Content-Type': 'text/plain',
    [keyHeader]: randomUUID(),
  });
  if (!forbidden(run, 'probe-unsupported-media-415', unsupported)) {
    const ok = status(unsupported) === 415;
    run.note(
      'probe-unsupported-media-415',
      ok ? 'pass' : 'fail',
      unsupported,
      ok ? '415 for text/plain' : 'expected 415',
    );
    track(run, target, unsupported, 'text/plain POST');
  }

  const body = createBody(run, target);
  const first = await create(run, target, body);
  if (forbidden(run, 'probe-create-201-location', first)) return;
  const location = first.response?.headers.get('location');
  if (status(first) === 201 && !location) {
    const derived = createdLocation(target, first);
    run.note(
      'probe-create-201-location',
      'fail',
      first,
      derived.location === undefined
        ? '201 without a Location header, and no id in the body: the resource may be left behind'
        : `201 without a Location header; ${derived.from} gives ${derived.location}, deleted at the end`,
      ['location'],
    );
  } else if (status(first) !== 201 || !location) {
    run.note('probe-create-201-location', 'fail', first, 'expected 201 with a Location header', ['location']);
  } else if (run.client.resolve(location) === undefined) {
    run.note('probe-create-201-location', 'fail', first, `Location ${location} leaves the API's origin`, [
      'location',
    ]);
  } else {
    const fetched = await run.get(location);
    run.note(
      'probe-create-201-location',
      is2xx(fetched) ? 'pass' : 'fail',
      is2xx(fetched) ? first : fetched,
      is2xx(fetched)
        ? `201, Location ${location} answers ${status(fetched)}`
        : 'the Location does not answer 2xx',
      ['location'],
    );
  }

  const key = randomUUID();
  const originalBody = createBody(run, target);
  const original = await create(run, target, originalBody, key);
  if (!is2xx(original)) {
    const why = `could not create a resource to retry (${status(original)}); pass createBodies with a valid body`;
    run.note('probe-idempotent-replay', 'skip', original, why);
    run.note('probe-idempotency-key-reuse-422', 'skip', original, why);
  } else await probeReplay(run, target, originalBody, key, original);

  const doomed = await create(run, target, createBody(run, target));
  const doomedLocation = doomed.response?.headers.get('location');
  if (!is2xx(doomed) || !doomedLocation || run.client.resolve(doomedLocation) === undefined) {
    run.note('probe-gone-410', 'skip', doomed, 'could not create a resource to delete');
    return;
  }
  const deleted = await run.send('DELETE', doomedLocation);
  // Deleted: the cleanup need not try again. Otherwise it does, and says so if it fails too.
  if (is2xx(deleted)) run.created.splice(run.created.indexOf(doomedLocation), 1);
  if (status(deleted) !== 204) {
    run.note('probe-gone-410', 'fail', deleted, 'expected 204 for DELETE');
    return;
  }
  const gone = await run.get(doomedLocation);
  run.note(
    'probe-gone-410',
    status(gone) === 410 ? 'pass' : 'fail',
    gone,
    status(gone) === 410
      ? 'DELETE 204, then 410 for the removed member'
      : 'expected 410 for a removed member',
  );
}

/** Deletes what the run created, even past the request budget, and says what it could not delete. */
async function cleanup(run: Run): Promise<Cleanup> {
  const created = [...new Set(run.created.splice(0))];
  const deleted: string[] = [];
  const notDeleted: { location: string; reason: string }[] = [...run.unlocated];
  for (const location of created) {
    if (run.client.resolve(location) === undefined) {
      notDeleted.push({ location, reason: 'outside the base URL origin' });
      continue;
    }
    const exchange = await run.client.send('DELETE', location, { overBudget: true });
    const code = status(exchange);
    if ((code >= 200 && code < 300) || code === 404 || code === 410) deleted.push(location);
    else
      notDeleted.push({
        location,
        reason: exchange.response ? `DELETE answered ${code}` : (exchange.error ?? 'no response'),
      });
  }
  return { created: created.length + run.unlocated.length, deleted, notDeleted };
}

// ---------------------------------------------------------------------------------------------
// Checks over every exchange of the run

function checkAllResponses(run: Run): void {
  for (const exchange of run.client.exchanges) {
    const response = exchange.response;
    if (response === undefined) continue;
    if (response.status >= 400) {
      // Only error bodies: a 2xx representation may legitimately hold file names or code.
      const leak = stackTraceIn(response.body);
      if (leak !== undefined) run.note('probe-no-stack-traces', 'fail', exchange, `the body holds ${leak}`);
      const fields = errorFields(response);
      const missing = [fields.errorCode ? '' : 'error_code', fields.message ? '' : 'message'].filter(Boolean);
      if (missing.length > 0)
        run.note(
          'probe-error-body',
          'fail',
          exchange,
          `${response.status} body lacks ${missing.join(' and ')}`,
        );
    } else if (response.status >= 200 && response.status < 300) {
      const marker = errorMarker(jsonBody(response));
      if (marker !== undefined)
        run.note('probe-no-200-errors', 'fail', exchange, `${response.status} with ${marker}`);
    }
  }
  const responses = run.client.exchanges.filter((exchange) => exchange.response !== undefined);
  const errors = responses.filter((exchange) => status(exchange) >= 400);
  const pass = (rule: string, note: string): void => {
    if (!run.observations.get(rule)?.some((o) => o.outcome === 'fail'))
      run.note(rule, 'pass', undefined, note);
  };
  if (errors.length > 0)
    pass('probe-error-body', `${errors.length} error responses, all with error_code and message`);
  pass('probe-no-200-errors', `${responses.length} responses, no 2xx with an error body`);
  if (errors.length > 0) pass('probe-no-stack-traces', `${errors.length} error responses, no stack trace`);
}

function outcomeOf(observations: readonly Observation[]): Outcome {
  if (observations.some((o) => o.outcome === 'fail')) return 'fail';
  if (observations.some((o) => o.outcome === 'pass')) return 'pass';
  if (observations.some((o) => o.outcome === 'skip')) return 'skip';
  return 'not-applicable';
}

function summarize(
  run: Run,
  skippedWrites: boolean,
  budgetNote: string | undefined,
  cleaned: Cleanup | undefined,
): Scorecard {
  const results = PROBE_RULES.map((rule) => {
    const observations = run.observations.get(rule.id) ?? [];
    let outcome = outcomeOf(observations);
    let evidence = observations.filter((o) => o.outcome === outcome).map((o) => o.evidence);
    if (observations.length === 0) {
      // Not run (writes off, no credentials, budget spent) is a skip; ran with nothing to judge is not.
      const why =
        rule.writes && skippedWrites
          ? 'not run: write probe; pass --allow-writes'
          : run.needsCredentials
            ? NEEDS_CREDENTIALS
            : budgetNote;
      outcome = why === undefined ? 'not-applicable' : 'skip';
      evidence = [{ note: why ?? 'not applicable: no response it applies to' }];
    }
    return ruleResult(rule, outcome, evidence.slice(0, outcome === 'pass' ? 3 : 5));
  });
  const { options } = run;
  return {
    ...buildScorecard('probe', options.baseUrl, results, run.client.count),
    limits: {
      maxRequests: options.maxRequests ?? 300,
      requestsPerSecond: options.requestsPerSecond ?? 10,
      timeoutMs: options.timeoutMs ?? 5_000,
    },
    ...(cleaned === undefined ? {} : { cleanup: cleaned }),
  };
}

/**
 * Probes a running API and scores it: read-only probes by default, write probes (create, replay,
 * delete) only with `allowWrites`. Bounded by `timeoutMs`, `maxRequests` and `requestsPerSecond`;
 * only the base URL's origin is contacted, redirects are not followed.
 *
 * @example
 * ```ts
 * const card = await probe({ baseUrl: 'http://127.0.0.1:3000', apiKey, allowWrites: true });
 * console.info(formatTable(card));
 * process.exitCode = card.ok ? 0 : 1;
 * ```
 */
export async function probe(options: ProbeOptions): Promise<Scorecard> {
  if (options.token !== undefined && options.apiKey !== undefined)
    throw new ProbeConfigError('pass either a token or an API key, not both');
  const credentials: Record<string, string> = {};
  if (options.token !== undefined) credentials['Authorization'] = `Bearer ${options.token}`;
  if (options.apiKey !== undefined) credentials[options.apiKeyHeader ?? 'X-API-Key'] = options.apiKey;
  let run: Run;
  try {
    run = new Run(options, credentials);
  } catch (error) {
    throw new ProbeConfigError(error instanceof Error ? error.message : String(error));
  }
  let budgetNote: string | undefined;
  let cleaned: Cleanup | undefined;
  try {
    const targets = await discover(run);
    try {
      const writable = options.allowWrites
        ? targets.find((target) => (target.info ? target.info.creatable : true))
        : undefined;
      if (writable !== undefined) await probeWrites(run, writable);
      let first = true;
      for (const target of targets) {
        const base = await run.get(target.path);
        if ([401, 403].includes(status(base)) && !run.hasCredentials) {
          // Not a convention failure: the run has no credentials. Only what runs without them counts.
          run.needsCredentials = true;
          if (first) await probeAuth(run, target);
          first = false;
          continue;
        }
        if (!is2xx(base) || base.response === undefined) {
          run.note('probe-default-page-bounded', 'fail', base, `${target.template} did not answer 2xx`);
          continue;
        }
        if (first) {
          await probeAuth(run, target);
          await probeNegotiation(run, target);
          await probeUnknownVersion(run, target);
          first = false;
        }
        checkFirstPage(run, target, base);
        await probeQueryValidation(run, target);
        await probePagination(run, target, pageItems(jsonBody(base.response))?.length ?? 0);
        await probeNotFound(run, target);
      }
    } catch (error) {
      if (!(error instanceof BudgetExhausted)) throw error;
      budgetNote = `${error.message}; raise --max-requests`;
    } finally {
      if (options.allowWrites || run.created.length > 0 || run.unlocated.length > 0)
        cleaned = await cleanup(run);
    }
  } catch (error) {
    if (!(error instanceof NoResponse)) throw error;
    const { request } = error.exchange;
    const what = `${request.method} ${request.url.pathname}${request.url.search}: ${error.exchange.error}`;
    const sent = run.client.count;
    throw new ProbeUnreachableError(
      sent <= 1
        ? `cannot reach ${options.baseUrl} (${what})`
        : `${options.baseUrl} stopped answering after ${sent - 1} requests (${what}); the run is void`,
      error.exchange,
      sent - 1,
    );
  }
  checkAllResponses(run);
  return summarize(run, !options.allowWrites, budgetNote, cleaned);
}
