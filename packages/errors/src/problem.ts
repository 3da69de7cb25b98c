import Negotiator from 'negotiator';
import { codeForStatus, type ERROR_STATUS } from './catalogue.js';
import { defaultCatalogue, type MessageCatalogue } from './catalogue-messages.js';
import { type FieldIssue, HttpError, isHttpError } from './http-error.js';
import { reasonPhrase } from './status.js';
import { toXml } from './xml.js';

/** `application/problem+json` (RFC 9457). */
export const PROBLEM_JSON = 'application/problem+json';
/** `application/problem+xml` (RFC 9457 appendix B). */
export const PROBLEM_XML = 'application/problem+xml';
/** The XML namespace of problem documents. */
export const PROBLEM_XML_NAMESPACE = 'urn:ietf:rfc:7807';

/**
 * One entry of the `errors` member.
 *
 * @example
 * ```ts
 * const entry: ProblemFieldError = { parameter: 'limit', error_code: 'limit_too_large', detail: '...' };
 * ```
 */
export interface ProblemFieldError {
  readonly pointer?: string;
  readonly parameter?: string;
  readonly header?: string;
  readonly error_code: string;
  readonly detail: string;
}

/**
 * The error body every Plumbline error is sent with ({@link https://github.com/plumbline/plumbline/blob/main/docs/design.md#d-errors | design: errors}).
 *
 * @example
 * ```ts
 * const problem: Problem = toProblem(new HttpError('not_found'), { instance: '/v1/projects/1' });
 * ```
 */
export interface Problem {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly instance?: string;
  readonly error_code: string;
  readonly message: string;
  readonly errors?: readonly ProblemFieldError[];
  readonly request_id?: string;
  readonly [extension: string]: unknown;
}

/**
 * What {@link toProblem} needs to know about the request.
 *
 * @example
 * ```ts
 * const context: ProblemContext = { instance: '/v2/projects', requestId: 'abc', language: 'de' };
 * ```
 */
export interface ProblemContext {
  /** The request path (without query string). */
  readonly instance?: string;
  readonly requestId?: string;
  /** A language the catalogue has (pick it with `lookupLanguage`). Default: the catalogue's fallback. */
  readonly language?: string;
  readonly catalogue?: MessageCatalogue;
  /** Base of the `type` link. Default `/errors` (a relative reference, RFC 9457 section 3.1.1). */
  readonly docsBaseUrl?: string;
}

const RESERVED_MEMBERS = new Set([
  'type',
  'title',
  'status',
  'detail',
  'instance',
  'error_code',
  'message',
  'errors',
  'request_id',
]);

// body-parser (Express's json/urlencoded/raw/text parsers) marks its errors with a `type`.
const BODY_PARSER_CODES: Readonly<Record<string, keyof typeof ERROR_STATUS>> = {
  'entity.parse.failed': 'malformed_json',
  'entity.too.large': 'payload_too_large',
  'parameters.too.many': 'payload_too_large',
  'encoding.unsupported': 'unsupported_media_type',
  'charset.unsupported': 'unsupported_media_type',
  'request.aborted': 'bad_request',
  'request.size.invalid': 'bad_request',
};

// Fastify's own errors carry a stable `code`; the ones a client causes map to catalogue codes.
const FRAMEWORK_CODES: Readonly<Record<string, keyof typeof ERROR_STATUS>> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'malformed_json',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'malformed_json',
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'bad_request',
  FST_ERR_BAD_URL: 'bad_request',
  FST_ERR_NOT_FOUND: 'not_found',
  FST_ERR_VALIDATION: 'validation_failed',
};

interface SchemaIssue {
  readonly instancePath?: unknown;
  readonly message?: unknown;
  readonly params?: { readonly missingProperty?: unknown };
}

// Fastify's schema validation (Ajv) lists every failure; each becomes an entry of `errors`.
function schemaIssues(record: Record<string, unknown>): FieldIssue[] {
  const list = Array.isArray(record['validation']) ? (record['validation'] as SchemaIssue[]) : [];
  const where = record['validationContext'];
  return list.slice(0, 50).map((issue) => {
    const path = typeof issue.instancePath === 'string' ? issue.instancePath : '';
    const missing = issue.params?.missingProperty;
    const name = typeof missing === 'string' ? `${path}/${missing}` : path;
    const detail = typeof issue.message === 'string' ? issue.message.slice(0, 200) : undefined;
    const location =
      where === 'body'
        ? { pointer: `#${name}` }
        : where === 'headers'
          ? { header: name.slice(1) }
          : { parameter: name.slice(1) };
    return { ...location, code: 'invalid_value', ...(detail !== undefined ? { detail } : {}) };
  });
}

