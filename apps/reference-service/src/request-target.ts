/**
 * The two request-target forms besides origin-form that an origin server sees (RFC 9112 section
 * 3.2): absolute-form (`GET http://api.example.com/v2/projects HTTP/1.1`), which must be served like
 * its origin-form, and asterisk-form (`OPTIONS * HTTP/1.1`), a question about the server as a whole.
 */
import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';

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
 * `OPTIONS *` (RFC 9110 section 9.3.7): 204 with the methods the server supports anywhere, and the
 * headers every response carries (request id, version headers). Other methods on `*` go on to the
 * 404 as before.
 *
 * @example
 * ```ts
 * app.use(serverWideOptions);
 * ```
 */
export const serverWideOptions: RequestHandler = (req, res, next) => {
  if (req.url !== '*' || req.method !== 'OPTIONS') {
    next();
    return;
  }
  res.setHeader('Allow', SERVER_WIDE_METHODS);
  res.status(204).end();
};
