/**
 * With no OpenTelemetry SDK registered the adapters cost one provider lookup per request: the core
 * returns before extracting a context or starting a span, and the adapters leave the request and
 * response as they found them (no wrapped `res.end`, no `close` listener, no `route` accessor).
 * Then an SDK registered globally after the app was built is used from the next request on, and a
 * sampler that drops the span still lets the caller's trace through.
 */
import { context, propagation, type TextMapGetter, trace } from '@opentelemetry/api';
import { AlwaysOffSampler, ParentBasedSampler } from '@opentelemetry/sdk-trace';
import { FRAMEWORKS, type FrameworkApps, frameworkSenders } from '@plumbline/test-utils';
import type { Request, Response } from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import * as ex from '../src/express.js';
import * as fa from '../src/fastify.js';
import * as ho from '../src/hono.js';
import { createTelemetry } from '../src/index.js';
import { createSdk, finishedSpans, registerGlobals } from './sdk.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;

/** What a handler saw: the active span's trace id and whether it records, and what the adapter left on req/res. */
interface Seen {
  readonly traceId: string | null;
  readonly spanId: string | null;
  readonly recording: boolean | null;
  readonly touched?: readonly string[];
}

const seen = (): Seen => {
  const span = trace.getActiveSpan();
  return {
    traceId: span?.spanContext().traceId ?? null,
    spanId: span?.spanContext().spanId ?? null,
    recording: span?.isRecording() ?? null,
  };
};

const apps: FrameworkApps = {
  express: (express) => {
    const app = express();
    app.use(ex.telemetry());
    app.get('/projects/:id', (req: Request, res: Response) => {
      const touched = [
        ...(Object.hasOwn(res, 'end') ? ['res.end'] : []),
        ...(res.listenerCount('close') > 0 ? ['close listener'] : []),
        ...(Object.getOwnPropertyDescriptor(req, 'route')?.get === undefined ? [] : ['req.route accessor']),
      ];
      res.json({ ...seen(), touched });
    });
    return app;
  },
  fastify: () => {
    const app = Fastify();
    void app.register(fa.telemetry);
    app.get('/projects/:id', async () => seen());
    return app;
  },
  hono: () => {
    const app = new Hono();
    app.use(ho.telemetry());
    app.get('/projects/:id', (c) => c.json(seen()));
    return app;
  },
};
const senders = frameworkSenders(apps);

describe('with no SDK registered', () => {
  it('the core returns undefined without reading the carrier', () => {
    const reads: string[] = [];
    const getter: TextMapGetter<Record<string, string>> = {
      keys: (carrier) => {
        reads.push('keys');
        return Object.keys(carrier);
      },
      get: (carrier, key) => {
        reads.push(key);
        return carrier[key];
      },
    };
    expect(createTelemetry().start('GET', { traceparent: PARENT }, getter)).toBeUndefined();
    expect(reads).toEqual([]);
  });

  it.each(FRAMEWORKS)('%s: no span in the handler, request and response untouched', async (framework) => {
    const outcome = await senders[framework]!({ path: '/projects/1', headers: { traceparent: PARENT } });
    expect(outcome.status).toBe(200);
    expect(outcome.body).toEqual({
      traceId: null,
      spanId: null,
      recording: null,
      ...(framework.startsWith('express') ? { touched: [] } : {}),
    });
  });
});

describe('an SDK registered after the apps were built', () => {
  it.each(FRAMEWORKS)('%s: a sampler that drops the span keeps the caller trace', async (framework) => {
    registerGlobals();
    const dropped = createSdk(new ParentBasedSampler({ root: new AlwaysOffSampler() }));
    trace.setGlobalTracerProvider(dropped.tracerProvider);
    try {
      // The caller sampled the trace out (flags 00): the span does not record and is not exported.
      const outcome = await senders[framework]!({
        path: '/projects/1',
        headers: { traceparent: `00-${TRACE_ID}-00f067aa0ba902b7-00` },
      });
      expect(outcome.body).toMatchObject({ traceId: TRACE_ID, recording: false });
      expect(dropped.exporter.getFinishedSpans()).toEqual([]);
    } finally {
      trace.disable();
      propagation.disable();
      context.disable();
    }
  });

  it.each(FRAMEWORKS)('%s: the global SDK records from the next request on', async (framework) => {
    registerGlobals();
    const sdk = createSdk();
    trace.setGlobalTracerProvider(sdk.tracerProvider);
    try {
      const outcome = await senders[framework]!({ path: '/projects/1', headers: { traceparent: PARENT } });
      const spans = await finishedSpans(sdk.exporter);
      expect(outcome.body).toEqual({
        traceId: TRACE_ID,
        // The handler runs in the server span's context: its spans are the server span's children.
        spanId: spans[0]?.spanContext().spanId,
        recording: true,
        // What the check above would have seen had the adapter done its work without an SDK.
        ...(framework.startsWith('express')
          ? { touched: ['res.end', 'close listener', 'req.route accessor'] }
          : {}),
      });
      expect(spans.map((span) => [span.name, span.attributes['http.route']])).toEqual([
        ['GET /projects/:id', '/projects/:id'],
      ]);
    } finally {
      trace.disable();
      propagation.disable();
      context.disable();
    }
  });
});
