/**
 * The framework-free request and reply steps every adapter runs: path parameters (404 when they do
 * not fit), query, headers and body against their schemas (one 400 listing every problem), the
 * handler, and the reply checked against the declared responses. Plain values in and out.
 */
import type { Principal } from '@plumbline/auth';
import { type FieldIssue, HttpError, lookupLanguage } from '@plumbline/errors';
import {
  assertSearchContentType,
  buildPage,
  type CollectionQuery,
  pageHeaders,
  parseCollectionRequest,
} from '@plumbline/query-parser';
import type { CompiledResponse, CompiledRoute } from './compile.js';
import type { HandlerInput } from './route.js';
import { type AnySchema, pointerOf, runSchema, type SchemaIssue, type SchemaResult } from './schema.js';

/**
 * Where an invalid value was found.
 *
 * @example
 * ```ts
 * const where: IssueLocation = 'query';
 * ```
 */
export type IssueLocation = 'path' | 'query' | 'header' | 'body';

/**
 * One validation problem as {@link ContractOptions.issueMessage} sees it.
 *
 * @example
 * ```ts
 * const issueMessage = (issue: ContractIssue, language: string) =>
 *   issue.location === 'query' && language === 'de' ? 'Ungültiger Wert.' : undefined;
 * ```
 */
export interface ContractIssue extends SchemaIssue {
  readonly location: IssueLocation;
}

/**
 * What the contract reports when a handler's reply does not match the declared responses.
 *
 * @example
 * ```ts
 * const onResponseMismatch = (m: ResponseMismatch) => logger.error(m, `${m.route} answered ${m.status} off contract at ${m.pointer}`);
 * ```
 */
export interface ResponseMismatch {
  /** `METHOD /template` of the route. */
  readonly route: string;
  readonly status: number;
  /** Where in the body (`#/data/0/name`), or `#` for the whole reply. */
  readonly pointer: string;
  readonly message: string;
}

/**
 * Options every adapter's `mount` takes.
 *
 * @example
 * ```ts
 * const options: ContractOptions = { responseValidation: 0.1, ignoredParameters: ['version'] };
 * ```
 */
export interface ContractOptions {
  /**
   * Check each reply against the declared status and body schema: `true`, `false`, or a sampling
   * rate from 0 to 1. Default: on, except when `NODE_ENV` is `production` (off).
   */
  readonly responseValidation?: boolean | number;
  /** Told about every reply that did not match (default: one JSON line on stderr). It is answered 500. */
  readonly onResponseMismatch?: (mismatch: ResponseMismatch) => void;
  /**
   * The message of one invalid value in `language` (negotiated from `Accept-Language` among
   * `languages`); return `undefined` to keep the validator's own message.
   */
  readonly issueMessage?: (issue: ContractIssue, language: string) => string | undefined;
  /** Languages `issueMessage` can answer in (default `['en', 'de']`, the first is the fallback). */
  readonly languages?: readonly string[];
  /** Query parameters read by something else (the version parameter of the query strategy), removed before parsing. */
  readonly ignoredParameters?: readonly string[];
  /** Default of `preconditions.required` (428 for an unsafe request without a precondition). */
  readonly requirePreconditions?: boolean;
  /**
   * Whether every answer on a path that takes a PATCH (its other methods, its 405 and its errors
   * once the path matched) carries `Accept-Patch` with the PATCH route's body media types, as
   * RFC 5789 section 3.1 lets a server advertise it. Default `true`.
   */
  readonly acceptPatch?: boolean;
}

/**
 * The request as an adapter reads it.
 *
 * @example
 * ```ts
 * const request: ContractRequest = {
 *   method: 'GET', path: '/projects/2', params: { id: '2' }, rawQuery: '', body: undefined, principal: undefined,
 *   header: (name) => headers[name], headers: () => headers,
 * };
 * ```
 */
