/**
 * Hono adapter for @plumbline/auth: Web-standard middleware. Reads the request, calls the core and
 * throws the core's `HttpError` for the `@plumbline/errors/hono` error handler.
 * @packageDocumentation
 */
import { HttpError } from '@plumbline/errors';
import type { Context, Handler, MiddlewareHandler } from 'hono';
import { isPending, MAX_FORM_BYTES, queryOf, realmOf, scopeCheck, setRealm } from './adapter.js';
import { type AuthenticateOptions, createAuthenticatorCore } from './authenticate.js';
import { isSecureRequest, type RequireHttpsOptions } from './https.js';
import type { HasScopesOptions, Principal } from './principal.js';
import {
  createSessionEndpointCore,
  type SessionEndpointCore,
  type SessionEndpointOptions,
} from './session-endpoint.js';
import {
  createRevocationEndpoint,
  createTokenEndpoint,
  type RevocationEndpointOptions,
  type TokenEndpoint,
  type TokenEndpointOptions,
} from './token-endpoint.js';
import { rawHeaderLines, readLimitedText } from './web.js';

declare module 'hono' {
  interface ContextVariableMap {
    /** The principal `authenticate()` found; `undefined` when anonymous. */
    principal: Principal | undefined;
  }
}

/** What `@hono/node-server` passes as `c.env`: the Node request underneath. */
type NodeEnv = { incoming?: { rawHeaders?: string[]; socket?: { remoteAddress?: string } } } | undefined;

function rawHeaders(c: Context, apiKeyHeader: string): readonly string[] {
  const incoming = (c.env as NodeEnv)?.incoming;
  return Array.isArray(incoming?.rawHeaders)
    ? incoming.rawHeaders
    : rawHeaderLines(c.req.raw.headers, apiKeyHeader);
}

/**
 * Middleware that authenticates by API key, bearer JWT or session cookie and sets `c.get('principal')`. Failures
 * are thrown: 400 `invalid_request` / `credentials_in_query`, 401 `unauthorized` /
 * `invalid_token` (with `WWW-Authenticate`), 403 `csrf_rejected` (session cookie), 503 `service_unavailable`.
 * @example
 * ```ts
 * app.use('/v1/*', authenticate({ jwt: { issuers: [{ issuer, audience, jwks }] } }));
 * app.post('/v1/projects', requireScopes('write:projects'), create);
 * ```
 */
export function authenticate(options: AuthenticateOptions): MiddlewareHandler {
  const authenticator = createAuthenticatorCore(options);
  const realm = authenticator.realm;
  const apiKeyHeader = (options.apiKeyHeader ?? 'x-api-key').toLowerCase();
  return async (c, next) => {
    const result = authenticator.resolve({
      rawHeaders: rawHeaders(c, apiKeyHeader),
      query: queryOf(c.req.url),
      method: c.req.method,
    });
    // A cache hit answers synchronously: nothing more to await before the handler.
    c.set('principal', isPending(result) ? await result : result);
    setRealm(c, realm);
    await next();
  };
}

/**
 * The principal {@link authenticate} set (`undefined` when anonymous or not run).
 * @example `app.get('/me', (c) => c.json({ client: getPrincipal(c)?.clientId }));`
 */
export function getPrincipal(c: Context): Principal | undefined {
  return c.get('principal');
}

/**
 * Requires every listed scope (`{ mode: 'any' }` last for any of them). No principal → 401
 * `unauthorized`; a missing scope → 403 `insufficient_scope` with its challenge.
 * @example
 * ```ts
 * app.post('/v1/projects', requireScopes('write:projects'), create);
 * ```
 */
export function requireScopes(...args: readonly (string | HasScopesOptions)[]): MiddlewareHandler {
  const check = scopeCheck(args);
  return async (c, next) => {
    check(c.get('principal'), realmOf(c));
    await next();
  };
}

