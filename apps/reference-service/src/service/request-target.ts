/**
 * The two request-target forms besides origin-form that an origin server sees (RFC 9112 section
 * 3.2): absolute-form (`GET http://api.example.com/v2/projects HTTP/1.1`), which must be served like
 * its origin-form, and asterisk-form (`OPTIONS * HTTP/1.1`), a question about the server as a whole.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createProblemRenderer, createRequestIdSource, HttpError } from '@plumbline/errors';
import type { PlainReply } from './plain-reply.js';

const ABSOLUTE_FORM = /^https?:\/\//i;

/**
 * Rewrites an absolute-form request target to origin-form before the app routes it, and takes the
 * host from the target, not from `Host` (RFC 9112 section 3.2.2: the origin server MUST ignore
 * the received `Host` then). A target that is not a valid http(s) URL is left as it is (404).
 *
 * @example
 * ```ts
 * createHttpServer((req, res) => { toOriginForm(req); app(req, res); });
 * ```
 */
export function toOriginForm(req: IncomingMessage): void {
  const target = req.url;
  if (target === undefined || !ABSOLUTE_FORM.test(target)) return;
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return;
  }
  req.url = `${url.pathname}${url.search}`;
  req.headers.host = url.host;
}

/** Every method some resource of the service answers (the routes' `Allow` values together). */
const SERVER_WIDE_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';

/**
 * `OPTIONS *` (RFC 9110 section 9.3.7): 204 with the methods the server supports anywhere; the
 * wiring's earlier steps have already set the headers every response carries (request id,
 * version headers). `undefined` for anything else: other methods on `*` go on to the 404.
 * `target` is the request target as received (after {@link toOriginForm}).
 *
 * @example
 * ```ts
 * serverWideOptionsReply('OPTIONS', '*'); // { status: 204, headers: { Allow: 'GET, HEAD, …' }, body: '' }
 * ```
 */
export function serverWideOptionsReply(
  method: string | undefined,
  target: string | undefined,
): PlainReply | undefined {
  if (target !== '*' || method !== 'OPTIONS') return undefined;
  return { status: 204, headers: { Allow: SERVER_WIDE_METHODS }, body: '' };
}

