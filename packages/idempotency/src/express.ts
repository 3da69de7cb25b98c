/**
 * Express adapter for @plumbline/idempotency (Express 4.21+ and 5). Thin: the core decides; this
 * file reads the request, captures the response as it is written, and settles the claim.
 *
 * @packageDocumentation
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { type CapturedResponse, type Claim, createIdempotency, type IdempotencyOptions } from './core.js';
import { DEFAULT_KEY_HEADERS, type HeaderValue } from './key.js';
import type { StoredResponse } from './store.js';

/**
 * Options for {@link idempotency}: the core options plus how to read principal, route and
 * whether a key is required from the request.
 *
 * @example
 * ```ts
 * const options: IdempotencyMiddlewareOptions = {
 *   store: createRedisStore({ client: redis }),
 *   required: true,
 *   principal: (req) => req.auth?.clientId,
 * };
 * ```
 */
export interface IdempotencyMiddlewareOptions extends IdempotencyOptions {
  /** Whether requests without a key are refused with 400 `idempotency_key_missing`. Default false. */
  readonly required?: boolean | ((req: Request) => boolean);
  /** The authenticated client id; keys are scoped by it. Default: `'anonymous'` for everyone. */
  readonly principal?: (req: Request) => string | undefined;
  /** The route the key is scoped to. Default `req.baseUrl + req.route.path` when routed, else the path. */
  readonly routeKey?: (req: Request) => string;
  /** Called when settling a claim fails after the response went out (the lease then expires on its own). Default `console.error`. */
  readonly onError?: (error: unknown, req: Request) => void;
}

type Chunk = string | Uint8Array;
type Callback = (error?: Error | null) => void;
type WriteHeadArgs = [number, ...unknown[]];

function defaultOnError(error: unknown): void {
  console.error('[plumbline] idempotency: settling a claim failed', error);
}

function defaultRouteKey(req: Request): string {
  const routePath = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof routePath === 'string') return req.baseUrl + routePath;
  return req.baseUrl + req.path;
}

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

function toBytes(chunk: unknown, encoding: unknown): Buffer | undefined {
  if (typeof chunk === 'string')
    return Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  return undefined;
}

function headerObject(args: readonly unknown[]): Record<string, string | number | readonly string[]> {
  // writeHead(status, [statusMessage], [headers]); headers may be an object or a flat/pair array.
  const raw = typeof args[1] === 'string' ? args[2] : args[1];
  const out: Record<string, string | number | string[]> = {};
  if (Array.isArray(raw)) {
    const flat = Array.isArray(raw[0]) ? (raw as unknown[][]).flat() : raw;
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const name = String(flat[i]).toLowerCase();
      const value = String(flat[i + 1]);
      const previous = out[name];
      out[name] =
        previous === undefined
          ? value
          : [...(Array.isArray(previous) ? previous : [String(previous)]), value];
    }
  } else if (raw !== null && typeof raw === 'object') {
    for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
      if (value !== undefined)
        out[name.toLowerCase()] = Array.isArray(value) ? value.map(String) : String(value);
    }
  }
  return out;
}

const CAPTURE = Symbol('@plumbline/idempotency.capture');
type Captured = Response & { [CAPTURE]: Capture };

/**
 * The per-request recording state. The wrappers installed on `res` are shared module functions
 * that find this state on the response, so a request allocates one object instead of a set of
 * closures.
 */
class Capture {
  readonly chunks: Buffer[] = [];
  size = 0;
  truncated = false;
  snapshot: { status: number; headers: CapturedResponse['headers'] } | undefined;
  ended = false;
  settled = false;

  /** Every claim waiting on this response: more than one when idempotency() is mounted twice. */
  readonly claims: { claim: Claim; onError: (e: unknown, req: Request) => void }[] = [];
  maxBodyBytes = 0;

  constructor(
    readonly req: Request,
    readonly res: Response,
    readonly writeHead: (...a: unknown[]) => Response,
    readonly write: (...a: unknown[]) => boolean,
    readonly end: (...a: unknown[]) => Response,
  ) {}

  record(chunk: unknown, encoding: unknown): void {
    if (this.truncated) return;
    const bytes = toBytes(chunk, encoding);
    if (bytes === undefined || bytes.byteLength === 0) return;
    this.size += bytes.byteLength;
    if (this.size > this.maxBodyBytes) {
      this.truncated = true;
      this.chunks.length = 0;
      return;
    }
    this.chunks.push(bytes);
  }

  // Taken before the original writeHead runs, so headers added later by middleware in front of
  // this one (compression's Content-Encoding, which describes bytes we never see) are not kept.
  takeSnapshot(status: number, extra: Record<string, string | number | readonly string[]> | undefined): void {
    if (this.snapshot !== undefined) return;
    const current = this.res.getHeaders() as CapturedResponse['headers'];
    this.snapshot = { status, headers: extra === undefined ? current : { ...current, ...extra } };
  }

  settle(how: 'complete' | 'release'): void {
    if (this.settled) return;
    this.settled = true;
    const body = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    for (const { claim, onError } of this.claims) {
      const finish =
        how === 'release' || this.snapshot === undefined
          ? claim.release()
          : claim.complete({ ...this.snapshot, body, truncated: this.truncated });
      finish.then(undefined, (error: unknown) => onError(error, this.req));
    }
  }
}

function capturedWriteHead(this: Captured, ...args: WriteHeadArgs): Response {
  const state = this[CAPTURE];
  state.takeSnapshot(args[0], args.length > 1 ? headerObject(args) : undefined);
  return state.writeHead.apply(this, args);
}

