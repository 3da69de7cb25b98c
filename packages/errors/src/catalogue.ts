/**
 * The error_code catalogue ({@link https://github.com/plumbline/plumbline/blob/main/docs/design.md#d-errors | design: errors}): every code a Plumbline package raises, with the
 * HTTP status it is sent with by default. Codes are stable: clients match on them.
 */
export const ERROR_STATUS = {
  bad_request: 400,
  validation_failed: 400,
  malformed_json: 400,
  unknown_parameter: 400,
  duplicate_parameter: 400,
  invalid_value: 400,
  invalid_sort: 400,
  sort_field_not_allowed: 400,
  field_not_filterable: 400,
  operator_not_allowed: 400,
  field_not_selectable: 400,
  search_too_short: 400,
  search_too_long: 400,
  invalid_pagination: 400,
  conflicting_pagination: 400,
  limit_too_large: 400,
  invalid_cursor: 400,
  credentials_in_query: 400,
  invalid_request: 400,
  invalid_grant: 400,
  unsupported_api_version: 400,
  ambiguous_api_version: 400,
  invalid_api_version: 400,
  idempotency_key_missing: 400,
  idempotency_key_invalid: 400,
  query_too_long: 400,
  malformed_request: 400,
  unauthorized: 401,
  invalid_token: 401,
  forbidden: 403,
  insufficient_scope: 403,
  https_required: 403,
  csrf_rejected: 403,
  not_found: 404,
  method_not_allowed: 405,
  not_acceptable: 406,
  request_timeout: 408,
  conflict: 409,
  idempotency_key_in_use: 409,
  gone: 410,
  api_version_sunset: 410,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  precondition_required: 428,
  rate_limited: 429,
  headers_too_large: 431,
  internal_error: 500,
  service_unavailable: 503,
  gateway_timeout: 504,
} as const satisfies Record<string, number>;

/**
 * A code from the built-in catalogue.
 *
 * @example
 * ```ts
 * const code: ErrorCode = 'invalid_sort';
 * ```
 */
export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * All built-in codes, in catalogue order.
 *
 * @example
 * ```ts
 * ERROR_CODES.includes('not_found'); // true
 * ```
 */
export const ERROR_CODES = Object.freeze(Object.keys(ERROR_STATUS) as ErrorCode[]);

/**
 * True when `code` is one of the built-in catalogue codes.
 *
 * @example
 * ```ts
 * isErrorCode('gone'); // true
 * isErrorCode('teapot'); // false
 * ```
 */
export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_STATUS, code);
}

/**
 * The code used when an error from elsewhere (a body parser, `http-errors`) carries only a status.
 * Statuses without a code of their own fall back to `bad_request` (4xx) or `internal_error` (5xx),
 * and the status follows the code, so `status` and `error_code` always agree.
 *
 * @example
 * ```ts
 * codeForStatus(404); // 'not_found'
 * codeForStatus(418); // 'bad_request'
 * ```
 */
export function codeForStatus(status: number): ErrorCode {
  switch (status) {
    case 400:
      return 'bad_request';
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    case 404:
      return 'not_found';
    case 405:
      return 'method_not_allowed';
    case 406:
      return 'not_acceptable';
    case 408:
      return 'request_timeout';
    case 409:
      return 'conflict';
    case 410:
      return 'gone';
    case 412:
      return 'precondition_failed';
    case 413:
      return 'payload_too_large';
    case 415:
      return 'unsupported_media_type';
    case 428:
      return 'precondition_required';
    case 429:
      return 'rate_limited';
    case 431:
      return 'headers_too_large';
    case 503:
      return 'service_unavailable';
    case 504:
      return 'gateway_timeout';
    default:
      return status >= 400 && status < 500 ? 'bad_request' : 'internal_error';
  }
}
