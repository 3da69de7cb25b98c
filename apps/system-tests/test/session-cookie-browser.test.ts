/**
 * The same-site session cookie (`SESSION_KEYS`) in a real browser: Debian's headless Chromium through
 * playwright-core. The scripts run in a page of the service's own origin (`/docs`), as a same-site app's
 * script would: `POST /session` with a bearer token sets `__Host-session` in Chromium's jar, reads go
 * with the cookie alone, writes need the CSRF header, pages of another origin cannot use the cookie,
 * and `DELETE /session` clears and revokes it. A screenshot after the cookie-only read goes to
 * `.ci/out/session-cookie-<framework>.png`.
 *
 * The bearer token is the service's own `/oauth/token` client-credentials token, fetched by the test
 * (a client secret has no place in a page): `POST /session` takes any token the verifier accepts and
 * seals only its subject, client id, scopes and expiry, so the cookie is the same as one made from a
 * code-flow token, which oauth-browser.test.ts already obtains in this browser from a real
 * authorization server. This way the test picks the scopes (read and write projects, so the CSRF-proof
 * write is a 201) and needs no authorization server or consent pages.
 */

import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { resolve } from 'node:path';
import type { Browser, BrowserContext, Cookie, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserReady, keepToLoopback, launchChromium, OUT } from './chromium.js';
import { type Credentials, type Instance, startInstance, token } from './harness.js';

const FRAMEWORK = process.env['FRAMEWORK'] ?? 'express';
/** Where CI keeps its artifact: one per framework. */
export const SCREENSHOT = resolve(OUT, `session-cookie-${FRAMEWORK}.png`);
const SESSION_KEYS = `k1:${Buffer.alloc(32, 5).toString('base64url')}`;
const STEP = 15_000;
/** A second loopback address: another host, so another site (ports do not make one). */
const OTHER_SITE_HOST = '127.0.0.2';

const ready = browserReady('The session cookie browser test');

/** What a script in the page saw from one `fetch`. */
interface Seen {
  readonly status: number;
  readonly body: string;
}

/** Listens on `host` at a free port; resolves with the port. */
function listen(server: Server, host: string): Promise<number> {
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(0, host, () => {
      const address = server.address();
      done(typeof address === 'object' && address ? address.port : 0);
    });
  });
}

function close(server: Server | undefined): Promise<void> {
  return new Promise((done) => (server ? server.close(() => done()) : done()));
}

