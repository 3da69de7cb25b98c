import { ERROR_STATUS, type ErrorCode, isErrorCode } from './catalogue.js';
import type { MessageParams } from './messages.js';

const BRAND = Symbol.for('@plumbline/errors.HttpError');

/**
 * One problem inside a validation failure: where it is (`pointer` into the body per RFC 6901,
 * `parameter` of the query, or `header`), its code and, optionally, params or a fixed detail.
 *
 * @example
 * ```ts
 * const issue: FieldIssue = { parameter: 'sort', code: 'sort_field_not_allowed', params: { field: 'x' } };
 * ```
 */
export interface FieldIssue {
  readonly pointer?: string;
  readonly parameter?: string;
  readonly header?: string;
  readonly code: ErrorCode | (string & {});
  readonly params?: MessageParams;
  /** A fixed message; when absent the catalogue message for `code` is used (localized). */
  readonly detail?: string;
}

/**
 * Options for {@link HttpError}.
 *
 * @example
 * ```ts
 * const options: HttpErrorOptions = { params: { field: 'name' }, headers: { 'Retry-After': '1' } };
 * ```
 */
export interface HttpErrorOptions {
  /** Overrides the catalogue status (required for codes outside the catalogue). */
  readonly status?: number;
  /** Values for the catalogue message template, e.g. `{ field: 'name' }`. */
  readonly params?: MessageParams;
  /** A fixed human-readable message; overrides the (localized) catalogue message. Shown only when `expose`. */
  readonly detail?: string;
  /** Per-field problems; rendered as the `errors` member. */
  readonly errors?: readonly FieldIssue[];
  /** Response headers to add (`WWW-Authenticate`, `Retry-After`, `Allow`, ...). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Extra problem members (RFC 9457 extensions), e.g. `{ available: [...] }`. Never override standard ones. */
  readonly extensions?: Readonly<Record<string, unknown>>;
  /** Whether `detail` may be shown to the client. Defaults to true below 500, false from 500. */
  readonly expose?: boolean;
  /** The underlying error, for logs only; never sent. */
  readonly cause?: unknown;
}

/**
 * An HTTP error with a stable `error_code`. Throw it (or pass it to `next`) anywhere; the error
 * handler turns it into a problem document.
 *
 * @example
 * ```ts
 * throw new HttpError('sort_field_not_allowed', { params: { field: 'secret', allowed: ['name'] } });
 * throw new HttpError('teapot', { status: 418, detail: 'I am a teapot.' }); // a service's own code
 * ```
 */
export class HttpError extends Error {
  /** The HTTP status (400–599). */
  readonly status: number;
  /** The machine-readable code (`error_code` in the body). */
  readonly code: ErrorCode | (string & {});
  readonly params: MessageParams;
  readonly detail: string | undefined;
  readonly errors: readonly FieldIssue[];
  readonly headers: Readonly<Record<string, string>>;
  readonly extensions: Readonly<Record<string, unknown>>;
  readonly expose: boolean;

  constructor(code: ErrorCode | (string & {}), options: HttpErrorOptions = {}) {
    const known = isErrorCode(code);
    const status = options.status ?? (known ? ERROR_STATUS[code] : 500);
    if (!Number.isInteger(status) || status < 400 || status > 599) {
      throw new RangeError(`HttpError status must be an integer from 400 to 599, got ${status}`);
    }
    super(options.detail ?? code, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'HttpError';
    this.status = status;
    this.code = code;
    this.params = options.params ?? {};
    this.detail = options.detail;
    this.errors = options.errors ?? [];
    this.headers = options.headers ?? {};
    this.extensions = options.extensions ?? {};
    this.expose = options.expose ?? status < 500;
  }

  /** Cross-realm / cross-copy brand so `isHttpError` works when two copies of the package are installed. */
  get [BRAND](): true {
    return true;
  }
}

/**
 * True for an {@link HttpError}, including one created by another installed copy of this package.
 *
 * @example
 * ```ts
 * isHttpError(new HttpError('not_found')); // true
 * isHttpError(new Error('x')); // false
 * ```
 */
export function isHttpError(value: unknown): value is HttpError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}

type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;

/** One factory per catalogue code, named in camelCase (`notFound`, `invalidSort`, ...). */
export type HttpErrorFactories = {
  readonly [K in ErrorCode as CamelCase<K>]: (options?: HttpErrorOptions) => HttpError;
};

function camelCase(code: string): string {
  return code.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
}

/**
 * Factories for every catalogue code.
 *
 * @example
 * ```ts
 * throw httpErrors.notFound();
 * throw httpErrors.invalidSort({ params: { sort: 'a:up', reason: 'direction must be asc or desc' } });
 * ```
 */
export const httpErrors: HttpErrorFactories = Object.freeze(
  Object.fromEntries(
    (Object.keys(ERROR_STATUS) as ErrorCode[]).map((code) => [
      camelCase(code),
      (options?: HttpErrorOptions) => new HttpError(code, options),
    ]),
  ),
) as HttpErrorFactories;
