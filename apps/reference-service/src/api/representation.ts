/**
 * What a resource handler answers ({@link Outcome}), and the page of a collection in a form every
 * wiring sends the same way: the pagination envelope and the RFC 8288 Link header, in the media
 * type the wiring negotiated (JSON or XML). Framework-neutral: no request or response here.
 */
import { buildPage, type CollectionQuery, type Page } from '@plumbline/query-parser';
import { type ApiVersion, selectFields } from '../domain/model.js';
import { asXmlSchema } from '../domain/schema-name.js';

/**
 * A handler's answer. The wiring sends `body` with its negotiation adapter's `represent` (which
 * adds Content-Type, Content-Language, Vary and ETag, and answers 304 where a GET allows it),
 * after setting `Location` for a created member or the page headers (Link, Vary: Prefer,
 * Preference-Applied) with its query-parser adapter's `setPageHeaders`. 204 has no body.
 */
export type Outcome =
  | { readonly status: 200; readonly body: Record<string, unknown>; readonly page?: Page }
  | { readonly status: 201; readonly body: Record<string, unknown>; readonly location: string }
  | { readonly status: 204 };

/** 200 with a member's representation. */
export const represented = (body: Record<string, unknown>): Outcome => ({ status: 200, body });

/** A created member: 201 with `Location` (docs/conventions.md 4.2 (6)). */
export const created = (location: string, body: Record<string, unknown>): Outcome => ({
  status: 201,
  body,
  location,
});

/** 204, no body (a DELETE). */
export const noContent: Outcome = { status: 204 };

/** The page schema of a collection URL in a version (`/projects`, v2 → `ProjectV2Page`), for the XML shape. */
function pageSchema(url: string, version: ApiVersion): string {
  const name = url.split('/').at(-1);
  if (name === 'projects') return `ProjectV${version}Page`;
  return name === 'comments' ? 'CommentPage' : 'TaskPage';
}

/** The collection URL of a request path (as the client wrote it): without a trailing `/search`. */
function collectionUrl(path: string): string {
  return path.replace(/\/search\/?$/, '').replace(/\/$/, '');
}

/** Where a page is served: the request path, the version, and how the versioning strategy shapes its links. */
export interface PageTarget {
  readonly path: string;
  readonly version: ApiVersion;
  /** The versioning strategy may put the version into every link (`?version=2`). */
  readonly link: (url: string) => string;
}

/**
 * One page: `rows` are the `limit + 1` rows the query returned; `toRepresentation` turns a row
 * into what the client sees, before the client's field selection is applied.
 */
export function pageOutcome(
  query: CollectionQuery,
  rows: readonly Record<string, unknown>[],
  total: number | string | undefined,
  toRepresentation: (row: Record<string, unknown>) => Record<string, unknown>,
  target: PageTarget,
): Outcome {
  const url = collectionUrl(target.path);
  const built = buildPage(query, rows, { baseUrl: url, ...(total !== undefined ? { total } : {}) });
  const links = Object.fromEntries(
    Object.entries(built.body.links).map(([rel, href]) => [rel, target.link(href)]),
  );
  const page: Page = {
    body: { ...built.body, links },
    link: Object.entries(links)
      .map(([rel, href]) => `<${href}>; rel="${rel}"`)
      .join(', '),
  };
  const data = rows
    .slice(0, query.pagination.limit)
    .map((row) => selectFields(toRepresentation(row), query.fields));
  return {
    status: 200,
    page,
    body: asXmlSchema(pageSchema(url, target.version), { ...page.body, data }),
  };
}
