/** Reading request headers in the Hono adapters of every Plumbline package. */
import type { Context } from 'hono';

type NodeBindings =
  | {
      incoming?: {
        headers?: Record<string, string | string[] | undefined>;
        rawHeaders?: unknown;
        url?: unknown;
      };
    }
  | undefined;

/**
 * The request path as the client sent it, percent-encoding kept (`/v2/projects/%3Cb%3E`), as
 * Express's `req.path` and Fastify's `request.url` give it; Hono's `c.req.path` is decoded
 * (`/v2/projects/<b>`), which must not be echoed into a problem's `instance` or a link. On
 * `@hono/node-server` it is read from Node's request target; elsewhere from `c.req.url`.
 *
 * @example
 * ```ts
 * app.get('/v2/projects/:id', (c) => c.json({ self: requestPath(c) }));
 * ```
 */
export function requestPath(c: Context): string {
  const target = (c.env as NodeBindings)?.incoming?.url;
  if (target === '*') return target;
  if (typeof target === 'string' && target.startsWith('/')) {
    const mark = target.indexOf('?');
    return mark < 0 ? target : target.slice(0, mark);
  }
  const url = c.req.url;
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start < 0) return '/';
  const mark = url.indexOf('?', start);
  return url.slice(start, mark < 0 ? undefined : mark);
}

/**
 * A request header, joined like `Headers.get` joins it, for headers Node keeps as one string
 * (`Accept`, `Accept-Language`, `Prefer`, `X-…`). On `@hono/node-server` it is read from Node's own
 * header table, because `c.req.header(name)` first builds a Web `Headers` for the whole request;
 * elsewhere (Bun, Deno, Workers) it is `c.req.header(name)`. `name` must be lower case.
 *
 * @example
 * ```ts
 * app.use(async (c, next) => {
 *   const accept = requestHeader(c, 'accept');
 *   await next();
 * });
 * ```
 */
export function requestHeader(c: Context, name: string): string | undefined {
  const headers = (c.env as NodeBindings)?.incoming?.headers;
  if (headers === undefined || typeof headers !== 'object') return c.req.header(name);
  const value = headers[name];
  return typeof value === 'string' ? value : value === undefined ? undefined : c.req.header(name);
}

/**
 * @internal An `X-…` request header (Node joins repeated lines of these with `, `, as
 * `Headers.get` does), read from Node's `rawHeaders` on `@hono/node-server`: Node builds
 * `incoming.headers` for the whole request on first access, which costs more than the small
 * middleware that wants one header. Elsewhere it is `c.req.header(name)`. `lowerName` must be
 * lower case and start with `x-`.
 */
export function rawXHeader(c: Context, lowerName: string): string | undefined {
  const raw = (c.env as NodeBindings)?.incoming?.rawHeaders;
  if (!Array.isArray(raw)) return c.req.header(lowerName);
  let value: string | undefined;
  const length = lowerName.length;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name: unknown = raw[i];
    if (typeof name !== 'string' || name.length !== length || name.toLowerCase() !== lowerName) continue;
    const line = String(raw[i + 1]);
    value = value === undefined ? line : `${value}, ${line}`;
  }
  return value;
}
