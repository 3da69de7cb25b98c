/**
 * The HTTP(S) server around the app. Requests Node's parser refuses before the app runs (an
 * oversize request line or header section, a malformed request line or header) are answered here,
 * as problem documents with the headers every response of the service carries.
 */
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { clientErrorHandler } from '@plumbline/errors/node';
import type { ServiceConfig } from './service/config.js';
import { fillHost, refuseTarget, toOriginForm } from './service/request-target.js';
import { commonHeaders } from './service/versioning.js';

const HSTS = { 'Strict-Transport-Security': 'max-age=31536000; includeSubDomains' };

/**
 * The server `main.ts` listens with (HTTPS when `config.tls` is set), answering refused requests
 * with problem documents.
 *
 * @example
 * ```ts
 * createServer(await createListener(ctx, logger), config).listen(config.port, config.host);
 * ```
 */
export function createServer(
  app: RequestListener,
  config: Pick<ServiceConfig, 'tls' | 'versioningStrategy'>,
): Server {
  // Absolute-form targets are routed like origin-form, and targets each framework would read
  // differently are refused before any of them routes (service/request-target.ts).
  const common = commonHeaders(config.versioningStrategy);
  const listener: RequestListener = (req, res) => {
    toOriginForm(req);
    fillHost(req);
    if (!refuseTarget(req, res, common)) app(req, res);
  };
  const server: Server = config.tls
    ? createHttpsServer(
        { cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile) },
        listener,
      )
    : createHttpServer(listener);
  server.keepAliveTimeout = 5_000;
  const extra = config.tls ? HSTS : {};
  server.on(
    'clientError',
    clientErrorHandler({ headers: () => ({ ...commonHeaders(config.versioningStrategy), ...extra }) }),
  );
  return server;
}
