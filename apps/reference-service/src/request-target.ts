/**
 * The two request-target forms besides origin-form that an origin server sees (RFC 9112 section
 * 3.2): absolute-form (`GET http://api.example.com/v2/projects HTTP/1.1`), which must be served like
 * its origin-form, and asterisk-form (`OPTIONS * HTTP/1.1`), a question about the server as a whole.
 */
import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
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

/**
 * {@link serverWideOptionsReply} on Express.
 *
 * @example
 * ```ts
 * app.use(serverWideOptions);
 * ```
 */
export const serverWideOptions: RequestHandler = (req, res, next) => {
  const reply = serverWideOptionsReply(req.method, req.url);
  if (reply === undefined) {
    next();
    return;
  }
  for (const [name, value] of Object.entries(reply.headers)) res.setHeader(name, value);
  res.status(reply.status).end();
};