describe.skipIf(!ready)(`the session cookie in headless Chromium, FRAMEWORK=${FRAMEWORK}`, () => {
  let service: Instance;
  let credentials: Credentials;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  /** The other origins' pages: the same host on another port, and another host. */
  const servers: Server[] = [];
  let sameSiteOrigin: string;
  let crossSiteOrigin: string;
  /** Console errors, page errors and requests that left loopback. */
  const problems: string[] = [];

  beforeAll(async () => {
    const started = await startInstance(
      { DATABASE_FILE: ':memory:', SESSION_KEYS, LOG_LEVEL: 'info' },
      { expectCredentials: true },
    );
    service = started.instance;
    credentials = started.credentials!;
    // The attacker's page: a form that posts JSON-looking text to the service, the classic CSRF.
    const attacker = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>other origin</title></head>
<body><form method="post" action="${service.url}/v2/projects" enctype="text/plain">
<input type="hidden" name='{"name":"forged","x":"' value='"}'><button id="forge">Submit</button></form></body></html>`;
    for (const host of ['127.0.0.1', OTHER_SITE_HOST]) {
      const server = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
        res.end(attacker);
      });
      servers.push(server);
      const port = await listen(server, host);
      if (host === '127.0.0.1') sameSiteOrigin = `http://127.0.0.1:${port}`;
      else crossSiteOrigin = `http://${host}:${port}`;
    }
    ({ browser, context } = await launchChromium());
    context.setDefaultTimeout(STEP);
    await keepToLoopback(context, (line) => problems.push(line), ['127.0.0.1', OTHER_SITE_HOST]);
    context.on('page', (opened) => {
      opened.on('console', (message) => {
        if (message.type() === 'error' || message.type() === 'warning')
          problems.push(`console ${message.type()} on ${opened.url()}: ${message.text()}`);
      });
      opened.on('pageerror', (error) => problems.push(`page error on ${opened.url()}: ${error.message}`));
    });
    page = await context.newPage();
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await service?.stop();
    for (const server of servers) await close(server);
  });

  /** `fetch` from the page (same origin, so the cookie goes along); the status and the body text. */
  function call(
    path: string,
    init: { method?: string; headers?: Record<string, string>; body?: string } = {},
  ) {
    return page.evaluate(
      async ([url, options]) => {
        const response = await fetch(url, {
          credentials: 'same-origin',
          signal: AbortSignal.timeout(15_000),
          ...options,
        });
        return { status: response.status, body: await response.text() } satisfies Seen;
      },
      [path, init] as const,
    );
  }

  /** `plumbline_auth_failures_total` by reason, from `/metrics`. */
  async function authFailures(): Promise<Record<string, number>> {
    const text = await (await fetch(`${service.url}/metrics`, { signal: AbortSignal.timeout(STEP) })).text();
    const counts: Record<string, number> = {};
    for (const [, reason, count] of text.matchAll(
      /^plumbline_auth_failures_total\{reason="([^"]+)"\} (\d+)$/gm,
    ))
      counts[reason!] = Number(count);
    return counts;
  }

  /** The service's `request completed` log line of one request (LOG_LEVEL=info). */
  async function loggedRequest(requestId: string): Promise<LoggedRequest> {
    const find = () =>
      service
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as LoggedRequest & { request_id?: string; msg?: string })
        .find((line) => line.request_id === requestId && line.msg === 'request completed');
    await expect.poll(find, { timeout: STEP }).toBeDefined();
    return find()!;
  }

  const sessionCookies = async (): Promise<Cookie[]> =>
    (await context.cookies(service.url)).filter((cookie) => cookie.name === '__Host-session');

  it('POST /session sets __Host-session; the cookie alone reads, writes need the CSRF header, other origins cannot use it, DELETE /session revokes it', {
    timeout: 90_000,
  }, async () => {
    const bearer = (await token(service.url, credentials, 'read:projects write:projects')).access_token;
    // `/docs` is a page of the service's origin whose policy lets its scripts call the origin
    // (`connect-src 'self'`); `/` allows no script to connect anywhere.
    const opened = await page.goto(`${service.url}/docs`, { waitUntil: 'load' });
    expect(opened?.status()).toBe(200);
    await page.waitForSelector('body[data-docs-ready="true"]', { timeout: 60_000 });
    expect(await sessionCookies()).toEqual([]);

    // 1-2. The page exchanges the token for the cookie. Chromium keeps a Secure, __Host- cookie set
    // over http://127.0.0.1: loopback is a potentially trustworthy origin, so the jar treats it as
    // secure (on another http host it would drop the Set-Cookie).
    const answered = page.waitForResponse((r) => r.url() === `${service.url}/session`);
    const login = await call('/session', {
      method: 'POST',
      headers: { Authorization: `Bearer ${bearer}`, 'X-Requested-With': 'session-test' },
    });
    expect(login).toEqual({ status: 204, body: '' });
    const setCookie = (await (await answered).headerValue('set-cookie')) ?? '';
    expect(setCookie.split(/;\s*/).map((part) => part.split('=')[0]?.toLowerCase())).toEqual([
      '__host-session',
      'max-age',
      'path',
      'httponly',
      'secure',
      'samesite',
    ]);
    const jar = await sessionCookies();
    expect(jar.map(({ value: _value, expires: _expires, ...rest }) => rest)).toEqual([
      {
        name: '__Host-session',
        domain: '127.0.0.1', // host-only: the Set-Cookie had no Domain (a __Host- cookie may not)
        path: '/',
        httpOnly: true,
        secure: true,
        sameSite: 'Lax',
      },
    ]);
    const cookie = jar[0]!;
    expect(cookie.value).toMatch(/^[\w-]+\.\.[\w-]+\.[\w-]+\.[\w-]+$/);
    // It ends when the token does (an hour at most), never a browser-session cookie.
    const now = Date.now() / 1000;
    expect(cookie.expires).toBeGreaterThan(now + 60);
    expect(cookie.expires).toBeLessThanOrEqual(now + 3600 + 5);

    // 3. A read with no Authorization header: the cookie authenticates. The page's script cannot see
    // the cookie (HttpOnly).
    const list = await call('/v2/projects');
    expect(list.status).toBe(200);
    const names = (JSON.parse(list.body) as { data: { name: string }[] }).data.map((p) => p.name);
    expect(names).toContain('Apollo');
    expect(
      await page.evaluate(() => (globalThis as unknown as { document: { cookie: string } }).document.cookie),
    ).toBe('');
    await page.evaluate(
      ([status, listed]) => {
        const doc = (globalThis as unknown as { document: DocumentLike }).document;
        const out = doc.createElement('pre');
        out.id = 'session-result';
        out.textContent = `GET /v2/projects with the session cookie only: ${status}\n${listed}\ndocument.cookie: "${doc.cookie}"`;
        doc.body.prepend(out);
      },
      [list.status, names.join('\n')] as const,
    );
    mkdirSync(OUT, { recursive: true });
    await page.screenshot({ path: SCREENSHOT });

    // 4. A write with the cookie: refused without the custom header, created with it.
    const create = (headers: Record<string, string>, key: string) =>
      call('/v2/projects', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key, ...headers },
        body: JSON.stringify({ name: 'Made through the session cookie' }),
      });
    const refused = await create({}, 'session-browser-1');
    expect([refused.status, (JSON.parse(refused.body) as { error_code: string }).error_code]).toEqual([
      403,
      'csrf_rejected',
    ]);
    const created = await create({ 'X-Requested-With': 'session-test' }, 'session-browser-2');
    expect(created.status).toBe(201);
    const project = JSON.parse(created.body) as { id: string; name: string };
    expect(project.name).toBe('Made through the session cookie');
    const removed = await call(`/v2/projects/${project.id}`, {
      method: 'DELETE',
      headers: { 'X-Requested-With': 'session-test' },
    });
    expect(removed.status).toBe(204);
    // A deleted project is 410 Gone.
    expect((await call(`/v2/projects/${project.id}`)).status).toBe(410);

    // 5. Pages of other origins submit a form to the service (the classic CSRF: no script needed).
    // Chromium does not show the page the answer (a navigation to application/problem+xml, the
    // type its Accept header gets, ends in its own ERR_INVALID_RESPONSE page), so the outcome is read
    // on the service's side: the status the browser received, the request as the service logged it
    // (found by the X-Request-Id of the answer) and the reason its auth failure counter recorded.
    const forge = async (origin: string) => {
      const before = await authFailures();
      const other = await context.newPage();
      await other.goto(`${origin}/`, { waitUntil: 'load' });
      const answered = other.waitForResponse((r) => r.url() === `${service.url}/v2/projects`);
      await other.locator('#forge').click();
      const response = await answered;
      await other.close();
      const logged = await loggedRequest(response.headers()['x-request-id'] ?? '');
      const after = await authFailures();
      return {
        status: response.status(),
        logged_status: logged.res.statusCode,
        sec_fetch_site: logged.req.headers['sec-fetch-site'],
        origin: logged.req.headers['origin'],
        cookie_sent: logged.req.headers['cookie'] !== undefined,
        reasons: Object.fromEntries(
          Object.entries(after)
            .map(([reason, count]) => [reason, count - (before[reason] ?? 0)] as const)
            .filter(([, delta]) => delta > 0),
        ),
      };
    };
    // Another port on the same host is another origin but the same site: SameSite=Lax lets the
    // cookie go with the form's POST, and the CSRF check refuses it (Sec-Fetch-Site is same-site,
    // not same-origin, and a form cannot add X-Requested-With).
    expect(await forge(sameSiteOrigin)).toEqual({
      status: 403,
      logged_status: 403,
      sec_fetch_site: 'same-site',
      origin: sameSiteOrigin,
      cookie_sent: true,
      reasons: { csrf_rejected: 1 },
    });
    // Another host is another site: Chromium does not send a SameSite=Lax cookie with a cross-site
    // POST, not even a top-level navigation, so the request arrives without credentials: 401.
    expect(await forge(crossSiteOrigin)).toEqual({
      status: 401,
      logged_status: 401,
      sec_fetch_site: 'cross-site',
      origin: crossSiteOrigin,
      cookie_sent: false,
      reasons: { unauthorized: 1 },
    });
    expect((await call('/v2/projects')).body).not.toContain('forged');

    // 6. Sign out: the cookie is revoked and cleared; a copy put back into the jar is refused.
    const logout = await call('/session', {
      method: 'DELETE',
      headers: { 'X-Requested-With': 'session-test' },
    });
    expect(logout).toEqual({ status: 204, body: '' });
    expect(await sessionCookies()).toEqual([]);
    expect((await call('/v2/projects')).status).toBe(401);
    await context.addCookies([{ ...cookie }]);
    expect((await sessionCookies()).map((c) => c.value)).toEqual([cookie.value]);
    const replayed = await call('/v2/projects');
    expect([replayed.status, (JSON.parse(replayed.body) as { error_code: string }).error_code]).toEqual([
      401,
      'unauthorized',
    ]);

    // The console lines are Chromium reporting the refusals asked for above, in order: the write
    // without the CSRF header, the deleted project, the read after sign-out and the replayed cookie;
    // the forged forms' error pages may add theirs (403 or 401) if they log before the page closes.
    const onErrorPages = problems.filter((line) => line.startsWith('console error on chrome-error://'));
    for (const line of onErrorPages)
      expect(line).toMatch(
        /^console error on chrome-error:\/\/chromewebdata\/: Failed to load resource: the server responded with a status of 40[13] \(\)$/,
      );
    expect(problems.filter((line) => !onErrorPages.includes(line))).toEqual(
      ['403 (Forbidden)', '410 (Gone)', '401 (Unauthorized)', '401 (Unauthorized)'].map(
        (status) =>
          `console error on ${service.url}/docs: Failed to load resource: the server responded with a status of ${status}`,
      ),
    );
  });
});

/** The fields of a `request completed` log line the test reads. */
interface LoggedRequest {
  req: { headers: Record<string, string | undefined> };
  res: { statusCode: number };
}

/** The few DOM members the page script above uses (the project has no DOM types). */
interface DocumentLike {
  cookie: string;
  body: { prepend(node: unknown): void };
  createElement(tag: string): { id: string; textContent: string };
}
