/**
 * One behaviour table on Express 5, Express 4, Fastify 5 and Hono, with the real OpenTelemetry SDK:
 * each request yields exactly one server span, with the same name, status and exact attribute map on
 * every framework, and the same metrics.
 */
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { FRAMEWORKS, type Framework, frameworkSenders, type HttpRequestSpec } from '@plumbline/test-utils';
import { beforeEach, describe, expect, it } from 'vitest';
import { DURATION_BUCKETS } from '../src/index.js';
import { API_KEY, holdSlow, telemetryApps } from './apps.js';
import { createSdk, finishedSpans, registerGlobals, type Sdk } from './sdk.js';

registerGlobals();
const sdks = Object.fromEntries(FRAMEWORKS.map((framework) => [framework, createSdk()])) as Record<
  Framework,
  Sdk
>;
const senders = frameworkSenders(
  telemetryApps((framework) => ({
    tracerProvider: sdks[framework].tracerProvider,
    meterProvider: sdks[framework].meterProvider,
  })),
);

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';
const HASHED_MACHINE = 'bc020a35b7f9cb13'; // the first 16 hex digits of sha256('machine')

// Sent with every request, so the request-side attributes are known exactly.
const BASE_HEADERS = { Host: 'api.example.test', 'User-Agent': 'table/1.0' };
const REQUEST_SIDE = {
  'url.scheme': 'http',
  'server.address': 'api.example.test',
  'server.port': 80,
  'client.address': '127.0.0.1',
  'user_agent.original': 'table/1.0',
};

interface Case {
  readonly name: string;
  /** Requests sent first (the first use of an idempotency key); their spans are not checked. */
  readonly before?: readonly HttpRequestSpec[];
  readonly request: HttpRequestSpec;
  readonly status: number;
  readonly spanName: string;
  readonly error?: boolean;
  /** The exact attribute map, with the request-side attributes every case has added. */
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly parent?: string;
  /** Where a framework answers otherwise on its own: its status and the attributes that differ. */
  readonly differs?: Partial<
    Record<Framework, { status: number; attributes: Readonly<Record<string, unknown>> }>
  >;
}

const post = (key: string, requestIdValue: string): HttpRequestSpec => ({
  method: 'POST',
  path: '/projects',
  headers: {
    ...BASE_HEADERS,
    'Content-Type': 'application/json',
    'X-API-Key': API_KEY,
    'Idempotency-Key': key,
    'X-Request-Id': requestIdValue,
  },
  body: '{"name":"Gemini"}',
});

