/**
 * Requests the HTTP server refuses before any framework sees them (an oversize header section, a
 * malformed request line or header, a request that took too long to arrive), answered as problem
 * documents. Framework-neutral: bytes in, bytes out; `node.ts` wires it to `http.Server`.
 */
import type { ErrorCode } from './catalogue.js';
import { createRequestIdSource, type RequestIdOptions } from './headers.js';
import { HttpError } from './http-error.js';
import { createProblemRenderer, type ProblemRendererOptions } from './render.js';
import { reasonPhrase } from './status.js';

/**
 * The catalogue code for an error Node's HTTP server reports through `clientError`: the llhttp
 * parser's `HPE_*` codes and the request timeout. `undefined` for a connection error
 * (`ECONNRESET`, `EPIPE`, ...), which gets no answer: the client is gone.
 *
 * @example
 * ```ts
 * clientErrorCode('HPE_HEADER_OVERFLOW'); // 'headers_too_large' (431)
 * clientErrorCode('HPE_INVALID_METHOD'); // 'malformed_request' (400)
 * clientErrorCode('ECONNRESET'); // undefined
 * ```
 */
export function clientErrorCode(code: string | undefined): ErrorCode | undefined {
  if (code === undefined) return undefined;
  if (code === 'HPE_HEADER_OVERFLOW') return 'headers_too_large';
  if (code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW') return 'payload_too_large';
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'request_timeout';
  return code.startsWith('HPE_') ? 'malformed_request' : undefined;
}

/**
 * Options of `clientErrorHandler` (`@plumbline/errors/node`): the problem renderer's options, the
 * request id rule, and the headers every response of the service carries.
 *
 * @example
 * ```ts
 * const options: ClientErrorOptions = { headers: () => ({ 'API-Supported-Versions': '1, 2' }) };
 * ```
 */
export interface ClientErrorOptions extends ProblemRendererOptions {
  /** Headers added to every such response (version headers, `Cache-Control`, ...). A function is called per response. */
  readonly headers?: Readonly<Record<string, string>> | (() => Readonly<Record<string, string>>);
  /** The request id header and rule, as for the `requestId` middleware. Default `X-Request-Id`. */
  readonly requestId?: RequestIdOptions;
  /** Bytes of the refused request still read (and discarded) after the answer, so the client receives it before the connection closes. Default 1 MiB. */
  readonly drainBytes?: number;
  /** How long the connection stays open for that, in milliseconds. Default 5000. */
  readonly drainTimeoutMs?: number;
}

interface RequestHead {
  readonly method: string | undefined;
  readonly target: string | undefined;
  readonly headers: ReadonlyMap<string, string>;
}

// What the parser had read when it gave up: enough to answer in the client's language and media
// type, with its request id. A header the packet cut off is simply not there.
function readHead(packet: Uint8Array | undefined): RequestHead {
  const text = packet === undefined ? '' : new TextDecoder('latin1').decode(packet.subarray(0, 131_072));
  const lines = text.split('\r\n');
  const [method, target] = (lines[0] ?? '').split(' ');
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    if (line === '') break;
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { method, target, headers };
}

const SAFE_INSTANCE = /^\/[\x21-\x7e]{0,1023}$/;
const SAFE_VALUE = /^[\t\x20-\x7e]*$/;

/**
 * A complete HTTP/1.1 response for a request the server refused, as one string of bytes: status
 * line, the problem's headers, `X-Request-Id`, the configured headers, `Date`, `Content-Length`
 * and `Connection: close`, then the problem document (no body for `HEAD`). `undefined` for an
 * error that gets no answer (see {@link clientErrorCode}).
 *
 * @example
 * ```ts
 * const respond = createClientErrorResponder();
 * socket.end(respond('HPE_HEADER_OVERFLOW', rawPacket));
 * ```
 */
export function createClientErrorResponder(
  options: ClientErrorOptions = {},
): (code: string | undefined, packet?: Uint8Array) => string | undefined {
  const render = createProblemRenderer(options);
  const ids = createRequestIdSource(options.requestId);
  return (code, packet) => {
    const errorCode = clientErrorCode(code);
    if (errorCode === undefined) return undefined;
    const head = readHead(packet);
    const requestId = ids.idFor(head.headers.get(ids.lowerHeader));
    const path = (head.target ?? '').split('?')[0] ?? '';
    const rendered = render(new HttpError(errorCode), {
      accept: head.headers.get('accept'),
      acceptLanguage: head.headers.get('accept-language'),
      instance: SAFE_INSTANCE.test(path) ? path : undefined,
      requestId,
    });
    const extra = typeof options.headers === 'function' ? options.headers() : (options.headers ?? {});
    const headers: Record<string, string> = { ...extra, ...rendered.headers, [ids.header]: requestId };
    const body = head.method === 'HEAD' ? '' : rendered.body;
    let out = `HTTP/1.1 ${rendered.status} ${reasonPhrase(rendered.status)}\r\n`;
    for (const [name, value] of Object.entries(headers)) {
      if (SAFE_VALUE.test(value)) out += `${name}: ${value}\r\n`;
    }
    out += `Date: ${new Date().toUTCString()}\r\nContent-Length: ${new TextEncoder().encode(rendered.body).byteLength}\r\nConnection: close\r\n\r\n`;
    return out + body;
  };
}
