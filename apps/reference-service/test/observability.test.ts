/**
 * Observability over real HTTP: `/metrics` counts by route template (never a raw path), and the
 * logs carry the request id and trace id on every request line and never a credential.
 */
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, REDACTED, redactUrl, traceIdOf } from '../src/service/logging.js';
import { routeMatcher } from '../src/service/metrics.js';
import { captureLogs, type RunningService, startService } from './harness.js';

const SQLITE = { name: 'sqlite + memory', postgres: false, redis: false };

describe('route templates', () => {
  const match = routeMatcher([
    '/v2/projects',
    '/v2/projects/search',
    '/v2/projects/{project_id}',
    '/v2/projects/{project_id}/tasks/{task_id}',
  ]);
  it.each([
    ['/v2/projects', '/v2/projects'],
    ['/v2/projects/', '/v2/projects'],
    ['/v2/projects/search', '/v2/projects/search'],
    ['/v2/projects/8c0e4d1a-0000-4000-8000-000000000000', '/v2/projects/{project_id}'],
    ['/v2/projects/x/tasks/y', '/v2/projects/{project_id}/tasks/{task_id}'],
    ['/v2/projects/x/y', 'unmatched'],
    ['/wp-admin.php', 'unmatched'],
    ['/v2/projects/a/b/c/d/e', 'unmatched'],
  ])('%s → %s', (path, template) => {
    expect(match(path)).toBe(template);
  });
});

describe('redaction helpers', () => {
  it.each([
    ['/v2/projects?limit=2', '/v2/projects?limit=2'],
    ['/v2/projects?api_key=plk_abc&limit=2', `/v2/projects?api_key=${REDACTED}&limit=2`],
    ['/x?access_token=eyJ.a.b', `/x?access_token=${REDACTED}`],
    ['/x?ACCESS_TOKEN=eyJ', `/x?ACCESS_TOKEN=${REDACTED}`],
    ['/x?acc%65ss_token=eyJ', `/x?acc%65ss_token=${REDACTED}`],
    [
      '/x?client_secret=s&password=p&token=t',
      `/x?client_secret=${REDACTED}&password=${REDACTED}&token=${REDACTED}`,
    ],
    ['https://user:pass@example.com/a?b=c', `https://${REDACTED}@example.com/a?b=c`],
  ])('redactUrl(%s)', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });

  it.each([
    ['00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', '4bf92f3577b34da6a3ce929d0e0e4736'],
    [' 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00 ', '4bf92f3577b34da6a3ce929d0e0e4736'],
    ['01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra', '4bf92f3577b34da6a3ce929d0e0e4736'],
    ['00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra', undefined],
    ['ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', undefined],
    ['00-00000000000000000000000000000000-00f067aa0ba902b7-01', undefined],
    ['00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01', undefined],
    ['00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01', undefined],
    ['00-4bf92f35-00f067aa0ba902b7-01', undefined],
    ['"><script>', undefined],
  ])('traceIdOf(%s) → %s', (header, expected) => {
    expect(traceIdOf(header)).toBe(expected);
  });
});

