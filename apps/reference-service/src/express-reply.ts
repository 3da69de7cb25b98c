/**
 * Sends a {@link PlainReply} on Express. `res.send` keeps Express's own additions (a weak `ETag`
 * for bodies, `Content-Length`, HEAD without a body), so the Express wiring answers as it did
 * before the neutral cores.
 */
import type { Response } from 'express';
import type { PlainReply } from './plain-reply.js';

/** Sets the reply's headers in order, then its status and body. */
export function sendReply(res: Response, reply: PlainReply): void {
  for (const [name, value] of Object.entries(reply.headers)) res.setHeader(name, value);
  const { body } = reply;
  res.status(reply.status).send(typeof body === 'string' || Buffer.isBuffer(body) ? body : Buffer.from(body));
}
