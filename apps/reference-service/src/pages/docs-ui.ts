/**
 * `GET /docs`: the interactive API reference, Swagger UI rendering `/openapi.json`. Its files are
 * served by this service from the `swagger-ui-dist` package (no CDN), under a Content-Security-Policy
 * that allows scripts, styles and requests from this origin only. The configuration is a script of
 * its own (`/docs/init.js`), not inline, so the policy needs no `unsafe-inline` for scripts.
 *
 * "Try it out" calls go to this origin. Outside production, when the service created demo
 * credentials on this start, the read-only demo API key is filled in, so a first call works without
 * copying a key; production pages carry no key.
 *
 * With an external authorization server configured for the code flow ({@link DocsCodeFlow}),
 * "Authorize" also runs the authorization code flow with PKCE (S256) as a public client: Swagger UI
 * opens the server's authorization page in a popup, our own redirect page
 * (`/docs/assets/oauth2-redirect.html`) hands the code back only when `state` (and `iss`, when the
 * server sends it) match, and the page exchanges it at the token endpoint, the one other origin the
 * policy lets it reach. Tokens stay in the page's memory (never localStorage); "Refresh access
 * token" uses the refresh token.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { HttpError } from '@plumbline/errors';
import { API_VERSIONS } from '../domain/versions.js';
import { CODE_FLOW_SCHEME } from '../openapi/document.js';
import type { ServiceConfig } from '../service/config.js';
import type { PlainReply } from '../service/plain-reply.js';
import { escapeHtml } from './html-pages.js';

/** Only these files of the package are served. */
const ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

/**
 * The authorization code flow `/docs` runs against an external authorization server
 * (`AUTH_ISSUER`, `AUTH_AUTHORIZATION_URL`, `AUTH_TOKEN_URL`, `AUTH_DOCS_CLIENT_ID`).
 *
 * @example
 * ```ts
 * const flow: DocsCodeFlow = { issuer: 'https://id.example.com', tokenUrl: 'https://id.example.com/token', clientId: 'api-docs' };
 * ```
 */
export interface DocsCodeFlow {
  /** The server's issuer identifier: an `iss` in the authorization response must equal it (RFC 9207). */
  readonly issuer: string;
  /** The token endpoint the page posts the code and the refresh token to (the policy's one other origin). */
  readonly tokenUrl: string;
  /** The public client registered for this page (no secret; its redirect URI is {@link DOCS_REDIRECT_PATH} on this origin). */
  readonly clientId: string;
}

/**
 * The code flow of `/docs` from the configuration, or `undefined` when `AUTH_AUTHORIZATION_URL` and
 * its companions are not set.
 *
 * @example
 * ```ts
 * createDocsUi({ title: 'Plumbline reference service', codeFlow: docsCodeFlow(ctx.config) });
 * ```
 */
export function docsCodeFlow(config: Pick<ServiceConfig, 'externalIssuer'>): DocsCodeFlow | undefined {
  const external = config.externalIssuer;
  if (!external?.codeFlow) return undefined;
  return {
    issuer: external.issuer,
    tokenUrl: external.codeFlow.tokenUrl,
    clientId: external.codeFlow.clientId,
  };
}

/** Where the authorization server sends the browser back with the code; register `<origin>` + this. */
const DOCS_REDIRECT_PATH = '/docs/assets/oauth2-redirect.html';

/**
 * CSP of `/docs`: scripts, styles, fonts, images and API calls from this origin only, plus the token
 * endpoint's origin when the page runs the code flow; no inline script or style (Swagger UI sets
 * styles through the DOM, which the policy allows). The browser system tests fail on any violation.
 *
 * @example
 * ```ts
 * docsCsp(undefined) === DOCS_CSP; // true
 * docsCsp({ issuer: 'https://id.example.com', tokenUrl: 'https://id.example.com/token', clientId: 'docs' });
 * // connect-src 'self' https://id.example.com
 * ```
 */
