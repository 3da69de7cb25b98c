/**
 * `/docs` and the OpenAPI document with the authorization code flow configured (AUTH_ISSUER with
 * AUTH_AUTHORIZATION_URL, AUTH_TOKEN_URL, AUTH_DOCS_CLIENT_ID), over real HTTP. The flow itself runs
 * in a browser against a real authorization server in apps/system-tests/test/oauth-browser.test.ts.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchFresh, type RunningService, startService } from './harness.js';

const ISSUER = 'https://id.example.test';
const CODE_FLOW = {
  AUTH_ISSUER: ISSUER,
  AUTH_AUDIENCE: 'https://api.example.test',
  AUTH_JWKS_URL: `${ISSUER}/jwks`,
  AUTH_AUTHORIZATION_URL: `${ISSUER}/authorize`,
  AUTH_TOKEN_URL: 'https://token.example.test/oauth/token',
  AUTH_DOCS_CLIENT_ID: 'api-docs',
};
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; " +
  "connect-src 'self' https://token.example.test; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

describe('/docs with the authorization code flow', () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService({ name: 'sqlite + memory', postgres: false, redis: false }, CODE_FLOW);
  });
  afterAll(async () => {
    await svc?.stop();
  });
  // Each on its own connection: the document validation below holds the event loop for seconds.
  const get = (path: string) => fetchFresh(`${svc.url}${path}`);

  it('the document declares the flow, valid OpenAPI 3.1, and every versioned operation takes it with its oauth2 scope', async () => {
    const document = (await (await get('/openapi.json')).json()) as {
      components: { securitySchemes: Record<string, unknown> };
      paths: Record<string, Record<string, { security?: Record<string, string[]>[] }>>;
    };
    const result = await new Validator().validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(document.components.securitySchemes['authorizationCode']).toEqual({
      type: 'oauth2',
      description:
        'Authorization code with PKCE (S256) at https://id.example.test, for a public client such as /docs (client_id api-docs); the access token is a JWT for the audience https://api.example.test, sent as a bearer token',
      flows: {
        authorizationCode: {
          authorizationUrl: 'https://id.example.test/authorize',
          tokenUrl: 'https://token.example.test/oauth/token',
          refreshUrl: 'https://token.example.test/oauth/token',
          scopes: {
            'read:projects': 'read projects',
            'read:tasks': 'read tasks',
            'read:comments': 'read comments',
            'write:projects': 'write projects',
            'write:tasks': 'write tasks',
            'write:comments': 'write comments',
          },
        },
      },
    });
    expect(document.paths['/v2/projects']?.['post']?.security).toEqual([
      { apiKey: [] },
      { bearer: [] },
      { oauth2: ['write:projects'] },
      { authorizationCode: ['write:projects'] },
    ]);
    const mismatched = Object.entries(document.paths)
      .filter(([path]) => /^\/v\d+\//.test(path))
      .flatMap(([path, item]) =>
        Object.entries(item).map(([method, operation]) => {
          const scopes = (name: string) => operation.security?.find((entry) => entry[name])?.[name];
          return {
            at: `${method} ${path}`,
            same: JSON.stringify(scopes('oauth2')) === JSON.stringify(scopes('authorizationCode')),
          };
        }),
      )
      .filter(({ same }) => !same);
    expect(mismatched).toEqual([]);
  });

  it('the page allows requests to the token endpoint’s origin alone besides its own, and shows the refresh control', async () => {
    const res = await get('/docs');
    const html = await res.text();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toBe(CSP);
    expect(html).toContain(
      '<div id="docs-oauth" hidden>\n<button id="docs-oauth-refresh" type="button">Refresh access token</button>',
    );
    expect([...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1])).toEqual([
      '/docs/assets/favicon-32x32.png',
      '/docs/assets/swagger-ui.css',
      // The navigation line: home, the changelog and the version selector.
      '/',
      '/changelog',
      '/docs',
      '/docs?version=1',
      '/docs?version=2',
      '/docs?version=3',
      '/docs/assets/swagger-ui-bundle.js',
      '/docs/init.js',
    ]);
    expect(html).not.toMatch(/<script>[^<]/);
  });

  it('init.js runs PKCE as the public client, keeps tokens in memory and refreshes at the token endpoint', async () => {
    const script = await (await get('/docs/init.js')).text();
    for (const line of [
      'persistAuthorization: false,',
      'oauth2RedirectUrl: window.location.origin + "/docs/assets/oauth2-redirect.html",',
      'window.ui.initOAuth({ clientId: "api-docs", usePkceWithAuthorizationCodeGrant: true });',
      'fetch("https://token.example.test/oauth/token", {',
      'grant_type: "refresh_token", refresh_token: refreshToken, client_id: "api-docs"',
    ]) {
      expect(script).toContain(line);
    }
    expect(script).not.toMatch(/localStorage|sessionStorage|client_secret/);
  });

  it.each([
    [
      '/docs/assets/oauth2-redirect.html',
      'text/html; charset=utf-8',
      '<script src="/docs/assets/oauth2-redirect.js"></script>',
    ],
    [
      '/docs/assets/oauth2-redirect.js',
      'text/javascript; charset=utf-8',
      'params.get("iss") !== "https://id.example.test"',
    ],
  ])('%s is served under the page’s policy, never cached', async (path, type, text) => {
    const res = await get(path);
    expect({
      status: res.status,
      type: res.headers.get('content-type'),
      csp: res.headers.get('content-security-policy'),
      cache: res.headers.get('cache-control'),
      referrer: res.headers.get('referrer-policy'),
    }).toEqual({ status: 200, type, csp: CSP, cache: 'no-store', referrer: 'no-referrer' });
    expect(await res.text()).toContain(text);
  });
});
