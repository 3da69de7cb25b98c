/**
 * Node adapter for @plumbline/errors: answers the requests Node's HTTP server refuses before any
 * framework runs (`clientError`) with problem documents. Works with `http.Server` and
 * `https.Server`, so with Express, Fastify (its `clientErrorHandler` option) and Hono on
 * `@hono/node-server`. @packageDocumentation
 */
import type { Duplex } from 'node:stream';
import { type ClientErrorOptions, createClientErrorResponder } from './client-error.js';

export type { ClientErrorOptions };

/**
 * What Node passes to `clientError` listeners: the parser's code (`HPE_HEADER_OVERFLOW`, ...) and
 * the bytes it had read when it gave up.
 * @example
 * ```ts
 * server.on('clientError', (error: ClientError, socket) => log.warn(error.code));
 * ```
 */
// rawPacket is `unknown`: Node gives a Buffer, and Fastify's typings describe it as a JSON-serialized
// Buffer; either way only a Uint8Array is read, so the handler fits Fastify's `clientErrorHandler` option.
export type ClientError = Error & { readonly code?: string; readonly rawPacket?: unknown };

// Node reports the same parse error again for every chunk that arrives after it: answer once.
const answered = new WeakSet<Duplex>();

function drain(socket: Duplex, maxBytes: number, timeoutMs: number): void {
  let read = 0;
  const timer = setTimeout(() => socket.destroy(), timeoutMs);
  timer.unref?.();
  socket.on('data', (chunk: Uint8Array) => {
    read += chunk.byteLength;
    if (read > maxBytes) socket.destroy();
  });
  socket.once('close', () => clearTimeout(timer));
  socket.resume();
}

/**
 * A `clientError` listener: a request Node's parser refuses gets a complete HTTP/1.1 problem
 * response with `Connection: close` (431 `headers_too_large` for an oversize request line or
 * header section, 400 `malformed_request` for a malformed one, 413 `payload_too_large` for
 * oversize chunk extensions, 408 `request_timeout`), carrying the problem's headers, `X-Request-Id`
 * and `options.headers`. It writes only when the socket is writable and no response was started
 * on it; a connection error (`ECONNRESET`) just closes the socket. After answering it keeps
 * reading what the client still sends (up to `drainBytes`, for `drainTimeoutMs`), because closing
 * a socket with unread data resets the connection and the client would never see the answer.
 * @example
 * ```ts
 * const server = http.createServer(app);
 * server.on('clientError', clientErrorHandler({ headers: { 'API-Supported-Versions': '1, 2' } }));
 * ```
 */
export function clientErrorHandler(
  options: ClientErrorOptions = {},
): (error: ClientError, socket: Duplex) => void {
  const respond = createClientErrorResponder(options);
  const maxBytes = options.drainBytes ?? 1024 * 1024;
  const timeoutMs = options.drainTimeoutMs ?? 5000;
  return (error, socket) => {
    if (answered.has(socket)) return;
    answered.add(socket);
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
    const response =
      socket.writable && !inFlight?.headersSent
        ? respond(error.code, error.rawPacket instanceof Uint8Array ? error.rawPacket : undefined)
        : undefined;
    if (response === undefined) {
      socket.destroy();
      return;
    }
    socket.end(response);
    drain(socket, maxBytes, timeoutMs);
  };
}
