/**
 * Express helpers the wiring shares: {@link sendReply} sends a {@link PlainReply} (`res.send` adds
 * `Content-Length` and answers HEAD without a body), {@link headers} sets fixed headers, and
 * {@link exactRouter} makes routers that match paths as Fastify and Hono do.
 */
import { type RequestHandler, type Response, Router } from 'express';
import type { PlainReply } from '../../service/plain-reply.js';

/** Sets the reply's headers in order, then its status and body. */
export function sendReply(res: Response, reply: PlainReply): void {
  for (const [name, value] of Object.entries(reply.headers)) res.setHeader(name, value);
  const { body } = reply;
  res.status(reply.status).send(typeof body === 'string' || Buffer.isBuffer(body) ? body : Buffer.from(body));
}

/**
 * A router whose paths match exactly: case-sensitive (RFC 3986 6.2.2.1) and with a trailing slash
 * being another path, so `/PROJECTS` and `/projects/` are 404 on every framework.
 */
export function exactRouter(): Router {
  return Router({ caseSensitive: true, strict: true });
}

/** Sets headers, then goes on. */
export const headers =
  (set: Readonly<Record<string, string>>): RequestHandler =>
  (_req, res, next) => {
    for (const [name, value] of Object.entries(set)) res.setHeader(name, value);
    next();
  };
