/**
 * Fastify 5 adapter for @plumbline/auth: hooks that call the core and throw its `HttpError` for the
 * `@plumbline/errors/fastify` handler, applying in the encapsulation context they are added to.
 * @packageDocumentation
 */
import { HttpError } from '@plumbline/errors';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import {
  authorizationLines,
  isPending,
  MAX_FORM_BYTES,
  queryOf,
  realmOf,
  scopeCheck,
  setRealm,
} from './adapter.js';
import { type AuthenticateOptions, createAuthenticatorCore } from './authenticate.js';
import { isSecureRequest, type RequireHttpsOptions } from './https.js';
import { nodeConnection } from './node.js';
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

declare module 'fastify' {
  interface FastifyRequest {
    /** The principal `authenticate()` found; `undefined` when anonymous or not authenticated here. */
    principal?: Principal | undefined;
  }
}

/** A hook usable as `onRequest` or `preHandler`. @example `const hooks: AuthHook[] = [requireHttps()];` */
export type AuthHook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/**
 * An `onRequest` hook that authenticates by API key, bearer JWT or session cookie and sets `request.principal`.
 * Failures are thrown: 400 `invalid_request` / `credentials_in_query`, 401 `unauthorized` /
 * `invalid_token` (with `WWW-Authenticate`), 403 `csrf_rejected` (session cookie), 503 `service_unavailable`.
 * @example
 * ```ts
 * app.register(async (api) => {
 *   api.addHook('onRequest', authenticate({ jwt: { issuers: [{ issuer, audience, jwks }] } }));
 *   api.get('/projects', { preHandler: requireScopes('read:projects') }, list);
 * });
 * ```
 */
export function authenticate(options: AuthenticateOptions): AuthHook {
  const authenticator = createAuthenticatorCore(options);
  const realm = authenticator.realm;
  return async function authenticateHook(request) {
    const result = authenticator.resolve({
      rawHeaders: request.raw.rawHeaders,
      query: queryOf(request.url),
      method: request.method,
    });
    // A cache hit answers synchronously: nothing more to await.
    request.principal = isPending(result) ? await result : result;
    setRealm(request, realm);
  };
}

/**
 * The principal {@link authenticate} set (`undefined` when anonymous or not run).
 * @example `app.get('/me', async (request) => ({ client: getPrincipal(request)?.clientId }));`
 */
export function getPrincipal(request: FastifyRequest): Principal | undefined {
  return request.principal;
}

/**
 * A `preHandler` hook requiring every listed scope (`{ mode: 'any' }` last for any of them). No
 * principal → 401 `unauthorized`; a missing scope → 403 `insufficient_scope` with its challenge.
 * @example
 * ```ts
 * app.post('/projects', { preHandler: requireScopes('write:projects') }, create);
 * ```
 */
export function requireScopes(...args: readonly (string | HasScopesOptions)[]): AuthHook {
  const check = scopeCheck(args);
  return async function requireScopesHook(request) {
    check(request.principal, realmOf(request));
  };
}

/**
 * An `onRequest` hook refusing plain HTTP with 403 `https_required`: secure when the socket is
 * TLS, or a trusted proxy sent `X-Forwarded-Proto: https`; loopback passes when `allowLoopback`.
 * @example
 * ```ts
 * app.addHook('onRequest', requireHttps({ trustProxy: ['10.0.0.2'] }));
 * ```
 */
export function requireHttps(options: RequireHttpsOptions = {}): AuthHook {
  const secure = isSecureRequest(options);
  return async function requireHttpsHook(request) {
    if (!secure(nodeConnection(request.raw))) throw new HttpError('https_required');
  };
}

/** Where a form endpoint is mounted. @example `tokenEndpoint({ issuer, clients, path: '/token' })` */
export interface EndpointPath {
  /** Route path. Default `/oauth/token` (token) or `/oauth/revoke` (revocation). */
  readonly path?: string;
}

