/**
 * Node's response under Hono on `@hono/node-server` (`c.env.outgoing`), as the Hono adapters of
 * every Plumbline package see it: the headers middleware wrote to it before the handler (see
 * `hono-response.ts`) and what a response goes out with once Node merges them into `writeHead`.
 */
import type { Context } from 'hono';
import { mergeVary } from './headers.js';

/** What is used of Node's `ServerResponse` (or `Http2ServerResponse`). */
export interface NodeResponse {
  readonly headersSent: boolean;
  getHeader(name: string): number | string | readonly string[] | undefined;
  getHeaders(): Record<string, number | string | readonly string[] | undefined>;
  setHeader(name: string, value: string): unknown;
  removeHeader(name: string): void;
}

// The server's symbol, found on the first lightweight response and then read directly.
let cacheSymbol: symbol | undefined;

/**
 * @internal The `[status, body, headers]` `@hono/node-server` keeps on its lightweight `Response`
 * (under a symbol of its own, described `cache`), or undefined: not part of that package's API, so
 * callers check the shape and fall back to the public `Response` when it is not there.
 */
export function responseParts(res: Response): unknown {
  const slots = res as unknown as Record<symbol, unknown>;
  if (cacheSymbol !== undefined) {
    const cached = slots[cacheSymbol];
    if (cached !== undefined) return cached;
  }
  for (const symbol of Object.getOwnPropertySymbols(res)) {
    if (symbol.description !== 'cache') continue;
    cacheSymbol = symbol;
    return slots[symbol];
  }
  return undefined;
}

/** Node's response on `@hono/node-server` before its head is written, else undefined. */
export function nodeResponse(c: Context): NodeResponse | undefined {
  const out = (c.env as { outgoing?: Partial<NodeResponse> } | undefined)?.outgoing;
  if (out == null || typeof out.setHeader !== 'function' || out.headersSent !== false) return undefined;
  return out as NodeResponse;
}

/** A header value as Node keeps it, as one line. */
export const text = (value: number | string | readonly string[]) =>
  typeof value === 'string' ? value : Array.isArray(value) ? value.join(', ') : String(value);

/** Vary and Link are lists several middlewares add to; the handler's members come after ours. */
export function joined(lower: string, ours: string, theirs: string): string {
  return lower === 'vary' ? mergeVary(undefined, `${ours}, ${theirs}`) : `${ours}, ${theirs}`;
}

/**
 * The headers a response goes out with: those written to Node's response before the handler (see
 * {@link setResponseHeaders}) and `headers`, the response's own (lower-case names), which win;
 * `Vary` and `Link` from both are joined as {@link withResponseHeaders} joins them. Without Node's
 * response, `headers` itself. For middleware that records a response to send again.
 * @example
 * ```ts
 * const record = sentHeaders(c, Object.fromEntries(c.res.headers));
 * ```
 */
export function sentHeaders(c: Context, headers: Readonly<Record<string, string>>): Record<string, string> {
  const out = nodeResponse(c);
  if (out === undefined) return { ...headers };
  const all: Record<string, string> = {};
  const early = out.getHeaders();
  for (const lower in early) {
    const value = early[lower];
    if (value !== undefined) all[lower] = text(value);
  }
  for (const lower in headers) {
    const ours = all[lower];
    const theirs = headers[lower]!;
    all[lower] =
      ours !== undefined && (lower === 'vary' || lower === 'link') ? joined(lower, ours, theirs) : theirs;
  }
  return all;
}

/**
 * A header the response carries so far (lower-case name): Hono's (`c.res`, so only where building
 * that response costs nothing extra, such as an error answer) joined with Node's as it goes out.
 */
export function responseHeader(c: Context, lower: string): string | undefined {
  const hono = c.res.headers.get(lower) ?? undefined;
  const node = nodeResponse(c)?.getHeader(lower);
  if (node === undefined) return hono;
  if (hono === undefined) return text(node);
  return lower === 'vary' || lower === 'link' ? joined(lower, text(node), hono) : hono;
}
