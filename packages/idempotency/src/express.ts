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
  if (Buffer.isBuffer(chunk)) return chunk;
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  return undefined;
}

/** Adds one header line under its lower-case name; a repeated name collects its values in an array. */
function appendHeader(out: Record<string, string | string[]>, name: string, value: string): void {
  const key = name.toLowerCase();
  const previous = out[key];
  out[key] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value];
}

function headerObject(args: readonly unknown[]): Record<string, string | number | readonly string[]> {
  // writeHead(status, [statusMessage], [headers]); headers may be an object or a flat/pair array.
  const raw = typeof args[1] === 'string' ? args[2] : args[1];
  const out: Record<string, string | string[]> = {};
  if (Array.isArray(raw)) {
    const flat = Array.isArray(raw[0]) ? (raw as unknown[][]).flat() : raw;
    for (let i = 0; i + 1 < flat.length; i += 2) appendHeader(out, String(flat[i]), String(flat[i + 1]));
  } else if (raw !== null && typeof raw === 'object') {
    for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
      if (value !== undefined)
        out[name.toLowerCase()] = Array.isArray(value) ? value.map(String) : String(value);
    }
  }
  return out;
}

type HeaderRecord = Record<string, string | number | readonly string[]>;

/**
 * The header fields of a serialized header block (`res._header`: the status line, then
 * `Name: value` lines), with lower-case names and repeated fields as arrays.
 */
function headerBlock(block: string): HeaderRecord {
  const out: Record<string, string | string[]> = {};
  const lines = block.split('\r\n');
  for (let i = 1; i < lines.length; i += 1) {
    const line = lines[i]!;
    const colon = line.indexOf(':');
    if (colon > 0) appendHeader(out, line.slice(0, colon), line.slice(colon + 1).trim());
  }
  return out;
}

const STATE = Symbol('@plumbline/idempotency.capture');

/**
 * The recording of one response. `capture` replaces `res.end` and `res.write` (and `res.writeHead`
 * when middleware in front already wraps it) with closures over this object.
 *
 * Express gives every response its own hidden class (it sets the prototype per request), so each
 * property added to `res` costs V8 a fresh map (a few µs). Hence closures rather than a state
 * property or a WeakMap entry, `writeHead` only wrapped when needed, and the `close` listener only
 * added once a response is streamed.
 */
class Capture {
  readonly chunks: Buffer[] = [];
  size = 0;
  truncated = false;
  status = 0;
  headers: CapturedResponse['headers'] | undefined;
  ended = false;
  settled = false;
  listening = false;
  maxBodyBytes = 0;
  /** Every claim waiting on this response: more than one when idempotency() is mounted twice. */
  readonly claims: { claim: Claim; onError: (e: unknown, req: Request) => void }[] = [];

  constructor(
    readonly req: Request,
    readonly res: Response,
    readonly originalWriteHead: (...a: unknown[]) => Response,
    readonly originalWrite: (...a: unknown[]) => boolean,
    readonly originalEnd: (...a: unknown[]) => Response,
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

  /**
   * Status and headers as the handler sent them. Taken before the original writeHead runs, so
   * headers that middleware in front adds in its own writeHead hook (compression's
   * Content-Encoding, describing bytes we never see) are not kept. When the handler called
   * writeHead itself and nothing in front wraps it, the header block Node serialized is exact.
   */
  snapshot(status: number, extra?: HeaderRecord): void {
    if (this.headers !== undefined) return;
    const res = this.res;
    this.status = status;
    if (res.headersSent) {
      const block = (res as unknown as { _header?: unknown })._header;
      this.headers = typeof block === 'string' ? headerBlock(block) : res.getHeaders();
    } else {
      const current = res.getHeaders() as CapturedResponse['headers'];
      this.headers = extra === undefined ? current : { ...current, ...extra };
    }
  }

  /** Watches for a connection that breaks after the response started but before it ended. */
  listen(): void {
    if (this.listening) return;
    this.listening = true;
    this.res.on('close', () => this.closed());
  }

  writeHead(args: WriteHeadArgs): Response {
    this.snapshot(args[0], args.length > 1 ? headerObject(args) : undefined);
    // An explicit writeHead before end(): the body may follow later, or never.
    if (!this.ended) this.listen();
    return this.originalWriteHead.apply(this.res, args);
  }

  write(chunk: unknown, encoding: unknown, callback: unknown): boolean {
    this.record(chunk, encoding);
    this.snapshot(this.res.statusCode);
    this.listen();
    return this.originalWrite.call(this.res, chunk, encoding, callback);
  }

  end(chunk: unknown, encoding: unknown, callback: unknown): Response {
    if (typeof chunk !== 'function') this.record(chunk, encoding);
    this.snapshot(this.res.statusCode);
    this.ended = true;
    const result = this.originalEnd.call(this.res, chunk, encoding, callback);
    // The handler produced its whole response: store it now, not on 'finish', so no listener is
    // needed (a connection lost while the last bytes flush still gets a replay on retry).
    this.settle('complete');
    return result;
  }

  // ServerResponse emits 'close' last, whether the response finished or the connection broke.
  closed(): void {
    if (this.settled) return;
    // end() threw after recording: the handler still ended the response.
    if (this.ended) this.settle('complete');
    // Cut mid-body: the response is incomplete, so a retry must be able to run again. Before any
    // byte was sent the handler is still working; its end() settles the claim (or the lease runs out).
    else if (this.res.headersSent) this.settle('release');
  }

  settle(how: 'complete' | 'release'): void {
    if (this.settled) return;
    this.settled = true;
    const body = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    const headers = this.headers;
    for (const { claim, onError } of this.claims) {
      const finish =
        how === 'release' || headers === undefined
          ? claim.release()
          : claim.complete({ status: this.status, headers, body, truncated: this.truncated });
      finish.then(undefined, (error: unknown) => onError(error, this.req));
    }
  }
}

type CapturingEnd = Response['end'] & { [STATE]?: Capture };

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
  let state = (res.end as CapturingEnd)[STATE];
  if (state === undefined) {
    const recording = new Capture(
      req,
      res,
      res.writeHead as (...a: unknown[]) => Response,
      res.write as (...a: unknown[]) => boolean,
      res.end as (...a: unknown[]) => Response,
    );
    state = recording;
    const end = ((chunk?: unknown, encoding?: unknown, callback?: unknown) =>
      recording.end(chunk, encoding, callback)) as CapturingEnd;
    end[STATE] = recording;
    res.end = end;
    res.write = ((chunk: unknown, encoding?: unknown, callback?: unknown) =>
      recording.write(chunk, encoding, callback)) as Response['write'];
    // Middleware in front that hooks writeHead (compression, on-headers) changes headers there;
    // only then is the snapshot taken in a writeHead wrapper of our own.
    if (Object.hasOwn(res, 'writeHead')) {
      res.writeHead = ((...args: WriteHeadArgs) => recording.writeHead(args)) as Response['writeHead'];
    }
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
 * Express middleware for idempotent POSTs ({@link https://github.com/plumbline/plumbline/blob/main/docs/conventions.md#s-4-3 | conventions 4.3},
 * {@link https://github.com/plumbline/plumbline/blob/main/docs/design.md#d-idempotency | design: idempotency key}). Mount it after
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
        // No body bytes is no body, whether or not a parser left `{}` behind (Express 4, or an empty
        // body sent with `Content-Type: application/json` and `Content-Length: 0`).
        body: hasBody(req) ? req.body : undefined,
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

export {
  getTransaction,
  type IdempotencyTransactionOptions,
  idempotencyTransaction,
} from './express-transaction.js';
