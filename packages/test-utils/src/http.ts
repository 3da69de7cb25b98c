import { once } from 'node:events';
import { createServer, type RequestListener, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Outcome } from './adapters.js';

/**
 * One request as a behaviour table writes it. Headers are sent exactly as given (nothing added
 * but `Host`, `Connection` and a `Content-Length` for a body); an array is several header lines.
 */
export interface HttpRequestSpec {
  readonly method?: string;
  /** Path and query, e.g. `/projects?limit=5`. Default `/`. */
  readonly path?: string;
  readonly headers?: Readonly<Record<string, string | readonly string[]>>;
  readonly body?: string;
}

/** A loopback server on an ephemeral port. */
export interface RunningServer {
  readonly server: Server;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Serves a Node request listener on 127.0.0.1, port 0. Node's 16 KiB header limit is raised to
 * 64 KiB so over-long header cases reach the app instead of being refused with 431 by the parser.
 *
 * @example
 * ```ts
 * const { port, close } = await listen(expressApp);
 * ```
 */
export async function listen(listener: RequestListener): Promise<RunningServer> {
  const server = createServer({ maxHeaderSize: 64 * 1024 }, listener);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Sends one request with exactly the headers given (supertest adds its own) and reports the
 * outcome: lower-cased headers (several lines joined with `, `), JSON bodies (`json` or `+json`)
 * parsed, everything else as text.
 *
 * @example
 * ```ts
 * const outcome = await send(port, { path: '/x', headers: { Accept: 'application/xml' } });
 * ```
 */
export function send(port: number, spec: HttpRequestSpec = {}): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(spec.headers ?? {})) {
      headers[name] = typeof value === 'string' ? value : [...value];
    }
    if (spec.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(spec.body));
    const req = request(
      { host: '127.0.0.1', port, method: spec.method ?? 'GET', path: spec.path ?? '/', headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const out: Record<string, string> = {};
          for (const [name, value] of Object.entries(res.headers)) {
            if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
          }
          const text = Buffer.concat(chunks).toString('utf8');
          const body = text !== '' && /[/+]json\b/.test(out['content-type'] ?? '') ? JSON.parse(text) : text;
          resolve({ status: res.statusCode ?? 0, headers: out, body });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(spec.body);
  });
}

/** What came back on a raw connection: the status line, the header lines (names lower-cased) and the body. */
export interface RawExchange {
  readonly statusLine: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** True when the connection ended with a reset instead of an orderly close. */
  readonly reset: boolean;
}

/**
 * Writes `bytes` on a fresh TCP connection to 127.0.0.1:`port` exactly as given (no framing added:
 * for requests Node's parser refuses) and reads until the server closes, as curl does: without
 * half-closing first, so a server that closes with unread bytes resets the connection.
 *
 * @example
 * ```ts
 * const reply = await rawExchange(port, 'get / HTTP/1.1\r\nHost: x\r\n\r\n');
 * reply.statusLine; // 'HTTP/1.1 400 Bad Request'
 * ```
 */
export async function rawExchange(port: number, bytes: string | Uint8Array): Promise<RawExchange> {
  const { connect } = await import('node:net');
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let reset = false;
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    socket.on('end', () => socket.end());
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') reset = true;
      else reject(error);
    });
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const end = text.indexOf('\r\n\r\n');
      const [statusLine = '', ...lines] = (end < 0 ? text : text.slice(0, end)).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ statusLine, headers, body: end < 0 ? '' : text.slice(end + 4), reset });
    });
  });
}
