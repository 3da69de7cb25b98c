/**
 * Where the Hono middleware of every Plumbline package writes the response headers it sets before
 * the handler runs (request id, version headers, `Vary`, `Content-Language`).
 *
 * `@hono/node-server` writes a `c.json()` / `c.text()` / `c.body()` answer straight from the
 * `[status, body, headers]` its lightweight `Response` keeps, but only while nothing was set through
 * `c.header()`: one early `c.header()` makes Hono build a Web `Headers` and the server copy it
 * (measured: an empty middleware 27 k instructions per request, one setting two headers 153 k). So
 * there, while Hono holds no header of its own, these headers go to Node's `ServerResponse`
 * (`c.env.outgoing.setHeader`) and Node merges them into `writeHead`, where the handler's headers of
 * the same name win. Elsewhere (Bun, Deno, Workers, `app.request()`), or once something set a header
 * through Hono, they go through `c.header()`.
 */
import type { Context, Next } from 'hono';
import { mergeVary } from './headers.js';
import { joined, type NodeResponse, nodeResponse, responseParts, text } from './hono-node.js';

// Node's response while Hono holds no header of its own: a response Hono would build now carries
// none (nothing set through c.header(), c.res never read). Otherwise Hono's headers already cost
// their Headers object, and ours go there too, in the order they are set, exactly as before.
function earlyTarget(c: Context): NodeResponse | undefined {
  return bareParts(c) === undefined ? undefined : nodeResponse(c);
}

// On @hono/node-server, the [status, body, headers] of the response Hono would build now when it
// carries no header of its own; otherwise undefined.
function bareParts(c: Context): unknown[] | undefined {
  if (nodeResponse(c) === undefined) return undefined;
  const parts = responseParts(c.newResponse(null));
  return Array.isArray(parts) && parts.length === 3 && parts[2] === undefined ? parts : undefined;
}

// What withResponseHeaders does after the handler, by what write() set where.
const VARY_ON_NODE = 1;
const LINK_ON_NODE = 2;
const VARY_ON_HONO = 4;

/**
 * Sets headers from middleware before the handler runs (see the module comment for where they go).
 * `Vary` is merged with what is set, `Link` appended to; any other name is replaced.
 * @returns what to finish after the handler (the flags above).
 */
function write(c: Context, headers: Readonly<Record<string, string>>): number {
  const out = earlyTarget(c);
  let finish = 0;
  for (const name in headers) {
    const value = headers[name]!;
    // Both list names have four letters: no lower-casing of the others.
    const lower = name.length === 4 ? name.toLowerCase() : '';
    const vary = lower === 'vary';
    const list = vary || lower === 'link';
    if (out === undefined) {
      c.header(name, value, list ? { append: true } : undefined);
      if (vary) finish |= VARY_ON_HONO;
      continue;
    }
    const existing = list ? out.getHeader(lower) : undefined;
    out.setHeader(name, existing === undefined ? value : joined(lower, text(existing), value));
    if (list) finish |= vary ? VARY_ON_NODE : LINK_ON_NODE;
  }
  return finish;
}

/**
 * Sets response headers from Hono middleware that runs before the handler: on `@hono/node-server`
 * they are written to Node's response, so `c.json()` keeps the server's fast path; elsewhere they
 * are `c.header(name, value)`. `Vary` is merged and `Link` appended to; the handler's own header of
 * the same name wins (for `Vary` and `Link`, use {@link withResponseHeaders} to keep both). On
 * `@hono/node-server` such a header is not in `c.res.headers`; {@link sentHeaders} lists it.
 * @example
 * ```ts
 * app.use(async (c, next) => {
 *   setResponseHeaders(c, { 'X-Served-By': 'api-1' });
 *   await next();
 * });
 * ```
 */
export function setResponseHeaders(c: Context, headers: Readonly<Record<string, string>>): void {
  write(c, headers);
}

/**
 * {@link setResponseHeaders}, then `next()`, then `Vary` and `Link` merged with the handler's: its
 * members after those set here, `Vary` without repeats. Returns what `next()` returns.
 * @example
 * ```ts
 * app.use((c, next) => withResponseHeaders(c, { Vary: 'Accept', 'Content-Language': 'en' }, next));
 * ```
 */
