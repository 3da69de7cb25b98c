import { once } from 'node:events';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Outcome } from '@plumbline/test-utils';
import type { Express } from 'express';

/**
 * A loopback server for an Express app. Node's default 16 KiB header limit is raised so the
 * over-long Accept cases reach the middleware instead of being refused with 431 by the parser.
 */
export async function listen(app: Express): Promise<{ server: Server; port: number }> {
  const server = createServer({ maxHeaderSize: 64 * 1024 }, app);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port };
}

export interface RawRequest {
  readonly method?: string;
  readonly path?: string;
  /** Sent exactly as given; a header absent here is absent on the wire. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

/**
 * Sends one request with exactly the headers given (supertest adds its own), and reports the
 * outcome the way `fromSupertest` does: JSON bodies parsed, everything else as text.
 */
export function send(port: number, raw: RawRequest = {}): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...raw.headers };
    if (raw.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(raw.body));
    const req = request(
      { host: '127.0.0.1', port, method: raw.method ?? 'GET', path: raw.path ?? '/', headers },
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
    req.end(raw.body);
  });
}
