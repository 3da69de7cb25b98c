/**
 * Reading the body of a `Response` a Hono handler returned without reading its stream, where that
 * can be done exactly. Web-standard only (no Node imports).
 *
 * `@hono/node-server` replaces the global `Response` with a lightweight one: `c.json()`, `c.text()`
 * and `c.body()` with a string, a `Uint8Array` or `null` keep `[status, body, headers]` under a
 * symbol of its own (described `cache`) and write exactly that to the socket, without ever building
 * a real `Response` or a stream. Touching `res.body` builds both, and a wrapped stream sends the
 * response down the server's slow path (a stream read chunk by chunk, a timer to wait for chunks).
 * So when that tuple is there, the body is read from it; the tuple is dropped by the server as soon
 * as anything reads the body, so its presence also means nothing has consumed or replaced it.
 * Anything else (a stream, a `Blob`, another runtime's `Response`) is recorded as it streams.
 */
import { responseParts } from '@plumbline/errors/hono';

/** The status, body and headers the server will send for this response, when it keeps them (see above). */
export interface KnownResponse {
  readonly status: number;
  /** `null`: no body. */
  readonly body: string | Uint8Array | null;
  /** The response's headers as the server sends them, lower-case names (as `res.headers` lists them). */
  readonly headers: Record<string, string>;
}

/**
 * The status, body and headers of `res` without reading it, or undefined when they are not known
 * (then the body must be read from its stream). Only a shape the server writes as it is counts: a
 * three-slot tuple whose status agrees with `res.status` and whose body is a string, a
 * `Uint8Array` or `null`. The headers are read without touching `res.headers`, whose getter would
 * turn a plain header object into a `Headers` (the server then sends the names in lower case).
 */
export function knownResponse(res: Response): KnownResponse | undefined {
  const tuple = responseParts(res);
  if (!Array.isArray(tuple) || tuple.length !== 3) return undefined;
  const [status, body, init] = tuple as [unknown, unknown, unknown];
  if (typeof status !== 'number' || status !== res.status) return undefined;
  if (!(body === null || typeof body === 'string' || body instanceof Uint8Array)) return undefined;
  let headers: Record<string, string>;
  if (init instanceof Headers) headers = headerRecord(init);
  else if (init != null)
    headers = headerRecord(new Headers(init as ConstructorParameters<typeof Headers>[0]));
  else if (body === null) headers = {};
  else headers = defaultHeaders(res);
  return { status, body, headers };
}

// A body without headers goes out with the server's default Content-Type: learned once per
// Response class from a response of the same kind, so the record says what the server sends.
const defaults = new WeakMap<object, Record<string, string>>();

function defaultHeaders(res: Response): Record<string, string> {
  const type = res.constructor as typeof Response;
  let headers = defaults.get(type);
  if (headers === undefined) {
    headers = Object.freeze(headerRecord(new type('').headers)) as Record<string, string>;
    defaults.set(type, headers);
  }
  return headers;
}

/** A `Headers` as a record (lower-case names; a repeated `Set-Cookie` keeps its last value). */
export function headerRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  headers.forEach((value, name) => {
    record[name] = value;
  });
  return record;
}

/** What of a body stream was there without waiting, and the stream to send when that was not all of it. */
export type AvailableBody =
  | { readonly done: true; readonly body: Uint8Array }
  | { readonly done: false; readonly rest: ReadableStream<Uint8Array> };

const TICK = () => Promise.resolve().then(() => undefined);

/**
 * Reads what `body` holds without waiting for more, as `@hono/node-server` does before it decides
 * how to frame a response: up to two reads that are already settled, a third after one macrotask.
 * When that reached the end, the whole body is returned: stored first and then sent as bytes, the
 * response keeps the `Content-Length` the server would have given it (a body streamed through the
 * recording would wait for the store at its end and go out chunked). Otherwise `rest` is the same
 * stream (the chunks read so far, then the rest, an error included) to record as it is sent.
 */
export async function readAvailable(body: ReadableStream<Uint8Array>): Promise<AvailableBody> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let pending: ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']> | undefined;
  let failure: { error: unknown } | undefined;
  try {
    for (let i = 0, reads = 2; i < reads; i += 1) {
      pending ??= reader.read();
      const result = await Promise.race([pending, TICK()]);
      if (result === undefined) {
        if (i !== 1) break;
        await new Promise((resolve) => setTimeout(resolve));
        reads = 3;
        continue;
      }
      pending = undefined;
      if (result.done) return { done: true, body: joined(chunks) };
      chunks.push(result.value);
    }
  } catch (error) {
    failure = { error };
  }
  const rest = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
    },
    async pull(controller) {
      // A source that failed while it was read here fails after the chunks it gave (an error in
      // `start` would drop them), as it would have for the server.
      if (failure) {
        controller.error(failure.error);
        return;
      }
      const next = pending ?? reader.read();
      pending = undefined;
      const { done, value } = await next;
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return { done: false, rest };
}

function joined(chunks: readonly Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(chunks.reduce((size, chunk) => size + chunk.byteLength, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