const cases: readonly Case[] = [
  {
    name: 'a list: 200, http.route the template, the negotiated media type',
    request: { path: '/projects?sort=-name', headers: { ...BASE_HEADERS, 'X-Request-Id': 'req-list' } },
    status: 200,
    spanName: 'GET /projects',
    attributes: {
      'http.request.method': 'GET',
      'url.path': '/projects',
      'http.route': '/projects',
      'http.response.status_code': 200,
      'plumbline.request_id': 'req-list',
      'plumbline.response.media_type': 'application/json',
      'plumbline.response.language': 'en',
    },
  },
  {
    name: 'a route with a parameter: the template, not the value',
    request: { path: '/projects/42', headers: { ...BASE_HEADERS, 'X-Request-Id': 'req-show' } },
    status: 200,
    spanName: 'GET /projects/:id',
    attributes: {
      'http.request.method': 'GET',
      'url.path': '/projects/42',
      'http.route': '/projects/:id',
      'http.response.status_code': 200,
      'plumbline.request_id': 'req-show',
      'plumbline.response.media_type': 'application/json',
      'plumbline.response.language': 'en',
    },
  },
  {
    name: 'a route of a router mounted on /v1: the mount path joined with the template',
    request: { path: '/v1/tasks/7', headers: { ...BASE_HEADERS, 'X-Request-Id': 'req-mounted' } },
    status: 200,
    spanName: 'GET /v1/tasks/:id',
    attributes: {
      'http.request.method': 'GET',
      'url.path': '/v1/tasks/7',
      'http.route': '/v1/tasks/:id',
      'http.response.status_code': 200,
      'plumbline.request_id': 'req-mounted',
      'plumbline.response.media_type': 'application/json',
      'plumbline.response.language': 'en',
    },
  },
  {
    name: 'no route: 404 not_found, no http.route, the span named by the method',
    request: { path: '/nope', headers: { ...BASE_HEADERS, 'X-Request-Id': 'req-404' } },
    status: 404,
    spanName: 'GET',
    attributes: {
      'http.request.method': 'GET',
      'url.path': '/nope',
      'http.response.status_code': 404,
      'plumbline.request_id': 'req-404',
      'plumbline.error_code': 'not_found',
      'plumbline.response.media_type': 'application/problem+json',
      'plumbline.response.language': 'en',
    },
  },
  {
    name: 'a problem sent as XML: its error_code read from the XML body',
    request: {
      path: '/nope',
      headers: { ...BASE_HEADERS, Accept: 'application/xml', 'X-Request-Id': 'req-xml' },
    },
    status: 404,
    spanName: 'GET',
    attributes: {
      'http.request.method': 'GET',
      'url.path': '/nope',
      'http.response.status_code': 404,
      'plumbline.request_id': 'req-xml',
      'plumbline.error_code': 'not_found',
      'plumbline.response.media_type': 'application/problem+xml',
      'plumbline.response.language': 'en',
    },
  },
  {
    name: 'a rejected collection query: 400 with its error_code, not an error span',
    request: { path: '/projects?sort=-owner', headers: { ...BASE_HEADERS, 'X-Request-Id': 'req-400' } },
    status: 400,
    spanName: 'GET /projects',
    attributes: {
      'http.request.method': 'GET',
      'url.path': '/projects',
      'http.route': '/projects',
      'http.response.status_code': 400,
      'plumbline.request_id': 'req-400',
      'plumbline.error_code': 'sort_field_not_allowed',
      'plumbline.response.media_type': 'application/problem+json',
      'plumbline.response.language': 'en',
    },
  },
  {
    name: 'a 406: no acceptable representation',
    request: {
      path: '/projects',
      headers: { ...BASE_HEADERS, Accept: 'image/png', 'X-Request-Id': 'req-406' },
    },
    status: 406,
    spanName: 'GET /projects',
    attributes: {
      'http.request.method': 'GET',
      'url.path': '/projects',
      'http.route': '/projects',
      'http.response.status_code': 406,
      'plumbline.request_id': 'req-406',
      'plumbline.error_code': 'not_acceptable',
      'plumbline.response.media_type': 'application/problem+json',
      'plumbline.response.language': 'en',
    },
  },
  {
    name: 'a POST with a new Idempotency-Key: 201, outcome new, the auth method and hashed principal',
    request: post('key-new', 'req-201'),
    status: 201,
    spanName: 'POST /projects',
    attributes: {
      'http.request.method': 'POST',
      'url.path': '/projects',
      'http.route': '/projects',
      'http.response.status_code': 201,
      'plumbline.request_id': 'req-201',
      'plumbline.response.media_type': 'application/json',
      'plumbline.response.language': 'en',
      'plumbline.idempotency.outcome': 'new',
      'plumbline.auth.method': 'api_key',
      'plumbline.auth.principal_id': HASHED_MACHINE,
    },
  },
  {
    name: 'the same POST again: replayed',
    before: [post('key-replay', 'req-first')],
    request: post('key-replay', 'req-replay'),
    status: 201,
    spanName: 'POST /projects',
    attributes: {
      'http.request.method': 'POST',
      'url.path': '/projects',
      'http.route': '/projects',
      'http.response.status_code': 201,
      'plumbline.request_id': 'req-replay',
      'plumbline.response.media_type': 'application/json',
      'plumbline.response.language': 'en',
      'plumbline.idempotency.outcome': 'replayed',
      'plumbline.idempotency.original_request_id': 'req-first',
      'plumbline.auth.method': 'api_key',
      'plumbline.auth.principal_id': HASHED_MACHINE,
    },
  },
  {
    name: 'the key again with another body: 422 mismatch',
    before: [post('key-mismatch', 'req-first')],
    request: { ...post('key-mismatch', 'req-422'), body: '{"name":"Mercury"}' },
    status: 422,
    spanName: 'POST /projects',
    attributes: {
      'http.request.method': 'POST',
      'url.path': '/projects',
      'http.route': '/projects',
      'http.response.status_code': 422,
      'plumbline.request_id': 'req-422',
      'plumbline.error_code': 'idempotency_key_reused',
      'plumbline.response.media_type': 'application/problem+json',
      'plumbline.response.language': 'en',
      'plumbline.idempotency.outcome': 'mismatch',
      'plumbline.auth.method': 'api_key',
      'plumbline.auth.principal_id': HASHED_MACHINE,
    },
  },
  {
    name: 'a 500: error.type the status code, ERROR status, no message or stack in the span',
    request: { path: '/boom', headers: { ...BASE_HEADERS, 'X-Request-Id': 'req-500' } },
    status: 500,
    spanName: 'GET /boom',
    error: true,
    attributes: {
      'http.request.method': 'GET',
      'url.path': '/boom',
      'http.route': '/boom',
      'http.response.status_code': 500,
      'error.type': '500',
      'plumbline.request_id': 'req-500',
      'plumbline.error_code': 'internal_error',
      'plumbline.response.media_type': 'application/problem+json',
      'plumbline.response.language': 'en',
    },
  },
  {
    name: 'a deprecated version: the version served, Deprecation and Sunset, the rate-limit budget',
    request: {
      path: '/reports',
      headers: { ...BASE_HEADERS, 'API-Version': '1', 'X-Client': 'c1', 'X-Request-Id': 'req-v1' },
    },
    status: 200,
    spanName: 'GET /reports',
    attributes: {
      'http.request.method': 'GET',
      'url.path': '/reports',
      'http.route': '/reports',
      'http.response.status_code': 200,
      'plumbline.request_id': 'req-v1',
      'plumbline.response.media_type': 'application/json',
      'plumbline.response.language': 'en',
      'plumbline.api.version': '1',
      'plumbline.api.version_source': 'header',
      'plumbline.api.deprecated': true,
      'plumbline.api.sunset': 'Fri, 31 Dec 2027 23:59:59 GMT',
      'plumbline.rate_limit.remaining': 1,
      'plumbline.rate_limit.policy': '2-in-1min',
    },
  },
  {
    name: 'the third request in the window: 429 rate_limited, nothing left',
    before: [1, 2].map((n) => ({
      path: '/reports',
      headers: { ...BASE_HEADERS, 'X-Client': 'c2', 'X-Request-Id': `req-${n}` },
    })),
    request: { path: '/reports', headers: { ...BASE_HEADERS, 'X-Client': 'c2', 'X-Request-Id': 'req-429' } },
    status: 429,
    spanName: 'GET /reports',
    attributes: {
      'http.request.method': 'GET',
      'url.path': '/reports',
      'http.route': '/reports',
      'http.response.status_code': 429,
      'plumbline.request_id': 'req-429',
      'plumbline.error_code': 'rate_limited',
      'plumbline.response.media_type': 'application/problem+json',
      'plumbline.response.language': 'en',
      'plumbline.api.version': '2',
      'plumbline.api.version_source': 'default',
      'plumbline.rate_limit.remaining': 0,
      'plumbline.rate_limit.policy': '2-in-1min',
    },
  },
  {
    name: 'an unknown method: _OTHER, the original kept, the span named HTTP',
    request: {
      method: 'PURGE',
      path: '/projects',
      headers: { ...BASE_HEADERS, 'X-Request-Id': 'req-purge' },
    },
    status: 404,
    spanName: 'HTTP',
    attributes: {
      'http.request.method': '_OTHER',
      'http.request.method_original': 'PURGE',
      'url.path': '/projects',
      'http.response.status_code': 404,
      'plumbline.request_id': 'req-purge',
      'plumbline.error_code': 'not_found',
      'plumbline.response.media_type': 'application/problem+json',
      'plumbline.response.language': 'en',
    },
    // Fastify refuses a method its router does not know before routing (405 method_not_allowed).
    differs: {
      fastify: {
        status: 405,
        attributes: { 'http.response.status_code': 405, 'plumbline.error_code': 'method_not_allowed' },
      },
    },
  },
  {
    name: 'traceparent continued: same trace id, the caller as parent',
    request: {
      path: '/projects',
      headers: {
        ...BASE_HEADERS,
        'X-Request-Id': 'req-traced',
        traceparent: `00-${TRACE_ID}-${PARENT_ID}-01`,
        tracestate: 'vendor=opaque',
      },
    },
    status: 200,
    spanName: 'GET /projects',
    parent: PARENT_ID,
    attributes: {
      'http.request.method': 'GET',
      'url.path': '/projects',
      'http.route': '/projects',
      'http.response.status_code': 200,
      'plumbline.request_id': 'req-traced',
      'plumbline.response.media_type': 'application/json',
      'plumbline.response.language': 'en',
    },
  },
];