describe('logs', () => {
  let svc: RunningService;
  const { logger, lines } = captureLogs();
  beforeAll(async () => {
    svc = await startService(SQLITE, {}, { logger });
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('carry request id and trace id, and never a credential', async () => {
    const token = await svc.token('read:projects');
    const { readWrite, readOnly } = svc.credentials.apiKeys;
    const secret = svc.credentials.clients.readWrite.clientSecret;
    const trace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const calls: [string, RequestInit, number][] = [
      [
        '/v2/projects?limit=1',
        { headers: { 'x-api-key': readWrite, traceparent: `00-${trace}-00f067aa0ba902b7-01` } },
        200,
      ],
      [
        '/v2/projects?limit=1',
        { headers: { authorization: `Bearer ${token}`, cookie: `session=${secret}` } },
        200,
      ],
      [`/v2/projects?access_token=${token}&api_key=${readOnly}`, {}, 400],
      [`/v2/projects?limit=1`, { headers: { 'x-api-key': `${readOnly}x` } }, 401],
      ['/v2/projects', { headers: { referer: `https://demo:${secret}@example.com/?token=${token}` } }, 401],
      [
        '/oauth/token',
        {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'client_credentials',
            client_id: 'demo-read-write',
            client_secret: secret,
          }),
        },
        200,
      ],
    ];
    const ids: string[] = [];
    for (const [path, init, status] of calls) {
      const res = await fetch(`${svc.url}${path}`, init);
      expect(res.status, path).toBe(status);
      await res.arrayBuffer();
      ids.push(res.headers.get('x-request-id') ?? '');
    }
    // The access line is written when the response finishes; give the last one a moment.
    for (let i = 0; i < 50 && lines.length < calls.length + 1; i++)
      await new Promise((r) => setTimeout(r, 20));
    const log = lines.join('\n');
    for (const credential of [readWrite, readOnly, token, secret, `${readOnly}x`]) {
      expect(log).not.toContain(credential);
      expect(log).not.toContain(credential.slice(0, 24));
    }
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    // The first line is the token request made above.
    const requestLines = entries.filter((e) => e['req'] !== undefined).slice(1);
    expect(requestLines.length).toBe(calls.length);
    expect(requestLines.map((e) => e['request_id'])).toEqual(ids);
    expect(requestLines[0]?.['trace_id']).toBe(trace);
    expect(requestLines[1]?.['trace_id']).toBeUndefined();
    const headers =
      (requestLines[1]?.['req'] as { headers: Record<string, string> } | undefined)?.headers ?? {};
    expect(headers['authorization']).toBe(REDACTED);
    expect(headers['cookie']).toBe(REDACTED);
    expect((requestLines[2]?.['req'] as { url?: string } | undefined)?.url).toBe(
      `/v2/projects?access_token=${REDACTED}&api_key=${REDACTED}`,
    );
  });

  it('redacts token and secret fields in any logged object', () => {
    const captured: string[] = [];
    const logger = createLogger({
      level: 'info',
      destination: new Writable({
        write(chunk, _e, done) {
          captured.push(String(chunk));
          done();
        },
      }),
    });
    logger.info(
      {
        token: 't1',
        body: { client_secret: 's1', refresh_token: 'r1', nested: { password: 'p1' } },
        ok: 'kept',
      },
      'x',
    );
    const entry = JSON.parse(captured[0]!);
    expect(entry).toMatchObject({
      token: REDACTED,
      body: { client_secret: REDACTED, refresh_token: REDACTED, nested: { password: REDACTED } },
      ok: 'kept',
    });
  });
});

