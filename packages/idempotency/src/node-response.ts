/**
 * Node `http` plumbing shared by the adapters that see Node's request and response (Express;
 * Fastify for the key headers): reading the key headers and the body's presence, recording what a
 * handler writes to a `ServerResponse`, holding it until a transaction commits, and sending a replay.
 * No framework types here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as WebStream } from 'node:stream/web';
import type { Replay } from './adapter.js';
import type { CapturedResponse, Claim } from './core.js';
import type { HeaderValue } from './key.js';
import { ResponseRecording } from './recording.js';

/** Whether the request carries body bytes (a length other than 0, or a chunked body). */
export function hasBodyBytes(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/** One key header; repeated lines stay apart (Node joins them with ", ", which would hide two keys). */
export function nodeKeyHeader(req: IncomingMessage, name: string): HeaderValue {
  const value = req.headers[name];
  // Only a joined value is worth the (costlier) distinct view.
  return typeof value === 'string' && value.includes(',') ? (req.headersDistinct?.[name] ?? value) : value;
}

/** Sends a replay on a Node response. */
export function sendReplay(res: ServerResponse, replay: Replay): void {
  res.statusCode = replay.status;
  for (const [name, value] of Object.entries(replay.headers)) res.setHeader(name, value);
  if (replay.status === 204 || replay.status === 304) {
    res.end();
    return;
  }
  res.setHeader('Content-Length', replay.body?.byteLength ?? 0);
  res.end(replay.body);
}

/** The whole payload a framework is about to send, as bytes (a Node or Web stream is read to its end). */
export async function payloadBytes(payload: unknown): Promise<Buffer> {
  if (payload === null || payload === undefined) return Buffer.alloc(0);
  if (typeof payload === 'string' || payload instanceof Uint8Array) return Buffer.from(payload);
  const source = payload instanceof ReadableStream ? Readable.fromWeb(payload as WebStream) : payload;
  const chunks: Buffer[] = [];
  for await (const chunk of source as AsyncIterable<Uint8Array | string>) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

function toBytes(chunk: unknown, encoding: unknown): Uint8Array | undefined {
  // `encoding` may be the callback (`write(chunk, cb)`): only a string names an encoding.
  if (typeof chunk === 'string')
    return Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  if (chunk instanceof Uint8Array) return chunk;
  return undefined;
}

type HeaderRecord = Record<string, string | string[]>;

/** Adds one header line under its lower-case name; a repeated name collects its values in an array. */
function appendHeader(out: HeaderRecord, name: string, value: string): void {
  const key = name.toLowerCase();
  const previous = out[key];
  out[key] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value];
}

/** The headers argument of `writeHead(status, [statusMessage], [headers])`: an object or a flat/pair array. */
function headerObject(args: readonly unknown[]): HeaderRecord {
  const raw = typeof args[1] === 'string' ? args[2] : args[1];
  const out: HeaderRecord = {};
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

/** The fields of a serialized header block (`res._header`: the status line, then `Name: value` lines). */
function headerBlock(block: string): HeaderRecord {
  const out: HeaderRecord = {};
  const lines = block.split('\r\n');
  for (let i = 1; i < lines.length; i += 1) {
    const line = lines[i]!;
    const colon = line.indexOf(':');
    if (colon > 0) appendHeader(out, line.slice(0, colon), line.slice(colon + 1).trim());
  }
  return out;
}

type WriteHeadArgs = [number, ...unknown[]];
const STATE = Symbol('@plumbline/idempotency.capture');

/**
 * The recording of one Node response. `captureResponse` replaces `res.end` and `res.write` (and
 * `res.writeHead` when middleware in front already wraps it) with functions that find this object
 * on the response.
 *
 * Those functions are shared by every response, and the state is one plain object under a symbol:
 * a function made per request and stored on `res` (a closure) made V8 keep every response it
 * touched alive through young-generation collections, so they were promoted to the old generation
 * and only freed by full collections (measured on Node 24: half the middleware's instructions per
 * request went to the garbage collector; a shared function or a plain object on `res` does not do
 * this). `writeHead` is only wrapped when needed, and the `close` listener only added once a
 * response is streamed.
 */
class Capture {
  /** One recording per claim: more than one when the middleware is mounted twice. */
  readonly recordings: ResponseRecording[] = [];
  status = 0;
  headers: CapturedResponse['headers'] | undefined;
  ended = false;
  settled = false;
  listening = false;
  /** Calls made while the end is held back, run in order after it (see `end`). */
  held: (() => void)[] | undefined;

  constructor(
    readonly res: ServerResponse,
    readonly originalWriteHead: (...a: unknown[]) => ServerResponse,
    readonly originalWrite: (...a: unknown[]) => boolean,
    readonly originalEnd: (...a: unknown[]) => ServerResponse,
  ) {}

  record(chunk: unknown, encoding: unknown): void {
    const bytes = toBytes(chunk, encoding);
    if (bytes === undefined || bytes.byteLength === 0) return;
    for (const recording of this.recordings) recording.record(bytes);
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

  writeHead(args: WriteHeadArgs): ServerResponse {
    this.snapshot(args[0], args.length > 1 ? headerObject(args) : undefined);
    // An explicit writeHead before end(): the body may follow later, or never.
    if (!this.ended) this.listen();
    return this.originalWriteHead.apply(this.res, args);
  }

  write(chunk: unknown, encoding: unknown, callback: unknown): boolean {
    if (this.held !== undefined) {
      this.later(() => this.originalWrite.call(this.res, chunk, encoding, callback));
      return false;
    }
    this.record(chunk, encoding);
    this.snapshot(this.res.statusCode);
    this.listen();
    return this.originalWrite.call(this.res, chunk, encoding, callback);
  }

  /**
   * The handler produced its whole response: it is stored now, not on 'finish', so no listener is
   * needed (a connection lost while the last bytes flush still gets a replay on retry). The
   * original `end` waits for the store's answer (bounded by the store's own timeout, Redis
   * `timeoutMs`): until the last bytes arrive the client does not have the response, so a retry
   * it sends once it does finds the record instead of a claim still in flight. The head is written
   * at once, as `end` would write it, so headers are final and `headersSent` is true while the
   * bytes wait (an error handler reached after the end leaves the response alone). Calls made in
   * the meantime (a late `write` or a second `end`) run after it, in order, as Node would see them.
   */
  end(chunk: unknown, encoding: unknown, callback: unknown): ServerResponse {
    if (this.held !== undefined)
      return this.later(() => this.originalEnd.call(this.res, chunk, encoding, callback));
    if (this.ended) return this.originalEnd.call(this.res, chunk, encoding, callback);
    this.ended = true;
    const body = typeof chunk === 'function' ? undefined : chunk;
    if (body != null && typeof body !== 'string' && !(body instanceof Uint8Array)) {
      // Node refuses such a chunk and throws to the handler: nothing was sent, so the key is freed.
      void this.settle('release');
      return this.originalEnd.call(this.res, chunk, encoding, callback);
    }
    this.record(body, encoding);
    this.snapshot(this.res.statusCode);
    try {
      writeHeadNow(this.res, body, encoding);
    } catch (error) {
      // The head cannot be written (an invalid status): thrown to the handler as Node's end would.
      void this.settle('release');
      throw error;
    }
    const held: (() => void)[] = [() => this.originalEnd.call(this.res, chunk, encoding, callback)];
    this.held = held;
    this.settle('complete').then(() => {
      this.held = undefined;
      try {
        for (const call of held) call();
      } catch (error) {
        // What `end` would have thrown to the handler (a chunk of the wrong type) breaks the response.
        this.res.destroy(error as Error);
      }
    });
    return this.res;
  }

  /** Queues a call behind the held end. */
  later(call: () => unknown): ServerResponse {
    this.held!.push(() => void call());
    return this.res;
  }

  // ServerResponse emits 'close' last, whether the response finished or the connection broke.
  // (An ended response was settled by `end` already.)
  closed(): void {
    if (this.settled) return;
    // Cut mid-body: the response is incomplete, so a retry must be able to run again. Before any
    // byte was sent the handler is still working; its end() settles the claim (or the lease runs out).
    if (this.res.headersSent) void this.settle('release');
  }

  /** Settles every recording once; resolves when the store answered each (never rejects). */
  settle(how: 'complete' | 'release'): Promise<unknown> {
    if (this.settled) return Promise.resolve();
    this.settled = true;
    const answers: Promise<void>[] = [];
    for (const recording of this.recordings) {
      recording.status = this.status;
      if (this.headers !== undefined) recording.headers = this.headers;
      answers.push(
        recording.settle(how === 'complete' && this.headers !== undefined ? 'complete' : 'release'),
      );
    }
    return answers.length === 1 ? answers[0]! : Promise.all(answers);
  }
}

/**
 * Writes the head of a response that is about to end with `chunk` (its last bytes), exactly as
 * Node's own `end(chunk)` would: through `res.writeHead` (so middleware hooks there run), and with
 * the `Content-Length` Node would have counted when neither it nor `Transfer-Encoding` is set and
 * nothing was written before. Node sends the head with the first body bytes, so nothing reaches
 * the socket yet. Statuses and methods without a body get no length, as from Node.
 */
function writeHeadNow(res: ServerResponse, chunk: unknown, encoding: unknown): void {
  if (res.headersSent) return;
  const status = res.statusCode;
  const bodiless =
    status === 204 || status === 304 || (status >= 100 && status < 200) || res.req?.method === 'HEAD';
  if (!bodiless && !res.hasHeader('content-length') && !res.hasHeader('transfer-encoding')) {
    const length =
      typeof chunk === 'string'
        ? Buffer.byteLength(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
        : chunk instanceof Uint8Array
          ? chunk.byteLength
          : chunk == null
            ? 0
            : undefined;
    if (length !== undefined) res.setHeader('Content-Length', length);
  }
  res.writeHead(status);
}

type CapturingEnd = ServerResponse['end'] & { [STATE]?: Capture };
type CapturedRes = ServerResponse & { [STATE]?: Capture };

// The interception installed on `res`: one set of functions for every response; `this` is the
// response (as for Node's own methods), and its capture is the object under STATE.
function capturedEnd(this: CapturedRes, chunk?: unknown, encoding?: unknown, callback?: unknown) {
  return this[STATE]!.end(chunk, encoding, callback);
}
function capturedWrite(this: CapturedRes, chunk: unknown, encoding?: unknown, callback?: unknown) {
  return this[STATE]!.write(chunk, encoding, callback);
}
function capturedWriteHead(this: CapturedRes, ...args: WriteHeadArgs) {
  return this[STATE]!.writeHead(args);
}

/**
 * Wraps `res` so every byte the handler writes is recorded (up to the cap) while still flowing to
 * the client unchanged, `write` keeps returning its backpressure boolean, and the claim is settled
 * exactly once: stored when the handler ends the response, released when the connection breaks
 * mid-body.
 */
export function captureResponse(
  res: ServerResponse,
  claim: Claim,
  maxBodyBytes: number,
  onError: (error: unknown) => void,
): void {
  const target = res as CapturedRes;
  let state: Capture | undefined = res.end === capturedEnd ? target[STATE] : (res.end as CapturingEnd)[STATE];
  if (state === undefined) {
    const recording = new Capture(
      res,
      res.writeHead as (...a: unknown[]) => ServerResponse,
      res.write as (...a: unknown[]) => boolean,
      res.end as (...a: unknown[]) => ServerResponse,
    );
    state = recording;
    // Middleware in front that hooks writeHead (compression, on-headers) changes headers there;
    // only then is the snapshot taken in a writeHead wrapper of our own.
    const hooked = Object.hasOwn(res, 'writeHead');
    if (target[STATE] === undefined) {
      target[STATE] = recording;
      res.end = capturedEnd as ServerResponse['end'];
      res.write = capturedWrite as ServerResponse['write'];
      if (hooked) res.writeHead = capturedWriteHead as ServerResponse['writeHead'];
    } else {
      // A capture of ours sits below another wrapper of `end` (the middleware mounted twice with
      // something in between): the shared functions would find the lower capture, so this one
      // closes over its own state.
      const end = ((chunk?: unknown, encoding?: unknown, callback?: unknown) =>
        recording.end(chunk, encoding, callback)) as CapturingEnd;
      end[STATE] = recording;
      res.end = end;
      res.write = ((chunk: unknown, encoding?: unknown, callback?: unknown) =>
        recording.write(chunk, encoding, callback)) as ServerResponse['write'];
      if (hooked) {
        res.writeHead = ((...args: WriteHeadArgs) =>
          recording.writeHead(args)) as ServerResponse['writeHead'];
      }
    }
  }
  // A second middleware on the same request shares the interception; each claim keeps its own cap.
  state.recordings.push(new ResponseRecording(claim, maxBodyBytes, onError));
}

/** A response held back: resolves when the handler ends it; `restore` puts the real methods back. */
export interface HeldResponse {
  readonly ended: Promise<CapturedResponse>;
  /** Header names set before the handler ran. */
  readonly before: ReadonlySet<string>;
  restore(): void;
}

/**
 * Holds everything the handler sends (status, headers, bytes) instead of sending it, until the
 * transaction that must come first has committed.
 */
export function holdResponse(res: ServerResponse): HeldResponse {
  const original = { writeHead: res.writeHead, write: res.write, end: res.end };
  const before = new Set(res.getHeaderNames());
  const chunks: Uint8Array[] = [];
  const record = (chunk: unknown, encoding: unknown) => {
    const bytes = toBytes(chunk, encoding);
    if (bytes !== undefined) chunks.push(bytes);
  };
  let done: (response: CapturedResponse) => void = () => {};
  const ended = new Promise<CapturedResponse>((resolve) => {
    done = resolve;
  });
  res.writeHead = ((status: number, ...rest: unknown[]) => {
    res.statusCode = status;
    for (const [name, value] of Object.entries(headerObject([status, ...rest]))) res.setHeader(name, value);
    return res;
  }) as ServerResponse['writeHead'];
  res.write = ((chunk: unknown, encoding?: unknown) => {
    record(chunk, encoding);
    return true;
  }) as ServerResponse['write'];
  res.end = ((chunk?: unknown, encoding?: unknown) => {
    if (typeof chunk !== 'function') record(chunk, encoding);
    done({ status: res.statusCode, headers: res.getHeaders(), body: Buffer.concat(chunks) });
    return res;
  }) as ServerResponse['end'];
  return { ended, before, restore: () => Object.assign(res, original) };
}

/** Drops the headers set since `before` (an answer that a failed commit made void). */
export function dropHeadersSince(res: ServerResponse, before: ReadonlySet<string>): void {
  for (const name of res.getHeaderNames()) if (!before.has(name)) res.removeHeader(name);
}
