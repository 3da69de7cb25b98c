import { type TextMapGetter, trace } from '@opentelemetry/api';
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_REQUEST_METHOD_ORIGINAL,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
  METRIC_HTTP_SERVER_REQUEST_DURATION,
} from '@opentelemetry/semantic-conventions';
import { describe, expect, it } from 'vitest';
import { createSdk } from '../test/sdk.js';
import {
  createTelemetry,
  HTTP_ATTRIBUTES,
  idempotencyOutcome,
  METRICS,
  type PrincipalIdMode,
  problemErrorCode,
  rateLimitPolicy,
  rateLimitRemaining,
} from './index.js';

const NO_HEADERS: TextMapGetter<Record<string, string>> = { keys: () => [], get: () => undefined };

describe('attribute names', () => {
  it('are the stable semantic conventions', () => {
    expect(HTTP_ATTRIBUTES).toEqual({
      requestMethod: ATTR_HTTP_REQUEST_METHOD,
      requestMethodOriginal: ATTR_HTTP_REQUEST_METHOD_ORIGINAL,
      responseStatusCode: ATTR_HTTP_RESPONSE_STATUS_CODE,
      route: ATTR_HTTP_ROUTE,
      errorType: ATTR_ERROR_TYPE,
      urlScheme: ATTR_URL_SCHEME,
      urlPath: ATTR_URL_PATH,
      serverAddress: ATTR_SERVER_ADDRESS,
      serverPort: ATTR_SERVER_PORT,
      clientAddress: ATTR_CLIENT_ADDRESS,
      userAgentOriginal: ATTR_USER_AGENT_ORIGINAL,
    });
    expect(METRICS.requestDuration).toBe(METRIC_HTTP_SERVER_REQUEST_DURATION);
  });
});

describe('idempotencyOutcome', () => {
  it.each([
    [false, 200, undefined, undefined, undefined],
    [true, 201, undefined, undefined, 'new'],
    [true, 404, 'not_found', undefined, 'new'],
    [true, 201, undefined, 'true', 'replayed'],
    [true, 409, 'idempotency_key_in_use', undefined, 'in_flight'],
    [true, 422, 'idempotency_key_reused', undefined, 'mismatch'],
    [true, 400, 'idempotency_key_invalid', undefined, 'invalid'],
    [false, 400, 'idempotency_key_missing', undefined, 'missing'],
    [true, 503, 'service_unavailable', undefined, 'unavailable'],
    [false, 503, 'service_unavailable', undefined, undefined],
  ] as const)('key %s, %i %s, replayed %s: %s', (key, status, code, replayed, outcome) => {
    expect(idempotencyOutcome(key, status, code, replayed)).toBe(outcome);
  });
});

describe('rateLimitRemaining', () => {
  it.each([
    ['"default";r=7;t=60', undefined, 7],
    ['"1-in-1min";r=0;t=42', undefined, 0],
    ['limit=10, remaining=3, reset=60', undefined, 3],
    [undefined, '12', 12],
    [undefined, ' 5 ', 5],
    [undefined, 'many', undefined],
    ['"default";q=100;w=60', undefined, undefined],
    [undefined, undefined, undefined],
  ] as const)('RateLimit %s, RateLimit-Remaining %s: %s', (field, remaining, expected) => {
    expect(rateLimitRemaining(field, remaining)).toBe(expected);
  });
});

describe('rateLimitPolicy', () => {
  it.each([
    ['"2-in-1min"; q=2; w=60; pk=:ZDBmNjMxY2ExZGRi:', '2-in-1min'],
    ['"burst";q=10;w=1, "daily";q=1000;w=86400', 'burst, daily'],
    ['10;w=60', '10;w=60'],
    [undefined, undefined],
  ] as const)('%s: %s', (field, expected) => {
    expect(rateLimitPolicy(field)).toBe(expected);
  });
});

