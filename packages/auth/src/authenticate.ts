import { type ApiKeyOptions, verifyApiKey } from './api-keys.js';
import { authError } from './challenge.js';
import { type CredentialInput, compileCredentialOptions, extractWith } from './credentials.js';
import { createJwtVerifier, fastVerify, type JwtVerifier, type JwtVerifierOptions } from './jwt.js';
import type { Principal } from './principal.js';

/**
 * Options for {@link createAuthenticator} (and the Express `authenticate()`).
 *
 * @example
 * ```ts
 * const options: AuthenticateOptions = { apiKeys: { store }, jwt: { issuers: [trusted] } };
 * ```
 */
export interface AuthenticateOptions {
  /** Accept `X-API-Key`. Without it an API key header counts as no credential. */
  readonly apiKeys?: Omit<ApiKeyOptions, 'realm'>;
  /** Accept bearer JWTs: verifier options, or a verifier shared with other routes. */
  readonly jwt?: JwtVerifierOptions | JwtVerifier;
  /** A request without credentials passes with no principal (invalid credentials still fail). Default false. */
  readonly optional?: boolean;
  /** Realm of every `Bearer` challenge. Default `plumbline`. */
  readonly realm?: string;
  /** Query parameters refused as credentials. Default `access_token`, `api_key`, `apikey`, `token`. */
  readonly queryParameters?: readonly string[];
  /** API key header. Default `X-API-Key`. */
  readonly apiKeyHeader?: string;
}

/**
 * A configured authenticator.
 *
 * @example
 * ```ts
 * const principal = await authenticator.authenticate({ rawHeaders, query });
 * ```
 */
export interface Authenticator {
  /** The principal, `undefined` for an anonymous request when `optional`, or a thrown HttpError. */
  authenticate(input: CredentialInput): Promise<Principal | undefined>;
  readonly realm: string;
}

function isVerifier(value: JwtVerifierOptions | JwtVerifier): value is JwtVerifier {
  return typeof (value as JwtVerifier).verify === 'function';
}

/**
 * What the adapters call: {@link Authenticator.authenticate}, but the principal comes back
 * synchronously when nothing had to be awaited (a verified-token cache hit without a revocation
 * list, an anonymous optional request). Failures come back as a rejected promise, never thrown.
 */
export interface AuthenticatorCore extends Authenticator {
  resolve(input: CredentialInput): Principal | undefined | Promise<Principal | undefined>;
}

/**
 * Combines credential extraction, API keys and bearer JWTs into one check. Either mechanism
 * authenticates; a request carrying both is refused.
 *
 * @example
 * ```ts
 * const authenticator = createAuthenticator({ apiKeys: { store }, jwt: { issuers: [trusted] } });
 * const principal = await authenticator.authenticate({ rawHeaders: ['X-API-Key', key] });
 * ```
 */
export function createAuthenticator(options: AuthenticateOptions): Authenticator {
  const { realm, authenticate } = createAuthenticatorCore(options);
  return { realm, authenticate };
}

/** {@link createAuthenticator} for the adapters, with the synchronous {@link AuthenticatorCore.resolve}. */
export function createAuthenticatorCore(options: AuthenticateOptions): AuthenticatorCore {
  if (options.apiKeys === undefined && options.jwt === undefined) {
    throw new TypeError('configure apiKeys, jwt or both');
  }
  const realm = options.realm ?? 'plumbline';
  const extractOptions = compileCredentialOptions({
    realm,
    ...(options.queryParameters ? { queryParameters: options.queryParameters } : {}),
    ...(options.apiKeyHeader ? { apiKeyHeader: options.apiKeyHeader } : {}),
  });
  const verify =
    options.jwt === undefined
      ? undefined
      : fastVerify(isVerifier(options.jwt) ? options.jwt : createJwtVerifier({ realm, ...options.jwt }));
  const apiKeys = options.apiKeys === undefined ? undefined : { ...options.apiKeys, realm };
  const optional = options.optional ?? false;

  function resolve(input: CredentialInput): Principal | undefined | Promise<Principal | undefined> {
    try {
      return settle(input);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  function settle(input: CredentialInput): Principal | undefined | Promise<Principal | undefined> {
    const credentials = extractWith(input, extractOptions);
    if (credentials.type === 'bearer' && verify !== undefined) return verify(credentials.token);
    if (credentials.type === 'api_key' && apiKeys !== undefined)
      return verifyApiKey(credentials.key, apiKeys);
    if (credentials.type === 'bearer') {
      // A bearer token on a route that only takes API keys: not a usable credential (RFC 6750 3.1).
      throw authError('invalid_token', {
        realm,
        error: 'invalid_token',
        description: 'Bearer tokens are not accepted here',
      });
    }
    if (optional) return undefined;
    throw authError('unauthorized', { realm });
  }

  return {
    realm,
    resolve,
    async authenticate(input) {
      return resolve(input);
    },
  };
}
