/**
 * The front door, `GET /`: what this service is, which API versions it serves (with their
 * deprecation and sunset dates) and where everything else is. Negotiated like every resource:
 * JSON (default), XML, or an HTML page for a browser.
 */
import type { NegotiatorOptions, SerializeContext } from '@plumbline/negotiation';
import { xmlSerializerFor } from '../api/xml-representation.js';
import type { ApiVersion } from '../domain/model.js';
import { asXmlSchema } from '../domain/schema-name.js';
import { API_VERSIONS, type ApiStrategy } from '../service/versioning.js';
import { escapeHtml, page } from './html-pages.js';

type Json = Record<string, unknown>;

interface IndexVersion {
  readonly version: string;
  readonly status: 'current' | 'deprecated' | 'sunset';
  /** This version serves a request that names none (not under the path strategy, which has no default). */
  readonly default: boolean;
  readonly href: string;
  readonly deprecated_at: string | null;
  readonly sunset_at: string | null;
  readonly successor: string | null;
}

/**
 * Where a version starts: `/v2` under the path strategy, its projects in the strategy's shape
 * otherwise (`/projects?version=2`, or `/projects` with the version in a header or media type).
 */
const startOf = (api: ApiStrategy, version: string) =>
  api.strategy === 'path' ? `/v${version}` : api.link(Number(version) as ApiVersion, '/projects');

/**
 * The index document (the `ApiIndex` schema) for the service's versions as of `now`.
 *
 * @example
 * ```ts
 * apiIndex(openapi, apiStrategy('path'), Date.now()).versions[0].status; // 'deprecated'
 * ```
 */
function apiIndex(openapi: Json, api: ApiStrategy, now: number): Json {
  const info = openapi['info'] as { title: string; version: string; description?: string };
  const entries: IndexVersion[] = API_VERSIONS.map((v) => ({
    version: v.version,
    status:
      v.sunsetAt && Date.parse(v.sunsetAt) <= now
        ? 'sunset'
        : v.deprecatedAt && Date.parse(v.deprecatedAt) <= now
          ? 'deprecated'
          : 'current',
    default: v.version === api.defaultVersion,
    href: startOf(api, v.version),
    deprecated_at: v.deprecatedAt ?? null,
    sunset_at: v.sunsetAt ?? null,
    successor: v.successor ?? null,
  }));
  return {
    name: info.title,
    version: info.version,
    ...(info.description ? { description: info.description } : {}),
    versions: entries,
    links: {
      self: '/',
      openapi: '/openapi.json',
      docs: '/docs',
      changelog: '/changelog',
      token: '/oauth/token',
      jwks: '/.well-known/jwks.json',
      health: '/health',
      ready: '/ready',
      metrics: '/metrics',
      errors: '/errors',
    },
  };
}

function indexHtml(data: unknown, { language }: SerializeContext): string {
  const index = data as ReturnType<typeof apiIndex> & {
    versions: IndexVersion[];
    links: Record<string, string>;
  };
  const rows = index.versions
    .map(
      (v) =>
        `<tr><td><a href="/docs#/">v${escapeHtml(v.version)}</a></td><td class="status ${v.status}">${v.status}</td>` +
        `<td class="default">${v.default ? 'default' : ''}</td>` +
        `<td>${escapeHtml(v.deprecated_at ?? '–')}</td><td>${escapeHtml(v.sunset_at ?? '–')}</td><td>${escapeHtml(v.successor ? `v${v.successor}` : '–')}</td></tr>`,
    )
    .join('\n');
  const links = Object.entries(index.links)
    .filter(([rel]) => rel !== 'self')
    .map(
      ([rel, href]) => `<li><a href="${escapeHtml(href)}">${escapeHtml(href)}</a> (${escapeHtml(rel)})</li>`,
    )
    .join('\n');
  return page(
    String(index['name']),
    language,
    `<main>
<h1>${escapeHtml(index['name'])} <small>${escapeHtml(index['version'])}</small></h1>
<p>${escapeHtml(index['description'] ?? '')}</p>
<p><a href="/docs">Interactive API reference</a> · <a href="/openapi.json">OpenAPI document</a> · <a href="/changelog">Changelog</a></p>
<h2>API versions</h2>
<table><thead><tr><th>version</th><th>status</th><th>without a version</th><th>deprecated</th><th>sunset</th><th>successor</th></tr></thead>
<tbody>
${rows}
</tbody></table>
<h2>Links</h2>
<ul>
${links}
</ul>
</main>`,
  );
}

/**
 * How `GET /` negotiates: JSON (default), XML (the `ApiIndex` schema) or the HTML page, in English
 * or German. A wiring passes these options to its negotiation adapter's `negotiate`, then sets
 * `PAGE_HEADERS` (pages/html-pages.ts) and represents {@link frontDoorBody}.
 */
export function frontDoorNegotiation(openapi: Json): NegotiatorOptions {
  return {
    types: ['application/json', 'application/xml', 'text/html'],
    languages: ['en', 'de'],
    serializers: { 'application/xml': xmlSerializerFor(openapi), 'text/html': indexHtml },
  };
}

/**
 * What `GET /` represents as of `now`: the index document, marked with its XML schema. Each
 * version says where it starts and whether it is the one served without a version (`default`).
 *
 * @example
 * ```ts
 * represent(res, frontDoorBody(openapi, ctx.api, Date.now()));
 * ```
 */
export function frontDoorBody(openapi: Json, api: ApiStrategy, now: number): Json {
  return asXmlSchema('ApiIndex', apiIndex(openapi, api, now));
}