describe('problemErrorCode', () => {
  it.each([
    ['application/problem+json', '{"status":404,"error_code":"not_found"}', 'not_found'],
    ['application/problem+json; charset=utf-8', '{"error_code":"invalid_sort"}', 'invalid_sort'],
    [
      'application/problem+xml; charset=utf-8',
      '<?xml version="1.0"?><problem xmlns="urn:ietf:rfc:7807"><error_code>not_acceptable</error_code></problem>',
      'not_acceptable',
    ],
    ['application/problem+json', '{"error_code":42}', undefined],
    ['application/problem+json', 'null', undefined],
    ['application/problem+json', '{not json', undefined],
    ['application/json', '{"error_code":"not_found"}', undefined],
    [undefined, '{"error_code":"not_found"}', undefined],
  ] as const)('%s %s: %s', (type, body, code) => {
    expect(problemErrorCode(type, body)).toBe(code);
  });
});

describe('createTelemetry', () => {
  const run = async (principalId: PrincipalIdMode | undefined, headers: Record<string, string>) => {
    const sdk = createSdk();
    const telemetry = createTelemetry({
      tracerProvider: sdk.tracerProvider,
      ...(principalId === undefined ? {} : { principalId }),
    });
    const active = telemetry.start('GET', {}, NO_HEADERS)!;
    active.request({ scheme: 'https', path: '/v1/projects' });
    active.end({
      status: 200,
      route: '/v1/projects',
      header: (name) => headers[name.toLowerCase()],
      principal: { type: 'jwt', clientId: 'machine' },
      apiVersion: '2024-01-01',
      apiVersionSource: 'date',
    });
    active.end({ status: 500, header: () => undefined });
    const spans = sdk.exporter.getFinishedSpans();
    expect(spans).toHaveLength(1);
    return { ...spans[0]!.attributes };
  };

  it('records the version, deprecation, sunset, rate limit and principal from the response', async () => {
    expect(
      await run(undefined, {
        deprecation: '@1735689600',
        sunset: 'Wed, 31 Dec 2025 23:59:59 GMT',
        ratelimit: '"default";r=41;t=17',
        'ratelimit-policy': '"default";q=60;w=60',
      }),
    ).toEqual({
      'http.request.method': 'GET',
      'url.scheme': 'https',
      'url.path': '/v1/projects',
      'http.route': '/v1/projects',
      'http.response.status_code': 200,
      'plumbline.api.version': '2024-01-01',
      'plumbline.api.version_source': 'date',
      'plumbline.api.deprecated': true,
      'plumbline.api.sunset': 'Wed, 31 Dec 2025 23:59:59 GMT',
      'plumbline.rate_limit.remaining': 41,
      'plumbline.rate_limit.policy': 'default',
      'plumbline.auth.method': 'jwt',
      'plumbline.auth.principal_id': 'bc020a35b7f9cb13',
    });
  });

  it.each([
    ['raw', { 'plumbline.auth.method': 'jwt', 'plumbline.auth.principal_id': 'machine' }],
    ['none', { 'plumbline.auth.method': 'jwt' }],
    ['hashed', { 'plumbline.auth.method': 'jwt', 'plumbline.auth.principal_id': 'bc020a35b7f9cb13' }],
  ] as const)('principalId %s', async (mode, expected) => {
    const attributes = await run(mode, {});
    expect(
      Object.fromEntries(Object.entries(attributes).filter(([name]) => name.startsWith('plumbline.auth.'))),
    ).toEqual(expected);
  });

  it('with only a tracer provider of its own, no global one is touched', () => {
    const sdk = createSdk();
    const active = createTelemetry({ tracerProvider: sdk.tracerProvider }).start('GET', {}, NO_HEADERS);
    expect(active?.recording).toBe(true);
    expect(trace.getActiveSpan()).toBeUndefined();
    active?.end({ status: 204, header: () => undefined });
    expect(sdk.exporter.getFinishedSpans().map((span) => span.name)).toEqual(['GET']);
  });
});