/**
 * Normalizes anything thrown into an {@link HttpError}. An `HttpError` passes through; a
 * body-parser error (Express) or a Fastify `FST_ERR_CTP_*` error maps to `malformed_json`,
 * `payload_too_large` or `unsupported_media_type`, Fastify's schema validation error to
 * `validation_failed` with every failure in `errors`; an
 * object with a 4xx/5xx `status` (such as `http-errors`) maps to the catalogue code for that status;
 * anything else (a string, `null`, an `Error`, a status of 999) becomes 500 `internal_error` with
 * the original kept as `cause` for logs.
 *
 * @example
 * ```ts
 * toHttpError('boom').status; // 500
 * toHttpError({ type: 'entity.parse.failed', status: 400 }).code; // 'malformed_json'
 * ```
 */
export function toHttpError(value: unknown): HttpError {
  if (isHttpError(value)) return value;
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    const parserCode = typeof record['type'] === 'string' ? BODY_PARSER_CODES[record['type']] : undefined;
    if (parserCode) {
      const limit = typeof record['limit'] === 'number' ? record['limit'] : undefined;
      return new HttpError(parserCode, {
        cause: value,
        ...(parserCode === 'payload_too_large' && limit !== undefined ? { params: { limit } } : {}),
      });
    }
    const frameworkCode = typeof record['code'] === 'string' ? FRAMEWORK_CODES[record['code']] : undefined;
    if (frameworkCode === 'validation_failed') {
      return new HttpError(frameworkCode, { cause: value, errors: schemaIssues(record) });
    }
    if (frameworkCode) return new HttpError(frameworkCode, { cause: value });
    const status = record['status'] ?? record['statusCode'];
    if (typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 599) {
      const code = codeForStatus(status);
      const headers = pickStringHeaders(record['headers']);
      return new HttpError(code, { cause: value, ...(headers ? { headers } : {}) });
    }
  }
  return new HttpError('internal_error', { cause: value });
}