function docsCsp(codeFlow: DocsCodeFlow | undefined): string {
  const connect = ["'self'", ...(codeFlow ? [new URL(codeFlow.tokenUrl).origin] : [])];
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src ${connect.join(' ')}`,
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** CSP of `/docs` without the code flow. */
export const DOCS_CSP = docsCsp(undefined);

function assetDirectory(): string {
  const require = createRequire(import.meta.url);
  return dirname(require.resolve('swagger-ui-dist/package.json'));
}

/**
 * The script that starts Swagger UI; `apiKey`, when given, is filled into the `apiKey` scheme.
 *
 * @example
 * ```ts
 * docsInitScript(undefined); // starts Swagger UI on /openapi.json with no key filled in
 * ```
 */
function docsInitScript(apiKey: string | undefined, codeFlow: DocsCodeFlow | undefined): string {
  return `"use strict";
window.addEventListener("load", function () {
  // The version selector: /docs?version=1 renders v1's own document, /docs every version's.
  var version = new URLSearchParams(window.location.search).get("version");
  var selected = ${JSON.stringify(API_VERSIONS.versions)}.indexOf(version) === -1 ? "" : "?version=" + version;
  var current = document.querySelector('nav a[data-version="' + (selected === "" ? "all" : version) + '"]');
  if (current) current.setAttribute("aria-current", "page");
  window.ui = SwaggerUIBundle({
    url: "/openapi.json" + selected,
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    withCredentials: false,
    displayOperationId: true,
    defaultModelsExpandDepth: 0,
    persistAuthorization: false,${codeFlow ? `\n    oauth2RedirectUrl: window.location.origin + "${DOCS_REDIRECT_PATH}",` : ''}
    presets: [SwaggerUIBundle.presets.apis],
    onComplete: function () {
      ${apiKey ? `window.ui.preauthorizeApiKey("apiKey", ${JSON.stringify(apiKey)});` : ''}
      document.body.setAttribute("data-docs-ready", "true");
    },
  });${codeFlow ? codeFlowScript(codeFlow) : ''}
});
`;
}

/**
 * The code flow's part of init.js: Swagger UI's PKCE as a public client, and the refresh button.
 * Swagger UI keeps the token response in its in-memory state; the refresh posts its refresh token
 * to the token endpoint and puts the new response in its place.
 */
function codeFlowScript(codeFlow: DocsCodeFlow): string {
  return `
  window.ui.initOAuth({ clientId: ${JSON.stringify(codeFlow.clientId)}, usePkceWithAuthorizationCodeGrant: true });
  var panel = document.getElementById("docs-oauth");
  var status = document.getElementById("docs-oauth-status");
  panel.hidden = false;
  document.getElementById("docs-oauth-refresh").addEventListener("click", function () {
    var entry = window.ui.authSelectors.authorized().get(${JSON.stringify(CODE_FLOW_SCHEME)});
    var refreshToken = entry && entry.getIn(["token", "refresh_token"]);
    if (!refreshToken) {
      status.textContent = "No refresh token: authorize with ${CODE_FLOW_SCHEME} first.";
      return;
    }
    status.textContent = "Refreshing the access token...";
    fetch(${JSON.stringify(codeFlow.tokenUrl)}, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: ${JSON.stringify(codeFlow.clientId)} }).toString(),
      credentials: "omit",
      cache: "no-store",
    })
      .then(function (response) {
        return response.json().then(function (body) { return { ok: response.ok, status: response.status, body: body }; });
      })
      .then(function (result) {
        if (!result.ok || typeof result.body.access_token !== "string") {
          status.textContent = "The refresh failed (" + (result.body.error || result.status) + "): authorize again.";
          return;
        }
        var token = result.body;
        // A server that does not rotate refresh tokens answers without one: the old one stays valid.
        if (typeof token.refresh_token !== "string") token.refresh_token = refreshToken;
        var auth = entry.toJS();
        delete auth.token;
        window.ui.authActions.authorizeOauth2({ auth: auth, token: token });
        status.textContent = "Access token refreshed.";
      }, function (error) {
        status.textContent = "The refresh failed (" + error.message + "): authorize again.";
      });
  });`;
}

/**
 * The script of the redirect page, in place of Swagger UI's own (which, on a `state` mismatch,
 * only warns and still uses the code): the code reaches the page that opened the popup only when
 * `state` equals the one sent and `iss`, when present, is the configured issuer (RFC 9207).
 */
function redirectScript(codeFlow: DocsCodeFlow): string {
  return `"use strict";
