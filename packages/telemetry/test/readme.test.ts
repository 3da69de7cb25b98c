/**
 * The README's three framework examples run as written (only the port is made ephemeral) with the
 * real SDK registered globally, and each answers `GET /projects/42` with the span the README shows.
 */
import { readFileSync } from 'node:fs';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { readmeFrameworkExamples, send } from '@plumbline/test-utils';
import { beforeEach, describe, expect, it } from 'vitest';
import { createSdk, finishedSpans, registerGlobals } from './sdk.js';

registerGlobals();
const sdk = createSdk();
trace.setGlobalTracerProvider(sdk.tracerProvider);

const here = new URL('.', import.meta.url);
const readme = new URL('../README.md', import.meta.url);

// The span the README shows: its first line (name, kind, status), then one attribute a line.
const text = readFileSync(readme, 'utf8');
const shownBlock = /```text\n(GET \/projects\/:id[^`]*)```/.exec(text)![1]!.trim().split('\n');
const [name, kind, status] = shownBlock[0]!.split(/\s{2,}/);
const shownAttributes = Object.fromEntries(
  shownBlock.slice(1).map((line) => {
    const [key, value] = line.trim().split(/\s+/, 2) as [string, string];
    return [key, /^\d+$/.test(value) ? Number(value) : value];
  }),
);

describe.each(readmeFrameworkExamples(here, readme, 'telemetry', { express: true }))(
  'README %s example',
  (_name, start) => {
    const port = start();
    beforeEach(() => sdk.exporter.reset());

    it('answers GET /projects/42 with the span the README shows', async () => {
      expect([name, kind, status]).toEqual(['GET /projects/:id', 'kind=SERVER', 'status=UNSET']);
      const answer = await send(await port, {
        path: '/projects/42',
        headers: { Host: 'api.example.com', 'User-Agent': 'curl/8.5.0', 'X-Request-Id': '5b0d8f4e' },
      });
      expect([answer.status, answer.body]).toEqual([200, { id: 42, name: 'Apollo' }]);
      const spans = await finishedSpans(sdk.exporter);
      expect(spans.map((span) => [span.name, span.kind, span.status.code, { ...span.attributes }])).toEqual([
        ['GET /projects/:id', SpanKind.SERVER, SpanStatusCode.UNSET, shownAttributes],
      ]);
    });
  },
);
