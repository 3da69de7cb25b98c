/**
 * RFC 7009 token revocation for the access tokens this service issues: the client that owns a token
 * revokes it, its `jti` goes on the revocation list (Redis when shared, so every instance refuses it
 * at once) until the token would have expired anyway.
 */
import { timingSafeEqual } from 'node:crypto';
import { isHttpError } from '@plumbline/errors';
import express, { type Request, type RequestHandler, type Response } from 'express';
import { type AppContext, sha256Hex } from './context.js';

function oauthError(res: Response, status: number, error: string, description: string): void {
  res.status(status);
  res.setHeader('Cache-Control', 'no-store');
  if (status === 401) res.setHeader('WWW-Authenticate', 'Basic realm="plumbline"');
  res.json({ error, error_description: description });
}

function basicCredentials(req: Request): { id: string; secret: string } | undefined {
  const header = req.headers.authorization;
  if (!header || !/^basic /i.test(header)) return undefined;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return {
    id: decodeURIComponent(decoded.slice(0, colon)),
    secret: decodeURIComponent(decoded.slice(colon + 1)),
  };
}

export function revokeEndpoint(ctx: AppContext): RequestHandler[] {
  return [
    express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 10 }),
    async (req, res) => {
      const form = (req.body ?? {}) as Record<string, unknown>;
      const basic = basicCredentials(req);
      const clientId = basic?.id ?? (typeof form['client_id'] === 'string' ? form['client_id'] : undefined);
      const secret =
        basic?.secret ?? (typeof form['client_secret'] === 'string' ? form['client_secret'] : undefined);
      if (!req.is('application/x-www-form-urlencoded')) {
        oauthError(res, 400, 'invalid_request', 'The body must be application/x-www-form-urlencoded');
        return;
      }
      const client = clientId ? await ctx.findClient(clientId) : undefined;
      const presented = Buffer.from(sha256Hex(secret ?? ''), 'hex');
      const expected = Buffer.from(client?.secretHash ?? sha256Hex('decoy'), 'hex');
      if (
        !client ||
        secret === undefined ||
        presented.length !== expected.length ||
        !timingSafeEqual(presented, expected)
      ) {
        oauthError(res, 401, 'invalid_client', 'Client authentication failed');
        return;
      }
      const token = form['token'];
      if (typeof token !== 'string' || token === '') {
        oauthError(res, 400, 'invalid_request', 'The token parameter is required');
        return;
      }
      try {
        const principal = await ctx.verifier.verify(token);
        const { jti, exp } = principal.claims ?? {};
        // Only the owner may revoke; anything else is answered like an unknown token (RFC 7009 2.2).
        if (principal.clientId === client.clientId && typeof jti === 'string' && typeof exp === 'number') {
          await ctx.revocation.revoke(jti, exp);
        }
      } catch (error) {
        // An invalid, expired or foreign token needs no revocation; an unreachable store does.
        if (isHttpError(error) && error.status === 503) {
          res.setHeader('Retry-After', '1');
          oauthError(res, 503, 'temporarily_unavailable', 'The revocation list is unavailable; retry later');
          return;
        }
      }
      res.setHeader('Cache-Control', 'no-store');
      res.status(200).end();
    },
  ];
}
