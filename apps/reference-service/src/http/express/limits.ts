/**
 * The limits of service/limits.ts on Express that are the service's own: each middleware reads plain
 * values off the request, asks the neutral decision, and sets or throws what it says. The rate limits
 * are @plumbline/rate-limit/express's.
 */
import type { RequestHandler } from 'express';
import { checkQueryLength, NO_STORE_HEADERS } from '../../service/limits.js';

/** docs/design.md#d-limits: a query string longer than 2 KiB is refused before anything parses it. */
export const limitQueryString: RequestHandler = (req, _res, next) => {
  checkQueryLength(req.originalUrl);
  next();
};

/** Sets {@link NO_STORE_HEADERS}; mount on the token and revocation paths. */
export const noStore: RequestHandler = (_req, res, next) => {
  for (const [name, value] of Object.entries(NO_STORE_HEADERS)) res.setHeader(name, value);
  next();
};