/** Whether the path's escapes decode as UTF-8. */
function decodes(path: string): boolean {
  if (!path.includes('%')) return true;
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/** A `Host` value: a registered name or IPv4 address, or an IPv6 literal, and an optional port. */
const HOST = /^(?:[a-z0-9._~!$&'()*+,;=-]+|%[0-9a-f]{2}|\[[0-9a-f:.]+\])+(?::\d*)?$/i;

function validHost(rawHeaders: readonly string[]): boolean {
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (
      rawHeaders[i]!.length === 4 &&
      rawHeaders[i]!.toLowerCase() === 'host' &&
      !HOST.test(rawHeaders[i + 1]!)
    )
      return false;
  }
  return true;
}

/**
 * Gives a request without `Host` (HTTP/1.0 allows it) the address it reached, so every framework
 * can build its URL: `@hono/node-server` would otherwise answer 400 where Express and Fastify serve it.
 *
 * @example
 * ```ts
 * createHttpServer((req, res) => { fillHost(req); app(req, res); });
 * ```
 */
export function fillHost(req: IncomingMessage): void {
  if (req.headers.host !== undefined) return;
  const { localAddress, localPort } = req.socket;
  req.headers.host = localAddress?.includes(':')
    ? `[${localAddress}]:${localPort}`
    : `${localAddress}:${localPort}`;
}

/** `%` not followed by two hex digits. */
const BAD_PERCENT = /%(?![0-9a-f]{2})/i;
/** A path segment that is `.` or `..`, raw or percent-encoded in any case (RFC 3986 section 3.3). */
const DOT_SEGMENT = /(?:^|\/)(?:\.|%2e){1,2}(?:\/|$)/i;

/**
 * Why a request must be refused before any framework routes it, or `undefined`. Each framework
 * would otherwise read these differently: Fastify's router answers a bad percent-encoding itself,
 * Hono's server resolves `%2e%2e` and turns `\` into `/` (so `/v2/projects/%2e%2e/tasks` would be
 * served as `/v2/tasks`, walking around a proxy's path-prefix rules), and Hono joins two
 * `Content-Type` lines where Node keeps the first. The answer is the same on all three: 400
 * `malformed_request`.
 *
 * - a path with a `\`, a `#`, a `%` not followed by two hex digits or escapes that are not UTF-8
 *   (`%c0%ae`), or a `.`/`..` segment (raw or encoded);
 * - a `Host` that is empty or not a host and port (RFC 9112 section 3.2: 400); a request without
 *   one (HTTP/1.0; Node refuses HTTP/1.1 without it) is served, see {@link fillHost};
 * - more than one `Content-Type` line (RFC 9110 section 5.3: it is not a list, so which one the
 *   body is in cannot be told).
 *
 * @example
 * ```ts
 * refusedTarget('/v2/projects/%2e%2e/tasks', []); // 'dot_segment'
 * refusedTarget('/v2/projects', ['Content-Type', 'a/b', 'content-type', 'c/d']); // 'content_type_repeated'
 * refusedTarget('/v2/projects?q=%', []); // undefined: the query is the query parser's to judge
 * ```
 */
export function refusedTarget(
  target: string | undefined,
  rawHeaders: readonly string[],
):
  | 'invalid_host'
  | 'backslash'
  | 'fragment'
  | 'bad_percent_encoding'
  | 'dot_segment'
  | 'content_type_repeated'
  | undefined {
  if (!validHost(rawHeaders)) return 'invalid_host';
  const mark = target?.indexOf('?') ?? -1;
  const path = target === undefined ? '' : mark < 0 ? target : target.slice(0, mark);
  if (path.includes('\\')) return 'backslash';
  // A fragment is the client's own (RFC 9112 3.2: origin-form has none); Express drops it, the others route it.
  if (path.includes('#')) return 'fragment';
  if (BAD_PERCENT.test(path) || !decodes(path)) return 'bad_percent_encoding';
  if (path.startsWith('/') && DOT_SEGMENT.test(path)) return 'dot_segment';
  let contentTypes = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]!.length === 12 && rawHeaders[i]!.toLowerCase() === 'content-type') contentTypes += 1;
  }
  return contentTypes > 1 ? 'content_type_repeated' : undefined;
}

/**
 * Answers a request {@link refusedTarget} refuses: a 400 `malformed_request` problem (in the
 * client's language and problem media type) with `X-Request-Id` and `headers`, and `true`; `false`
 * (nothing written) for any other request. The problem's `instance` is left out: the path is what
 * is wrong with the request.
 *
 * @example
 * ```ts
 * createHttpServer((req, res) => { if (!refuseTarget(req, res, versionHeaders)) app(req, res); });
 * ```
 */
export function refuseTarget(
  req: IncomingMessage,
  res: ServerResponse,
  headers: Readonly<Record<string, string>>,
): boolean {
  const reason = refusedTarget(req.url, req.rawHeaders);
  if (reason === undefined) return false;
  const requestId = requestIds.idFor(req.headers['x-request-id'] as string | undefined);
  const rendered = renderProblem(new HttpError('malformed_request', { extensions: { reason } }), {
    accept: req.headers.accept,
    acceptLanguage: req.headers['accept-language'],
    requestId,
  });
  res.writeHead(400, {
    ...headers,
    ...rendered.headers,
    'X-Request-Id': requestId,
    'Content-Length': String(Buffer.byteLength(rendered.body)),
  });
  res.end(req.method === 'HEAD' ? undefined : rendered.body);
  return true;
}

const renderProblem = createProblemRenderer();
const requestIds = createRequestIdSource();
