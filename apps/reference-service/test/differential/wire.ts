/**
 * The differential suite's HTTP client: exact request bytes over a fresh loopback socket, and the
 * responses read back as they came (repeated header lines kept, chunked bodies decoded), so the
 * suite compares what each framework put on the wire rather than what a client library made of it.
 */
import { connect } from 'node:net';

/** One response as it came off the wire. */
export interface WireResponse {
  readonly statusLine: string;
  /** Header lines in the order sent, names as sent. */
  readonly headers: readonly (readonly [string, string])[];
  readonly body: Buffer;
}

/** What one connection produced: the responses read, then how the connection ended. */
export interface WireResult {
  readonly responses: readonly WireResponse[];
  /**
   * `closed` (the server closed), `reset`, `open` (every response came but the connection stayed
   * open although the request asked to close it), or `timeout` (responses missing after `timeoutMs`).
   */
  readonly end: 'closed' | 'reset' | 'open' | 'timeout';
  /** Bytes after the last complete response (a response cut short). */
  readonly rest: number;
}

const CRLF2 = Buffer.from('\r\n\r\n');

/** Methods whose responses never carry a body, and statuses that never do (RFC 9112 6.3). */
function bodiless(method: string, status: number): boolean {
  return method === 'HEAD' || (status >= 100 && status < 200) || status === 204 || status === 304;
}

/** Decodes a chunked body at `from`; `undefined` when incomplete or malformed. */
function dechunk(buffer: Buffer, from: number): { body: Buffer; next: number } | undefined {
  const parts: Buffer[] = [];
  let at = from;
  for (;;) {
    const eol = buffer.indexOf('\r\n', at);
    if (eol < 0) return undefined;
    const size = Number.parseInt(buffer.subarray(at, eol).toString('latin1').split(';')[0]!.trim(), 16);
    if (!Number.isFinite(size) || size < 0) return undefined;
    at = eol + 2;
    if (size === 0) {
      // Trailer section: lines up to an empty one.
      const end = buffer.indexOf('\r\n', at);
      if (end < 0) return undefined;
      if (end === at) return { body: Buffer.concat(parts), next: end + 2 };
      const trailers = buffer.indexOf(CRLF2, at);
      return trailers < 0 ? undefined : { body: Buffer.concat(parts), next: trailers + 4 };
    }
    if (buffer.length < at + size + 2) return undefined;
    parts.push(buffer.subarray(at, at + size));
    at += size + 2;
  }
}

/**
 * Parses the responses in `buffer`, one per method in `methods` (the request methods, in order:
 * HEAD answers have no body). `closed` says the connection ended, so a body without a length runs
 * to the end.
 */
function parseResponses(
  buffer: Buffer,
  methods: readonly string[],
  closed: boolean,
): { responses: WireResponse[]; rest: number } {
  const responses: WireResponse[] = [];
  let at = 0;
  let index = 0;
  while (at < buffer.length) {
    const end = buffer.indexOf(CRLF2, at);
    if (end < 0) break;
    const [statusLine = '', ...lines] = buffer.subarray(at, end).toString('latin1').split('\r\n');
    const headers = lines.map((line): [string, string] => {
      const colon = line.indexOf(':');
      return colon < 0 ? [line, ''] : [line.slice(0, colon), line.slice(colon + 1).trim()];
    });
    const status = Number(statusLine.split(' ')[1]);
    const method = methods[Math.min(index, methods.length - 1)] ?? 'GET';
    const header = (name: string) => headers.find(([n]) => n.toLowerCase() === name)?.[1];
    let body: Buffer;
    let next: number;
    if (bodiless(method, status)) {
      body = Buffer.alloc(0);
      next = end + 4;
    } else if (/chunked/i.test(header('transfer-encoding') ?? '')) {
      const decoded = dechunk(buffer, end + 4);
      if (!decoded) break;
      ({ body, next } = decoded);
    } else if (header('content-length') !== undefined) {
      const length = Number(header('content-length'));
      if (buffer.length < end + 4 + length) break;
      body = buffer.subarray(end + 4, end + 4 + length);
      next = end + 4 + length;
    } else {
      if (!closed) break;
      body = buffer.subarray(end + 4);
      next = buffer.length;
    }
    responses.push({ statusLine, headers, body });
    // An interim (1xx) response is followed by the final one to the same request.
    if (status >= 200 || status < 100) index += 1;
    at = next;
  }
  return { responses, rest: buffer.length - at };
}

/**
 * Writes `bytes` to a new connection to `port` and reads until the server closes it, `expected`
 * final responses have arrived and the server is quiet, or `timeoutMs` passes.
 */
export function exchange(
  port: number,
  bytes: Buffer,
  methods: readonly string[],
  timeoutMs = 5_000,
): Promise<WireResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let end: WireResult['end'] | undefined;
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    const finish = (how: WireResult['end']) => {
      if (end) return;
      end = how;
      clearTimeout(timer);
      socket.destroy();
      const { responses, rest } = parseResponses(
        Buffer.concat(chunks),
        methods,
        how === 'closed' || how === 'reset',
      );
      resolve({ responses, end: how, rest });
    };
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      // Every request asked the server to close, so keep reading; a server that keeps the
      // connection open anyway is reported once the expected responses are complete and it has
      // stayed open for 1.5 s (300 ms was too short on a loaded machine: a close that came later was
      // reported as a connection left open).
      const parsed = parseResponses(Buffer.concat(chunks), methods, false);
      const finals = parsed.responses.filter((r) => !/^HTTP\/\d\.\d 1\d\d /.test(r.statusLine)).length;
      if (finals >= methods.length && parsed.rest === 0) {
        clearTimeout(timer);
        setTimeout(() => finish('open'), 1500).unref();
      }
    });
    socket.on('end', () => finish('closed'));
    socket.on('error', () => finish('reset'));
    socket.on('close', () => finish('closed'));
  });
}
