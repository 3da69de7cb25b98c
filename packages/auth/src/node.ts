/**
 * Node `http` plumbing shared by the Express and Fastify adapters: the connection facts
 * `requireHttps` judges, and the form body of the token and revocation endpoints.
 */
import type { IncomingMessage } from 'node:http';
import { HttpError } from '@plumbline/errors';
import { MAX_FORM_BYTES } from './adapter.js';

/** What `isSecureRequest` judges, read from a Node request: TLS socket, peer address, forwarded scheme. */
export function nodeConnection(req: IncomingMessage) {
  const socket = req.socket as { encrypted?: boolean; remoteAddress?: string } | undefined;
  return {
    encrypted: socket?.encrypted === true,
    remoteAddress: socket?.remoteAddress,
    forwardedProto: req.headers['x-forwarded-proto'],
  };
}

/**
 * A form body for the token and revocation endpoints: what a body parser in front already parsed,
 * or the raw bytes up to the limit (more is 413).
 * Resolves to parsed fields, the raw text, or `undefined` for no body.
 */
export function readNodeForm(
  req: IncomingMessage,
  parsed: unknown,
): Promise<string | Readonly<Record<string, unknown>> | undefined> {
  if (parsed !== undefined && parsed !== null && typeof parsed === 'object' && !Buffer.isBuffer(parsed)) {
    return Promise.resolve(parsed as Record<string, unknown>);
  }
  if (typeof parsed === 'string') return Promise.resolve(parsed);
  if (Buffer.isBuffer(parsed)) return Promise.resolve(parsed.toString('utf8'));
  if (req.readableEnded) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_FORM_BYTES) {
        req.removeAllListeners('data');
        req.resume();
        reject(new HttpError('payload_too_large', { params: { limit: MAX_FORM_BYTES } }));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
