/**
 * The request pipeline every wiring (src/http/express, fastify, hono) mounts, declared once and
 * framework-free: what each step answers from, built at start. A wiring reads the request through its
 * framework's getters and hands the values to these; it decides nothing of its own.
 *
 *   telemetry (OTLP only) → metrics → request id → version headers → OPTIONS * → access log → HSTS (TLS)
 *   → CORS → HTTPS check → query length → no-store (/oauth/*) → failure rate limit (not for probes)
 *   → neutral routes (pages/), OAuth, session → the refused version, if any
 *   → v1 | v2: negotiation (406) → authentication (401/403) → rate limit per principal (429)
 *   → the route tables (api/routes/) → 404 → problem documents
 */
import type { IncomingMessage } from 'node:http';
import { isKeySetUnavailable } from '@plumbline/auth';
import type { HttpError } from '@plumbline/errors';
import type { NegotiatorOptions } from '@plumbline/negotiation';
import type { Logger } from 'pino';
import { xmlSerializerFor } from './api/xml-representation.js';
import type { ApiVersion } from './domain/model.js';
import { buildOpenApi } from './openapi/document.js';
import { documentForStrategy } from './openapi/strategy.js';
import { versionDocuments } from './openapi/versions.js';
import {
  type NegotiatedRoute,
  type NeutralRoute,
  negotiatedRoutes,
  neutralRoutes,
} from './pages/neutral-routes.js';
import { type ProxyPolicy, proxyPolicy } from './service/client-address.js';
import type { AppContext } from './service/context.js';
import { serviceCors } from './service/cors.js';
import { createServiceLimiters, type ServiceLimiters } from './service/limits.js';
import { createMetrics, type ServiceMetrics } from './service/metrics.js';
import { telemetryEnabled, telemetryRoute } from './service/telemetry.js';

/** What a wiring's problem-details `onError` reports: the answer, what was thrown, the request. */
interface FailedRequest {
  readonly error: HttpError;
  readonly original: unknown;
  /** Node's request (Express's `req`, Fastify's `request.raw`, Hono's `c.env.incoming`). */
  readonly incoming: IncomingMessage;
  readonly requestId: string | undefined;
}

/** The service's pipeline, built once per app ({@link servicePipeline}). */
export interface ServicePipeline {
  /** The document `/openapi.json` serves, in the configured versioning strategy's form. */
  readonly openapi: Record<string, unknown>;
  readonly metrics: ServiceMetrics;
  /** The client address and the trusted peers (TRUST_PROXY). */
  readonly proxies: ProxyPolicy;
  /** The failure limit per client address and the limit per principal. */
  readonly limiters: ServiceLimiters;
  /** CORS_ORIGINS' policy; undefined when the service answers no cross-origin request. */
  readonly cors: ReturnType<typeof serviceCors>;
  /** The HTTPS check's options: a loopback peer may use HTTP outside production. */
  readonly https: { readonly trustProxy: ProxyPolicy['trustsPeer']; readonly allowLoopback: boolean };
  /** `Strict-Transport-Security` when the service terminates TLS itself; undefined otherwise. */
  readonly hsts: Readonly<Record<string, string>> | undefined;
  /** The route template a path is reported under, when OpenTelemetry is on; undefined when it is off. */
  readonly telemetryRoute: ((path: string) => string | undefined) | undefined;
  /** The version-neutral GET routes with a plain answer (pages/neutral-routes.ts). */
  readonly neutral: readonly NeutralRoute[];
  /** The version-neutral routes that negotiate (`/`, `/errors/:code`, the changelog). */
  readonly negotiated: readonly NegotiatedRoute[];
  /** The negotiation of one version's routes: its media types, English and German, XML from the schemas. */
  readonly negotiation: (version: ApiVersion) => NegotiatorOptions;
  /** Counts a failed request and logs a server error (a key-set outage is logged once, by its fetch). */
  readonly onError: (failed: FailedRequest) => void;
}

/**
 * Builds what every step of the pipeline answers from: the OpenAPI document and its per-version
 * copies, the metrics, the limiters, CORS, the neutral routes and each version's negotiation.
 *
 * @example
 * ```ts
 * const pipeline = servicePipeline(ctx, logger);
 * app.use(rateLimit(pipeline.limiters.failures, { key: (req) => addressKey(...) }));
 * ```
 */
export function servicePipeline(ctx: AppContext, logger: Logger): ServicePipeline {
  const { api, config } = ctx;
  const built = buildOpenApi(ctx);
  const openapi = documentForStrategy(api, built);
  // `/openapi.json?version=1`: one version's document (openapi/versions.ts).
  const documents = versionDocuments(api, built);
  // Route templates are the OpenAPI document's paths (the document is built with the neutral routes).
  const metrics = createMetrics(ctx, () => Object.keys(openapi['paths'] as object));
  const proxies = proxyPolicy(config.trustProxy);
  const xml = xmlSerializerFor(openapi);
  return {
    openapi,
    metrics,
    proxies,
    limiters: createServiceLimiters(ctx),
    cors: serviceCors(ctx, openapi),
    https: { trustProxy: proxies.trustsPeer, allowLoopback: config.env !== 'production' },
    hsts: config.tls ? { 'Strict-Transport-Security': 'max-age=31536000; includeSubDomains' } : undefined,
    // OpenTelemetry (service/telemetry.ts): mounted only when an OTLP endpoint is set (main.ts started the SDK).
    telemetryRoute: telemetryEnabled() ? telemetryRoute(metrics.routeOf) : undefined,
    neutral: neutralRoutes(ctx, { openapi, documents, metrics }),
    negotiated: negotiatedRoutes(openapi, api),
    negotiation: (version) => {
      const types = api.mediaTypes(version);
      return {
        types,
        languages: ['en', 'de'],
        // Every XML type (application/xml, the vendor +xml type) is written from the OpenAPI schemas.
        serializers: Object.fromEntries(types.filter((t) => t.endsWith('xml')).map((t) => [t, xml])),
      };
    },
    onError: ({ error, original, incoming, requestId }) => {
      metrics.recordError(incoming, error);
      if (error.status < 500 || isKeySetUnavailable(original)) return;
      logger.child({ request_id: requestId }).error({ err: original }, 'request failed');
    },
  };
}
