/**
 * TRUST_PROXY: which values it takes and what a wrong one says; then, on the framework of this test
 * project (vitest.config.ts runs this suite once per framework), that the per-address rate limit of
 * anonymous requests keys on the client the trusted proxies name, counted from the right of
 * X-Forwarded-For, so a client that writes a new left-most entry on every request still gets 429,
 * and that X-Forwarded-Proto counts only from a trusted peer.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, helpText, loadConfig } from '../src/service/config.js';
import { captureLogs, type RunningService, startService } from './harness.js';

const TRUE_REFUSED =
  'TRUST_PROXY=true is not accepted: it would believe whatever a client writes at the left of X-Forwarded-For. ' +
  'Write how many proxies are in front (TRUST_PROXY=1 for one load balancer) or their addresses (TRUST_PROXY=10.0.0.0/8 or TRUST_PROXY=loopback)';
const FORMS =
  'TRUST_PROXY must be false, a number of proxies (0-32), or proxy addresses and CIDR ranges separated by commas (10.0.0.0/8,::1/128; names: loopback, linklocal, uniquelocal)';

describe('TRUST_PROXY configuration', () => {
  it.each([
    [{}, { hops: 0 }],
    [{ TRUST_PROXY: '' }, { hops: 0 }],
    [{ TRUST_PROXY: 'false' }, { hops: 0 }],
    [{ TRUST_PROXY: '0' }, { hops: 0 }],
    [{ TRUST_PROXY: '1' }, { hops: 1 }],
    [{ TRUST_PROXY: ' 2 ' }, { hops: 2 }],
    [{ TRUST_PROXY: '32' }, { hops: 32 }],
    [{ TRUST_PROXY: 'loopback' }, { proxies: ['loopback'] }],
    [
      { TRUST_PROXY: '10.0.0.0/8,192.168.1.5,::1/128,loopback' },
      { proxies: ['10.0.0.0/8', '192.168.1.5', '::1/128', 'loopback'] },
    ],
    [
      { TRUST_PROXY: ' 10.0.0.0/8 , fd00::/8 ,uniquelocal,linklocal' },
      { proxies: ['10.0.0.0/8', 'fd00::/8', 'uniquelocal', 'linklocal'] },
    ],
  ])('%j → %j', (env, trust) => {
    expect(loadConfig(env).trustProxy).toEqual(trust);
  });

  it.each(['true', 'TRUE', 'True'])('%s is refused, saying what to write instead', (value) => {
    expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(new ConfigError(TRUE_REFUSED));
  });

  it.each([
    ['-1', `${FORMS}, got "-1"`],
    ['abc', `${FORMS}, got "abc"`],
    ['10.0.0.0/33', `${FORMS}, got "10.0.0.0/33"`],
    ['yes', `${FORMS}, got "yes"`],
    ['1.5', `${FORMS}, got "1.5"`],
    ['10.0.0.0/8,', `${FORMS}, got "10.0.0.0/8," ("" is none of those)`],
    [
      '10.0.0.0/8,192.168.1.300',
      `${FORMS}, got "10.0.0.0/8,192.168.1.300" ("192.168.1.300" is none of those)`,
    ],
    ['loopback,LAN', `${FORMS}, got "loopback,LAN" ("LAN" is none of those)`],
    ['33', 'TRUST_PROXY as a number of proxies must be from 0 to 32, got "33"'],
  ])('%j is refused: %s', (value, message) => {
    expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(new ConfigError(message));
  });

  it('--help describes the forms', () => {
    expect(helpText()).toMatch(
      /TRUST_PROXY +the proxies in front, .*false \(none; .*\| their number \(1: .*\| their addresses and CIDR ranges, comma-separated \(10\.0\.0\.0\/8,::1\/128; also loopback, linklocal, uniquelocal\).*\(default: false\)/,
    );
  });
});

const sqlite = { name: 'sqlite', postgres: false, redis: false };

/** Statuses of anonymous `GET /v2/projects` (401, counted per address before authentication), one per header set. */
async function statuses(
  svc: RunningService,
  headerSets: readonly Record<string, string>[],
): Promise<number[]> {
  const result: number[] = [];
  for (const headers of headerSets) {
    const res = await fetch(`${svc.url}/v2/projects`, { headers });
    await res.arrayBuffer();
    result.push(res.status);
  }
  return result;
}

const SIX = [1, 2, 3, 4, 5, 6];
/** Five requests pass (401), the sixth is over RATE_LIMIT_PER_MINUTE=5 (429). */
const SIXTH_LIMITED = [401, 401, 401, 401, 401, 429];
const NONE_LIMITED = [401, 401, 401, 401, 401, 401];

