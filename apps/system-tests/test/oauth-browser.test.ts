/**
 * Authorization code + PKCE end to end in a real browser (Debian's headless Chromium through
 * playwright-core, never a downloaded browser): a real authorization server on loopback
 * (oidc-provider, authorization-server.ts), the reference service trusting it through its JWKS in
 * RFC 9068 strict mode, and the `/docs` page's "Authorize" running the code flow as a public client.
 * The user signs in and consents on the server's pages, granting `read:projects` only; "Try it out"
 * then lists projects with the user's token (200) and is refused a create (403 `insufficient_scope`);
 * "Refresh access token" gets a new token with the rotated refresh token, and the call still works.
 * Screenshots of the consent step and of the successful call go to `.ci/out/`.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Browser, BrowserContext, Locator, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AuthorizationServer, startAuthorizationServer } from './authorization-server.js';
import { browserReady, keepToLoopback, launchChromium, OUT } from './chromium.js';
import { freePort, type Instance, startInstance } from './harness.js';

const FRAMEWORK = process.env['FRAMEWORK'] ?? 'express';
/** Where CI keeps its artifacts: one pair per framework. */
export const CONSENT_SCREENSHOT = resolve(OUT, `oauth-consent-${FRAMEWORK}.png`);
export const CALL_SCREENSHOT = resolve(OUT, `oauth-try-it-out-${FRAMEWORK}.png`);
const CLIENT_ID = 'plumbline-docs';
const AUDIENCE = 'urn:plumbline:reference-service';
const SCOPES = [
  'read:projects',
  'read:tasks',
  'read:comments',
  'write:projects',
  'write:tasks',
  'write:comments',
];
const ACCESS_TOKEN_TTL_SEC = 300;
const STEP = 15_000;

const ready = browserReady('The OAuth browser test');

const base64url = (bytes: Buffer) => bytes.toString('base64url');
const claimsOf = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;
const headerOf = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split('.')[0] ?? '', 'base64url').toString()) as Record<string, unknown>;

interface TokenResponse {
  access_token: string;
  refresh_token?: string;
  token_type: string;
  scope?: string;
  expires_in: number;
}