export function withResponseHeaders(
  c: Context,
  headers: Readonly<Record<string, string>>,
  next: Next,
): Promise<void> {
  const finish = write(c, headers);
  if (finish === 0) return next();
  return next().then(() => {
    if (finish & VARY_ON_NODE) mergeList(c, 'vary');
    if (finish & LINK_ON_NODE) mergeList(c, 'link');
    if (finish & VARY_ON_HONO) tidyVary(c);
  });
}

// The handler's Vary or Link would replace the one on Node's response: both go into the response.
function mergeList(c: Context, lower: 'vary' | 'link'): void {
  const ours = nodeResponse(c)?.getHeader(lower);
  if (ours === undefined) return;
  const theirs = heldHeader(c.res, lower);
  if (theirs === undefined) return;
  const merged = joined(lower, text(ours), theirs);
  // Another middleware merged it already (a Link appended twice would repeat).
  if (merged !== theirs && !(lower === 'link' && theirs.startsWith(text(ours)))) setOn(c.res, lower, merged);
}

// Appended to Hono's Vary: members de-duplicated on the final response.
function tidyVary(c: Context): void {
  const vary = c.res.headers.get('vary');
  if (vary === null) return;
  const tidy = mergeVary(undefined, vary);
  if (tidy !== vary) setOn(c.res, 'vary', tidy);
}

function setOn(res: Response, name: string, value: string): void {
  // The server's plain header object stays plain (its fast path): replaced by a copy, since the
  // object may be one the handler shares between requests (`c.body(x, 200, HEADERS)`).
  const parts = responseParts(res);
  const own = Array.isArray(parts) && parts.length === 3 ? parts[2] : undefined;
  if (own !== null && typeof own === 'object' && !(own instanceof Headers) && !Array.isArray(own)) {
    const lower = name.toLowerCase();
    const copy: Record<string, string> = {};
    let found = false;
    for (const key in own) {
      const same = key.length === lower.length && key.toLowerCase() === lower;
      found ||= same;
      // In its place and under the name the answer gave it.
      copy[key] = same ? value : (own as Record<string, string>)[key]!;
    }
    if (!found) copy[name] = value;
    (parts as unknown[])[2] = copy;
    return;
  }
  try {
    res.headers.set(name, value);
  } catch {
    // Immutable headers (a Response from fetch()): the response's own value stays.
  }
}

/**
 * A response for a handler to return whose headers `@hono/node-server` writes straight from a plain
 * object, or undefined. Hono turns more than one header given to `c.body()` / `c.json()` into a Web
 * `Headers` that the server must copy again (a page's `Content-Type`, `Link` and `Vary`); a `Response`
 * built with a plain object keeps the server's fast path. Only on that server and only while Hono holds
 * no header or status of its own (nothing set through `c.header()` or `c.status()`, `c.res` never read),
 * since Hono would not add those to a `Response` the handler returns; otherwise undefined, and the
 * caller answers through Hono as usual. Headers that middleware wrote to Node's response before the
 * handler still go out (`Vary` and `Link` joined by {@link withResponseHeaders}).
 * @example
 * ```ts
 * const body = JSON.stringify(page);
 * const headers = { 'Content-Type': 'application/json', Link: '</v1/tasks?cursor=x>; rel="next"' };
 * return plainResponse(c, body, 200, headers) ?? c.body(body, 200, headers);
 * ```
 */
export function plainResponse(
  c: Context,
  body: string | null,
  status: number,
  headers: Record<string, string>,
): Response | undefined {
  return bareParts(c)?.[0] === 200 ? new Response(body, { status, headers }) : undefined;
}

// A header of `res` without turning the server's plain header object into a Headers.
function heldHeader(res: Response, lower: string): string | undefined {
  const parts = responseParts(res);
  const init: unknown = Array.isArray(parts) && parts.length === 3 ? parts[2] : res.headers;
  if (init == null) return undefined;
  if (init instanceof Headers) return init.get(lower) ?? undefined;
  if (Array.isArray(init)) return new Headers(init as [string, string][]).get(lower) ?? undefined;
  for (const name in init as Record<string, string>) {
    if (name.length === lower.length && name.toLowerCase() === lower)
      return String((init as Record<string, string>)[name]);
  }
  return undefined;
}