describe('TRUST_PROXY=1: the client is the last X-Forwarded-For entry', () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService(sqlite, { TRUST_PROXY: '1', RATE_LIMIT_PER_MINUTE: '5' });
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('a new first entry on every request does not escape the limit: the 6th is 429', async () => {
    const rotatingFirst = SIX.map((n) => ({ 'X-Forwarded-For': `203.0.113.${n}, 198.51.100.7` }));
    expect(await statuses(svc, rotatingFirst)).toEqual(SIXTH_LIMITED);
  });

  it('the last entry is read: a different one is a different client', async () => {
    const rotatingLast = SIX.map((n) => ({ 'X-Forwarded-For': `203.0.113.1, 198.51.100.${100 + n}` }));
    expect(await statuses(svc, rotatingLast)).toEqual(NONE_LIMITED);
  });

  it('several X-Forwarded-For lines are one list in their order', async () => {
    const lines = (first: string, last: string) =>
      new Promise<number>((resolve, reject) => {
        // fetch joins repeated headers into one line; node:http sends each array element as a line.
        request(`${svc.url}/v2/projects`, { headers: { 'X-Forwarded-For': [first, last] } }, (res) => {
          res.resume();
          res.once('end', () => resolve(res.statusCode ?? 0));
        })
          .once('error', reject)
          .end();
      });
    const sameLastLine: number[] = [];
    for (const n of SIX) sameLastLine.push(await lines(`203.0.113.${n}`, '198.51.100.8'));
    expect(sameLastLine).toEqual(SIXTH_LIMITED);
    const newLastLine: number[] = [];
    for (const n of SIX) newLastLine.push(await lines('198.51.100.8', `203.0.113.${50 + n}`));
    expect(newLastLine).toEqual(NONE_LIMITED);
  });
});

describe('TRUST_PROXY as a list: from the right while the hop is a listed proxy', () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService(sqlite, { TRUST_PROXY: 'loopback,10.0.0.0/8', RATE_LIMIT_PER_MINUTE: '5' });
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('past the socket peer (127.0.0.1) and a listed proxy (10.0.0.1) to the client', async () => {
    const rotatingFirst = SIX.map((n) => ({ 'X-Forwarded-For': `203.0.113.${n}, 198.51.100.9, 10.0.0.1` }));
    expect(await statuses(svc, rotatingFirst)).toEqual(SIXTH_LIMITED);
    const rotatingClient = SIX.map((n) => ({
      'X-Forwarded-For': `203.0.113.1, 198.51.100.${20 + n}, 10.0.0.1`,
    }));
    expect(await statuses(svc, rotatingClient)).toEqual(NONE_LIMITED);
  });
});

describe('TRUST_PROXY unset: X-Forwarded-For is not read', () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService(sqlite, { RATE_LIMIT_PER_MINUTE: '5' });
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('every entry rotating, the client is still the socket peer: the 6th is 429', async () => {
    const rotating = SIX.map((n) => ({ 'X-Forwarded-For': `203.0.113.${n}, 198.51.100.${n}` }));
    expect(await statuses(svc, rotating)).toEqual(SIXTH_LIMITED);
  });
});

describe('X-Forwarded-Proto counts from a trusted peer only (NODE_ENV=production)', () => {
  let trusted: RunningService;
  let untrusted: RunningService;
  beforeAll(async () => {
    trusted = await startService(sqlite, { NODE_ENV: 'production', TRUST_PROXY: 'loopback' });
    // The socket peer, 127.0.0.1, is not in the list.
    untrusted = await startService(sqlite, { NODE_ENV: 'production', TRUST_PROXY: '10.0.0.0/8' });
  });
  afterAll(async () => {
    await trusted?.stop();
    await untrusted?.stop();
  });

  it.each([
    { peer: 'a listed proxy', listed: true, proto: 'https', status: 200 },
    { peer: 'a listed proxy', listed: true, proto: 'http', status: 403 },
    { peer: 'not a listed proxy', listed: false, proto: 'https', status: 403 },
  ])('the peer is $peer, X-Forwarded-Proto: $proto → $status', async ({ listed, proto, status }) => {
    const svc = listed ? trusted : untrusted;
    const res = await fetch(`${svc.url}/health`, { headers: { 'X-Forwarded-Proto': proto } });
    await res.arrayBuffer();
    expect(res.status).toBe(status);
  });
});

describe('the access log names the client the rate limits see', () => {
  const { logger, lines } = captureLogs();
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService(sqlite, { TRUST_PROXY: '1' }, { logger });
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it.each([
    ['203.0.113.9, 198.51.100.7', '198.51.100.7'],
    [undefined, '127.0.0.1'],
  ])('X-Forwarded-For %s → client_address %s, remoteAddress the socket peer', async (forwarded, client) => {
    const id = `log-${client}`;
    await fetch(`${svc.url}/health`, {
      headers: { 'x-request-id': id, ...(forwarded ? { 'x-forwarded-for': forwarded } : {}) },
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const line = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l['request_id'] === id);
    expect(line?.['client_address']).toBe(client);
    expect(String((line?.['req'] as { remoteAddress?: string })?.remoteAddress)).toMatch(/127\.0\.0\.1$/);
  });
});
