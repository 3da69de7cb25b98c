import { createHash, timingSafeEqual } from 'node:crypto';
import { isHttpError } from '@plumbline/errors';
import type { AccessTokenReservation, Issuer } from './create-issuer.js';
import type { JwtVerifier } from './jwt.js';
import type { RevocationStore } from './revocation.js';

/**
 * A registered confidential client.
 *
 * @example
 * ```ts
 * const client: OAuthClient = { clientId: 'reporting', secret: process.env.REPORTING_SECRET!, scopes: ['read:projects', 'offline_access'] };
 * ```
 */
export interface OAuthClient {
  readonly clientId: string;
  /** The secret, or its SHA-256 hex in `secretHash`; either is compared in constant time. */
  readonly secret?: string;
  readonly secretHash?: string;
  /** Scopes the client may request; `offline_access` allows refresh tokens. */
  readonly scopes: readonly string[];
  /** Grants the client may use. Default both. */
  readonly grantTypes?: readonly ('client_credentials' | 'refresh_token')[];
}

/**
 * Options for {@link createTokenEndpoint}.
 *
 * @example
 * ```ts
 * const options: TokenEndpointOptions = { issuer, clients: [client] };
 * ```
 */
export interface TokenEndpointOptions {
  readonly issuer: Issuer;
  /** The clients, or a lookup (for example backed by a database). */
  readonly clients:
    | readonly OAuthClient[]
    | ((clientId: string) => OAuthClient | undefined | Promise<OAuthClient | undefined>);
  /** Realm of the `Basic` challenge on `invalid_client`. Default `plumbline`. */
  readonly realm?: string;
}

/**
 * A token request as plain values.
 *
 * @example
 * ```ts
 * const request: TokenRequest = { contentType: 'application/x-www-form-urlencoded', body: 'grant_type=client_credentials' };
 * ```
 */
export interface TokenRequest {
  /** The `Authorization` header; every line of it when the request repeated it (then `invalid_request`). */
  readonly authorization?: string | readonly string[] | undefined;
  readonly contentType?: string | undefined;
  /** The raw form body, or an already parsed object (a repeated field as an array). */
  readonly body: string | Readonly<Record<string, unknown>> | undefined;
}

/**
 * The response to send: status, headers (always `Cache-Control: no-store`) and a JSON body, either
 * a token response (RFC 6749 5.1) or an error (5.2: `{ error, error_description }`).
 *
 * @example
 * ```ts
 * res.status(r.status).set(r.headers).json(r.body);
 * ```
 */
export interface TokenResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Readonly<Record<string, unknown>>;
}

/**
 * The token endpoint as a function of plain values.
 *
 * @example
 * ```ts
 * const response = await endpoint({ authorization, contentType, body });
 * ```
 */
export type TokenEndpoint = (request: TokenRequest) => Promise<TokenResponse>;

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' } as const;
const FORM = 'application/x-www-form-urlencoded';
const OFFLINE = 'offline_access';
// RFC 6749 A.4: scope-token = 1*( %x21 / %x23-5B / %x5D-7E )
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(error);
  }
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();

function formDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, ' '));
}

// A `%` that does not start a two-digit hex escape: URLSearchParams would keep it as a literal.
const BAD_ESCAPE = /%(?![0-9A-Fa-f]{2})/;

function parseForm(body: TokenRequest['body']): Map<string, string> {
  const params = new Map<string, string>();
  const add = (name: string, value: unknown) => {
    if (typeof value !== 'string') throw new OAuthError('invalid_request', `parameter ${name} is malformed`);
    // RFC 6749 3.2: parameters must not be repeated; an empty value counts as absent.
    if (params.has(name)) throw new OAuthError('invalid_request', `parameter ${name} is repeated`);
    if (value !== '') params.set(name, value);
  };
  if (typeof body === 'string') {
    for (const pair of body.split('&')) {
      if (BAD_ESCAPE.test(pair)) {
        const name = pair.split('=', 1)[0] ?? '';
        const safe = /^[A-Za-z0-9_]{1,40}$/.test(name) ? name : 'a parameter';
        throw new OAuthError('invalid_request', `${safe} is not valid form encoding`);
      }
    }
    for (const [name, value] of new URLSearchParams(body)) add(name, value);
  } else if (body !== undefined) {
    for (const [name, value] of Object.entries(body)) add(name, value);
  }
  return params;
}

