import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { startFreezableRedis } from './dependencies.js';
import { request, sleep, startInstance, token } from './harness.js';
import { startOtlpReceiver } from './otlp-receiver.js';

it('explore', async () => {
  const receiver = await startOtlpReceiver();
  const redis = await startFreezableRedis();
  const { instance, credentials } = await startInstance(
    {
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: `st_otel_${randomUUID()}:`,
      RATE_LIMIT_PER_MINUTE: '8',
      REDIS_COMMAND_TIMEOUT_MS: '500',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_METRIC_EXPORT_INTERVAL: '500',
      LOG_LEVEL: 'info',
    },
    { expectCredentials: true },
  );
  const c = credentials!;
  const url = instance.url;
  const h = { 'x-api-key': c.apiKey };
  const out: unknown[] = [];
  out.push(
    (
      await request(`${url}/v2/projects?limit=1`, {
        headers: { ...h, traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
      })
    ).status,
  );
  out.push((await request(`${url}/v2/projects?sort=nope`, { headers: h })).status);
  const post = () =>
    request(`${url}/v2/projects`, {
      method: 'POST',
      headers: { ...h, 'content-type': 'application/json', 'idempotency-key': 'k-otel-1' },
      body: JSON.stringify({ name: 'Otel' }),
    });
  out.push((await post()).status, (await post()).status);
  out.push((await request(`${url}/v1/projects?limit=1`, { headers: h })).status);
  for (let i = 0; i < 9; i++)
    out.push(
      (await request(`${url}/v2/projects?limit=1`, { headers: { 'x-api-key': c.readOnlyApiKey } })).status,
    );
  const jwt = (await token(url, c, 'read:projects')).access_token;
  redis.freeze();
  out.push(
    (await request(`${url}/v2/projects?limit=1`, { headers: { authorization: `Bearer ${jwt}` } })).status,
  );
  redis.thaw();
  await sleep(1500);
  await instance.stop();
  await redis.destroy();
  await receiver.close();
  const { writeFileSync } = await import('node:fs');
  writeFileSync(
    '/tmp/otelx/out.json',
    JSON.stringify(
      {
        out,
        spans: receiver.spans,
        points: receiver.points.filter((p) => !p.metric.startsWith('otel.')),
        requests: receiver.requests.slice(0, 3),
        log: instance.output(),
      },
      null,
      1,
    ),
  );
  expect(1).toBe(1);
}, 60_000);
