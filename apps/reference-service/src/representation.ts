/**
 * Sending representations: one member, or a page of a collection, in the negotiated media type
 * (JSON or XML) with the pagination envelope and the RFC 8288 Link header.
 */
import { represent } from '@plumbline/negotiation/express';
import { buildPage, type CollectionQuery } from '@plumbline/query-parser';
import { setPageHeaders } from '@plumbline/query-parser/express';
import type { Request, Response } from 'express';
import { selectFields } from './domain/model.js';
import { asXmlSchema } from './xml-representation.js';

/** The page schema of a collection URL (`/v2/projects` → `ProjectV2Page`), for the XML shape. */
function pageSchema(url: string): string {
  const segments = url.split('/');
  const name = segments.at(-1);
  if (name === 'projects') return `Project${segments[1]?.toUpperCase()}Page`;
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
): void {
  const page = buildPage(query, rows, {
    baseUrl: collectionUrl(req),
    ...(total !== undefined ? { total } : {}),
  });
  const data = rows
    .slice(0, query.pagination.limit)
    .map((row) => selectFields(toRepresentation(row), query.fields));
  setPageHeaders(res, page);
  represent(res, asXmlSchema(pageSchema(collectionUrl(req)), { ...page.body, data }));
}

/** Sends a created member: 201 with `Location` (docs/conventions.md 4.2 (6)). */
export function sendCreated(res: Response, location: string, body: Record<string, unknown>): void {
  res.location(location);
  represent(res, body, 201);
}