function parseScope(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const scopes = value.split(' ').filter((s) => s !== '');
  if (!scopes.every((s) => SCOPE_TOKEN.test(s)))
    throw new OAuthError('invalid_scope', 'the scope is malformed');
  return [...new Set(scopes)];
}

/**
 * Builds the token endpoint core: `client_credentials` and `refresh_token` grants over
 * `application/x-www-form-urlencoded`; client authentication by HTTP Basic or `client_id` and
 * `client_secret` in the body (RFC 6749 2.3.1, not both), secrets compared in constant time; a
 * refresh token only when `offline_access` is requested and allowed; every refresh rotates.
 *
 * @example
 * ```ts
 * const endpoint = createTokenEndpoint({ issuer, clients: [{ clientId: 'cli', secret: 's3cret', scopes: ['read:projects'] }] });
 * const response = await endpoint({ contentType: 'application/x-www-form-urlencoded', body: 'grant_type=client_credentials', authorization: 'Basic Y2xpOnMzY3JldA==' });
 * ```
 */
/** Client authentication (RFC 6749 2.3.1) shared by the token and revocation endpoints. */
function createClientAuthentication(
  clients: TokenEndpointOptions['clients'],
  realmOption: string | undefined,
) {
  const realm = (realmOption ?? 'plumbline').replace(/["\\\r\n]/g, '');
  const prepared = new Map<string, { client: OAuthClient; secretDigest: Buffer }>();
  const digestOf = (client: OAuthClient): Buffer => {
    if (client.secretHash !== undefined) return Buffer.from(client.secretHash, 'hex');
    if (client.secret !== undefined) return sha256(client.secret);
    throw new TypeError(`client ${client.clientId} has no secret`);
  };
  if (typeof clients !== 'function') {
    for (const client of clients) prepared.set(client.clientId, { client, secretDigest: digestOf(client) });
  }
  const lookup = async (clientId: string) => {
    if (typeof clients !== 'function') return prepared.get(clientId);
    const client = await clients(clientId);
    return client ? { client, secretDigest: digestOf(client) } : undefined;
  };
  // Compared against when the client is unknown, so unknown and known ids take the same time.
  const decoy = sha256('decoy');

  // RFC 9110 15.5.2: every 401 carries a challenge; Basic is the one HTTP scheme clients can use here,
  // whichever method (Basic or client_secret_post) they tried.
  const invalidClient = () =>
    new OAuthError('invalid_client', 'client authentication failed', 401, {
      'WWW-Authenticate': `Basic realm="${realm}"`,
    });

  function readClientCredentials(header: TokenRequest['authorization'], form: Map<string, string>) {
    // Two Authorization lines are ambiguous: refuse them rather than let the first one win.
    if (typeof header !== 'string' && header !== undefined && header.length > 1) {
      throw new OAuthError('invalid_request', 'more than one Authorization header');
    }
    const authorization = typeof header === 'string' ? header : header?.[0];
    // Fetch-style Headers and some proxies join repeated lines with a comma; Basic credentials never
    // contain one (token68), so a comma means two Authorization lines as well.
    if (authorization?.includes(','))
      throw new OAuthError('invalid_request', 'more than one Authorization header');
    const bodyId = form.get('client_id');
    const bodySecret = form.get('client_secret');
    const basic =
      authorization !== undefined ? /^\s*basic\s+([A-Za-z0-9+/]+=*)\s*$/i.exec(authorization) : null;
    if (authorization !== undefined && basic === null && !/^\s*basic\b/i.test(authorization)) {
      throw new OAuthError('invalid_request', 'unsupported client authentication scheme');
    }
    if (authorization !== undefined) {
      if (bodySecret !== undefined)
        throw new OAuthError('invalid_request', 'use one client authentication method');
      const decoded = basic ? Buffer.from(basic[1]!, 'base64').toString('utf8') : '';
      const colon = decoded.indexOf(':');
      if (colon < 0) throw invalidClient();
      try {
        const id = formDecode(decoded.slice(0, colon));
        const secret = formDecode(decoded.slice(colon + 1));
        if (bodyId !== undefined && bodyId !== id)
          throw new OAuthError('invalid_request', 'client_id does not match');
        return { id, secret };
      } catch (error) {
        if (error instanceof OAuthError) throw error;
        throw invalidClient();
      }
    }
    if (bodyId === undefined || bodySecret === undefined) throw invalidClient();
    return { id: bodyId, secret: bodySecret };
  }

  return async function authenticateClient(
    authorization: TokenRequest['authorization'],
    form: Map<string, string>,
  ): Promise<OAuthClient> {
    const { id, secret } = readClientCredentials(authorization, form);
    const entry = await lookup(id);
    const presented = sha256(secret);
    const expected = entry?.secretDigest.length === 32 ? entry.secretDigest : decoy;
    const matches = timingSafeEqual(presented, expected);
    if (entry === undefined || !matches || expected === decoy) throw invalidClient();
    return entry.client;
  };
}

/**
 * The form body of a request, or `invalid_request` when it is not form-encoded. RFC 6749 (3.2, 5.2)
 * governs these endpoints, so a wrong Content-Type is its 400 `invalid_request` with the OAuth
 * body every OAuth client parses, not the API's 415 problem (docs/design.md#d-auth); like the
 * 415 it names the accepted type in `Accept-Post`.
 */
function readFormRequest(request: TokenRequest): Map<string, string> {
  const mediaType = request.contentType?.split(';', 1)[0]?.trim().toLowerCase();
  if (mediaType !== FORM) {
    throw new OAuthError('invalid_request', `the body must be ${FORM}`, 400, { 'Accept-Post': FORM });
  }
  return parseForm(request.body);
}

/** RFC 6749 5.2 error bodies for OAuth errors and revoked grants; 503 when a store is unreachable. */
function errorResponse(error: unknown): TokenResponse {
  if (error instanceof OAuthError) {
    return {
      status: error.status,
      headers: { ...NO_STORE, ...error.headers },
      body: { error: error.error, error_description: error.description },
    };
  }
  if (isHttpError(error) && error.code === 'invalid_grant') {
    return {
      status: 400,
      headers: NO_STORE,
      body: {
        error: 'invalid_grant',
        error_description: 'the refresh token is invalid, expired or revoked',
      },
    };
  }
  if (isHttpError(error) && error.status === 503) {
    return {
      status: 503,
      headers: { ...NO_STORE, 'Retry-After': '1' },
      body: { error: 'temporarily_unavailable', error_description: 'try again later' },
    };
  }
  throw error;
}

/**
 * The framework-free OAuth 2.0 token endpoint (RFC 6749): authenticates the client, runs the
 * `client_credentials` or `refresh_token` grant on the issuer, and answers with RFC 6749 5.1/5.2
 * bodies and `Cache-Control: no-store`. Adapters pass the method, headers and raw form body.
 *
 * @example
 * ```ts
 * const endpoint = createTokenEndpoint({ issuer, clients });
 * const { status, headers, body } = await endpoint.handle({ method: 'POST', authorization, contentType, body });
 * ```
 */
export function createTokenEndpoint(options: TokenEndpointOptions): TokenEndpoint {
  const { issuer } = options;
  const authenticateClient = createClientAuthentication(options.clients, options.realm);

  async function respond(
    client: OAuthClient,
    scopes: readonly string[],
    reservation: AccessTokenReservation,
    refreshToken?: string,
  ): Promise<TokenResponse> {
    const accessScopes = scopes.filter((s) => s !== OFFLINE);
    const { accessToken, expiresIn } = await issuer.signAccessToken({
      clientId: client.clientId,
      scopes: accessScopes,
      reservation,
    });
    return {
      status: 200,
      headers: NO_STORE,
      body: {
        access_token: accessToken,
        token_type: 'Bearer',
        expires_in: expiresIn,
        scope: scopes.join(' '),
        ...(refreshToken !== undefined ? { refresh_token: refreshToken } : {}),
      },
    };
  }

  async function clientCredentials(client: OAuthClient, form: Map<string, string>): Promise<TokenResponse> {
    const requested = parseScope(form.get('scope'));
    const allowed = new Set(client.scopes);
    if (requested?.some((s) => !allowed.has(s))) {
      throw new OAuthError('invalid_scope', 'the requested scope exceeds what the client may request');
    }
    // Without an explicit request the client gets its scopes minus offline_access: refresh tokens are opt-in.
    const scopes = requested ?? client.scopes.filter((s) => s !== OFFLINE);
    // The access token's identity is fixed first, so its family records it with the refresh token.
    const reservation = issuer.reserveAccessToken();
    const refreshToken = scopes.includes(OFFLINE)
      ? await issuer.issueRefreshToken(
          { clientId: client.clientId, subject: client.clientId, scopes },
          reservation,
        )
      : undefined;
    return respond(client, scopes, reservation, refreshToken);
  }

  async function refresh(client: OAuthClient, form: Map<string, string>): Promise<TokenResponse> {
    const token = form.get('refresh_token');
    if (token === undefined) throw new OAuthError('invalid_request', 'refresh_token is required');
    const requested = parseScope(form.get('scope'));
    if (requested !== undefined) {
      // Checked before rotating, so a bad scope does not burn the client's refresh token.
      const grant = await issuer.peekRefreshToken(token);
      if (
        grant !== undefined &&
        grant.clientId === client.clientId &&
        requested.some((s) => !grant.scopes.includes(s))
      ) {
        throw new OAuthError('invalid_scope', 'the requested scope exceeds the original grant');
      }
    }
    const reservation = issuer.reserveAccessToken();
    const { refreshToken, grant } = await issuer.rotateRefreshToken(token, client.clientId, reservation);
    return respond(client, requested ?? grant.scopes, reservation, refreshToken);
  }

  return async (request) => {
    try {
      const form = readFormRequest(request);
      const grantType = form.get('grant_type');
      if (grantType === undefined) throw new OAuthError('invalid_request', 'grant_type is required');
      if (grantType !== 'client_credentials' && grantType !== 'refresh_token') {
        throw new OAuthError('unsupported_grant_type', 'the grant type is not supported');
      }
      const client = await authenticateClient(request.authorization, form);
      if (client.grantTypes !== undefined && !client.grantTypes.includes(grantType)) {
        throw new OAuthError('unauthorized_client', 'the client may not use this grant type');
      }
      return grantType === 'client_credentials'
        ? await clientCredentials(client, form)
        : await refresh(client, form);
    } catch (error) {
      return errorResponse(error);
    }
  };
}

/**
 * Options for {@link createRevocationEndpoint}.
 *
 * @example
 * ```ts
 * const options: RevocationEndpointOptions = { clients, issuer, verifier, revocation };
 * ```
 */
export interface RevocationEndpointOptions {
  /** The clients, or a lookup, exactly as for the token endpoint. */
  readonly clients: TokenEndpointOptions['clients'];
  /** The issuer of the refresh tokens: revoking one ends its family (and, with its `revocation`, the family's access tokens). */
  readonly issuer: Issuer;
  /** Verifies the presented access token (it must be one of ours to be revoked). */
  readonly verifier: JwtVerifier;
  /** Where revoked `jti`s go; the verifier must consult the same list. */
  readonly revocation: RevocationStore;
  /** Realm of the `Basic` challenge on `invalid_client`. Default `plumbline`. */
  readonly realm?: string;
}

/**
 * RFC 7009 token revocation: the authenticated client that owns a token revokes it. A refresh token
 * (`plr_...`) ends its whole family, and with it every access token issued from the family (when
 * the issuer has a `revocation` list); an access token's `jti` is on the revocation list until the
 * token would have expired anyway. `token_type_hint` is not needed: the two kinds differ in shape.
 * Invalid, expired or foreign tokens are answered 200 as well (RFC 7009 2.2); an unreachable store,
 * revocation list or key set is 503 `temporarily_unavailable`.
 *
 * @example
 * ```ts
 * const revoke = createRevocationEndpoint({ clients, issuer, verifier, revocation });
 * const response = await revoke({ authorization, contentType, body: 'token=eyJ...' });
 * ```
 */
export function createRevocationEndpoint(options: RevocationEndpointOptions): TokenEndpoint {
  const authenticateClient = createClientAuthentication(options.clients, options.realm);
  return async (request) => {
    try {
      const form = readFormRequest(request);
      const client = await authenticateClient(request.authorization, form);
      const token = form.get('token');
      if (token === undefined || token === '') throw new OAuthError('invalid_request', 'token is required');
      if (token.startsWith('plr_')) {
        await options.issuer.revokeRefreshToken(token, client.clientId);
        return { status: 200, headers: NO_STORE, body: {} };
      }
      let principal: Awaited<ReturnType<JwtVerifier['verify']>> | undefined;
      try {
        principal = await options.verifier.verify(token);
      } catch (error) {
        // Nothing to revoke in a token that does not verify; an outage is not such a token.
        if (isHttpError(error) && error.status === 503) throw error;
      }
      const { jti, exp } = principal?.claims ?? {};
      if (principal?.clientId === client.clientId && typeof jti === 'string' && typeof exp === 'number') {
        await options.revocation.revoke(jti, exp);
      }
      return { status: 200, headers: NO_STORE, body: {} };
    } catch (error) {
      return errorResponse(error);
    }
  };
}
