/**
 * Express adapter for @plumbline/auth (Express 4.21+ and 5). Reads the request, calls the core,
 * and passes every failure to `next(err)` for the `@plumbline/errors` error handler.
 * @packageDocumentation
 */
import { HttpError } from '@plumbline/errors';
import type { Request, RequestHandler } from 'express';
import {
  authenticated,
  authorizationLines,
  authStateOf,
  failureOf,
  isPending,
  queryOf,
  scopeCheck,
} from './adapter.js';
import { type AuthenticateOptions, createAuthenticatorCore } from './authenticate.js';
import { isSecureRequest, type RequireHttpsOptions } from './https.js';
import { nodeConnection, readNodeForm } from './node.js';
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

/**
 * Authenticates every request by API key, bearer JWT or session cookie; the result is read with
 * {@link getPrincipal}. Failures go to `next(err)`: 400 `invalid_request` / `credentials_in_query`,
 * 401 `unauthorized` / `invalid_token` (with `WWW-Authenticate`), 403 `csrf_rejected` (session cookie),
 * 503 `service_unavailable`.
 *
 * @example
 * ```ts
 * app.use(authenticate({ apiKeys: { store }, jwt: { issuers: [{ issuer, audience, jwks }] } }));
 * app.post('/projects', requireScopes('write:projects'), create);
 * ```
 */
export function authenticate(options: AuthenticateOptions): RequestHandler {
  const authenticator = createAuthenticatorCore(options);
  const realm = authenticator.realm;
  return (req, _res, next) => {
    const query = queryOf(req.originalUrl ?? req.url ?? '');
    const result = authenticator.resolve({ rawHeaders: req.rawHeaders, query, method: req.method });
    // A cache hit answers synchronously: no promise, no closure.
    if (!isPending(result)) return authenticated(req, { principal: result, realm }, next);
    result.then((principal) => authenticated(req, { principal, realm }, next), next);
  };
}

/**
 * The principal {@link authenticate} attached to the request (`undefined` when anonymous or when
 * `authenticate` did not run).
 *
 * @example
 * ```ts
 * app.get('/me', (req, res) => res.json({ client: getPrincipal(req)?.clientId }));
 * ```
 */
export function getPrincipal(req: Request): Principal | undefined {
  return authStateOf(req)?.principal;
}

/**
 * Requires every listed scope (exact match; API keys' server-side `read:*`/`write:*` cover their
 * action). No principal → 401 `unauthorized`; missing scope → 403 `insufficient_scope` with
 * `WWW-Authenticate: Bearer realm="plumbline", error="insufficient_scope", scope="..."`. Pass an
 * options object last for `{ mode: 'any' }`.
 *
 * @example
 * ```ts
 * router.post('/projects', requireScopes('write:projects'), create);
 * router.get('/reports', requireScopes('read:reports', 'admin', { mode: 'any' }), list);
 * ```
 */
export function requireScopes(...args: readonly (string | HasScopesOptions)[]): RequestHandler {
  const check = scopeCheck(args);
  return (req, _res, next) => {
    const state = authStateOf(req);
    next(failureOf(() => check(state?.principal, state?.realm)));
  };
}

/**
 * Refuses plain HTTP with 403 `https_required`. A request counts as secure when its socket is TLS,
 * or a trusted proxy sent `X-Forwarded-Proto: https`; plain HTTP from loopback passes when
 * `allowLoopback` (default: only when `NODE_ENV` is `development` or `test`).
 *
 * @example
 * ```ts
 * app.use(requireHttps({ trustProxy: ['10.0.0.2'] }));
 * ```
 */
export function requireHttps(options: RequireHttpsOptions = {}): RequestHandler {
  const secure = isSecureRequest(options);
  return (req, _res, next) => {
    next(secure(nodeConnection(req)) ? undefined : new HttpError('https_required'));
  };
}

/**
 * The OAuth 2.0 token endpoint (`POST`, `application/x-www-form-urlencoded`):
 * `client_credentials` and `refresh_token` grants, RFC 6749 5.1/5.2 JSON bodies (errors are
 * `{ error, error_description }`, not problem documents) and `Cache-Control: no-store`. Works with
 * or without `express.urlencoded()` in front of it.
 *
 * @example
 * ```ts
 * app.post('/oauth/token', tokenEndpoint({ issuer, clients: [{ clientId: 'cli', secret, scopes: ['read:projects'] }] }));
 * ```
 */
export function tokenEndpoint(options: TokenEndpointOptions): RequestHandler {
  return formEndpoint(createTokenEndpoint(options));
}

/**
 * The RFC 7009 revocation endpoint (`POST`, form-encoded `token=...`, client authentication as for
 * the token endpoint): the owning client revokes an access token, whose `jti` then stays on the
 * revocation list until the token would have expired. Answers 200 for unknown tokens too.
 *
 * @example
 * ```ts
 * app.post('/oauth/revoke', revocationEndpoint({ clients, verifier, revocation }));
 * ```
 */
export function revocationEndpoint(options: RevocationEndpointOptions): RequestHandler {
  return formEndpoint(createRevocationEndpoint(options));
}

function formEndpoint(endpoint: TokenEndpoint): RequestHandler {
  return (req, res, next) => {
    // Set first, so answers that leave through the error handler (413) are not cacheable either.
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Pragma', 'no-cache');
    readNodeForm(req, req.body)
      .then((body) =>
        endpoint({
          // Every Authorization line (Node keeps only the first in req.headers): two are refused.
          authorization: authorizationLines(req.rawHeaders),
          contentType: req.headers['content-type'],
          body,
        }),
      )
      .then((response) => {
        res.status(response.status).set(response.headers).json(response.body);
      }, next);
  };
}

/**
 * `POST /session`: opens a session cookie from the bearer token {@link authenticate} verified
 * (`openSession` of `@plumbline/auth`) and answers 204 with `Set-Cookie` and no body. Authentication
 * is yours: mount it behind `authenticate({ jwt })`. No principal, or a token without `exp` (or with
 * less than a second left), goes to `next(err)` as 401 `unauthorized`. The options are checked here:
 * a bad `maxLifetimeSec` (or a missing sealer, cookie or revocation list) throws a TypeError.
 *
 * @example
 * ```ts
 * app.post('/session', authenticate({ jwt: verifier }), openSessionEndpoint({ sealer, cookie, revocation }));
 * ```
 */
export function openSessionEndpoint(options: SessionEndpointOptions): RequestHandler {
  const core = createSessionEndpointCore(options);
  return cookieEndpoint(core.open);
}

/**
 * `DELETE /session`: revokes the session cookie {@link authenticate} opened (its `jti`, until its
 * `exp`; `closeSession` of `@plumbline/auth`) and answers 204 with the clearing `Set-Cookie` and no
 * body. Authentication is yours: mount it behind `authenticate({ cookie })`, which also applies the
 * CSRF rule (a same-origin request with the custom header). No principal, or one without `jti` and
 * `exp`, goes to `next(err)` as 401 `unauthorized`.
 *
 * @example
 * ```ts
 * app.delete('/session', authenticate({ cookie: { sealer, revocation } }), closeSessionEndpoint({ sealer, cookie, revocation }));
 * ```
 */
export function closeSessionEndpoint(options: SessionEndpointOptions): RequestHandler {
  const core = createSessionEndpointCore(options);
  return cookieEndpoint(core.close);
}

function cookieEndpoint(setCookie: SessionEndpointCore['open']): RequestHandler {
  return (req, res, next) => {
    setCookie(getPrincipal(req)).then((value) => {
      res.setHeader('Set-Cookie', value);
      res.status(204).end();
    }, next);
  };
}
