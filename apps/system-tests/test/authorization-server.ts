/**
 * A real OAuth 2.0 authorization server on loopback for the browser tests: oidc-provider (in-memory
 * adapter) with one public client (`token_endpoint_auth_method: none`, PKCE S256 required), resource
 * indicators issuing RFC 9068 JWT access tokens (`typ: at+jwt`, ES256) for one API audience, and
 * refresh tokens rotated on every use. Its login and consent pages are our own small forms (no
 * script, nothing from outside loopback), in place of oidc-provider's development pages, whose
 * stylesheet imports a web font from the internet.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { exportJWK, generateKeyPair } from 'jose';
import Provider, { errors, type KoaContextWithOIDC } from 'oidc-provider';

export interface AuthorizationServerOptions {
  readonly port: number;
  /** The API's resource indicator: the `aud` of the access tokens. */
  readonly audience: string;
  /** The scopes the API defines. */
  readonly scopes: readonly string[];
  readonly clientId: string;
  readonly redirectUri: string;
  readonly accessTokenTtlSec: number;
}

export interface AuthorizationServer {
  /** The issuer identifier (`iss`), `http://127.0.0.1:<port>`. */
  readonly issuer: string;
  /** Log lines of the server (errors it reported), for diagnostics. */
  readonly log: readonly string[];
  stop(): Promise<void>;
}

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>
<body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  let text = '';
  for await (const chunk of req) {
    text += String(chunk);
    if (text.length > 10_000) throw new Error('form too large');
  }
  return new URLSearchParams(text);
}

/** The forms post here, and the answer redirects on to the client's redirect URI (form-action covers both). */
function send(res: ServerResponse, status: number, html: string, formTargets = "'self'"): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': `default-src 'none'; form-action ${formTargets}; frame-ancestors 'none'`,
  });
  res.end(html);
}

/**
 * The interaction pages: GET `/interaction/<uid>` shows the login form or the consent form
 * (client, requested scopes); POST `/interaction/<uid>` finishes that step. Any login with a
 * non-empty password is accepted: the test user is whoever signs in.
 */
async function interaction(
  provider: Provider,
  redirectOrigin: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  const { uid, prompt, params } = details;
  const action = `/interaction/${encodeURIComponent(uid)}`;
  if (req.method === 'GET') {
    if (prompt.name === 'login') {
      send(
        res,
        200,
        page(
          'Sign in',
          `<form method="post" action="${action}">
<input type="hidden" name="prompt" value="login">
<label>Login <input name="login" required autocomplete="off"></label>
<label>Password <input name="password" type="password" required></label>
<button type="submit" class="sign-in">Sign in</button></form>`,
        ),
      );
      return;
    }
    const missing = (prompt.details['missingResourceScopes'] ?? {}) as Record<string, string[]>;
    const scopes = Object.entries(missing).flatMap(([resource, list]) =>
      list.map(
        (scope) => `<li><code>${escapeHtml(scope)}</code> on <code>${escapeHtml(resource)}</code></li>`,
      ),
    );
    send(
      res,
      200,
      page(
        'Authorize',
        `<p><strong>${escapeHtml(String(params['client_id']))}</strong> asks for:</p><ul class="scopes">${scopes.join('')}</ul>
<form method="post" action="${action}">
<input type="hidden" name="prompt" value="consent">
<button type="submit" class="consent">Allow</button></form>`,
      ),
      `'self' ${redirectOrigin}`,
    );
    return;
  }
  const form = await readForm(req);
  if (form.get('prompt') === 'login' && prompt.name === 'login') {
    const login = form.get('login') ?? '';
    if (login === '' || (form.get('password') ?? '') === '') {
      send(res, 400, page('Sign in', '<p>Login and password are required.</p>'));
      return;
    }
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: login } },
      { mergeWithLastSubmission: false },
    );
    return;
  }
  if (form.get('prompt') === 'consent' && prompt.name === 'consent') {
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId: details.session?.accountId, clientId: String(params['client_id']) });
    if (!grant) throw new Error('the grant of this interaction is gone');
    const missingScope = prompt.details['missingOIDCScope'] as string[] | undefined;
    if (missingScope) grant.addOIDCScope(missingScope.join(' '));
    const missing = (prompt.details['missingResourceScopes'] ?? {}) as Record<string, string[]>;
    for (const [resource, list] of Object.entries(missing)) grant.addResourceScope(resource, list.join(' '));
    await provider.interactionFinished(
      req,
      res,
      { consent: { grantId: await grant.save() } },
      { mergeWithLastSubmission: true },
    );
    return;
  }
  send(res, 400, page('Error', '<p>Unexpected form.</p>'));
}

/** Starts the server on `127.0.0.1:<port>`. */
export async function startAuthorizationServer(
  options: AuthorizationServerOptions,
): Promise<AuthorizationServer> {
  const issuer = `http://127.0.0.1:${options.port}`;
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const signing = { ...(await exportJWK(privateKey)), kid: 'as-1', alg: 'ES256', use: 'sig' };
  const log: string[] = [];
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: options.clientId,
        token_endpoint_auth_method: 'none',
        redirect_uris: [options.redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        // The server signs with its one ES256 key (RS256, the default, would need an RSA key).
        id_token_signed_response_alg: 'ES256',
      },
    ],
    jwks: { keys: [signing] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      resourceIndicators: {
        enabled: true,
        // "Authorize" sends no `resource`: every request is for the one API.
        defaultResource: () => options.audience,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: KoaContextWithOIDC, indicator: string) => {
          if (indicator !== options.audience) throw new errors.InvalidTarget();
          return {
            scope: options.scopes.join(' '),
            audience: options.audience,
            accessTokenTTL: options.accessTokenTtlSec,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'ES256' } },
          };
        },
      },
    },
    // Refresh tokens without `offline_access` (an OpenID scope this OAuth-only flow does not ask for).
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // The browser app's origin is its redirect URI's, and nothing else.
    clientBasedCORS: (_ctx, origin, client) =>
      client.redirectUris?.some((uri) => new URL(uri).origin === origin) ?? false,
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    // The default error page imports a web font from the internet; this one is plain, and logged.
    renderError: (ctx, out, error) => {
      log.push(`error page: ${out['error']}: ${out['error_description'] ?? ''} (${error.message})`);
      ctx.type = 'html';
      ctx.body = page('Error', `<p>${escapeHtml(`${out['error']}: ${out['error_description'] ?? ''}`)}</p>`);
    },
    findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id }) }),
    ttl: {
      AccessToken: options.accessTokenTtlSec,
      AuthorizationCode: 60,
      Grant: 3600,
      Interaction: 600,
      RefreshToken: 3600,
      Session: 3600,
    },
  });
  provider.on('server_error', (_ctx, error) => log.push(`server_error: ${error.message}`));
  provider.on('grant.error', (_ctx, error) => log.push(`grant.error: ${error.message}`));
  provider.on('authorization.error', (_ctx, error) => log.push(`authorization.error: ${error.message}`));
  const callback = provider.callback();
  const server: Server = createServer((req, res) => {
    if (req.url?.startsWith('/interaction/')) {
      interaction(provider, new URL(options.redirectUri).origin, req, res).catch((error: unknown) => {
        log.push(`interaction: ${(error as Error).message}`);
        if (!res.headersSent) send(res, 500, page('Error', '<p>The interaction failed.</p>'));
      });
      return;
    }
    void callback(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  return {
    issuer,
    log,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
