/**
 * Hono adapter for @plumbline/idempotency: Web-standard middleware. It claims or replays before
 * the handler, then records the `Response` the handler produced as its body streams to the client.
 * @packageDocumentation
 */
import { HttpError } from '@plumbline/errors';
import type { Context, MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { createIdempotency, type IdempotencyOptions } from './core.js';
import { DEFAULT_KEY_HEADERS, type HeaderValue } from './key.js';
import { ResponseRecording } from './recording.js';

/**
 * Options for {@link idempotency}: the core options plus how to read principal, route and
 * whether a key is required from the request.
 * @example
 * ```ts
 * const options: IdempotencyMiddlewareOptions = { store, required: true, principal: (c) => c.get('principal')?.clientId };
 * ```
 */
export interface IdempotencyMiddlewareOptions extends IdempotencyOptions {
  /** Whether requests without a key are refused with 400 `idempotency_key_missing`. Default false. */
  readonly required?: boolean | ((c: Context) => boolean);
  /** The authenticated client id; keys are scoped by it. Default `'anonymous'`. */
  readonly principal?: (c: Context) => string | undefined;
  /** The route the key is scoped to. Default the matched route's path (`/orders/:id`). */
  readonly routeKey?: (c: Context) => string;
  /** Called when settling a claim fails after the response went out. Default `console.error`. */
  readonly onError?: (error: unknown, c: Context) => void;
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

// JSON is fingerprinted by value (reordered keys are the same request), anything else by its bytes.
// Hono keeps the parsed body, so the handler's own `c.req.json()` still works.
async function readBody(c: Context): Promise<unknown> {
  if (c.req.raw.body === null) return undefined;
  if (!JSON_TYPE.test(c.req.header('content-type') ?? '')) {
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    return bytes.byteLength === 0 ? undefined : bytes; // no bytes is no body, as on Express
  }
  const text = await c.req.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new HttpError('malformed_json', { cause });
  }
}

/**
 * Middleware for idempotent POSTs (CONVENTIONS 4.3). A request with a key is claimed; the
 * `Response` the handler returns is recorded as its body streams out (`c.json`, `c.body`, a
 * `ReadableStream`) and stored, and a retry with the same key and request gets it back byte for
 * byte with `Idempotent-Replayed: true`. Errors (400, 409, 422, 503) are thrown for the
 * `@plumbline/errors/hono` error handler.
 * @example
 * ```ts
 * app.post('/orders', idempotency({ store: createMemoryStore(), required: true }), async (c) =>
 *   c.json(await createOrder(await c.req.json()), 201),
 * );
 * ```
 */
export function idempotency(options: IdempotencyMiddlewareOptions): MiddlewareHandler {
  const core = createIdempotency(options);
  const required = options.required ?? false;
  const isRequired = typeof required === 'function' ? required : () => required;
  const principal = options.principal ?? (() => undefined);
  const routeKey = options.routeKey ?? ((c: Context) => routePath(c, -1));
  const onError =
    options.onError ?? ((error) => console.error('[plumbline] idempotency: settling failed', error));
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const keyHeaders = (options.headerNames ?? DEFAULT_KEY_HEADERS).map((name) => name.toLowerCase());

  return async (c, next) => {
    const method = c.req.method;
    if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return next();
    // The Fetch API joins repeated lines with ", ", which the core refuses as a list: two keys stay invalid.
    const headers: Record<string, HeaderValue> = {};
    for (const name of keyHeaders) headers[name] = c.req.header(name);
    const url = new URL(c.req.url);
    const who = principal(c);
    const decision = await core.begin({
      method,
      path: url.pathname,
      query: url.search.slice(1),
      route: routeKey(c),
      headers,
      body: await readBody(c),
      required: isRequired(c),
      ...(who !== undefined ? { principal: who } : {}),
    });
    if (decision.action === 'replay') {
      const { status, body } = decision.response;
      const replayed: Record<string, string[]> = {};
      for (const [name, value] of core.replayHeaders(decision.response))
        replayed[name] = [...(replayed[name] ?? []), value];
      const empty = body.byteLength === 0 || status === 204 || status === 304;
      return empty
        ? c.body(null, status as 200, replayed)
        : c.body(body as Uint8Array<ArrayBuffer>, status as 200, replayed);
    }
    if (decision.action === 'proceed') return next();

    const recording = new ResponseRecording(decision.claim, maxBodyBytes, (error) => onError(error, c));
    await next();
    const res = c.res;
    recording.status = res.status;
    const captured: Record<string, string> = {};
    res.headers.forEach((value, name) => {
      captured[name] = value;
    });
    recording.headers = captured;
    if (res.body === null) recording.settle('complete');
    else c.res = new Response(recording.tapWeb(res.body), res);
  };
}