export interface ContractRequest {
  readonly method: string;
  readonly path: string;
  /** Path parameters, percent-decoded. */
  readonly params: Readonly<Record<string, string | undefined>>;
  /** The raw query string without `?`. */
  readonly rawQuery: string;
  /** A request header by lower-case name (repeated lines joined with ", "). */
  readonly header: (name: string) => string | undefined;
  /** Every request header by lower-case name, for a `headers` schema. */
  readonly headers: () => Readonly<Record<string, string | undefined>>;
  /** The parsed body (JSON), or `undefined` when there is none. */
  readonly body: unknown;
  readonly principal: Principal | undefined;
  /** What the mount's `context` option gave for this request (`undefined` without it). */
  readonly context?: unknown;
}

/**
 * The inputs after their schemas ran.
 *
 * @example
 * ```ts
 * const valid: ValidInput = { params: { id: 2 }, query: undefined, headers: undefined, body: { name: 'beta' } };
 * ```
 */
export interface ValidInput {
  readonly params: unknown;
  readonly query: unknown;
  readonly headers: unknown;
  readonly body: unknown;
}

/**
 * What an adapter sends after the handler: status, headers (Location, Link included), body (or none).
 *
 * @example
 * ```ts
 * const response: ContractResponse = { status: 201, headers: { Location: '/projects/4' }, body: project };
 * ```
 */
export interface ContractResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** `undefined`: no body (204, and any status declared with `null`). */
  readonly body: unknown;
}

/**
 * A value now or later: the steps answer synchronously when every schema does.
 *
 * @example
 * ```ts
 * const valid: Settled<unknown> = validateParams(compiled, { id: '7' });
 * ```
 */
export type Settled<T> = T | Promise<T>;
const then = <T, U>(value: Settled<T>, next: (value: T) => Settled<U>): Settled<U> =>
  value instanceof Promise ? value.then(next) : next(value);

/**
 * Path parameters through their schema; a value that does not fit names no resource: 404 `not_found`.
 *
 * @example
 * ```ts
 * const params = await validateParams(compiled, { id: '2' }); // { id: 2 }
 * await validateParams(compiled, { id: 'abc' }); // throws HttpError not_found
 * ```
 */
export function validateParams(compiled: CompiledRoute, params: ContractRequest['params']): Settled<unknown> {
  const schema = compiled.route.params;
  if (schema === undefined) return {};
  const raw: Record<string, string | undefined> = {};
  for (const name of compiled.paramNames) raw[name] = params[name];
  return then(runSchema(schema, raw), (result) => {
    if (!result.ok) throw new HttpError('not_found');
    return result.value;
  });
}

function queryObject(rawQuery: string, ignored: ReadonlySet<string>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  if (rawQuery === '') return out;
  for (const [name, value] of new URLSearchParams(rawQuery)) {
    if (ignored.has(name)) continue;
    const existing = out[name];
    if (existing === undefined) out[name] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else out[name] = [existing, value];
  }
  return out;
}

/** The raw query without the ignored parameters (a collection's parser must not see them). */
function withoutIgnored(rawQuery: string, ignored: ReadonlySet<string>): string {
  if (ignored.size === 0 || rawQuery === '') return rawQuery;
  return rawQuery
    .split('&')
    .filter((pair) => {
      const name = pair.split('=', 1)[0]!;
      let decoded = name;
      try {
        decoded = decodeURIComponent(name.replaceAll('+', ' '));
      } catch {
        // A malformed name is left for the parser to refuse.
      }
      return !ignored.has(decoded);
    })
    .join('&');
}

function issuesOf(location: IssueLocation, result: SchemaResult<unknown>): ContractIssue[] {
  return result.ok ? [] : result.issues.map((issue) => ({ ...issue, location }));
}

function fieldIssue(issue: ContractIssue, detail: string): FieldIssue {
  const name = String(issue.path[0] ?? '');
  if (issue.location === 'query') return { parameter: name, code: 'invalid_value', detail };
  if (issue.location === 'header') return { header: name, code: 'invalid_value', detail };
  if (issue.location === 'path') return { parameter: name, code: 'invalid_value', detail };
  return { pointer: pointerOf(issue.path), code: 'invalid_value', detail };
}