(function () {
  var pending = window.opener && window.opener.swaggerUIRedirectOauth2;
  if (!pending) {
    document.getElementById("message").textContent = "No authorization is waiting for this answer.";
    return;
  }
  var params = new URLSearchParams(window.location.search);
  var fail = function (message) {
    pending.errCb({ authId: pending.auth.name, source: "auth", level: "error", message: message });
    window.close();
  };
  var sent = pending.state;
  delete pending.state;
  if (!sent || params.get("state") !== sent) {
    return fail("[Authorization refused]: the state in the answer is not the one sent; the code was not used.");
  }
  if (params.has("iss") && params.get("iss") !== ${JSON.stringify(codeFlow.issuer)}) {
    return fail("[Authorization refused]: the answer comes from another issuer; the code was not used.");
  }
  if (params.has("error")) {
    return fail("[" + params.get("error") + "]: " + (params.get("error_description") || "the authorization server refused."));
  }
  var code = params.get("code");
  if (!code) return fail("[Authorization failed]: no code in the answer.");
  pending.auth.code = code;
  pending.callback({ auth: pending.auth, redirectUrl: pending.redirectUrl });
  window.close();
})();
`;
}

const REDIRECT_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Authorization</title>
</head>
<body>
<p id="message">Returning to the API reference...</p>
<script src="/docs/assets/oauth2-redirect.js"></script>
</body>
</html>
`;

const CODE_FLOW_PANEL = `<div id="docs-oauth" hidden>
<button id="docs-oauth-refresh" type="button">Refresh access token</button>
<span id="docs-oauth-status" role="status"></span>
</div>
`;

const DOCS_HTML = (title: string, codeFlow: boolean) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} – API reference</title>
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
<nav><a href="/">Home</a> · <a href="/changelog">Changelog</a> · API version: <a href="/docs" data-version="all">all</a>${API_VERSIONS.versions
  .map((version) => ` · <a href="/docs?version=${version}" data-version="${version}">v${version}</a>`)
  .join('')}</nav>
${codeFlow ? CODE_FLOW_PANEL : ''}<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

/** Headers of every `/docs` answer, the 404 of an unknown asset included. */
function docsHeaders(codeFlow: DocsCodeFlow | undefined): Readonly<Record<string, string>> {
  return {
    'Content-Security-Policy': docsCsp(codeFlow),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  };
}

/** The `/docs` answers, built once per app. */
export interface DocsUi {
  /** Headers of every `/docs` answer, the 404 of {@link DocsUi.asset} included. */
  readonly headers: Readonly<Record<string, string>>;
  /** `GET /docs`: the page (never cached by a shared cache: it may hold the demo key). */
  readonly page: PlainReply;
  /** `GET /docs/init.js`: the script that starts Swagger UI. */
  readonly init: PlainReply;
  /**
   * `GET /docs/assets/{file}`: the Swagger UI files, and with the code flow the redirect page and
   * its script; throws 404 `not_found` (with {@link DocsUi.headers}) for any other file.
   */
  asset(file: string): PlainReply;
}

/**
 * Reads the Swagger UI files and renders the page and script of `/docs`.
 *
 * @example
 * ```ts
 * const ui = createDocsUi({ title: 'Plumbline reference service', demoApiKey: ctx.demoCredentials?.apiKeys.readOnly });
 * ```
 */
export function createDocsUi(options: {
  readonly title: string;
  readonly demoApiKey?: string | undefined;
  /** The authorization code flow "Authorize" offers; absent: API key, bearer token and client credentials only. */
  readonly codeFlow?: DocsCodeFlow | undefined;
}): DocsUi {
  const dir = assetDirectory();
  const { codeFlow } = options;
  const headers = docsHeaders(codeFlow);
  const noStore = (type: string, body: string): PlainReply => ({
    status: 200,
    headers: { ...headers, 'Cache-Control': 'no-store', 'Content-Type': type },
    body,
  });
  const files = new Map(
    Object.entries(ASSETS).map(([name, type]): [string, PlainReply] => [
      name,
      {
        status: 200,
        headers: { ...headers, 'Cache-Control': 'public, max-age=86400', 'Content-Type': type },
        body: readFileSync(join(dir, name)),
      },
    ]),
  );
  if (codeFlow) {
    files.set('oauth2-redirect.html', noStore('text/html; charset=utf-8', REDIRECT_HTML));
    files.set('oauth2-redirect.js', noStore('text/javascript; charset=utf-8', redirectScript(codeFlow)));
  }
  return {
    headers,
    page: noStore('text/html; charset=utf-8', DOCS_HTML(options.title, codeFlow !== undefined)),
    init: noStore('text/javascript; charset=utf-8', docsInitScript(options.demoApiKey, codeFlow)),
    asset(file) {
      const reply = files.get(file);
      if (!reply) throw new HttpError('not_found', { headers });
      return reply;
    },
  };
}