describe.skipIf(!ready)(
  `authorization code + PKCE from /docs in headless Chromium, FRAMEWORK=${FRAMEWORK}`,
  () => {
    let server: AuthorizationServer;
    let service: Instance;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let issuer: string;
    /** Console errors, page errors and requests that left loopback, on every page of the context. */
    const problems: string[] = [];
    /** Every request the browser sent to the authorization server's token endpoint. */
    const tokenRequests: Request[] = [];
    /** Every authorization request URL the browser opened. */
    const authorizationRequests: URL[] = [];

    beforeAll(async () => {
      const port = await freePort();
      issuer = `http://127.0.0.1:${port}`;
      // The service first (its port is the redirect URI's), trusting the server by configuration alone;
      // it fetches the JWKS on the first token it sees.
      service = (
        await startInstance({
          DATABASE_FILE: ':memory:',
          AUTH_ISSUER: issuer,
          AUTH_AUDIENCE: AUDIENCE,
          AUTH_JWKS_URL: `${issuer}/jwks`,
          AUTH_STRICT_RFC9068: 'true',
          AUTH_MAX_TOKEN_AGE_SEC: String(ACCESS_TOKEN_TTL_SEC),
          AUTH_MAX_TOKEN_LIFETIME_SEC: String(ACCESS_TOKEN_TTL_SEC),
          AUTH_AUTHORIZATION_URL: `${issuer}/auth`,
          AUTH_TOKEN_URL: `${issuer}/token`,
          AUTH_DOCS_CLIENT_ID: CLIENT_ID,
        })
      ).instance;
      server = await startAuthorizationServer({
        port,
        audience: AUDIENCE,
        scopes: SCOPES,
        clientId: CLIENT_ID,
        redirectUri: `${service.url}/docs/assets/oauth2-redirect.html`,
        accessTokenTtlSec: ACCESS_TOKEN_TTL_SEC,
      });
      ({ browser, context } = await launchChromium());
      context.setDefaultTimeout(STEP);
      // Anything not on loopback is recorded and never sent.
      await keepToLoopback(context, (line) => problems.push(line));
      context.on('request', (request) => {
        if (request.url() === `${issuer}/token` && request.method() === 'POST') tokenRequests.push(request);
        if (request.url().startsWith(`${issuer}/auth?`)) authorizationRequests.push(new URL(request.url()));
      });
      context.on('page', (opened) => {
        opened.on('console', (message) => {
          if (message.type() === 'error' || message.type() === 'warning')
            problems.push(`console ${message.type()} on ${opened.url()}: ${message.text()}`);
        });
        opened.on('pageerror', (error) => problems.push(`page error on ${opened.url()}: ${error.message}`));
      });
      page = await context.newPage();
    }, 120_000);

    beforeEach(() => {
      problems.length = 0;
    });

    afterAll(async () => {
      await context?.close();
      await browser?.close();
      await service?.stop();
      await server?.stop();
    });

    /** The auth dialog's block of one security scheme. */
    const scheme = (name: string): Locator =>
      page
        .locator('.auth-container')
        .filter({ has: page.locator('h4', { hasText: new RegExp(`^${name}\\b`) }) });

    /** "Try it out" → Execute on one operation; the status and the request headers sent. */
    async function execute(operationId: string, fill?: (operation: Locator) => Promise<void>) {
      const operation = page.locator(`#operations-projects-${operationId}`);
      if (!(await operation.locator('button.execute').isVisible())) {
        if (!(await operation.locator('.opblock-body').isVisible()))
          await operation.locator('.opblock-summary').first().click();
        await operation.locator('button.try-out__btn').click();
        await fill?.(operation);
      }
      const sent = page.waitForRequest((r) => r.url().startsWith(`${service.url}/v2/projects`));
      const answered = page.waitForResponse((r) => r.url().startsWith(`${service.url}/v2/projects`));
      await operation.locator('button.execute').click();
      const request = await sent;
      const response = await answered;
      const status = operation.locator('.live-responses-table .response .response-col_status').first();
      await expect
        .poll(async () => (await status.textContent())?.trim(), { timeout: STEP })
        .toBe(String(response.status()));
      const body = await operation
        .locator('.live-responses-table .response-col_description pre')
        .first()
        .textContent();
      return { status: response.status(), headers: await request.allHeaders(), body: body ?? '' };
    }

    it('the service document declares the code flow with the server’s discovered endpoints', async () => {
      const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as Record<
        string,
        unknown
      >;
      expect({
        authorization_endpoint: discovery['authorization_endpoint'],
        token_endpoint: discovery['token_endpoint'],
        jwks_uri: discovery['jwks_uri'],
        code_challenge_methods_supported: discovery['code_challenge_methods_supported'],
        authorization_response_iss_parameter_supported:
          discovery['authorization_response_iss_parameter_supported'],
      }).toEqual({
        authorization_endpoint: `${issuer}/auth`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        code_challenge_methods_supported: ['S256'],
        authorization_response_iss_parameter_supported: true,
      });
      const document = (await (await fetch(`${service.url}/openapi.json`)).json()) as {
        components: { securitySchemes: Record<string, unknown> };
      };
      expect(document.components.securitySchemes['authorizationCode']).toEqual({
        type: 'oauth2',
        description: `Authorization code with PKCE (S256) at ${issuer}, for a public client such as /docs (client_id ${CLIENT_ID}); the access token is a JWT for the audience ${AUDIENCE}, sent as a bearer token`,
        flows: {
          authorizationCode: {
            authorizationUrl: `${issuer}/auth`,
            tokenUrl: `${issuer}/token`,
            refreshUrl: `${issuer}/token`,
            scopes: Object.fromEntries(SCOPES.map((s) => [s, s.replace(':', ' ')])),
          },
        },
      });
    });

    it('"Authorize" runs the code flow with PKCE; the user’s token lists projects and cannot create one; a refresh keeps it working', {
      timeout: 100_000,
    }, async () => {
      const response = await page.goto(`${service.url}/docs`, { waitUntil: 'load' });
      expect(response?.status()).toBe(200);
      expect(response?.headers()['content-security-policy']).toContain(`connect-src 'self' ${issuer};`);
      await page.waitForSelector('body[data-docs-ready="true"]', { timeout: 60_000 });

      // The demo key is filled in; sign it out so the calls below carry the user's token alone.
      await page.locator('.auth-wrapper .authorize').click();
      await scheme('apiKey').locator('button', { hasText: 'Logout' }).click();
      const code = scheme('authorizationCode');
      await expect
        .poll(() => code.locator('input#client_id_authorizationCode').inputValue(), { timeout: STEP })
        .toBe(CLIENT_ID);
      // The user grants read:projects, nothing else.
      await code.locator('label[for="read:projects-authorizationCode-checkbox-authorizationCode"]').click();

      const popupOpened = page.waitForEvent('popup');
      await code.locator('button.authorize', { hasText: 'Authorize' }).click();
      const popup = await popupOpened;
      // On a failure here, say what the server's page showed and what it logged.
      await popup
        .locator('input[name="login"]')
        .waitFor()
        .catch(async (error: Error) => {
          const text = await popup
            .locator('body')
            .textContent()
            .catch(() => '(no page)');
          throw new Error(`${error.message}\n${popup.url()}: ${text}\n${server.log.join('\n')}`);
        });
      await popup.locator('input[name="login"]').fill('ada');
      await popup.locator('input[name="password"]').fill('correct horse');
      await popup.locator('button.sign-in').click();
      await popup.locator('button.consent').waitFor();
      expect(await popup.locator('ul.scopes li').allTextContents()).toEqual([`read:projects on ${AUDIENCE}`]);
      mkdirSync(OUT, { recursive: true });
      await popup.screenshot({ path: CONSENT_SCREENSHOT });
      const exchanged = page.waitForResponse((r) => r.url() === `${issuer}/token`);
      exchanged.catch(() => {});
      const closed = popup.waitForEvent('close');
      await popup.locator('button.consent').click();
      await closed.catch(async (error: Error) => {
        const text = await popup
          .locator('body')
          .textContent()
          .catch(() => '(no page)');
        throw new Error(
          `${error.message}\n${popup.url()}: ${text}\n${server.log.join('\n')}\n${problems.join('\n')}`,
        );
      });
      const tokenResponse = await exchanged;
      expect(tokenResponse.status()).toBe(200);
      const tokens = (await tokenResponse.json()) as TokenResponse;

      // PKCE S256 as a public client: the authorization request carried the challenge, the token
      // request the verifier it was made from, and neither a secret.
      expect(authorizationRequests).toHaveLength(1);
      const authorizationUrl = authorizationRequests[0]!;
      const query = Object.fromEntries(authorizationUrl.searchParams);
      expect({
        origin: authorizationUrl.origin + authorizationUrl.pathname,
        response_type: query['response_type'],
        client_id: query['client_id'],
        redirect_uri: query['redirect_uri'],
        scope: query['scope'],
        code_challenge_method: query['code_challenge_method'],
        has_state: (query['state'] ?? '').length > 0,
      }).toEqual({
        origin: `${issuer}/auth`,
        response_type: 'code',
        client_id: CLIENT_ID,
        redirect_uri: `${service.url}/docs/assets/oauth2-redirect.html`,
        scope: 'read:projects',
        code_challenge_method: 'S256',
        has_state: true,
      });
      expect(tokenRequests).toHaveLength(1);
      const exchange = new URLSearchParams(tokenRequests[0]?.postData() ?? '');
      expect([...exchange.keys()].sort()).toEqual([
        'client_id',
        'code',
        'code_verifier',
        'grant_type',
        'redirect_uri',
      ]);
      expect(exchange.get('grant_type')).toBe('authorization_code');
      expect(tokenRequests[0]?.headers()['authorization']).toBeUndefined();
      const verifier = exchange.get('code_verifier') ?? '';
      expect(verifier).toMatch(/^[A-Za-z0-9._~-]{43,128}$/);
      expect(base64url(createHash('sha256').update(verifier).digest())).toBe(query['code_challenge']);

      // An RFC 9068 access token for the API, the user as subject; and a refresh token.
      expect(headerOf(tokens.access_token)).toMatchObject({ typ: 'at+jwt', alg: 'ES256' });
      expect(claimsOf(tokens.access_token)).toMatchObject({
        iss: issuer,
        aud: AUDIENCE,
        sub: 'ada',
        client_id: CLIENT_ID,
        scope: 'read:projects',
      });
      expect(tokens.scope).toBe('read:projects');
      expect(typeof tokens.refresh_token).toBe('string');
      await code.locator('button', { hasText: 'Logout' }).waitFor();
      await page.locator('.dialog-ux button.close-modal').click();

      // The user's token lists projects...
      const list = await execute('v2_list_projects');
      expect({
        status: list.status,
        authorization: list.headers['authorization'],
        apiKey: list.headers['x-api-key'],
      }).toEqual({ status: 200, authorization: `Bearer ${tokens.access_token}`, apiKey: undefined });
      expect(list.body).toContain('Apollo');
      await page
        .locator('#operations-projects-v2_list_projects .live-responses-table')
        .scrollIntoViewIfNeeded();
      await page.screenshot({ path: CALL_SCREENSHOT });

      // ...and cannot create one: write:projects was not granted.
      const create = await execute('v2_create_project', async (operation) => {
        await operation.locator('tr[data-param-name="Idempotency-Key"] input').fill('oauth-browser-1');
      });
      expect({ status: create.status, authorization: create.headers['authorization'] }).toEqual({
        status: 403,
        authorization: `Bearer ${tokens.access_token}`,
      });
      expect(JSON.parse(create.body)).toMatchObject({ status: 403, error_code: 'insufficient_scope' });

      // The refresh: the page posts the refresh token, gets a new access token (and a rotated refresh
      // token), and the next call carries the new one.
      const refreshed = page.waitForResponse((r) => r.url() === `${issuer}/token`);
      await page.locator('#docs-oauth-refresh').click();
      const refreshResponse = await refreshed;
      expect(refreshResponse.status()).toBe(200);
      const renewed = (await refreshResponse.json()) as TokenResponse;
      await expect
        .poll(() => page.locator('#docs-oauth-status').textContent(), { timeout: STEP })
        .toBe('Access token refreshed.');
      expect(tokenRequests).toHaveLength(2);
      expect(Object.fromEntries(new URLSearchParams(tokenRequests[1]?.postData() ?? ''))).toEqual({
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: CLIENT_ID,
      });
      expect(renewed.access_token).not.toBe(tokens.access_token);
      expect(renewed.refresh_token).not.toBe(tokens.refresh_token);
      expect(claimsOf(renewed.access_token)).toMatchObject({ sub: 'ada', scope: 'read:projects' });
      const again = await execute('v2_list_projects');
      expect({ status: again.status, authorization: again.headers['authorization'] }).toEqual({
        status: 200,
        authorization: `Bearer ${renewed.access_token}`,
      });

      // Tokens live in the page's memory only.
      expect(await page.evaluate(() => [localStorage.length, sessionStorage.length])).toEqual([0, 0]);
      expect(existsSync(CONSENT_SCREENSHOT) && existsSync(CALL_SCREENSHOT)).toBe(true);
      // The one console line is Chromium reporting the 403 asked for above.
      expect(problems).toEqual([
        `console error on ${service.url}/docs#/projects/v2_create_project: Failed to load resource: the server responded with a status of 403 (Forbidden)`,
      ]);
      expect(server.log).toEqual([]);
    });

    it('the redirect page hands a code over only with the state that was sent and the configured issuer', async () => {
      const cases: readonly (readonly [string, string])[] = [
        [
          'state=forged&code=c1',
          '[Authorization refused]: the state in the answer is not the one sent; the code was not used.',
        ],
        [
          'state=sent&code=c2&iss=http%3A%2F%2F127.0.0.1%3A1',
          '[Authorization refused]: the answer comes from another issuer; the code was not used.',
        ],
        ['state=sent&error=access_denied&error_description=no', '[access_denied]: no'],
        [`state=sent&code=c3&iss=${encodeURIComponent(issuer)}`, 'delivered c3'],
      ];
      await page.goto(`${service.url}/docs`, { waitUntil: 'load' });
      const seen: string[] = [];
      for (const [query] of cases) {
        const outcome = await page.evaluate(
          (url) =>
            new Promise<string>((done) => {
              // The page's window (this runs in the browser; the project has no DOM types).
              const win = globalThis as unknown as Record<string, unknown> & { open(url: string): unknown };
              win['swaggerUIRedirectOauth2'] = {
                auth: { name: 'authorizationCode' },
                state: 'sent',
                redirectUrl: url,
                callback: (result: { auth: { code: string } }) => done(`delivered ${result.auth.code}`),
                errCb: (error: { message: string }) => done(error.message),
              };
              win.open(url);
            }),
          `${service.url}/docs/assets/oauth2-redirect.html?${query}`,
        );
        seen.push(outcome);
      }
      expect(seen).toEqual(cases.map(([, expected]) => expected));
      expect(problems).toEqual([]);
    });
  },
);
