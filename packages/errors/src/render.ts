import { defaultCatalogue, type MessageCatalogue } from './catalogue-messages.js';
import { mergeVary } from './headers.js';
import { HttpError } from './http-error.js';
import { lookupLanguage } from './language.js';
import { type Problem, serializeProblem, toHttpError, toProblem } from './problem.js';

/**
 * Options for {@link createProblemRenderer}, {@link renderProblem} and every adapter's error handler.
 *
 * @example
 * ```ts
 * const options: ProblemRendererOptions = { docsBaseUrl: 'https://api.example.com/errors' };
 * ```
 */
export interface ProblemRendererOptions {
  /** Messages and languages. Default: built-in English and German. */
  readonly catalogue?: MessageCatalogue;
  /** Languages offered for error messages. Default: all languages of the catalogue. */
  readonly languages?: readonly string[];
  /** Language when Accept-Language matches none. Default: the catalogue's fallback (`en`). */
  readonly defaultLanguage?: string;
  /** Base of the `type` link. Default `/errors`. */
  readonly docsBaseUrl?: string;
  /** `WWW-Authenticate` added to a 401 that has none. Default `Bearer realm="plumbline"`. */
  readonly authenticateChallenge?: string;
  /** `Retry-After` seconds added to a 429 or 503 that has none. Default 1. */
  readonly retryAfterSeconds?: number;
}

/**
 * What the renderer needs to know about the request and the response so far.
 *
 * @example
 * ```ts
 * const input: ProblemRequest = { accept: 'application/xml', acceptLanguage: 'de', instance: '/v1/x', requestId: 'abc' };
 * ```
 */
export interface ProblemRequest {
  readonly accept?: string | undefined;
  readonly acceptLanguage?: string | undefined;
  /** The request path; a query string is cut off. */
  readonly instance?: string | undefined;
  readonly requestId?: string | undefined;
  /**
   * A header the response already carries (lower-case name in), so a default never replaces it
   * (`WWW-Authenticate`, `Retry-After`) and `Vary` is merged rather than overwritten.
   */
  readonly responseHeader?: ((lowerName: string) => unknown) | undefined;
}

/**
 * An error response, ready to send: set every header of `headers` (replacing), remove every
 * header of `removeHeaders`, answer with `status` and `body` (no body for HEAD).
 *
 * @example
 * ```ts
 * const { status, headers, body } = renderProblem(new HttpError('not_found'), { instance: '/x' });
 * ```
 */
export interface RenderedProblem {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** Headers describing a representation a failed handler may have started; an error body replaces it. */
  readonly removeHeaders: readonly string[];
  readonly body: string;
  /** The normalized error (for logs and hooks). */
  readonly error: HttpError;
  readonly problem: Problem;
}

/**
 * Response headers that describe a representation; an error body replaces that representation,
 * so they must not leak onto it.
 *
 * @example
 * ```ts
 * for (const name of REPRESENTATION_HEADERS) res.removeHeader(name);
 * ```
 */
export const REPRESENTATION_HEADERS: readonly string[] = Object.freeze([
  'content-length',
  'content-disposition',
  'content-range',
  'etag',
  'last-modified',
  'location',
]);

/**
 * A configured problem renderer: `(error, request) => RenderedProblem`.
 *
 * @example
 * ```ts
 * const render: ProblemRenderer = createProblemRenderer();
 * ```
 */
export type ProblemRenderer = (error: unknown, request?: ProblemRequest) => RenderedProblem;

/**
 * Builds the renderer every adapter (Express, Fastify, Hono, fetch) answers errors with, so they
 * all send the same bytes. Per error it normalizes the thrown value (`toHttpError`), picks the
 * language (RFC 4647 lookup over Accept-Language, never a 406) and the media type
 * (`problemMediaType`: problem+xml when XML is preferred, problem+json otherwise, never a 406),
 * builds the problem (`toProblem`) and computes the headers: the error's own, `WWW-Authenticate`
 * on a 401 and `Retry-After` on a 429/503 when none is set, `Vary: Accept, Accept-Language`
 * merged into the response's, `Content-Type`, `Content-Language` and `X-Content-Type-Options`.
 *
 * @example
 * ```ts
 * const render = createProblemRenderer({ docsBaseUrl: 'https://api.example.com/errors' });
 * const { status, headers, body } = render(new HttpError('not_found'), {
 *   accept: 'application/xml', acceptLanguage: 'de', instance: '/v1/projects/7', requestId: 'abc',
 * });
 * // status 404, headers['Content-Type'] 'application/problem+xml; charset=utf-8', Content-Language 'de'
 * ```
 */
