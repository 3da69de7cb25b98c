/**
 * The access log (service/logging.ts) and the metrics (service/metrics.ts) on Express: each reads
 * what the neutral hook needs off Express's request and hands over Node's request and response.
 */
import { getRequestId } from '@plumbline/errors/express';
import { getApiVersion } from '@plumbline/versioning/express';
import type { Request, RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { ProxyPolicy } from '../../service/client-address.js';
import { createAccessLogger } from '../../service/logging.js';
import type { ServiceMetrics } from '../../service/metrics.js';

/**
 * {@link createAccessLogger} on Express, with the id of `requestId()`. Mount after `requestId()`.
 *
 * @example
 * ```ts
 * app.use(requestId());
 * app.use(accessLog(logger));
 * ```
 */
export function accessLog(logger: Logger, proxies?: ProxyPolicy): RequestHandler {
  const log = createAccessLogger(logger, (req) => getRequestId(req as Request), proxies);
  return (req, res, next) => {
    log(req, res);
    next();
  };
}

/**
 * {@link ServiceMetrics.track} on Express; mount first, before anything can answer.
 *
 * @example
 * ```ts
 * app.use(metricsMiddleware(metrics));
 * ```
 */
export function metricsMiddleware(metrics: ServiceMetrics): RequestHandler {
  return (req, res, next) => {
    metrics.track(req, res, req.originalUrl.split('?')[0] ?? '/', undefined, () => getApiVersion(req));
    next();
  };
}
