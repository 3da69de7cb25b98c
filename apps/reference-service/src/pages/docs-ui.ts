/**
 * `GET /docs`: the interactive API reference, Swagger UI rendering `/openapi.json`. Its files are
 * served by this service from the `swagger-ui-dist` package (no CDN), under a Content-Security-Policy
 * that allows scripts, styles and requests from this origin only. The configuration is a script of
 * its own (`/docs/init.js`), not inline, so the policy needs no `unsafe-inline` for scripts.
 *
 * "Try it out" calls go to this origin. Outside production, when the service created demo
 * credentials on this start, the read-only demo API key is filled in, so a first call works without
 * copying a key; production pages carry no key.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { HttpError } from '@plumbline/errors';
import { API_VERSIONS } from '../domain/versions.js';
import type { PlainReply } from '../service/plain-reply.js';
import { escapeHtml } from './html-pages.js';

/** Only these files of the package are served. */
const ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

/**
 * CSP of `/docs`: scripts, styles, fonts, images and API calls from this origin only; no inline
 * script or style (Swagger UI sets styles through the DOM, which the policy allows). The browser
 * system test fails on any violation.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

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
function docsInitScript(apiKey: string | undefined): string {
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
    presets: [SwaggerUIBundle.presets.apis],
    onComplete: function () {
      ${apiKey ? `window.ui.preauthorizeApiKey("apiKey", ${JSON.stringify(apiKey)});` : ''}
      document.body.setAttribute("data-docs-ready", "true");
    },
  });
});
`;
}

const DOCS_HTML = (title: string) => `<!doctype html>
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
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

/** Headers of every `/docs` answer, the 404 of an unknown asset included. */
export const DOCS_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': DOCS_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/** The `/docs` answers, built once per app. */
export interface DocsUi {
  /** `GET /docs`: the page (never cached by a shared cache: it may hold the demo key). */
  readonly page: PlainReply;
  /** `GET /docs/init.js`: the script that starts Swagger UI. */
  readonly init: PlainReply;
  /**
   * `GET /docs/assets/{file}`; throws 404 `not_found` for any other file. A wiring sets
   * {@link DOCS_HEADERS} before calling, so the 404 carries them too.
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
}): DocsUi {
  const dir = assetDirectory();
  const files = new Map(
    Object.entries(ASSETS).map(([name, type]): [string, PlainReply] => [
      name,
      {
        status: 200,
        headers: { ...DOCS_HEADERS, 'Cache-Control': 'public, max-age=86400', 'Content-Type': type },
        body: readFileSync(join(dir, name)),
      },
    ]),
  );
  const noStore = (type: string, body: string): PlainReply => ({
    status: 200,
    headers: { ...DOCS_HEADERS, 'Cache-Control': 'no-store', 'Content-Type': type },
    body,
  });
  return {
    page: noStore('text/html; charset=utf-8', DOCS_HTML(options.title)),
    init: noStore('text/javascript; charset=utf-8', docsInitScript(options.demoApiKey)),
    asset(file) {
      const reply = files.get(file);
      if (!reply) throw new HttpError('not_found');
      return reply;
    },
  };
}
