/**
 * Version-neutral documentation the API links to: one page per error code (the `type` of every
 * problem points here; each page links to the section of docs/design.md that explains the code) and the deprecation and sunset pages of the version policy's `Link` headers.
 */

import { STATUS_CODES } from 'node:http';
import {
  defaultCatalogue,
  ERROR_CODES,
  ERROR_STATUS,
  HttpError,
  isErrorCode,
  lookupLanguage,
} from '@plumbline/errors';
import type { NegotiatorOptions } from '@plumbline/negotiation';
import type { PlainReply } from '../service/plain-reply.js';
import { errorCodePage } from './html-pages.js';

type ErrorCode = (typeof ERROR_CODES)[number];

const DESIGN_URL = 'https://github.com/plumbline/plumbline/blob/main/docs/design.md';

/** The section of docs/design.md that explains a code; codes not listed are covered by `d-errors`. */
const DESIGN_SECTION: Partial<Record<ErrorCode, string>> = {
  gone: 'd-delete',
  idempotency_key_missing: 'd-idempotency',
  idempotency_key_invalid: 'd-idempotency',
  idempotency_key_in_use: 'd-idempotency',
  idempotency_key_reused: 'd-idempotency',
  invalid_sort: 'd-sort',
  sort_field_not_allowed: 'd-sort',
  search_too_short: 'd-search',
  search_too_long: 'd-search',
  invalid_pagination: 'd-pagination',
  conflicting_pagination: 'd-pagination',
  limit_too_large: 'd-pagination',
  invalid_cursor: 'd-pagination',
  unknown_parameter: 'd-filters',
  duplicate_parameter: 'd-filters',
  field_not_filterable: 'd-filters',
  operator_not_allowed: 'd-filters',
  field_not_selectable: 'd-filters',
  not_acceptable: 'd-negotiation',
  unsupported_media_type: 'd-negotiation',
  credentials_in_query: 'd-auth',
  unauthorized: 'd-auth',
  invalid_token: 'd-auth',
  insufficient_scope: 'd-auth',
  https_required: 'd-auth',
  invalid_grant: 'd-auth',
  unsupported_api_version: 'd-versioning',
  ambiguous_api_version: 'd-versioning',
  invalid_api_version: 'd-versioning',
  api_version_sunset: 'd-versioning',
  payload_too_large: 'd-limits',
  rate_limited: 'd-limits',
  query_too_long: 'd-limits',
  headers_too_large: 'd-limits',
  malformed_request: 'd-limits',
  request_timeout: 'd-limits',
  precondition_failed: 'd-conditional',
  precondition_required: 'd-conditional',
};

function describeCode(code: ErrorCode, language: string) {
  const status = ERROR_STATUS[code];
  return {
    error_code: code,
    status,
    title: STATUS_CODES[status] ?? 'Error',
    description: defaultCatalogue.format(code, undefined, language, status),
    type: `/errors/${code}`,
    documentation: `${DESIGN_URL}#${DESIGN_SECTION[code] ?? 'd-errors'}`,
  };
}

function language(acceptLanguage: string | undefined): string {
  return lookupLanguage(acceptLanguage, defaultCatalogue.languages, 'en');
}

/** What one error code's documentation holds (the JSON of `/errors/{code}`, the data of its HTML page). */
export type ErrorCodeDocument = ReturnType<typeof describeCode>;

/**
 * `GET /errors`: every error code described in the language `Accept-Language` asks for (`en`
 * by default). A wiring sets `Content-Language: language`, adds `Accept-Language` to `Vary`, and
 * sends `body` as JSON.
 */
export function errorCatalogue(acceptLanguage: string | undefined): {
  readonly language: string;
  readonly body: { readonly data: readonly ErrorCodeDocument[] };
} {
  const lang = language(acceptLanguage);
  return { language: lang, body: { data: ERROR_CODES.map((code) => describeCode(code, lang)) } };
}

/**
 * `GET /errors/{code}`: the code's document, or throws 404 `not_found` for an unknown code. The
 * wiring negotiates with {@link ERROR_PAGE_NEGOTIATION}, sets `PAGE_HEADERS` (pages/html-pages.ts) and
 * represents the document.
 */
export function errorCodeDocument(code: unknown, acceptLanguage: string | undefined): ErrorCodeDocument {
  if (typeof code !== 'string' || !isErrorCode(code)) throw new HttpError('not_found');
  return describeCode(code, language(acceptLanguage));
}

/** JSON for programs, an HTML page for a browser that followed a problem's `type` link. */
export const ERROR_PAGE_NEGOTIATION: NegotiatorOptions = {
  types: ['application/json', 'text/html'],
  languages: defaultCatalogue.languages,
  serializers: {
    'text/html': (data, { language: lang }) => errorCodePage(data as ErrorCodeDocument, lang),
  },
};

const DEPRECATION_V1 = `Version 1 of this API is deprecated.

What changes in version 2: a project's "budget" is an object {"amount": number, "currency": "EUR" | "USD" | "GBP" | "CHF" | "JPY"}
instead of a bare number (v1 shows the amount in the project's currency). Everything else is the same.

Migrate by replacing /v1/ with /v2/ in your URLs and reading budget.amount and budget.currency.
Every v1 response carries Deprecation, Sunset and Link headers; after the Sunset date v1 answers 410 api_version_sunset.
`;

const SUNSET_POLICY = `Sunset policy: a deprecated API version stays available for at least twelve months after its
Deprecation date. Its Sunset header (RFC 8594) gives the date after which it answers 410 Gone.
`;

const TEXT_TYPE = 'text/plain; charset=utf-8';

/** The plain-text pages the version policy's `Link` headers point to, by path. */
export const TEXT_PAGES: Readonly<Record<string, PlainReply>> = {
  '/docs/deprecations/v1': { status: 200, headers: { 'Content-Type': TEXT_TYPE }, body: DEPRECATION_V1 },
  '/docs/sunset-policy': { status: 200, headers: { 'Content-Type': TEXT_TYPE }, body: SUNSET_POLICY },
};