describe.each(FRAMEWORKS)('%s', (framework) => {
  const sdk = sdks[framework];
  beforeEach(() => sdk.exporter.reset());

  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, testCase) => {
    for (const first of testCase.before ?? []) await senders[framework]!(first);
    await finishedSpans(sdk.exporter, testCase.before?.length ?? 0);
    sdk.exporter.reset();
    const outcome = await senders[framework]!(testCase.request);
    const own = testCase.differs?.[framework];
    expect(outcome.status).toBe(own?.status ?? testCase.status);
    const spans = await finishedSpans(sdk.exporter);
    expect(spans).toHaveLength(1);
    const span = spans[0]!;
    expect(span.name).toBe(testCase.spanName);
    expect(span.kind).toBe(SpanKind.SERVER);
    expect({ ...span.attributes }).toEqual({ ...REQUEST_SIDE, ...testCase.attributes, ...own?.attributes });
    expect(span.status).toEqual(
      testCase.error ? { code: SpanStatusCode.ERROR } : { code: SpanStatusCode.UNSET },
    );
    expect(span.events).toEqual([]);
    if (testCase.parent === undefined) {
      expect(span.parentSpanContext).toBeUndefined();
    } else {
      expect(span.spanContext().traceId).toBe(TRACE_ID);
      expect(span.parentSpanContext?.spanId).toBe(testCase.parent);
      expect(span.spanContext().traceState?.serialize()).toBe('vendor=opaque');
    }
  });

  // Runs after the table (tests in a file run in order): every request above, measured once.
  it('metrics: http.server.request.duration and the plumbline.* counters for the requests above', async () => {
    const fastify = framework === 'fastify';
    const points = await metricPoints(sdk);
    const get = { 'http.request.method': 'GET', 'url.scheme': 'http' };
    const post = { 'http.request.method': 'POST', 'url.scheme': 'http', 'http.route': '/projects' };
    expect(points['http.server.request.duration']).toEqual(
      sorted([
        [{ ...get, 'http.route': '/projects', 'http.response.status_code': 200 }, 2],
        [{ ...get, 'http.route': '/projects/:id', 'http.response.status_code': 200 }, 1],
        [{ ...get, 'http.route': '/v1/tasks/:id', 'http.response.status_code': 200 }, 1],
        [{ ...get, 'http.response.status_code': 404 }, 2],
        [{ ...get, 'http.route': '/projects', 'http.response.status_code': 400 }, 1],
        [{ ...get, 'http.route': '/projects', 'http.response.status_code': 406 }, 1],
        [{ ...post, 'http.response.status_code': 201 }, 4],
        [{ ...post, 'http.response.status_code': 422 }, 1],
        [{ ...get, 'http.route': '/boom', 'http.response.status_code': 500, 'error.type': '500' }, 1],
        [{ ...get, 'http.route': '/reports', 'http.response.status_code': 200 }, 3],
        [{ ...get, 'http.route': '/reports', 'http.response.status_code': 429 }, 1],
        [
          {
            'http.request.method': '_OTHER',
            'url.scheme': 'http',
            'http.response.status_code': fastify ? 405 : 404,
          },
          1,
        ],
      ]),
    );
    expect(points['plumbline.server.problems']).toEqual(
      sorted([
        [{ 'http.request.method': 'GET', 'plumbline.error_code': 'not_found' }, 2],
        [
          {
            'http.request.method': 'GET',
            'http.route': '/projects',
            'plumbline.error_code': 'sort_field_not_allowed',
          },
          1,
        ],
        [
          {
            'http.request.method': 'GET',
            'http.route': '/projects',
            'plumbline.error_code': 'not_acceptable',
          },
          1,
        ],
        [
          {
            'http.request.method': 'POST',
            'http.route': '/projects',
            'plumbline.error_code': 'idempotency_key_reused',
          },
          1,
        ],
        [
          { 'http.request.method': 'GET', 'http.route': '/boom', 'plumbline.error_code': 'internal_error' },
          1,
        ],
        [
          { 'http.request.method': 'GET', 'http.route': '/reports', 'plumbline.error_code': 'rate_limited' },
          1,
        ],
        [
          {
            'http.request.method': '_OTHER',
            'plumbline.error_code': fastify ? 'method_not_allowed' : 'not_found',
          },
          1,
        ],
      ]),
    );
    expect(points['plumbline.server.idempotency']).toEqual(
      sorted([
        [
          {
            'http.request.method': 'POST',
            'http.route': '/projects',
            'plumbline.idempotency.outcome': 'new',
          },
          3,
        ],
        [
          {
            'http.request.method': 'POST',
            'http.route': '/projects',
            'plumbline.idempotency.outcome': 'replayed',
          },
          1,
        ],
        [
          {
            'http.request.method': 'POST',
            'http.route': '/projects',
            'plumbline.idempotency.outcome': 'mismatch',
          },
          1,
        ],
      ]),
    );
    expect(points['plumbline.server.api_versions']).toEqual(
      sorted([
        [{ 'plumbline.api.version': '1', 'plumbline.api.deprecated': true }, 1],
        [{ 'plumbline.api.version': '2', 'plumbline.api.deprecated': false }, 3],
      ]),
    );
    expect(Object.keys(points).sort()).toEqual([
      'http.server.request.duration',
      'plumbline.server.api_versions',
      'plumbline.server.idempotency',
      'plumbline.server.problems',
    ]);
    expect(durationShape).toEqual({ unit: 's', boundaries: [...DURATION_BUCKETS] });
  });

  // After the metrics check, which counts the table's requests only.
  it('a retry while the first request is in flight: 409 idempotency_key_in_use, outcome in_flight', async () => {
    const slowPost = (requestIdValue: string): HttpRequestSpec => ({
      method: 'POST',
      path: '/slow',
      headers: {
        ...BASE_HEADERS,
        'Content-Type': 'application/json',
        'Idempotency-Key': 'key-in-flight',
        'X-Request-Id': requestIdValue,
      },
      body: '{}',
    });
    const held = holdSlow();
    const first = senders[framework]!(slowPost('req-first-slow'));
    await held.entered;
    const retry = await senders[framework]!(slowPost('req-retry'));
    held.release();
    expect([retry.status, (await first).status]).toEqual([409, 201]);
    const spans = await finishedSpans(sdk.exporter, 2);
    const byRequestId = Object.fromEntries(
      spans.map((span) => [
        String(span.attributes['plumbline.request_id']),
        [span.name, { ...span.attributes }],
      ]),
    );
    expect(byRequestId).toEqual({
      'req-first-slow': [
        'POST /slow',
        {
          ...REQUEST_SIDE,
          'http.request.method': 'POST',
          'url.path': '/slow',
          'http.route': '/slow',
          'http.response.status_code': 201,
          'plumbline.request_id': 'req-first-slow',
          'plumbline.response.media_type': 'application/json',
          'plumbline.response.language': 'en',
          'plumbline.idempotency.outcome': 'new',
        },
      ],
      'req-retry': [
        'POST /slow',
        {
          ...REQUEST_SIDE,
          'http.request.method': 'POST',
          'url.path': '/slow',
          'http.route': '/slow',
          'http.response.status_code': 409,
          'plumbline.request_id': 'req-retry',
          'plumbline.error_code': 'idempotency_key_in_use',
          'plumbline.response.media_type': 'application/problem+json',
          'plumbline.response.language': 'en',
          'plumbline.idempotency.outcome': 'in_flight',
        },
      ],
    });
  });
});

