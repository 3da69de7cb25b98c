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