describe('GET /metrics', () => {
  let svc: RunningService;
  let limited: RunningService;
  beforeAll(async () => {
    svc = await startService(SQLITE);
    limited = await startService(SQLITE, { RATE_LIMIT_PER_MINUTE: '2' });
  });
  afterAll(async () => {
    await svc?.stop();
    await limited?.stop();
  });

  const scrape = async (service: RunningService) => {
    const res = await fetch(`${service.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    return res.text();
  };

  it('counts by route template, method and status; ids and query strings never become labels', async () => {
    const key = { 'x-api-key': svc.credentials.apiKeys.readWrite };
    const id = randomUUID();
    await fetch(`${svc.url}/v2/projects/${id}`, { headers: key });
    await fetch(`${svc.url}/v2/projects?limit=1&name=${id}`, { headers: key });
    await fetch(`${svc.url}/no/such/${id}`);
    await fetch(`${svc.url}/v2/projects`);
    const text = await scrape(svc);
    expect(text).toContain(
      'http_requests_total{method="GET",route="/v2/projects/{project_id}",status="404"} 1',
    );
    expect(text).toContain('http_requests_total{method="GET",route="/v2/projects",status="200"} 1');
    expect(text).toContain('http_requests_total{method="GET",route="unmatched",status="404"} 1');
    expect(text).toContain(
      'http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/v2/projects",status="200"} 1',
    );
    expect(text).toContain('plumbline_auth_failures_total{reason="unauthorized"} 1');
    expect(text).not.toContain(id);
    expect(text).not.toContain('limit=1');
    for (const family of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
    ]) {
      expect(text).toContain(`# TYPE ${family}`);
    }
  });

  it('counts problem documents by error_code and requests by the API version served (deprecated or not)', async () => {
    const fresh = await startService(SQLITE);
    try {
      const key = { 'x-api-key': fresh.credentials.apiKeys.readWrite };
      expect((await fetch(`${fresh.url}/v2/projects?sort=nope`, { headers: key })).status).toBe(400);
      expect((await fetch(`${fresh.url}/v2/projects?limit=1`, { headers: key })).status).toBe(200);
      expect((await fetch(`${fresh.url}/v1/projects?limit=1`, { headers: key })).status).toBe(200);
      expect((await fetch(`${fresh.url}/nowhere`)).status).toBe(404);
      expect((await fetch(`${fresh.url}/health`)).status).toBe(200);
      const text = await scrape(fresh);
      const series = (family: string) =>
        text
          .split('\n')
          .filter((line) => line.startsWith(`${family}{`))
          .sort();
      expect(series('plumbline_problems_total')).toEqual([
        'plumbline_problems_total{method="GET",route="/v2/projects",error_code="sort_field_not_allowed"} 1',
        'plumbline_problems_total{method="GET",route="unmatched",error_code="not_found"} 1',
      ]);
      // The version-neutral /health, the unrouted 404 and the scrape itself are in no version.
      expect(series('plumbline_api_version_requests_total')).toEqual([
        'plumbline_api_version_requests_total{version="1",deprecated="true"} 1',
        'plumbline_api_version_requests_total{version="2",deprecated="false"} 2',
      ]);
    } finally {
      await fresh.stop();
    }
  });

  it('counts idempotency outcomes: new, replayed, mismatch', async () => {
    const headers = {
      'x-api-key': svc.credentials.apiKeys.readWrite,
      'content-type': 'application/json',
      'idempotency-key': randomUUID(),
    };
    const post = (name: string) =>
      fetch(`${svc.url}/v2/projects`, { method: 'POST', headers, body: JSON.stringify({ name }) });
    expect((await post('Metrics one')).status).toBe(201);
    expect((await post('Metrics one')).status).toBe(201);
    expect((await post('Metrics two')).status).toBe(422);
    const text = await scrape(svc);
    expect(text).toContain('plumbline_idempotency_outcomes_total{outcome="new"} 1');
    expect(text).toContain('plumbline_idempotency_outcomes_total{outcome="replayed"} 1');
    expect(text).toContain('plumbline_idempotency_outcomes_total{outcome="mismatch"} 1');
    expect(text).toContain('plumbline_idempotency_outcomes_total{outcome="in_flight"} 0');
  });

  it('counts database errors, not a taken name (409)', async () => {
    const create = () =>
      fetch(`${svc.url}/v2/projects`, {
        method: 'POST',
        headers: {
          'x-api-key': svc.credentials.apiKeys.readWrite,
          'content-type': 'application/json',
          'idempotency-key': randomUUID(),
        },
        body: JSON.stringify({ name: 'Metrics duplicate' }),
      });
    expect([(await create()).status, (await create()).status]).toEqual([201, 409]);
    await expect(svc.ctx.db.all('SELECT * FROM no_such_table')).rejects.toThrow();
    const text = await scrape(svc);
    expect(text).toContain('plumbline_backend_errors_total{backend="database"} 1');
    expect(text).toContain('plumbline_backend_errors_total{backend="redis"} 0');
  });

  it('counts rate-limit rejections', async () => {
    const headers = { 'x-api-key': limited.credentials.apiKeys.readWrite };
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await fetch(`${limited.url}/v2/projects?limit=1`, { headers })).status);
    expect(statuses).toEqual([200, 200, 429]);
    const text = await scrape(limited);
    expect(text).toContain('plumbline_rate_limit_rejections_total 1');
    expect(text).toContain('http_requests_total{method="GET",route="/v2/projects",status="429"} 1');
  });
});