// An encapsulated plugin: its body parser (every type as text, at most 16 KiB; the core checks the
// Content-Type) applies to this one route and nowhere else in the app.
function formEndpoint(endpoint: TokenEndpoint, path: string): FastifyPluginAsync {
  return async (instance) => {
    instance.removeAllContentTypeParsers();
    instance.addContentTypeParser('*', { parseAs: 'string', bodyLimit: MAX_FORM_BYTES }, (_req, body, done) =>
      done(null, body),
    );
    instance.post(path, async (request, reply) => {
      const response = await endpoint({
        // Every Authorization line (Node keeps only the first in headers): two are refused.
        authorization: authorizationLines(request.raw.rawHeaders),
        contentType: request.headers['content-type'],
        body: request.body as string | undefined,
      });
      return reply.code(response.status).headers(response.headers).send(response.body);
    });
  };
}

/**
 * The OAuth 2.0 token endpoint as a plugin (`client_credentials` and `refresh_token` grants,
 * RFC 6749 JSON bodies, `Cache-Control: no-store`). It parses its own form body.
 * @example
 * ```ts
 * await app.register(tokenEndpoint({ issuer, clients: [{ clientId: 'cli', secret, scopes: ['read:projects'] }] }));
 * ```
 */
export function tokenEndpoint(options: TokenEndpointOptions & EndpointPath): FastifyPluginAsync {
  return formEndpoint(createTokenEndpoint(options), options.path ?? '/oauth/token');
}

/**
 * The RFC 7009 revocation endpoint as a plugin (form-encoded `token=...`, client authentication as
 * for the token endpoint; 200 for unknown tokens too).
 * @example
 * ```ts
 * await app.register(revocationEndpoint({ clients, verifier, revocation }));
 * ```
 */
export function revocationEndpoint(options: RevocationEndpointOptions & EndpointPath): FastifyPluginAsync {
  return formEndpoint(createRevocationEndpoint(options), options.path ?? '/oauth/revoke');
}

/**
 * `POST /session`: a route handler that opens a session cookie from the bearer token
 * {@link authenticate} verified (`openSession` of `@plumbline/auth`) and answers 204 with
 * `Set-Cookie` and no body. Authentication is yours: give the route `authenticate({ jwt })` as its
 * `onRequest` hook. No principal, or a token without `exp` (or with less than a second left), is
 * thrown as 401 `unauthorized`. The options are checked here: a bad `maxLifetimeSec` (or a missing
 * sealer, cookie or revocation list) throws a TypeError.
 * @example
 * ```ts
 * app.post('/session', { onRequest: authenticate({ jwt: verifier }) }, openSessionEndpoint({ sealer, cookie, revocation }));
 * ```
 */
export function openSessionEndpoint(options: SessionEndpointOptions): RouteHandlerMethod {
  const core = createSessionEndpointCore(options);
  return cookieEndpoint(core.open);
}

/**
 * `DELETE /session`: a route handler that revokes the session cookie {@link authenticate} opened (its
 * `jti`, until its `exp`; `closeSession` of `@plumbline/auth`) and answers 204 with the clearing
 * `Set-Cookie` and no body. Authentication is yours: give the route `authenticate({ cookie })` as its
 * `onRequest` hook, which also applies the CSRF rule. No principal, or one without `jti` and `exp`,
 * is thrown as 401 `unauthorized`.
 * @example
 * ```ts
 * app.delete('/session', { onRequest: authenticate({ cookie: { sealer, revocation } }) }, closeSessionEndpoint({ sealer, cookie, revocation }));
 * ```
 */
export function closeSessionEndpoint(options: SessionEndpointOptions): RouteHandlerMethod {
  const core = createSessionEndpointCore(options);
  return cookieEndpoint(core.close);
}

function cookieEndpoint(setCookie: SessionEndpointCore['open']): RouteHandlerMethod {
  return async (request, reply) => {
    const value = await setCookie(request.principal);
    return reply.code(204).header('Set-Cookie', value).send();
  };
}