export function createProblemRenderer(options: ProblemRendererOptions = {}): ProblemRenderer {
  const catalogue = options.catalogue ?? defaultCatalogue;
  const languages = options.languages ?? catalogue.languages;
  const defaultLanguage = options.defaultLanguage ?? catalogue.fallbackLanguage;
  const challenge = options.authenticateChallenge ?? 'Bearer realm="plumbline"';
  const retryAfter = String(options.retryAfterSeconds ?? 1);
  const docsBaseUrl = options.docsBaseUrl ?? '/errors';

  return (thrown, request = {}) => {
    const error = toHttpError(thrown);
    const language = lookupLanguage(request.acceptLanguage, languages, defaultLanguage);
    const problem = toProblem(error, {
      ...(request.instance !== undefined ? { instance: request.instance.split('?', 1)[0] ?? '/' } : {}),
      ...(request.requestId !== undefined ? { requestId: request.requestId } : {}),
      language,
      catalogue,
      docsBaseUrl,
    });
    const { body, contentType } = serializeProblem(problem, request.accept);
    const existing = (lower: string) => headerText(request.responseHeader?.(lower));
    const headers: Record<string, string> = {};
    const set = new Set<string>();
    let vary = existing('vary');
    for (const [name, value] of Object.entries(error.headers)) {
      const lower = name.toLowerCase();
      if (lower === 'vary') vary = value;
      else headers[name] = value;
      set.add(lower);
    }
    const missing = (lower: string) => !set.has(lower) && existing(lower) === undefined;
    if (error.status === 401 && missing('www-authenticate')) headers['WWW-Authenticate'] = challenge;
    if ((error.status === 429 || error.status === 503) && missing('retry-after'))
      headers['Retry-After'] = retryAfter;
    headers['Vary'] = mergeVary(vary, 'Accept, Accept-Language');
    headers['Content-Type'] = contentType;
    headers['Content-Language'] = language;
    headers['X-Content-Type-Options'] = 'nosniff';
    return { status: error.status, headers, removeHeaders: REPRESENTATION_HEADERS, body, error, problem };
  };
}

// Frameworks give header values as strings, numbers or arrays of lines.
function headerText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return Array.isArray(value) ? value.join(', ') : String(value);
}

const defaultRenderer = createProblemRenderer();

/**
 * Renders one error as a complete problem response with the default options (see
 * {@link createProblemRenderer}; create a renderer once when you pass options).
 *
 * @example
 * ```ts
 * const { status, headers, body } = renderProblem(new HttpError('not_found'), {
 *   accept: 'application/json;q=0.1, application/xml', instance: '/projects/7', requestId: 'abc',
 * });
 * // 404, problem+xml, Vary 'Accept, Accept-Language', Content-Language 'en'
 * ```
 */
export function renderProblem(
  error: unknown,
  request: ProblemRequest = {},
  options?: ProblemRendererOptions,
): RenderedProblem {
  return (options === undefined ? defaultRenderer : createProblemRenderer(options))(error, request);
}

/**
 * Options for {@link createMethodGuard}.
 *
 * @example
 * ```ts
 * const options: MethodNotAllowedOptions = { handleOptions: false };
 * ```
 */
export interface MethodNotAllowedOptions {
  /** Answer OPTIONS with 204 and `Allow` instead of 405. Default true. */
  readonly handleOptions?: boolean;
}

