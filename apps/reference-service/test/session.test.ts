/**
 * SESSION_KEYS: which values it takes and what a wrong one says; then, on the framework of this test
 * project (vitest.config.ts runs this suite once per framework), the versioned API taking the sealed
 * session cookie of a same-site browser app: reads with the cookie alone, writes only with the CSRF
 * proofs (fetch metadata and the custom header), a tampered or revoked cookie 401, scopes enforced.
 */
import { randomUUID } from 'node:crypto';
import { createSessionSealer } from '@plumbline/auth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, helpText, loadConfig } from '../src/service/config.js';
import { type RunningService, startService } from './harness.js';

const sqlite = { name: 'sqlite', postgres: false, redis: false };
const KEY = Buffer.alloc(32, 7).toString('base64url');
const OLD = Buffer.alloc(32, 9).toString('base64url');
const SESSION_KEYS = `k2:${KEY},k1:${OLD}`;

describe('SESSION_KEYS configuration', () => {
  it.each([
    [{}, undefined],
    [{ SESSION_KEYS: '' }, undefined],
    [{ SESSION_KEYS: `k2:${KEY}` }, [{ kid: 'k2', key: new Uint8Array(Buffer.alloc(32, 7)) }]],
    [
      { SESSION_KEYS: ` k2:${KEY} , k1:${OLD}` },
      [
        { kid: 'k2', key: new Uint8Array(Buffer.alloc(32, 7)) },
        { kid: 'k1', key: new Uint8Array(Buffer.alloc(32, 9)) },
      ],
    ],
  ])('%j -> %j', (env, keys) => {
    expect(loadConfig(env).sessionKeys).toEqual(keys);
  });

  it.each([
    [KEY, /^SESSION_KEYS entry 1 must be kid:key/],
    [`:${KEY}`, /^SESSION_KEYS entry 1 must be kid:key/],
    [`k2:${KEY},`, /^SESSION_KEYS entry 2 must be kid:key/],
    [`k 2:${KEY}`, /^SESSION_KEYS entry 1: the key id may hold only/],
    [`k2:${KEY},k2:${OLD}`, /^SESSION_KEYS names the key id "k2" twice/],
    [`k2:${Buffer.alloc(32, 7).toString('base64')}=`, /^SESSION_KEYS key "k2" is not unpadded base64url/],
    [`k2:${Buffer.alloc(16, 7).toString('base64url')}`, /^SESSION_KEYS key "k2" must be 32 bytes, got 16/],
    [`k2:${Buffer.alloc(33, 7).toString('base64url')}`, /^SESSION_KEYS key "k2" must be 32 bytes, got 33/],
  ])('SESSION_KEYS=%j is refused: %s', (value, message) => {
    expect(() => loadConfig({ SESSION_KEYS: value })).toThrow(ConfigError);
    expect(() => loadConfig({ SESSION_KEYS: value })).toThrow(message);
  });

  it('--help describes it', () => {
    expect(helpText()).toMatch(
      /SESSION_KEYS +keys that seal the same-site session cookie .*\(default: \(unset: no session cookie\)\)/,
    );
  });
});

const PAGE = { 'Sec-Fetch-Site': 'same-origin', 'X-Requested-With': 'fetch' };

function create(svc: RunningService, headers: Record<string, string>): Promise<Response> {
  return fetch(`${svc.url}/v2/projects`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID(), ...headers },
    body: JSON.stringify({ name: 'From the browser' }),
  });
}

async function problem(res: Response): Promise<[number, unknown]> {
  const body = (await res.json()) as { error_code?: string };
  return [res.status, body.error_code];
}

