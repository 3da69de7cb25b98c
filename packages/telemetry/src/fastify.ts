/**
 * Fastify 5 adapter for @plumbline/telemetry. @packageDocumentation
 */
import { context } from '@opentelemetry/api';
import type { FastifyPluginCallback, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { type AdapterOptions, headerText, MAX_PROBLEM_BYTES, NODE_HEADERS } from './shared.js';
import { createTelemetry, problemErrorCode, type RequestTelemetry } from './telemetry.js';

/**
 * Options of the {@link telemetry} plugin: the core's (`tracerProvider`, `meterProvider`,
 * `principalId`, `requestIdHeader`), the getters `principal` (`getPrincipal` of
 * `@plumbline/auth/fastify`), `apiVersion` (`getApiVersion` of `@plumbline/versioning/fastify`)
 * and `route`, and `clientAddress` (default: `request.ip`, Fastify's `trustProxy` rule).
 *
 * @example
 * ```ts
 * const options: TelemetryPluginOptions = { clientAddress: (request) => request.headers['x-real-ip']?.toString() };
 * ```
 */
export interface TelemetryPluginOptions extends AdapterOptions<FastifyRequest> {
  /** The client's address (`client.address`), for a proxy rule the default does not know. */
  readonly clientAddress?: (request: FastifyRequest) => string | undefined;
}

interface Measured {
  readonly active: RequestTelemetry;
  problem: string | undefined;
}

const plugin: FastifyPluginCallback<TelemetryPluginOptions> = (fastify, options, done) => {
  const core = createTelemetry(options);
  const measured = new WeakMap<FastifyRequest, Measured>();

  fastify.addHook('onRequest', (request, _reply, next) => {
    const active = core.start(request.method, request.headers, NODE_HEADERS);
    if (active === undefined) {
      next();
      return;
    }
    active.request({
      scheme: request.protocol,
      path: request.url.split('?', 1)[0]!,
      serverAddress: request.hostname,
      serverPort: request.port ?? (request.protocol === 'https' ? 443 : 80),
      clientAddress: options.clientAddress === undefined ? request.ip : options.clientAddress(request),
      userAgent: request.headers['user-agent'],
      idempotencyKey: request.headers['idempotency-key'] !== undefined,
    });
    measured.set(request, { active, problem: undefined });
    // The rest of the request's hooks and its handler run in the server span's context.
    context.with(active.context, next);
  });

  fastify.addHook('onSend', (request, reply, payload, next) => {
    const state = measured.get(request);
    if (state !== undefined) {
      const type = headerText(reply.getHeader('content-type'));
      if (
        type?.startsWith('application/problem+') &&
        (typeof payload === 'string' || Buffer.isBuffer(payload))
      ) {
        if (payload.length <= MAX_PROBLEM_BYTES) state.problem = problemErrorCode(type, payload.toString());
      }
    }
    next(null, payload);
  });

  fastify.addHook('onResponse', (request, reply, next) => {
    const state = measured.get(request);
    if (state !== undefined) {
      state.active.end({
        status: reply.statusCode,
        route: options.route?.(request) ?? request.routeOptions.url,
        header: (name) => headerText(reply.getHeader(name)),
        errorCode: state.problem,
        principal: options.principal?.(request),
        apiVersion: options.apiVersion?.(request),
        apiVersionSource: options.apiVersionSource?.(request),
      });
    }
    next();
  });
  done();
};

/**
 * The Fastify 5 plugin: one server span per request, named `{method} {route}` with
 * `http.route` = `request.routeOptions.url` (the template, the same as on Express and Hono), the
 * stable HTTP attributes and the `plumbline.*` ones, and the `http.server.request.duration`
 * histogram. Hooks and handler run in the span's context. Registered through fastify-plugin, it
 * measures the whole app; register it first. With no OpenTelemetry SDK registered its hooks only
 * call `next`.
 *
 * @example
 * ```ts
 * await app.register(telemetry, { principal: getPrincipal });
 * await app.register(plumblineErrors);
 * ```
 */
export const telemetry = fp(plugin, { fastify: '5.x', name: '@plumbline/telemetry' });