function capturedWrite(this: Captured, chunk: Chunk, encoding?: unknown, callback?: Callback): boolean {
  const state = this[CAPTURE];
  state.record(chunk, encoding);
  return state.write.call(this, chunk, encoding, callback);
}

function capturedEnd(this: Captured, chunk?: unknown, encoding?: unknown, callback?: unknown): Response {
  const state = this[CAPTURE];
  if (typeof chunk !== 'function') state.record(chunk, encoding);
  state.takeSnapshot(this.statusCode, undefined);
  state.ended = true;
  const result = state.end.call(this, chunk, encoding, callback);
  // The client may be gone already; the handler still produced its result, so keep it.
  if (this.destroyed) state.settle('complete');
  return result;
}

// ServerResponse always emits 'close' last (after 'finish' when the response completed), so one
// listener sees every ending.
function onClose(this: Captured): void {
  const state = this[CAPTURE];
  if (state.settled) return;
  if (state.ended) state.settle('complete');
  // Cut mid-body: the response is incomplete, so a retry must be able to run again. Before any
  // byte was sent the handler is still working; its end() settles the claim (or the lease runs out).
  else if (this.headersSent) state.settle('release');
}

/**
 * Wraps `res` so every byte the handler writes is recorded (up to the cap) while still flowing to
 * the client unchanged, `write` keeps returning its backpressure boolean, and the claim is settled
 * exactly once: stored when the handler ends the response, released when it fails or the
 * connection breaks mid-body.
 */
function capture(
  req: Request,
  res: Response,
  claim: Claim,
  maxBodyBytes: number,
  onError: (e: unknown, req: Request) => void,
): void {
  const captured = res as Captured;
  let state = captured[CAPTURE] as Capture | undefined;
  if (state === undefined) {
    state = new Capture(
      req,
      res,
      res.writeHead as (...a: unknown[]) => Response,
      res.write as (...a: unknown[]) => boolean,
      res.end as (...a: unknown[]) => Response,
    );
    captured[CAPTURE] = state;
    res.writeHead = capturedWriteHead as Response['writeHead'];
    res.write = capturedWrite as Response['write'];
    res.end = capturedEnd as Response['end'];
    res.on('close', onClose);
  }
  // A second idempotency() on the same request shares the recording; each claim applies its own cap.
  state.claims.push({ claim, onError });
  state.maxBodyBytes = Math.max(state.maxBodyBytes, maxBodyBytes);
}

function sendReplay(
  res: Response,
  response: StoredResponse,
  headers: readonly (readonly [string, string])[],
): void {
  res.statusCode = response.status;
  const grouped = new Map<string, string[]>();
  for (const [name, value] of headers) grouped.set(name, [...(grouped.get(name) ?? []), value]);
  for (const [name, values] of grouped) res.setHeader(name, values.length === 1 ? values[0]! : values);
  if (response.status === 204 || response.status === 304) {
    res.end();
    return;
  }
  res.setHeader('Content-Length', response.body.byteLength);
  res.end(response.body);
}

/**
 * Express middleware for idempotent POSTs (CONVENTIONS 4.3, DESIGN.md section 4). Mount it after
 * the body parser and authentication, per route or on a router. A request with a key is claimed;
 * the handler's response is captured however it is sent (`res.json`, `res.send`, `write` + `end`,
 * piped streams) and stored, and a retry with the same key and request gets it back byte for byte
 * with `Idempotent-Replayed: true`. Errors (400, 409, 422, 503) go to `next(err)` for the error handler.
 *
 * @example
 * ```ts
 * const idem = idempotency({ store: createRedisStore({ client: redis }), required: true, principal: (req) => req.auth?.clientId });
 * app.post('/orders', express.json(), idem, createOrder);
 * ```
 */
export function idempotency(options: IdempotencyMiddlewareOptions): RequestHandler {
  const core = createIdempotency(options);
  const required = options.required ?? false;
  const isRequired = typeof required === 'function' ? required : () => required;
  const principal = options.principal ?? (() => undefined);
  const routeKey = options.routeKey ?? defaultRouteKey;
  const onError = options.onError ?? defaultOnError;
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const keyHeaders = (options.headerNames ?? DEFAULT_KEY_HEADERS).map((name) => name.toLowerCase());

  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') {
      next();
      return;
    }
    if (req.body === undefined && hasBody(req)) {
      next(new Error('idempotency() must be mounted after a body parser: the request body is not parsed'));
      return;
    }
    const url = req.originalUrl ?? req.url;
    const queryStart = url.indexOf('?');
    const headers: Record<string, HeaderValue> = {};
    for (const name of keyHeaders) {
      const value = req.headers[name];
      if (value === undefined) continue;
      // Node joins repeated lines with ", "; only then is the (costlier) distinct view worth building.
      headers[name] =
        typeof value === 'string' && value.includes(',') ? (req.headersDistinct?.[name] ?? value) : value;
    }
    let begun: ReturnType<typeof core.begin>;
    try {
      const who = principal(req);
      begun = core.begin({
        method: req.method,
        path: queryStart === -1 ? url : url.slice(0, queryStart),
        query: queryStart === -1 ? '' : url.slice(queryStart + 1),
        route: routeKey(req),
        headers,
        body: req.body,
        required: isRequired(req),
        ...(who !== undefined ? { principal: who } : {}),
      });
    } catch (error) {
      next(error);
      return;
    }
    begun.then((decision) => {
      if (decision.action === 'proceed') {
        next();
      } else if (decision.action === 'replay') {
        sendReplay(res, decision.response, core.replayHeaders(decision.response));
      } else {
        capture(req, res, decision.claim, maxBodyBytes, onError);
        next();
      }
    }, next);
  };
}
