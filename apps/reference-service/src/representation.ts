/**
 * Sending representations: one member, or a page of a collection, in the negotiated media type
 * (JSON or XML) with the pagination envelope and the RFC 8288 Link header.
 */
import { represent } from '@plumbline/negotiation/express';
import { buildPage, type CollectionQuery } from '@plumbline/query-parser';
import { setPageHeaders } from '@plumbline/query-parser/express';
import { getApiVersion } from '@plumbline/versioning/express';
import type { Request, Response } from 'express';
import { selectFields } from './domain/model.js';
import { asXmlSchema } from './xml-representation.js';

/** The page schema of a collection URL in a version (`/projects`, v2 → `ProjectV2Page`), for the XML shape. */
function pageSchema(url: string, version: string | undefined): string {
  const name = url.split('/').at(-1);
  if (name === 'projects') return `ProjectV${version}Page`;
  return name === 'comments' ? 'CommentPage' : 'TaskPage';
}

/** The collection URL of a request: the path, without a trailing `/search`. */
function collectionUrl(req: Request): string {
  return `${req.baseUrl}${req.path}`.replace(/\/search\/?$/, '').replace(/\/$/, '');
}

/**
 * Sends one page: `rows` are the `limit + 1` rows the query returned; `toRepresentation` turns a row
 * into what the client sees, before the client's field selection is applied.
 */
export function sendCollection(
  req: Request,
  res: Response,
  query: CollectionQuery,
  rows: readonly Record<string, unknown>[],
  total: number | string | undefined,
  toRepresentation: (row: Record<string, unknown>) => Record<string, unknown>,
  link: (url: string) => string = (url) => url,
): void {
  const built = buildPage(query, rows, {
    baseUrl: collectionUrl(req),
    ...(total !== undefined ? { total } : {}),
  });
  // The versioning strategy may put the version into every link (`?version=2`).
  const links = Object.fromEntries(Object.entries(built.body.links).map(([rel, url]) => [rel, link(url)]));
  const page = {
    body: { ...built.body, links },
    link: Object.entries(links)
      .map(([rel, url]) => `<${url}>; rel="${rel}"`)
      .join(', '),
  };
  const data = rows
    .slice(0, query.pagination.limit)
    .map((row) => selectFields(toRepresentation(row), query.fields));
  setPageHeaders(res, page);
  represent(res, asXmlSchema(pageSchema(collectionUrl(req), getApiVersion(req)), { ...page.body, data }));
}

/** Sends a created member: 201 with `Location` (docs/conventions.md 4.2 (6)). */
export function sendCreated(res: Response, location: string, body: Record<string, unknown>): void {
  res.location(location);
  represent(res, body, 201);
}