const DEFAULT_LANGUAGES = ['en', 'de'];

/** A schema that is not declared passes with nothing. */
const NOTHING: SchemaResult<unknown> = Object.freeze({ ok: true, value: undefined });
const NONE_IGNORED: ReadonlySet<string> = new Set();
const ignoredSets = new WeakMap<ContractOptions, ReadonlySet<string>>();
/** The ignored parameters of a mount, as a set made once (options objects are the mount's). */
function ignoredOf(options: ContractOptions): ReadonlySet<string> {
  const list = options.ignoredParameters;
  if (list === undefined || list.length === 0) return NONE_IGNORED;
  let set = ignoredSets.get(options);
  if (set === undefined) {
    set = new Set(list);
    ignoredSets.set(options, set);
  }
  return set;
}

/**
 * Runs the query, header and body schemas (all of them, so every problem is reported at once) and
 * parses a collection route's query with `@plumbline/query-parser`, bound to the route's `scope`
 * (made from `params`, the output of {@link validateParams}). Throws one 400 `validation_failed`
 * listing every invalid value, or the query parser's own 400 (404 for a scope value that cannot
 * be of its field's type).
 *
 * @example
 * ```ts
 * const params = await validateParams(compiled, request.params); // { projectId: 7 }
 * const valid = await validateRequest(compiled, request, { languages: ['en', 'de'] }, params);
 * // valid.query.scope: [{ field: 'project_id', op: 'eq', value: 7 }] for a scoped collection,
 * // or throws HttpError validation_failed, listing every invalid value
 * ```
 */
export function validateRequest(
  compiled: CompiledRoute,
  request: ContractRequest,
  options: ContractOptions,
  params?: unknown,
): Settled<Omit<ValidInput, 'params'>> {
  const { route } = compiled;
  const ignored = ignoredOf(options);
  let query: Settled<SchemaResult<unknown>> = NOTHING;
  // A search's query is its body, parsed after idempotency (parseSearch); no JSON type is a 415.
  if (compiled.search) assertSearchContentType(request.header('content-type'));
  if (compiled.collection !== undefined && !compiled.search) {
    const scope = compiled.scope?.({ params, principal: request.principal });
    const parsed: CollectionQuery = parseCollectionRequest(compiled.collection, {
      method: request.method,
      query: withoutIgnored(request.rawQuery, ignored),
      prefer: request.header('prefer'),
      body: request.body,
      ...(scope !== undefined ? { scope } : {}),
    });
    // The common list route (no header schema): no result objects, no promise.
    if (route.headers === undefined && compiled.body === undefined)
      return { query: parsed, headers: undefined, body: undefined };
    query = { ok: true, value: parsed };
  } else {
    const object = queryObject(request.rawQuery, ignored);
    if (route.query !== undefined) query = runSchema(route.query, object);
    else {
      const names = Object.keys(object);
      if (names.length > 0) {
        throw new HttpError('unknown_parameter', {
          params: { parameter: names[0]! },
          errors: names.map((parameter) => ({ parameter, code: 'unknown_parameter', params: { parameter } })),
        });
      }
    }
  }
  const headers: Settled<SchemaResult<unknown>> =
    route.headers !== undefined ? runSchema(route.headers, request.headers()) : NOTHING;
  const body: Settled<SchemaResult<unknown>> =
    compiled.body !== undefined ? runSchema(compiled.body.schema, request.body) : NOTHING;
  const finish = (
    q: SchemaResult<unknown>,
    h: SchemaResult<unknown>,
    b: SchemaResult<unknown>,
  ): Omit<ValidInput, 'params'> => {
    if (q.ok && h.ok && b.ok) return { query: q.value, headers: h.value, body: b.value };
    const issues = [...issuesOf('query', q), ...issuesOf('header', h), ...issuesOf('body', b)];
    const languages = options.languages ?? DEFAULT_LANGUAGES;
    const language = options.issueMessage
      ? lookupLanguage(request.header('accept-language'), languages, languages[0] ?? 'en')
      : 'en';
    const errors = issues.map((issue) =>
      fieldIssue(issue, options.issueMessage?.(issue, language) ?? issue.message),
    );
    throw new HttpError('validation_failed', { params: { count: errors.length }, errors });
  };
  if (query instanceof Promise || headers instanceof Promise || body instanceof Promise)
    return Promise.all([query, headers, body]).then(([q, h, b]) => finish(q, h, b));
  return finish(query, headers, body);
}