// `clientAddress`: apps of their own (their own SDKs, so the metrics above stay exact), one set with
// the option reading `X-Forwarded-For` and one without it, where `req.ip` / `request.ip` / the socket
// stays the address (no framework trusts a proxy by default).
const addressSdks = {
  option: Object.fromEntries(FRAMEWORKS.map((framework) => [framework, createSdk()])) as Record<
    Framework,
    Sdk
  >,
  none: Object.fromEntries(FRAMEWORKS.map((framework) => [framework, createSdk()])) as Record<Framework, Sdk>,
};
const addressSenders = {
  option: frameworkSenders(
    telemetryApps(
      (framework) => ({
        tracerProvider: addressSdks.option[framework].tracerProvider,
        meterProvider: addressSdks.option[framework].meterProvider,
      }),
      true,
    ),
  ),
  none: frameworkSenders(
    telemetryApps((framework) => ({
      tracerProvider: addressSdks.none[framework].tracerProvider,
      meterProvider: addressSdks.none[framework].meterProvider,
    })),
  ),
};

describe.each(FRAMEWORKS)('%s: clientAddress', (framework) => {
  it.each([
    [
      'the option reading X-Forwarded-For: its first address',
      'option',
      '203.0.113.7, 10.0.0.2',
      '203.0.113.7',
    ],
    ['the option, no X-Forwarded-For: no client.address', 'option', undefined, undefined],
    ['no option, X-Forwarded-For sent: the socket address as before', 'none', '203.0.113.7', '127.0.0.1'],
  ] as const)('%s', async (_name, set, header, expected) => {
    const sdk = addressSdks[set][framework];
    sdk.exporter.reset();
    const headers: Record<string, string> = { ...BASE_HEADERS, 'X-Request-Id': 'req-address' };
    if (header !== undefined) headers['X-Forwarded-For'] = header;
    const outcome = await addressSenders[set][framework]!({ path: '/projects/42', headers });
    expect(outcome.status).toBe(200);
    const spans = await finishedSpans(sdk.exporter);
    expect(spans).toHaveLength(1);
    const { 'client.address': _socket, ...requestSide } = REQUEST_SIDE;
    expect({ ...spans[0]!.attributes }).toEqual({
      ...requestSide,
      ...(expected === undefined ? {} : { 'client.address': expected }),
      'http.request.method': 'GET',
      'url.path': '/projects/42',
      'http.route': '/projects/:id',
      'http.response.status_code': 200,
      'plumbline.request_id': 'req-address',
      'plumbline.response.media_type': 'application/json',
      'plumbline.response.language': 'en',
    });
  });
});

type Point = readonly [Readonly<Record<string, unknown>>, number];
const sorted = (points: Point[]): Point[] =>
  points.sort(([a], [b]) =>
    JSON.stringify(a, Object.keys(a).sort()).localeCompare(JSON.stringify(b, Object.keys(b).sort())),
  );
let durationShape: { unit: string; boundaries: number[] } | undefined;

/** Each metric's data points as [attributes, count (histogram) or value (counter)], sorted. */
async function metricPoints(sdk: Sdk): Promise<Record<string, Point[]>> {
  const out: Record<string, Point[]> = {};
  for (const scope of (await sdk.metrics()).scopeMetrics) {
    for (const metric of scope.metrics) {
      const points: Point[] = [];
      for (const point of metric.dataPoints) {
        const value = point.value as number | { count: number; buckets: { boundaries: number[] } };
        if (typeof value === 'number') {
          points.push([{ ...point.attributes }, value]);
        } else {
          points.push([{ ...point.attributes }, value.count]);
          durationShape = { unit: metric.descriptor.unit, boundaries: value.buckets.boundaries };
        }
      }
      out[metric.descriptor.name] = sorted(points);
    }
  }
  return out;
}