/**
 * Refuses plain HTTP with 403 `https_required`: secure when the request URL is `https:` (TLS on
 * Node, the client's scheme on Workers), or a trusted proxy sent `X-Forwarded-Proto: https`. The
 * peer address (for `trustProxy` and loopback) is known on `@hono/node-server` only.
 * @example
 * ```ts
 * app.use(requireHttps({ trustProxy: ['10.0.0.2'] }));
 * ```
 */
export function requireHttps(options: RequireHttpsOptions = {}): MiddlewareHandler {
  const secure = isSecureRequest(options);
  return async (c, next) => {
    const ok = secure({
      encrypted: c.req.url.startsWith('https:'),
      remoteAddress: (c.env as NodeEnv)?.incoming?.socket?.remoteAddress,
      forwardedProto: c.req.header('x-forwarded-proto'),
    });
    if (!ok) throw new HttpError('https_required');
    await next();
  };
}

function formEndpoint(endpoint: TokenEndpoint): Handler {
  return async (c) => {
    const response = await endpoint({
      authorization: c.req.header('authorization'),
      contentType: c.req.header('content-type'),
      body: await readLimitedText(c.req.raw.body, MAX_FORM_BYTES),
    });
    const headers = { ...response.headers, 'Content-Type': 'application/json; charset=utf-8' };
    return c.body(JSON.stringify(response.body), response.status as 200, headers);
  };
}

/**
 * The OAuth 2.0 token endpoint handler (`POST`, form-encoded; `client_credentials` and
 * `refresh_token` grants, RFC 6749 JSON bodies, `Cache-Control: no-store`).
 * @example
 * ```ts
 * app.post('/oauth/token', tokenEndpoint({ issuer, clients: [{ clientId: 'cli', secret, scopes: ['read:projects'] }] }));
 * ```
 */
export function tokenEndpoint(options: TokenEndpointOptions): Handler {
  return formEndpoint(createTokenEndpoint(options));
}

/**
 * The RFC 7009 revocation endpoint handler (form-encoded `token=...`; 200 for unknown tokens too).
 * @example
 * ```ts
 * app.post('/oauth/revoke', revocationEndpoint({ clients, verifier, revocation }));
 * ```
 */
export function revocationEndpoint(options: RevocationEndpointOptions): Handler {
  return formEndpoint(createRevocationEndpoint(options));
}

/**
 * `POST /session`: a handler that opens a session cookie from the bearer token {@link authenticate}
 * verified (`openSession` of `@plumbline/auth`) and answers 204 with `Set-Cookie` and no body.
 * Authentication is yours: put `authenticate({ jwt })` in front of it. No principal, or a token
 * without `exp` (or with less than a second left), is thrown as 401 `unauthorized`. The options are
 * checked here: a bad `maxLifetimeSec` (or a missing sealer, cookie or revocation list) throws a TypeError.
 * @example
 * ```ts
 * app.post('/session', authenticate({ jwt: verifier }), openSessionEndpoint({ sealer, cookie, revocation }));
 * ```
 */
export function openSessionEndpoint(options: SessionEndpointOptions): Handler {
  const core = createSessionEndpointCore(options);
  return cookieEndpoint(core.open);
}

/**
 * `DELETE /session`: a handler that revokes the session cookie {@link authenticate} opened (its
 * `jti`, until its `exp`; `closeSession` of `@plumbline/auth`) and answers 204 with the clearing
 * `Set-Cookie` and no body. Authentication is yours: put `authenticate({ cookie })` in front of it,
 * which also applies the CSRF rule. No principal, or one without `jti` and `exp`, is thrown as 401
 * `unauthorized`.
 * @example
 * ```ts
 * app.delete('/session', authenticate({ cookie: { sealer, revocation } }), closeSessionEndpoint({ sealer, cookie, revocation }));
 * ```
 */
export function closeSessionEndpoint(options: SessionEndpointOptions): Handler {
  const core = createSessionEndpointCore(options);
  return cookieEndpoint(core.close);
}

function cookieEndpoint(setCookie: SessionEndpointCore['open']): Handler {
  return async (c) => {
    c.header('Set-Cookie', await setCookie(c.get('principal')));
    return c.body(null, 204);
  };
}
