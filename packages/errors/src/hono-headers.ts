/** Reading request headers in the Hono adapters of every Plumbline package. */
import type { Context } from 'hono';

type NodeBindings = { incoming?: { headers?: Record<string, string | string[] | undefined> } } | undefined;

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
