/** `requireContentType` of the Express adapter: the request-body side of negotiation (415). */
import type { RequestHandler } from 'express';
import { checkRequestBody } from './request-body.js';
import { requestHasBody } from './respond.js';

/**
 * Rejects a request body whose Content-Type is missing or not one of `types` with 415
 * `unsupported_media_type` and `Accept-Post` / `Accept-Patch` / `Accept`. Requests without a body
 * pass. Mount before the body parser so an unsupported body is never parsed.
 *
 * @example
 * ```ts
 * app.patch('/projects/:id', requireContentType('application/merge-patch+json', 'application/json'),
 *   express.json({ type: ['application/json', 'application/merge-patch+json'] }), update);
 * ```
 */
export function requireContentType(...types: readonly string[]): RequestHandler {
  const accepted = Object.freeze([...types]);
  // Validate at configuration time: a typo must fail at startup, not on the first request.
  checkRequestBody({ contentType: undefined, hasBody: false, method: 'GET', accepted });
  return (req, _res, next) => {
    const result = checkRequestBody({
      contentType: req.headers['content-type'],
      hasBody: requestHasBody(req.headers['content-length'], req.headers['transfer-encoding']),
      method: req.method,
      accepted,
    });
    next(result.ok ? undefined : result.error);
  };
}