describe('the session cookie on the versioned API (SESSION_KEYS set)', () => {
  let svc: RunningService;
  /** Seals with the service's second key, as a cookie sealed before a rotation. */
  const sealer = createSessionSealer({ keys: [{ kid: 'k1', key: new Uint8Array(Buffer.alloc(32, 9)) }] });
  const seal = async (scopes: string[]) =>
    `__Host-session=${(await sealer.seal({ subject: 'user-1', clientId: 'web', scopes })).value}`;

  beforeAll(async () => {
    svc = await startService(sqlite, { SESSION_KEYS });
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('a read with only the cookie: 200', async () => {
    const res = await fetch(`${svc.url}/v2/projects`, { headers: { Cookie: await seal(['read:projects']) } });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  });

  it('a write with the cookie and without the custom header: 403 csrf_rejected', async () => {
    const cookie = await seal(['read:projects', 'write:projects']);
    expect(await problem(await create(svc, { Cookie: cookie, 'Sec-Fetch-Site': 'same-origin' }))).toEqual([
      403,
      'csrf_rejected',
    ]);
    expect(await problem(await create(svc, { Cookie: cookie, 'X-Requested-With': 'fetch' }))).toEqual([
      403,
      'csrf_rejected',
    ]);
    // Counted with the other refused credentials.
    expect(await (await fetch(`${svc.url}/metrics`)).text()).toContain(
      'plumbline_auth_failures_total{reason="csrf_rejected"} 2',
    );
  });

  it('a write with the cookie, Sec-Fetch-Site: same-origin and the custom header: 201', async () => {
    const res = await create(svc, { Cookie: await seal(['read:projects', 'write:projects']), ...PAGE });
    expect(res.status).toBe(201);
    await res.arrayBuffer();
  });

  it('a read-only session writing: 403 insufficient_scope', async () => {
    expect(await problem(await create(svc, { Cookie: await seal(['read:projects']), ...PAGE }))).toEqual([
      403,
      'insufficient_scope',
    ]);
  });

  it('a tampered cookie: 401', async () => {
    const cookie = await seal(['read:projects']);
    const flipped = cookie.slice(0, -3) + (cookie.at(-3) === 'A' ? 'B' : 'A') + cookie.slice(-2);
    const res = await fetch(`${svc.url}/v2/projects`, { headers: { Cookie: flipped } });
    expect(await problem(res)).toEqual([401, 'unauthorized']);
  });
});

/** The `name=value` pair a browser sends back for a `Set-Cookie` value. */
function sent(setCookie: string | null): string {
  return (setCookie ?? '').split(';')[0] ?? '';
}

describe('POST /session and DELETE /session (SESSION_KEYS set)', () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService(sqlite, { SESSION_KEYS });
  });
  afterAll(async () => {
    await svc?.stop();
  });

  const login = (token: string) =>
    fetch(`${svc.url}/session`, { method: 'POST', headers: { Authorization: `Bearer ${token}` } });
  const logout = (cookie: string, headers: Record<string, string> = PAGE) =>
    fetch(`${svc.url}/session`, { method: 'DELETE', headers: { Cookie: cookie, ...headers } });
  const list = (cookie: string) => fetch(`${svc.url}/v2/projects`, { headers: { Cookie: cookie } });

  it('login: 204 with the sealed __Host-session cookie, ending no later than the token', async () => {
    const res = await login(await svc.token('read:projects write:projects'));
    expect(res.status).toBe(204);
    const setCookie = res.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^__Host-session=[\w-]+\.\.[\w-]+\.[\w-]+\.[\w-]+; /);
    expect(setCookie).toMatch(/; HttpOnly/);
    expect(setCookie).toMatch(/; Secure/);
    expect(setCookie).toMatch(/; SameSite=Lax/);
    const maxAge = Number(/Max-Age=(\d+)/.exec(setCookie)?.[1]);
    expect(maxAge).toBeGreaterThan(800);
    expect(maxAge).toBeLessThanOrEqual(900);
    const claims = await svc.ctx.session!.sealer.open(sent(setCookie).slice('__Host-session='.length));
    expect([claims.sub, claims.client_id, claims.scope]).toEqual([
      svc.credentials.clients.readWrite.clientId,
      svc.credentials.clients.readWrite.clientId,
      'read:projects write:projects',
    ]);
  });

  it('login, then the API with only the cookie: reads 200; writes need the CSRF proofs', async () => {
    const cookie = sent(
      (await login(await svc.token('read:projects write:projects'))).headers.get('set-cookie'),
    );
    const read = await list(cookie);
    expect(read.status).toBe(200);
    await read.arrayBuffer();
    expect(await problem(await create(svc, { Cookie: cookie }))).toEqual([403, 'csrf_rejected']);
    const created = await create(svc, { Cookie: cookie, ...PAGE });
    expect(created.status).toBe(201);
    await created.arrayBuffer();
  });

  it('a read-only token’s session: reads 200, writes 403 insufficient_scope', async () => {
    const cookie = sent(
      (await login(await svc.token('read:projects', 'readOnly'))).headers.get('set-cookie'),
    );
    const read = await list(cookie);
    expect(read.status).toBe(200);
    await read.arrayBuffer();
    expect(await problem(await create(svc, { Cookie: cookie, ...PAGE }))).toEqual([
      403,
      'insufficient_scope',
    ]);
  });

  it('login without a bearer token, or with an API key: 401', async () => {
    expect(await problem(await fetch(`${svc.url}/session`, { method: 'POST' }))).toEqual([
      401,
      'unauthorized',
    ]);
    const withKey = await fetch(`${svc.url}/session`, {
      method: 'POST',
      headers: { 'X-API-Key': svc.credentials.apiKeys.readWrite },
    });
    expect(withKey.status).toBe(401);
    await withKey.arrayBuffer();
  });

  it('logout: 204 with the clearing cookie; the same cookie replayed is 401', async () => {
    const cookie = sent((await login(await svc.token('read:projects'))).headers.get('set-cookie'));
    const out = await logout(cookie);
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^__Host-session=; .*Max-Age=0/);
    expect(await problem(await list(cookie))).toEqual([401, 'unauthorized']);
    expect(await problem(await logout(cookie))).toEqual([401, 'unauthorized']);
  });

  it('/openapi.json declares both operations, the cookie scheme, and the cookie on the API', async () => {
    const res = await fetch(`${svc.url}/openapi.json`);
    const doc = (await res.json()) as {
      paths: Record<string, Record<string, { security?: unknown[] }>>;
      components: { securitySchemes: Record<string, unknown> };
    };
    expect(Object.keys(doc.paths['/session'] ?? {})).toEqual(['post', 'delete']);
    expect(doc.components.securitySchemes['session']).toMatchObject({
      type: 'apiKey',
      in: 'cookie',
      name: '__Host-session',
    });
    expect(doc.paths['/v2/projects']?.['post']?.security).toContainEqual({ session: ['write:projects'] });
  });

  it('logout from another site (no CSRF proofs): 403 csrf_rejected, the session still works', async () => {
    const cookie = sent((await login(await svc.token('read:projects'))).headers.get('set-cookie'));
    expect(await problem(await logout(cookie, { 'Sec-Fetch-Site': 'cross-site' }))).toEqual([
      403,
      'csrf_rejected',
    ]);
    const read = await list(cookie);
    expect(read.status).toBe(200);
    await read.arrayBuffer();
  });
});

describe('SESSION_KEYS unset', () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService(sqlite);
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('POST /session: 404 (the service has no such path)', async () => {
    const res = await fetch(`${svc.url}/session`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${await svc.token('read:projects')}` },
    });
    expect(await problem(res)).toEqual([404, 'not_found']);
  });

  it('/openapi.json has no /session and no cookie scheme', async () => {
    const res = await fetch(`${svc.url}/openapi.json`);
    const doc = (await res.json()) as { paths: object; components: { securitySchemes: object } };
    expect(Object.keys(doc.paths)).not.toContain('/session');
    expect(Object.keys(doc.components.securitySchemes)).not.toContain('session');
  });

  it('the API takes no cookie: a request with only a session cookie is 401', async () => {
    const sealer = createSessionSealer({ keys: [{ kid: 'k2', key: new Uint8Array(Buffer.alloc(32, 7)) }] });
    const { value } = await sealer.seal({ subject: 'user-1', clientId: 'web', scopes: ['read:projects'] });
    const res = await fetch(`${svc.url}/v2/projects`, { headers: { Cookie: `__Host-session=${value}` } });
    expect(await problem(res)).toEqual([401, 'unauthorized']);
  });
});
