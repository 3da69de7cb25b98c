import { randomBytes } from 'node:crypto';
import type { HttpError } from '@plumbline/errors';
import { describe, expect, it } from 'vitest';
import {
  type AuthenticateCookieOptions,
  assertScopes,
  createAuthenticator,
  createSessionSealer,
  MemoryRevocationStore,
  type RevocationStore,
} from './index.js';

const sealer = createSessionSealer({ keys: [{ kid: 'k1', key: randomBytes(32) }] });
const revocation = new MemoryRevocationStore();
const sealed = await sealer.seal({ subject: 'user-1', clientId: 'web', scopes: ['read:a', 'write:a'] });
const cookieLine = (value = sealed.value, name = '__Host-session') => ['Cookie', `${name}=${value}`];

async function outcome(cookie: Partial<AuthenticateCookieOptions>, rawHeaders: string[], method?: string) {
  const authenticator = createAuthenticator({ cookie: { sealer, revocation, ...cookie } });
  try {
    const principal = await authenticator.authenticate({ rawHeaders, ...(method ? { method } : {}) });
    return { status: 200, principal };
  } catch (error) {
    const e = error as HttpError;
    return { status: e.status, code: e.code, params: e.params, headers: e.headers };
  }
}

describe('authenticate({ cookie })', () => {
  it('gives a session principal with the sealed scopes and claims', async () => {
    const { principal } = await outcome({}, cookieLine(), 'GET');
    expect(principal).toMatchObject({
      type: 'session',
      clientId: 'web',
      subject: 'user-1',
      scopes: ['read:a', 'write:a'],
    });
    expect(principal?.claims).toMatchObject({ jti: sealed.claims.jti, exp: sealed.claims.exp });
    expect(Object.isFrozen(principal)).toBe(true);
  });

  it('keeps the rejection reason in params for logs, the challenge bare', async () => {
    const result = await outcome({}, cookieLine(`${sealed.value.slice(0, -2)}AA`), 'GET');
    expect(result).toMatchObject({
      status: 401,
      code: 'unauthorized',
      params: { reason: 'decryption_failed' },
      headers: { 'WWW-Authenticate': 'Bearer realm="plumbline"' },
    });
  });

  it('reads a custom (prefixed) name and ignores the default one then', async () => {
    expect(
      (await outcome({ name: '__Secure-sid' }, cookieLine(sealed.value, '__Secure-sid'), 'GET')).status,
    ).toBe(200);
    expect((await outcome({ name: '__Secure-sid' }, cookieLine(), 'GET')).status).toBe(401);
  });

  it('reads the cookie from any of several Cookie lines (HTTP/2) and refuses it twice across lines', async () => {
    expect((await outcome({}, ['Cookie', 'a=1', ...cookieLine()], 'GET')).status).toBe(200);
    expect((await outcome({}, [...cookieLine(), ...cookieLine()], 'GET')).code).toBe('invalid_request');
  });

  it('counts a missing method as unsafe', async () => {
    expect((await outcome({}, [...cookieLine(), 'Sec-Fetch-Site', 'cross-site'])).code).toBe('csrf_rejected');
  });

  it('checks PUT and PATCH (and unknown methods) like POST; HEAD and OPTIONS like GET', async () => {
    for (const method of ['PUT', 'PATCH', 'PROPFIND', 'post'])
      expect((await outcome({}, cookieLine(), method)).code, method).toBe('csrf_rejected');
    for (const method of ['HEAD', 'OPTIONS'])
      expect((await outcome({}, cookieLine(), method)).status, method).toBe(200);
  });

  it('refuses Sec-Fetch-Site none and repeated fetch metadata', async () => {
    const header = ['X-Requested-With', 'x'];
    expect((await outcome({}, [...cookieLine(), ...header, 'Sec-Fetch-Site', 'none'], 'POST')).code).toBe(
      'csrf_rejected',
    );
    expect(
      (
        await outcome(
          {},
          [...cookieLine(), ...header, 'Sec-Fetch-Site', 'same-origin', 'Sec-Fetch-Site', 'cross-site'],
          'POST',
        )
      ).code,
    ).toBe('csrf_rejected');
  });

  it('takes a configured header name and same-site when allowed', async () => {
    const headers = [...cookieLine(), 'Sec-Fetch-Site', 'same-site', 'X-CSRF', '1'];
    expect((await outcome({ csrf: { header: 'X-CSRF', allowSameSite: true } }, headers, 'POST')).status).toBe(
      200,
    );
    expect((await outcome({ csrf: { header: 'X-CSRF' } }, headers, 'POST')).code).toBe('csrf_rejected');
    expect((await outcome({ csrf: { allowSameSite: true } }, headers, 'POST')).code).toBe('csrf_rejected');
  });

  it('refuses the CSRF case before opening the cookie (a forged request costs no decryption)', async () => {
    expect((await outcome({}, cookieLine('garbage'), 'POST')).code).toBe('csrf_rejected');
  });

  it('a failing revocation store is 503 (fail closed)', async () => {
    const broken: RevocationStore = {
      isRevoked: () => Promise.reject(new Error('down')),
      revoke: () => Promise.resolve(),
    };
    expect(await outcome({ revocation: broken }, cookieLine(), 'GET')).toMatchObject({
      status: 503,
      code: 'service_unavailable',
    });
  });

  it('a session lacking a scope → 403 insufficient_scope without a challenge', async () => {
    const { principal } = await outcome({}, cookieLine(), 'GET');
    let error: HttpError | undefined;
    try {
      assertScopes(principal, ['admin']);
    } catch (caught) {
      error = caught as HttpError;
    }
    expect([error?.status, error?.code, error?.headers['WWW-Authenticate']]).toEqual([
      403,
      'insufficient_scope',
      undefined,
    ]);
  });

  it.each([
    ['an unprefixed cookie name', { name: 'sid' }, /__Host-/],
    ['a csrf origin with a path', { csrf: { origins: ['https://app.example.com/login'] } }, /not an origin/],
    ['a csrf origin that is no URL', { csrf: { origins: ['app.example.com'] } }, /not an origin/],
    ['a csrf header that is no header name', { csrf: { header: 'X Bad' } }, /header name/],
  ])('refuses %s at construction', (_name, cookie, message) => {
    expect(() => createAuthenticator({ cookie: { sealer, revocation, ...cookie } })).toThrow(message);
  });

  it('accepts an unprefixed name with allowInsecureName', async () => {
    expect(
      (await outcome({ name: 'sid', allowInsecureName: true }, cookieLine(sealed.value, 'sid'), 'GET'))
        .status,
    ).toBe(200);
  });
});