/**
 * The collection query of a search (a `POST …/search` collection route), read from its JSON body
 * (the output of {@link validateRequest}; no body is `{}`) by `@plumbline/query-parser`'s
 * `parseSearchBody`, bound to the route's `scope`, with `Prefer: count=exact`. Adapters run it after
 * idempotency and preconditions, so a bad search body is answered (and its answer kept) under the
 * request's `Idempotency-Key` like any other answer. Throws the query parser's 400 (`unknown_parameter`
 * for an unknown member, `invalid_sort`, ...). Any other route's input is returned as it is.
 *
 * @example
 * ```ts
 * const valid = parseSearch(compiled, request, params, await validateRequest(compiled, request, options, params));
 * // valid.query: the CollectionQuery of { "filter": { "status": "open" }, "sort": "-id" }
 * ```
 */
export function parseSearch(
  compiled: CompiledRoute,
  request: ContractRequest,
  params: unknown,
  valid: Omit<ValidInput, 'params'>,
): Omit<ValidInput, 'params'> {
  if (!compiled.search || compiled.collection === undefined) return valid;
  const scope = compiled.scope?.({ params, principal: request.principal });
  const query = parseCollectionRequest(compiled.collection, {
    method: 'POST',
    query: '',
    prefer: request.header('prefer'),
    body: valid.body,
    ...(scope !== undefined ? { scope } : {}),
  });
  return { ...valid, query };
}

/**
 * Refuses a request with more than one `Content-Type` line: 400 `malformed_request` (RFC 9110
 * section 8.3 is one value, so which type the body is in cannot be told). Node keeps the first line
 * (Express, Fastify) where the Fetch API joins them (Hono): the adapters count the lines instead.
 * `rawHeaders` is Node's `[name, value, name, value, ...]` list.
 *
 * @example
 * ```ts
 * checkContentTypeLines(req.rawHeaders);
 * checkContentTypeLines(['Content-Type', 'application/json', 'content-type', 'text/plain']); // throws 400 malformed_request
 * ```
 */
export function checkContentTypeLines(rawHeaders: readonly string[]): void {
  let lines = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length === 12 && name.toLowerCase() === 'content-type') lines += 1;
  }
  if (lines > 1)
    throw new HttpError('malformed_request', { extensions: { reason: 'content_type_repeated' } });
}

/**
 * Refuses a body in a content coding (`Content-Encoding` other than `identity`) before it is read:
 * 415 `unsupported_media_type`, as express.json answers with `inflate: false`, so a small
 * compressed body cannot grow past the limit. Every adapter runs it after the route's
 * `requireContentType` (which refuses JSON in a charset other than UTF-8), before its body parser.
 *
 * @example
 * ```ts
 * checkContentCoding(undefined); // passes
 * checkContentCoding('gzip'); // throws HttpError unsupported_media_type (415)
 * ```
 */
export function checkContentCoding(contentEncoding: string | undefined): void {
  const coding = (contentEncoding ?? '').trim().toLowerCase();
  if (coding !== '' && coding !== 'identity') throw new HttpError('unsupported_media_type');
}

/**
 * Whether a body's bytes are none at all, or only a UTF-8 byte order mark: the request has no body.
 *
 * @example
 * ```ts
 * isEmptyBody(new Uint8Array()); // true
 * isEmptyBody(new TextEncoder().encode('{}')); // false
 * ```
 */
export function isEmptyBody(bytes: Uint8Array): boolean {
  return (
    bytes.length === 0 || (bytes.length === 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf)
  );
}

