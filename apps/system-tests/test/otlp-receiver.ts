/**
 * A small OTLP/HTTP receiver on loopback for the telemetry system test: it accepts what the
 * OpenTelemetry SDK's exporters send with `OTEL_EXPORTER_OTLP_PROTOCOL=http/json` (`POST /v1/traces`,
 * `POST /v1/metrics`, gzip or not), decodes the JSON encoding of the OTLP protobuf messages and keeps
 * the spans and metric data points, with attribute lists turned into plain objects. What the SDK
 * sends with the default `http/protobuf` is kept as bytes, not decoded. It answers as the OTLP
 * specification says a collector does: 200 with an empty `Export*ServiceResponse` (JSON, or an empty
 * protobuf message), 415 for another content type, 404 for another path.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';

/** An attribute value as OTLP/JSON writes it (`AnyValue`). */
interface AnyValue {
  readonly stringValue?: string;
  readonly boolValue?: boolean;
  readonly intValue?: number | string;
  readonly doubleValue?: number;
  readonly arrayValue?: { readonly values?: readonly AnyValue[] };
}
interface KeyValue {
  readonly key: string;
  readonly value: AnyValue;
}

/** Attributes as a plain object: strings, booleans, numbers (int64 as a number), arrays. */
export type Attrs = Record<string, string | boolean | number | unknown[]>;

/** One span as received. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly name: string;
  /** OTLP `SpanKind`: 2 is SERVER. */
  readonly kind: number;
  /** OTLP `Status.code`: 0 unset, 1 ok, 2 error. */
  readonly statusCode: number;
  readonly attributes: Attrs;
  readonly resource: Attrs;
  readonly scope: string;
}

/** One data point of a sum or a histogram, with its metric's name. */
interface ReceivedPoint {
  readonly metric: string;
  readonly unit: string | undefined;
  readonly kind: 'sum' | 'histogram' | 'gauge';
  readonly attributes: Attrs;
  /** The sum's value, or the histogram's count. */
  readonly value: number;
  readonly resource: Attrs;
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`, the value of `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  readonly endpoint: string;
  readonly spans: ReceivedSpan[];
  readonly points: ReceivedPoint[];
  /** The bodies of protobuf exports (`application/x-protobuf`), by path, as received. */
  readonly protobuf: { readonly path: string; readonly body: Buffer }[];
  /** Every request received: method, path, content type (for the protocol check). */
  readonly requests: { readonly method: string; readonly path: string; readonly contentType: string }[];
  /** Waits until `found` returns something, polling every 50 ms; throws after `timeoutMs`. */
  waitFor<T>(found: () => T | undefined, timeoutMs: number, what: string): Promise<T>;
  close(): Promise<void>;
}

function value(v: AnyValue): string | boolean | number | unknown[] {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.arrayValue !== undefined) return (v.arrayValue.values ?? []).map(value);
  return '';
}

function attrs(list: readonly KeyValue[] | undefined): Attrs {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, value(kv.value)]));
}

// OTLP/JSON writes trace and span ids as hex strings (not base64 as protobuf's JSON mapping would).
const hexId = (id: string | undefined): string | undefined =>
  id === undefined || id === '' ? undefined : id;

interface ExportTrace {
  readonly resourceSpans?: readonly {
    readonly resource?: { readonly attributes?: readonly KeyValue[] };
    readonly scopeSpans?: readonly {
      readonly scope?: { readonly name?: string };
      readonly spans?: readonly {
        readonly traceId: string;
        readonly spanId: string;
        readonly parentSpanId?: string;
        readonly name: string;
        readonly kind: number;
        readonly attributes?: readonly KeyValue[];
        readonly status?: { readonly code?: number };
      }[];
    }[];
  }[];
}

interface DataPoint {
  readonly attributes?: readonly KeyValue[];
  readonly asInt?: number | string;
  readonly asDouble?: number;
  readonly count?: number | string;
}

interface ExportMetrics {
  readonly resourceMetrics?: readonly {
    readonly resource?: { readonly attributes?: readonly KeyValue[] };
    readonly scopeMetrics?: readonly {
      readonly metrics?: readonly {
        readonly name: string;
        readonly unit?: string;
        readonly sum?: { readonly dataPoints?: readonly DataPoint[] };
        readonly gauge?: { readonly dataPoints?: readonly DataPoint[] };
        readonly histogram?: { readonly dataPoints?: readonly DataPoint[] };
      }[];
    }[];
  }[];
}

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  return req.headers['content-encoding'] === 'gzip' ? promisify(gunzip)(raw) : raw;
}

/** Starts the receiver on a free loopback port. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const points: ReceivedPoint[] = [];
  const requests: OtlpReceiver['requests'] = [];
  const protobuf: OtlpReceiver['protobuf'] = [];

  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0]!;
    const contentType = String(req.headers['content-type'] ?? '');
    requests.push({ method: req.method ?? '', path, contentType });
    const answer = (status: number, text: string) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(text);
    };
    if (req.method !== 'POST' || (path !== '/v1/traces' && path !== '/v1/metrics')) {
      answer(404, '{}');
      return;
    }
    if (contentType === 'application/x-protobuf') {
      body(req).then(
        (raw) => {
          protobuf.push({ path, body: raw });
          res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
        },
        () => answer(400, '{}'),
      );
      return;
    }
    if (!contentType.startsWith('application/json')) {
      answer(415, '{}');
      return;
    }
    body(req).then(
      (raw) => {
        const message = JSON.parse(raw.toString('utf8')) as ExportTrace & ExportMetrics;
        if (path === '/v1/traces') {
          for (const rs of message.resourceSpans ?? []) {
            const resource = attrs(rs.resource?.attributes);
            for (const ss of rs.scopeSpans ?? []) {
              for (const span of ss.spans ?? []) {
                spans.push({
                  traceId: span.traceId,
                  spanId: span.spanId,
                  parentSpanId: hexId(span.parentSpanId),
                  name: span.name,
                  kind: span.kind,
                  statusCode: span.status?.code ?? 0,
                  attributes: attrs(span.attributes),
                  resource,
                  scope: ss.scope?.name ?? '',
                });
              }
            }
          }
        } else {
          for (const rm of message.resourceMetrics ?? []) {
            const resource = attrs(rm.resource?.attributes);
            for (const sm of rm.scopeMetrics ?? []) {
              for (const metric of sm.metrics ?? []) {
                const kinds = [
                  ['sum', metric.sum],
                  ['gauge', metric.gauge],
                  ['histogram', metric.histogram],
                ] as const;
                for (const [kind, data] of kinds) {
                  for (const point of data?.dataPoints ?? []) {
                    points.push({
                      metric: metric.name,
                      unit: metric.unit,
                      kind,
                      attributes: attrs(point.attributes),
                      value: Number(kind === 'histogram' ? point.count : (point.asInt ?? point.asDouble)),
                      resource,
                    });
                  }
                }
              }
            }
          }
        }
        answer(200, '{}');
      },
      () => answer(400, '{}'),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    points,
    protobuf,
    requests,
    async waitFor(found, timeoutMs, what) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const result = found();
        if (result !== undefined) return result;
        if (Date.now() > deadline) throw new Error(`OTLP receiver: no ${what} within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
