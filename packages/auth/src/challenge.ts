import { HttpError, type HttpErrorOptions } from '@plumbline/errors';

/**
 * RFC 6750 section 3 error codes carried in a `Bearer` challenge.
 *
 * @example
 * ```ts
 * const code: BearerErrorCode = 'invalid_token';
 * ```
 */
export type BearerErrorCode = 'invalid_request' | 'invalid_token' | 'insufficient_scope';

/**
 * What goes into one `Bearer` challenge.
 *
 * @example
 * ```ts
 * const challenge: BearerChallenge = { realm: 'plumbline', error: 'invalid_token', description: 'The access token expired' };
 * ```
 */
export interface BearerChallenge {
  readonly realm: string;
  readonly error?: BearerErrorCode;
  readonly description?: string;
  readonly scopes?: readonly string[];
}

// RFC 6750 3: error_description is %x20-21 / %x23-5B / %x5D-7E (no `"`, no `\`, no controls).
const NOT_DESCRIPTION_CHAR = /[^\x20\x21\x23-\x5b\x5d-\x7e]/g;
// RFC 6750 3: scope-token is %x21 / %x23-5B / %x5D-7E.
const NOT_SCOPE_CHAR = /[^\x21\x23-\x5b\x5d-\x7e]/g;
const NOT_REALM_CHAR = /[^\x20\x21\x23-\x5b\x5d-\x7e]/g;

/**
 * Makes a string safe inside an RFC 6750 `error_description`: drops `"`, `\`, CR, LF and every
 * other character outside printable ASCII, and caps the length.
 *
 * @example
 * ```ts
 * sanitizeDescription('bad "x"\r\n'); // 'bad x'
 * ```
 */
export function sanitizeDescription(text: string, maxLength = 200): string {
  return text.replace(NOT_DESCRIPTION_CHAR, '').slice(0, maxLength).trim();
}

/**
 * Renders a `WWW-Authenticate` value for the `Bearer` scheme (RFC 6750 section 3).
 *
 * @example
 * ```ts
 * formatBearerChallenge({ realm: 'plumbline', error: 'insufficient_scope', scopes: ['write:projects'] });
 * // 'Bearer realm="plumbline", error="insufficient_scope", scope="write:projects"'
 * ```
 */
export function formatBearerChallenge(challenge: BearerChallenge): string {
  const parts = [`realm="${challenge.realm.replace(NOT_REALM_CHAR, '')}"`];
  if (challenge.error !== undefined) parts.push(`error="${challenge.error}"`);
  if (challenge.description !== undefined) {
    const description = sanitizeDescription(challenge.description);
    if (description !== '') parts.push(`error_description="${description}"`);
  }
  if (challenge.scopes !== undefined && challenge.scopes.length > 0) {
    const scopes = challenge.scopes.map((s) => s.replace(NOT_SCOPE_CHAR, '')).filter((s) => s !== '');
    if (scopes.length > 0) parts.push(`scope="${scopes.join(' ')}"`);
  }
  return `Bearer ${parts.join(', ')}`;
}

/**
 * Builds the HttpError for an authentication or authorization failure, with the matching `Bearer`
 * challenge in `WWW-Authenticate`.
 *
 * @example
 * ```ts
 * throw authError('invalid_token', { realm: 'plumbline', error: 'invalid_token', description: 'The access token expired' });
 * ```
 */
export function authError(
  code: 'unauthorized' | 'invalid_token' | 'invalid_request' | 'credentials_in_query' | 'insufficient_scope',
  challenge: BearerChallenge,
  options: Omit<HttpErrorOptions, 'headers'> = {},
): HttpError {
  return new HttpError(code, {
    ...options,
    headers: { 'WWW-Authenticate': formatBearerChallenge(challenge) },
  });
}
