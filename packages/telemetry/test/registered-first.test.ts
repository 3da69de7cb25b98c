/**
 * An SDK registered before this package is loaded (the usual order: the SDK file is imported
 * first) is recognised as one: spans and metrics are recorded with no provider passed in options.
 */
import { metrics, trace } from '@opentelemetry/api';
import { expect, it } from 'vitest';
import { createSdk } from './sdk.js';

const sdk = createSdk();
trace.setGlobalTracerProvider(sdk.tracerProvider);
metrics.setGlobalMeterProvider(sdk.meterProvider);

it('records through the global providers registered before the import', async () => {
  const { createTelemetry } = await import('../src/index.js');
  const active = createTelemetry().start('GET', {}, { keys: () => [], get: () => undefined });
  active?.request({ scheme: 'http', path: '/health' });
  active?.end({ status: 200, route: '/health', header: () => undefined });
  expect(sdk.exporter.getFinishedSpans().map((span) => span.name)).toEqual(['GET /health']);
  const [scope] = (await sdk.metrics()).scopeMetrics;
  expect(
    scope?.metrics.map((metric) => [
      metric.descriptor.name,
      metric.dataPoints.map((point) => [{ ...point.attributes }, (point.value as { count: number }).count]),
    ]),
  ).toEqual([
    [
      'http.server.request.duration',
      [
        [
          {
            'http.request.method': 'GET',
            'http.route': '/health',
            'http.response.status_code': 200,
            'url.scheme': 'http',
          },
          1,
        ],
      ],
    ],
  ]);
});