/**
 * Builds the handler's input from the validated parts and the conventions' state.
 *
 * @example
 * ```ts
 * const input = handlerInput(request, params, valid, { current, conditional: true, transaction: undefined });
 * const response = await respond(compiled, input, options);
 * ```
 */
export function handlerInput(
  request: ContractRequest,
  params: unknown,
  valid: Omit<ValidInput, 'params'>,
  extra: { readonly current?: unknown; readonly conditional?: boolean; readonly transaction?: unknown },
): HandlerInput {
  return {
    method: request.method,
    path: request.path,
    params,
    query: valid.query,
    headers: valid.headers,
    body: valid.body,
    principal: request.principal,
    current: extra.current,
    conditional: extra.conditional ?? false,
    transaction: extra.transaction,
    context: request.context,
  };
}

function defaultMismatch(mismatch: ResponseMismatch): void {
  process.stderr.write(
    `${JSON.stringify({ level: 'error', msg: 'response does not match the contract', ...mismatch })}\n`,
  );
}

/**
 * Whether this reply is checked under `responseValidation` (a rate samples replies).
 *
 * @example
 * ```ts
 * shouldValidate(true); // true
 * shouldValidate(0.1); // true for about one reply in ten
 * ```
 */
function shouldValidate(setting: ContractOptions['responseValidation']): boolean {
  const value = setting ?? process.env['NODE_ENV'] !== 'production';
  if (typeof value === 'boolean') return value;
  return value >= 1 || (value > 0 && Math.random() < value);
}

interface Checked {
  readonly response: ContractResponse;
  /** What response validation checks (made only when it runs). */
  readonly check: () => readonly (readonly [AnySchema, unknown, readonly PropertyKey[]])[];
}
const NO_CHECK = () => [];

function mismatch(
  compiled: CompiledRoute,
  status: number,
  pointer: string,
  message: string,
): ResponseMismatch {
  return { route: compiled.name, status, pointer, message };
}

/** Shapes the handler's reply into what is sent; a reply no route could send (201 without a location) is a mismatch. */
function shape(compiled: CompiledRoute, reply: unknown, input: HandlerInput): Checked | ResponseMismatch {
  if (
    typeof reply !== 'object' ||
    reply === null ||
    typeof (reply as { status?: unknown }).status !== 'number'
  )
    return mismatch(compiled, 500, '#', 'the handler must return { status, body? }');
  const r = reply as {
    status: number;
    body?: unknown;
    location?: string;
    headers?: Record<string, string>;
    rows?: readonly Record<string, unknown>[];
    total?: number | string | bigint;
  };
  const headers: Record<string, string> = { ...r.headers };
  const declared = compiled.responses.get(r.status);
  if (compiled.collection !== undefined && r.rows !== undefined) {
    if (!Array.isArray(r.rows)) return mismatch(compiled, r.status, '#/rows', 'rows must be an array');
    const page = buildPage(input.query as CollectionQuery, r.rows, {
      // A search's links are to its collection (`GET` with the query string), not to `…/search`.
      baseUrl: compiled.search ? input.path.replace(/\/search$/, '') : input.path,
      ...(r.total !== undefined ? { total: r.total } : {}),
    });
    // The page's headers as the query-parser's adapters send them: Link, Vary: Prefer, and
    // Preference-Applied when a requested total is in the page (the adapters merge Link and Vary).
    const extra = pageHeaders(page, input.query as CollectionQuery);
    if (extra.link !== undefined) headers['Link'] = extra.link;
    headers['Vary'] = extra.vary;
    if (extra.preferenceApplied !== undefined) headers['Preference-Applied'] = extra.preferenceApplied;
    const item = declared?.body;
    return {
      response: { status: r.status, headers, body: page.body },
      // The handler's rows are checked, before `fields=` drops members from the page.
      check: item
        ? () => r.rows!.slice(0, page.body.data.length).map((row, i) => [item, row, ['data', i]] as const)
        : NO_CHECK,
    };
  }
  if (r.status === 201) {
    if (typeof r.location !== 'string' || r.location === '')
      return mismatch(compiled, 201, '#', 'a 201 reply needs `location` (sent as Location)');
  }
  if (r.location !== undefined) headers['Location'] = r.location;
  const body = declared !== undefined && declared.body === undefined ? undefined : r.body;
  return {
    response: { status: r.status, headers, body },
    check: declared?.body ? () => [[declared.body!, r.body, []]] : NO_CHECK,
  };
}