/**
 * What a {@link MethodGuard} says about a method that reached the end of a route: an OPTIONS
 * answer (204 with `Allow`), or the 405 error to render.
 *
 * @example
 * ```ts
 * const answer: MethodAnswer = { status: 204, headers: { Allow: 'GET, HEAD, OPTIONS' } };
 * ```
 */
export type MethodAnswer = { readonly status: 204; readonly headers: { readonly Allow: string } } | HttpError;

/**
 * A configured 405 rule: `allow` is the `Allow` value, `answer(method)` what to send.
 *
 * @example
 * ```ts
 * const guard: MethodGuard = createMethodGuard(['GET']);
 * ```
 */
export interface MethodGuard {
  readonly allow: string;
  /** What to send for `method`: the OPTIONS answer, or the 405 error. */
  answer(method: string): MethodAnswer;
}

/**
 * The 405 logic every adapter shares: `allowed` plus `HEAD` when `GET` is allowed, plus
 * `OPTIONS` (answered with 204 and `Allow`) unless `handleOptions` is false; any other method gets
 * 405 `method_not_allowed` with the same `Allow`.
 *
 * @example
 * ```ts
 * const guard = createMethodGuard(['GET', 'POST']);
 * guard.allow; // 'GET, POST, HEAD, OPTIONS'
 * guard.answer('DELETE'); // HttpError 405 with headers { Allow: 'GET, POST, HEAD, OPTIONS' }
 * guard.answer('OPTIONS'); // { status: 204, headers: { Allow: 'GET, POST, HEAD, OPTIONS' } }
 * ```
 */
export function createMethodGuard(
  allowed: readonly string[],
  options: MethodNotAllowedOptions = {},
): MethodGuard {
  const methods = new Set(allowed.map((m) => m.toUpperCase()));
  if (methods.has('GET')) methods.add('HEAD');
  const handleOptions = options.handleOptions ?? true;
  if (handleOptions) methods.add('OPTIONS');
  const listed = [...methods];
  const allow = listed.join(', ');
  const preflight = Object.freeze({ status: 204 as const, headers: Object.freeze({ Allow: allow }) });
  return Object.freeze({
    allow,
    answer: (method: string): MethodAnswer =>
      handleOptions && method.toUpperCase() === 'OPTIONS'
        ? preflight
        : new HttpError('method_not_allowed', {
            headers: { Allow: allow },
            params: { method, allowed: listed },
          }),
  });
}

/**
 * What an error handler's `onError` hook receives; `Req` is the framework's request type.
 *
 * @example
 * ```ts
 * const log = (event: ErrorEvent) => logger.error({ status: event.error.status, err: event.original });
 * ```
 */
export interface ErrorEvent<Req = unknown> {
  /** The normalized error that was sent. */
  readonly error: HttpError;
  /** Whatever was thrown (for a 500: the real cause, for your logs only). */
  readonly original: unknown;
  readonly req: Req;
  /** True when headers were already sent and the connection is closed instead of answered. */
  readonly headersSent: boolean;
}

/**
 * Options of every adapter's error handler: the renderer's options plus a logging hook.
 *
 * @example
 * ```ts
 * const options: ErrorHandlerOptions = { docsBaseUrl: 'https://api.example.com/errors', onError: (e) => log.error(e) };
 * ```
 */
export interface ErrorHandlerOptions<Req = unknown> extends ProblemRendererOptions {
  /** Called for every error with the original thrown value. Default: `console.error` for 5xx. */
  readonly onError?: (event: ErrorEvent<Req>) => void;
}

/**
 * Hands an error event to `onError` (default: `console.error` for 5xx). A failing logger is
 * swallowed: it must not turn into a second error.
 *
 * @example
 * ```ts
 * reportError(options.onError, { error, original: thrown, req, headersSent: false });
 * ```
 */
export function reportError<Req>(
  onError: ((event: ErrorEvent<Req>) => void) | undefined,
  event: ErrorEvent<Req>,
): void {
  try {
    if (onError) onError(event);
    else if (event.error.status >= 500)
      console.error('[plumbline] request failed with status', event.error.status, event.original);
  } catch {
    // A failing logger must not turn into a second error.
  }
}
