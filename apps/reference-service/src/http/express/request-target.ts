/** The server-wide `OPTIONS *` answer of service/request-target.ts on Express. */
import type { RequestHandler } from 'express';
import { serverWideOptionsReply } from '../../service/request-target.js';

/**
 * {@link serverWideOptionsReply} on Express.
 *
 * @example
 * ```ts
 * app.use(serverWideOptions);
 * ```
 */
export const serverWideOptions: RequestHandler = (req, res, next) => {
  const reply = serverWideOptionsReply(req.method, req.url);
  if (reply === undefined) {
    next();
    return;
  }
  for (const [name, value] of Object.entries(reply.headers)) res.setHeader(name, value);
  res.status(reply.status).end();
};
