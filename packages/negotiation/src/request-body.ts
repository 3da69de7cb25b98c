import { HttpError } from '@plumbline/errors';
import { isJsonType, parseMediaType } from './media-type.js';

/**
 * What {@link checkRequestBody} needs to know about a request.
 *
 * @example
 * ```ts
 * const input: RequestBodyInput = {
 *   contentType: 'text/plain', hasBody: true, method: 'POST', accepted: ['application/json'],
 * };
 * ```
 */
export interface RequestBodyInput {
  /** The Content-Type header, as sent. */
  readonly contentType: string | undefined;
  /** Whether the request carries a body (a positive Content-Length or a Transfer-Encoding). */
  readonly hasBody: boolean;
  readonly method: string;
  /**
   * Accepted body types: exact (`application/json`), `type/*`, `*\/*` or a structured-suffix
   * wildcard (`application/*+json`). Compiled once per array, so pass the same array every time.
   */
  readonly accepted: readonly string[];
}

/**
 * The outcome of {@link checkRequestBody}: the matched type (lower-cased, without parameters;
 * `undefined` when there is no body), or a 415 `unsupported_media_type` error.
 *
 * @example
 * ```ts
 * const result: RequestBodyResult = { ok: true, mediaType: 'application/merge-patch+json' };
 * ```
 */
export type RequestBodyResult =
  | { readonly ok: true; readonly mediaType: string | undefined }
  | { readonly ok: false; readonly error: HttpError };

interface CompiledAccepted {
  readonly exact: ReadonlySet<string>;
  readonly prefixes: readonly string[];
  readonly suffixes: readonly { readonly type: string; readonly suffix: string }[];
  readonly any: boolean;
  readonly list: readonly string[];
  readonly header: string;
}

const compiled = new WeakMap<readonly string[], CompiledAccepted>();

function compile(accepted: readonly string[]): CompiledAccepted {
  if (accepted.length === 0) throw new TypeError('accepted must list at least one media type');
  const exact = new Set<string>();
  const prefixes: string[] = [];
  const suffixes: { type: string; suffix: string }[] = [];
  let any = false;
  const list: string[] = [];
  for (const entry of accepted) {
    const parsed = parseMediaType(entry);
    if (!parsed) throw new TypeError(`Invalid accepted media type "${entry}"`);
    const { essence } = parsed;
    const [type = '', subtype = ''] = essence.split('/');
    if (essence === '*/*') any = true;
    else if (subtype === '*' && type !== '*') prefixes.push(`${type}/`);
    else if (subtype.startsWith('*+') && type !== '*') suffixes.push({ type, suffix: subtype.slice(1) });
    else if (!essence.includes('*')) exact.add(essence);
    else throw new TypeError(`Invalid accepted media type "${entry}"`);
    if (!list.includes(essence)) list.push(essence);
  }
  return { exact, prefixes, suffixes, any, list, header: list.join(', ') };
}

/** The rules of `accepted`, compiled once per array (the JSON body reader matches with them too). */
export function compiledFor(accepted: readonly string[]): CompiledAccepted {
  let entry = compiled.get(accepted);
  if (!entry) {
    entry = compile(accepted);
    compiled.set(accepted, entry);
  }
  return entry;
}

/** Whether `essence` (lower-cased, without parameters) is one of the compiled types. */
export function matches(rules: CompiledAccepted, essence: string): boolean {
  if (rules.any || rules.exact.has(essence)) return true;
  if (rules.prefixes.some((prefix) => essence.startsWith(prefix))) return true;
  return rules.suffixes.some(
    ({ type, suffix }) => essence.startsWith(`${type}/`) && essence.endsWith(suffix),
  );
}

// RFC 8259 section 8.1: JSON exchanged between systems is UTF-8; another charset is not JSON we read.
function acceptableCharset(essence: string, params: Readonly<Record<string, string>>): boolean {
  const charset = params['charset'];
  return charset === undefined || !isJsonType(essence) || charset.toLowerCase() === 'utf-8';
}

/** The response header that lists what a method accepts (RFC 5789 section 3.1, W3C LDP 7.1). */
function hintHeader(method: string): string {
  const upper = method.toUpperCase();
  if (upper === 'POST') return 'Accept-Post';
  if (upper === 'PATCH') return 'Accept-Patch';
  return 'Accept';
}

/**
 * Checks a request body's Content-Type ({@link https://github.com/plumbline/plumbline/blob/main/docs/conventions.md#r-4-5-4 | conventions 4.5 (4)}). A request without a body always
 * passes (a GET or DELETE is never a 415). A body with no Content-Type, an unparseable one, a type
 * outside `accepted`, or JSON in a charset other than UTF-8 is 415 `unsupported_media_type`,
 * carrying `Accept-Post` (POST), `Accept-Patch` (PATCH) or `Accept` (other methods) with the
 * accepted types.
 *
 * @example
 * ```ts
 * const accepted = ['application/json', 'application/merge-patch+json'];
 * checkRequestBody({ contentType: 'application/json; charset=utf-8', hasBody: true, method: 'POST', accepted });
 * // { ok: true, mediaType: 'application/json' }
 * const result = checkRequestBody({ contentType: 'application/xml', hasBody: true, method: 'PATCH', accepted });
 * // result.ok === false; result.error.status === 415;
 * // result.error.headers: { 'Accept-Patch': 'application/json, application/merge-patch+json' }
 * ```
 */
export function checkRequestBody(input: RequestBodyInput): RequestBodyResult {
  const rules = compiledFor(input.accepted);
  if (!input.hasBody) return { ok: true, mediaType: undefined };
  const raw = typeof input.contentType === 'string' ? input.contentType.trim() : '';
  const parsed = raw === '' ? undefined : parseMediaType(raw);
  if (parsed && matches(rules, parsed.essence) && acceptableCharset(parsed.essence, parsed.params)) {
    return { ok: true, mediaType: parsed.essence };
  }
  const type = parsed ? (parsed.params['charset'] === undefined ? parsed.essence : raw) : raw;
  return {
    ok: false,
    error: new HttpError('unsupported_media_type', {
      params: type === '' ? { supported: rules.list } : { type, supported: rules.list },
      headers: { [hintHeader(input.method)]: rules.header },
    }),
  };
}
