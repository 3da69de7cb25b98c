/**
 * The few HTML pages the service serves to browsers (the index at `/` and the error-code pages),
 * rendered from the same data their JSON carries. No script, no inline style: one stylesheet from
 * `/assets/site.css`, under a Content-Security-Policy that allows nothing else.
 */
import type { PlainReply } from '../service/plain-reply.js';

/** CSP of the service's own HTML pages: only its stylesheet and images. */
export const PAGE_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * Escapes text for HTML element content and double-quoted attribute values.
 *
 * @example
 * ```ts
 * escapeHtml('<b>"x"</b>'); // '&lt;b&gt;&quot;x&quot;&lt;/b&gt;'
 * ```
 */
export function escapeHtml(text: unknown): string {
  return String(text ?? '')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/**
 * A complete page: `body` is trusted HTML built with {@link escapeHtml}.
 *
 * @example
 * ```ts
 * page('Plumbline', 'en', '<h1>Hello</h1>');
 * ```
 */
export function page(title: string, language: string, body: string): string {
  return `<!doctype html>
<html lang="${escapeHtml(language)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="/assets/site.css">
</head>
<body>
${body}
</body>
</html>
`;
}

const SITE_CSS = `body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#1d1d1f}
h1{font-size:1.6rem;margin-bottom:.25rem}code{background:#f2f2f4;padding:.1rem .3rem;border-radius:3px}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid #ddd}
.status{font-weight:600}.deprecated{color:#a15c00}.sunset{color:#a00}.current{color:#176b2c}
a{color:#0a58ca}dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}dt{font-weight:600}
`;

/** The headers every HTML page carries: the page CSP, no sniffing, no referrer. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': PAGE_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/** The answer to `GET /assets/site.css`. */
export const SITE_CSS_REPLY: PlainReply = {
  status: 200,
  headers: { 'Cache-Control': 'public, max-age=3600', 'Content-Type': 'text/css; charset=utf-8' },
  body: SITE_CSS,
};

interface ErrorCodeDoc {
  readonly error_code: string;
  readonly status: number;
  readonly title: string;
  readonly description: string;
  readonly documentation: string;
}

const ERROR_LABELS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  en: { status: 'HTTP status', meaning: 'Meaning', more: 'Why, and what to do', all: 'All error codes' },
  de: {
    status: 'HTTP-Status',
    meaning: 'Bedeutung',
    more: 'Warum, und was zu tun ist',
    all: 'Alle Fehlercodes',
  },
};

/**
 * The HTML page of one error code, in `language` (`en` or `de`).
 *
 * @example
 * ```ts
 * errorCodePage(describeCode('not_found', 'de'), 'de');
 * ```
 */
export function errorCodePage(doc: ErrorCodeDoc, language: string): string {
  const labels = ERROR_LABELS[language] ?? ERROR_LABELS['en']!;
  return page(
    `${doc.error_code} (${doc.status} ${doc.title})`,
    language,
    `<main>
<h1><code>${escapeHtml(doc.error_code)}</code></h1>
<dl>
<dt>${labels['status']}</dt><dd>${escapeHtml(doc.status)} ${escapeHtml(doc.title)}</dd>
<dt>${labels['meaning']}</dt><dd>${escapeHtml(doc.description)}</dd>
</dl>
<p><a href="${escapeHtml(doc.documentation)}">${labels['more']}</a> · <a href="/errors">${labels['all']}</a> · <a href="/docs">API reference</a></p>
</main>`,
  );
}