function validateShape(
  compiled: CompiledRoute,
  declared: CompiledResponse | undefined,
  status: number,
  body: unknown,
): ResponseMismatch | undefined {
  if (declared === undefined)
    return mismatch(
      compiled,
      status,
      '#',
      `status ${status} is not declared (declared: ${[...compiled.responses.keys()].join(', ')})`,
    );
  if (declared.body === undefined && body !== undefined && body !== null && status !== 204)
    return mismatch(compiled, status, '#', `status ${status} is declared without a body`);
  return undefined;
}

/**
 * Runs the handler and turns its reply into the response to send. With response validation on, a
 * reply whose status is not declared or whose body does not fit its schema is reported
 * (`onResponseMismatch`) and answered 500 `internal_error` instead.
 *
 * @example
 * ```ts
 * const response = await respond(compiled, handlerInput(request, params, valid, {}), { responseValidation: true });
 * // { status: 200, headers: {}, body: { id: 2, name: 'beta', ... } }, or throws HttpError internal_error
 * ```
 */
export function respond(
  compiled: CompiledRoute,
  input: HandlerInput,
  options: ContractOptions,
): ContractResponse | Promise<ContractResponse> {
  const reply = (compiled.route.handler as (input: HandlerInput) => unknown)(input);
  // A handler that answers at once is answered without a promise (one turn of the microtask
  // queue less per request); an async one is awaited.
  if (reply instanceof Promise) return reply.then((settled) => replyOf(compiled, settled, input, options));
  return replyOf(compiled, reply, input, options);
}

function report(options: ContractOptions, m: ResponseMismatch): never {
  (options.onResponseMismatch ?? defaultMismatch)(m);
  throw new HttpError('internal_error', {
    cause: new Error(`${m.route} ${m.status} ${m.pointer}: ${m.message}`),
  });
}

function replyOf(
  compiled: CompiledRoute,
  reply: unknown,
  input: HandlerInput,
  options: ContractOptions,
): ContractResponse | Promise<ContractResponse> {
  const shaped = shape(compiled, reply, input);
  if (!('response' in shaped)) return report(options, shaped);
  const { response } = shaped;
  if (!shouldValidate(options.responseValidation)) return response;
  const declared = compiled.responses.get(response.status);
  const wrong = validateShape(compiled, declared, response.status, (reply as { body?: unknown }).body);
  if (wrong) return report(options, wrong);
  const checks = shaped.check();
  const verdict = (result: SchemaResult<unknown>, at: readonly PropertyKey[]) => {
    if (result.ok) return;
    const first = result.issues[0]!;
    report(options, mismatch(compiled, response.status, pointerOf(first.path, at), first.message));
  };
  for (let i = 0; i < checks.length; i++) {
    const [schema, value, at] = checks[i]!;
    const result = runSchema(schema, value);
    // An async schema: this one and the rest are awaited in order.
    if (result instanceof Promise)
      return checkRest(result, at, checks.slice(i + 1), verdict).then(() => response);
    verdict(result, at);
  }
  return response;
}

async function checkRest(
  first: Promise<SchemaResult<unknown>>,
  at: readonly PropertyKey[],
  rest: readonly (readonly [AnySchema, unknown, readonly PropertyKey[]])[],
  verdict: (result: SchemaResult<unknown>, at: readonly PropertyKey[]) => void,
): Promise<void> {
  verdict(await first, at);
  for (const [schema, value, path] of rest) verdict(await runSchema(schema, value), path);
}