function pickStringHeaders(value: unknown): Record<string, string> | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const out: Record<string, string> = {};
  for (const [name, header] of Object.entries(value)) {
    if (typeof header === 'string' && /^[A-Za-z0-9-]+$/.test(name)) out[name] = header;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * Builds the problem document for an error: the members listed in
 * {@link https://github.com/plumbline/plumbline/blob/main/docs/design.md#d-errors | design: errors}, `detail` and
 * `message` localized from the catalogue (or the error's own `detail` when it may be exposed). A
 * 5xx, or any error with `expose: false`, gets the generic catalogue message: never the original
 * message, a stack, a driver message or SQL.
 *
 * @example
 * ```ts
 * toProblem(new HttpError('search_too_short', { params: { min: 3 } }), { instance: '/v1/projects', language: 'en' });
 * // { type: '/errors/search_too_short', title: 'Bad Request', status: 400,
 * //   detail: 'Search text must be at least 3 characters.', instance: '/v1/projects',
 * //   error_code: 'search_too_short', message: 'Search text must be at least 3 characters.' }
 * ```
 */
export function toProblem(error: unknown, context: ProblemContext = {}): Problem {
  const httpError = toHttpError(error);
  const catalogue = context.catalogue ?? defaultCatalogue;
  const language = context.language ?? catalogue.fallbackLanguage;
  const { status, code, expose } = httpError;
  const detail =
    expose && httpError.detail !== undefined
      ? httpError.detail
      : catalogue.format(code, expose ? httpError.params : undefined, language, status);
  const base = (context.docsBaseUrl ?? '/errors').replace(/\/+$/, '');
  const problem: Record<string, unknown> = {};
  if (expose) {
    for (const [key, value] of Object.entries(httpError.extensions)) {
      if (!RESERVED_MEMBERS.has(key)) problem[key] = value;
    }
  }
  Object.assign(problem, {
    type: `${base}/${encodeURIComponent(code)}`,
    title: reasonPhrase(status),
    status,
    detail,
    ...(context.instance !== undefined ? { instance: context.instance } : {}),
    error_code: code,
    message: detail,
  });
  if (expose && httpError.errors.length > 0) {
    problem['errors'] = httpError.errors.map((issue): ProblemFieldError => {
      const location =
        issue.pointer !== undefined
          ? { pointer: issue.pointer }
          : issue.parameter !== undefined
            ? { parameter: issue.parameter }
            : issue.header !== undefined
              ? { header: issue.header }
              : {};
      return {
        ...location,
        error_code: issue.code,
        detail: issue.detail ?? catalogue.format(issue.code, issue.params, language, status),
      };
    });
  }
  if (context.requestId !== undefined) problem['request_id'] = context.requestId;
  return problem as Problem;
}

/**
 * True when a media type (as chosen from Accept) means the client wants XML.
 *
 * @example
 * ```ts
 * wantsXml('application/problem+xml'); // true
 * wantsXml('application/json'); // false
 * ```
 */
export function wantsXml(mediaType: string): boolean {
  const type = (mediaType.split(';', 1)[0] ?? '').trim().toLowerCase();
  return type === 'application/xml' || type === 'text/xml' || type.endsWith('+xml');
}

const MAX_ACCEPT_LENGTH = 1024;

/**
 * The problem media type for an Accept header: the client's ranges are read in preference order
 * (highest q first, `q=0` dropped) and the first that names XML (`application/xml`, `text/xml`,
 * any `+xml`, `text/*`) gives XML, the first that names JSON (`application/json`, any `+json`,
 * `application/*`, `*\/*`) gives JSON; a missing, empty, unparseable or unmatched header gives
 * JSON. Errors are never refused with 406. Headers over 1 KiB are cut to their first 1 KiB;
 * decisions are remembered per header (at most 256).
 *
 * @example
 * ```ts
 * problemMediaType('application/xml'); // 'application/problem+xml'
 * problemMediaType('application/xml;q=0.5, application/json'); // 'application/problem+json'
 * problemMediaType('text/plain'); // 'application/problem+json'
 * ```
 */
export function problemMediaType(accept: string | undefined): string {
  if (!accept) return PROBLEM_JSON;
  const key = accept.slice(0, MAX_ACCEPT_LENGTH);
  let chosen = decided.get(key);
  if (chosen === undefined) {
    chosen = decideProblemType(key);
    // Clients repeat a handful of Accept headers; a full cache starts over rather than grow.
    if (decided.size >= DECIDED_LIMIT) decided.clear();
    decided.set(key, chosen);
  }
  return chosen;
}

const DECIDED_LIMIT = 256;
const decided = new Map<string, string>();

function decideProblemType(accept: string): string {
  for (const range of new Negotiator({ headers: { accept } }).mediaTypes()) {
    const type = range.toLowerCase();
    if (type === 'text/*' || wantsXml(type)) return PROBLEM_XML;
    if (type === '*/*' || type === 'application/*' || type === 'application/json' || type.endsWith('+json'))
      return PROBLEM_JSON;
  }
  return PROBLEM_JSON;
}

/**
 * Writes a problem document as `application/problem+json` or `application/problem+xml` (root
 * `<problem xmlns="urn:ietf:rfc:7807">`, arrays as `<i>`), choosing exactly as the error handlers
 * do: `accept` is an Accept header (a single media type is one), negotiated by
 * {@link problemMediaType}, so `application/xml;q=0.5, application/json` gives JSON. Returns the
 * body and the exact Content-Type to send.
 *
 * @example
 * ```ts
 * const { body, contentType } = serializeProblem(problem, 'application/json;q=0.1, application/xml');
 * // contentType === 'application/problem+xml; charset=utf-8'
 * ```
 */
export function serializeProblem(
  problem: Problem,
  accept: string | undefined = PROBLEM_JSON,
): { body: string; contentType: string } {
  if (problemMediaType(accept) === PROBLEM_XML) {
    return {
      body: toXml(problem, { root: 'problem', namespace: PROBLEM_XML_NAMESPACE }),
      contentType: `${PROBLEM_XML}; charset=utf-8`,
    };
  }
  return { body: JSON.stringify(problem), contentType: `${PROBLEM_JSON}; charset=utf-8` };
}
