import { errorHandler, requestId } from '@plumbline/errors/express';
import {
  type AdapterRunner,
  coreOutcome,
  describeAdapters,
  EXPRESS_VERSIONS,
  fromSupertest,
} from '@plumbline/test-utils';
import request from 'supertest';
import { expect } from 'vitest';
import {
  AGED_ISS,
  AUD,
  attacker,
  b64,
  claims,
  eddsa,
  es256,
  es384,
  hs256With,
  ISS,
  JWKS,
  LIFETIME_ISS,
  nowSec,
  RSA_PEM,
  rs256,
  STATIC_ISS,
  STRICT_ISS,
  sign,
  signEs256Manually,
  signRaw,
  unsigned,
} from '../test/fixtures.js';
import { authenticate, getPrincipal, requireScopes } from './express.js';
import {
  assertScopes,
  createAuthenticator,
  createJwtVerifier,
  generateApiKey,
  MemoryApiKeyStore,
  MemoryRevocationStore,
} from './index.js';

const keys = new MemoryApiKeyStore();
const readKey = generateApiKey();
const writeKey = generateApiKey();
const revokedKey = generateApiKey();
keys.add(readKey, { clientId: 'reader', access: 'read' });
keys.add(writeKey, { clientId: 'writer', access: 'read-write' });
keys.add(revokedKey, { clientId: 'gone', access: 'read-write' });
keys.revoke(revokedKey);
const unknownKey = generateApiKey();
const badChecksum = `${readKey.slice(0, -1)}${readKey.endsWith('0') ? '1' : '0'}`;

const revocation = new MemoryRevocationStore();
await revocation.revoke('revoked-jti', nowSec() + 600);

const verifier = createJwtVerifier({
  issuers: [
    { issuer: ISS, audience: AUD, jwks: JWKS },
    { issuer: STATIC_ISS, audience: AUD, key: RSA_PEM, algorithms: ['RS256'] },
    { issuer: STRICT_ISS, audience: AUD, jwks: JWKS, requireAccessTokenType: true },
    { issuer: AGED_ISS, audience: AUD, jwks: JWKS, maxTokenAgeSec: 3600, maxLifetimeSec: 3600 },
    { issuer: LIFETIME_ISS, audience: AUD, jwks: JWKS, maxLifetimeSec: 900 },
  ],
  revocation,
});
const options = { apiKeys: { store: keys }, jwt: verifier };

const R = 'Bearer realm="plumbline"';
const IT = (d: string) => `Bearer realm="plumbline", error="invalid_token", error_description="${d}"`;
const IR = (d: string) => `Bearer realm="plumbline", error="invalid_request", error_description="${d}"`;
const SCOPE = 'Bearer realm="plumbline", error="insufficient_scope", scope="write:items"';
const MALFORMED = IT('The access token is malformed');
const ALG = IT('The access token algorithm is not accepted');
const SIG = IT('The access token signature is not valid');
const EXPIRY = IT('The access token has no valid expiry');
const now = nowSec();

interface Row {
  readonly name: string;
  /** POST needs write:items, GET read:items. */
  readonly method?: 'GET' | 'POST';
  readonly headers?: readonly (readonly [string, string])[];
  readonly query?: string;
  readonly status: number;
  readonly code?: string;
  /** Exact WWW-Authenticate, or null for none. */
  readonly challenge: string | null;
  readonly clientId?: string;
}

const bearer = (token: string): [string, string] => ['Authorization', `Bearer ${token}`];
const strictWithout: Record<string, string> = {};
for (const claim of ['jti', 'iat', 'sub', 'client_id']) {
  strictWithout[claim] = await sign({ iss: STRICT_ISS, [claim]: undefined }, es256, { typ: 'at+jwt' });
}
const valid = await sign();

const rows: Row[] = [
  { name: 'no credentials', status: 401, code: 'unauthorized', challenge: R },
  {
    name: 'Basic scheme is not a bearer credential',
    headers: [['Authorization', 'Basic dXNlcjpwYXNz']],
    status: 401,
    code: 'unauthorized',
    challenge: R,
  },
  { name: 'valid ES256 token', headers: [bearer(valid)], status: 200, challenge: null, clientId: 'web' },
  {
    name: 'lowercase bearer',
    headers: [['Authorization', `bearer ${valid}`]],
    status: 200,
    challenge: null,
    clientId: 'web',
  },
  {
    name: 'upper-case BEARER with extra spaces',
    headers: [['Authorization', `  BEARER    ${valid}  `]],
    status: 200,
    challenge: null,
    clientId: 'web',
  },
  {
    name: 'valid EdDSA token',
    headers: [bearer(await sign({}, eddsa))],
    status: 200,
    challenge: null,
    clientId: 'web',
  },
  {
    name: 'valid RS256 token',
    headers: [bearer(await sign({}, rs256))],
    status: 200,
    challenge: null,
    clientId: 'web',
  },
  {
    name: 'RS256 from the static PEM issuer',
    headers: [bearer(await sign({ iss: STATIC_ISS }, rs256))],
    status: 200,
    challenge: null,
    clientId: 'web',
  },
  {
    name: 'empty token',
    headers: [['Authorization', 'Bearer']],
    status: 400,
    code: 'invalid_request',
    challenge: IR('the bearer token is empty'),
  },
  {
    name: 'token of spaces',
    headers: [['Authorization', 'Bearer    ']],
    status: 400,
    code: 'invalid_request',
    challenge: IR('the bearer token is empty'),
  },
  {
    name: 'token with an inner space',
    headers: [['Authorization', 'Bearer abc def']],
    status: 400,
    code: 'invalid_request',
    challenge: IR('the bearer token is not a valid b64token'),
  },
  {
    name: 'token with a quote',
    headers: [['Authorization', 'Bearer abc"def']],
    status: 400,
    code: 'invalid_request',
    challenge: IR('the bearer token is not a valid b64token'),
  },
  {
    name: 'token with = inside',
    headers: [['Authorization', 'Bearer ab=cd']],
    status: 400,
    code: 'invalid_request',
    challenge: IR('the bearer token is not a valid b64token'),
  },
  {
    name: 'two Authorization lines',
    headers: [bearer(valid), bearer(valid)],
    status: 400,
    code: 'invalid_request',
    challenge: IR('more than one Authorization header'),
  },
  {
    name: 'Authorization plus Basic line',
    headers: [bearer(valid), ['Authorization', 'Basic dXNlcjpwYXNz']],
    status: 400,
    code: 'invalid_request',
    challenge: IR('more than one Authorization header'),
  },
  {
    name: 'token in query',
    query: `access_token=${valid}`,
    status: 400,
    code: 'credentials_in_query',
    challenge: IR('credentials must not be sent in the query string'),
  },
  {
    name: 'token in query and header',
    headers: [bearer(valid)],
    query: `page=2&access_token=${valid}`,
    status: 400,
    code: 'credentials_in_query',
    challenge: IR('credentials must not be sent in the query string'),
  },
  {
    name: 'API key in query (API_KEY)',
    headers: [['X-API-Key', readKey]],
    query: `API_KEY=${readKey}`,
    status: 400,
    code: 'credentials_in_query',
    challenge: IR('credentials must not be sent in the query string'),
  },
  {
    name: 'apikey in query',
    query: 'apikey=x',
    status: 400,
    code: 'credentials_in_query',
    challenge: IR('credentials must not be sent in the query string'),
  },
  {
    name: 'token= in query',
    query: 'token=',
    status: 400,
    code: 'credentials_in_query',
    challenge: IR('credentials must not be sent in the query string'),
  },
  {
    name: 'percent-encoded name in query',
    headers: [bearer(valid)],
    query: 'page=2&acc%65ss_%54oken=x',
    status: 400,
    code: 'credentials_in_query',
    challenge: IR('credentials must not be sent in the query string'),
  },
  {
    name: 'query names that only contain a credential name',
    headers: [bearer(valid)],
    query: 'tokens_left=3&my+token=1&api_keys=2',
    status: 200,
    challenge: null,
    clientId: 'web',
  },
  {
    name: 'alg none',
    headers: [bearer(unsigned('none', claims()))],
    status: 401,
    code: 'invalid_token',
    challenge: ALG,
  },
  {
    name: 'alg None',
    headers: [bearer(unsigned('None', claims()))],
    status: 401,
    code: 'invalid_token',
    challenge: ALG,
  },
  {
    name: 'alg NONE with a signature',
    headers: [bearer(`${unsigned('NONE', claims())}c2ln`)],
    status: 401,
    code: 'invalid_token',
    challenge: ALG,
  },
  {
    name: 'HS256 keyed with the RSA public PEM',
    headers: [bearer(hs256With(RSA_PEM, claims({ iss: STATIC_ISS })))],
    status: 401,
    code: 'invalid_token',
    challenge: ALG,
  },
  {
    name: 'HS256 keyed with whitespace-prefixed PEM',
    headers: [bearer(hs256With(`\n ${RSA_PEM}`, claims({ iss: STATIC_ISS })))],
    status: 401,
    code: 'invalid_token',
    challenge: ALG,
  },
  {
    name: 'HS256 keyed with the RSA public JWK',
    headers: [
      bearer(hs256With(JSON.stringify(rs256.publicJwk), claims({ iss: STATIC_ISS }), { kid: 'rs1' })),
    ],
    status: 401,
    code: 'invalid_token',
    challenge: ALG,
  },
  {
    name: 'HS256 keyed with the EC public JWK',
    headers: [bearer(hs256With(JSON.stringify(es256.publicJwk), claims(), { kid: 'es1' }))],
    status: 401,
    code: 'invalid_token',
    challenge: ALG,
  },
  {
    name: 'HS256 keyed with the EC public PEM',
    headers: [
      bearer(hs256With(es256.publicKey.export({ type: 'spki', format: 'pem' }), claims(), { kid: 'es1' })),
    ],
    status: 401,
    code: 'invalid_token',
    challenge: ALG,
  },
  {
    name: 'ES384 (a trusted key, outside the allow-list)',
    headers: [bearer(await sign({}, es384))],
    status: 401,
    code: 'invalid_token',
    challenge: ALG,
  },
  {
    name: 'ES256 to the RS256-only static issuer',
    headers: [bearer(await sign({ iss: STATIC_ISS }))],
    status: 401,
    code: 'invalid_token',
    challenge: ALG,
  },
  {
    name: 'unknown kid',
    headers: [bearer(await sign({}, es256, { kid: 'nope' }))],
    status: 401,
    code: 'invalid_token',
    challenge: IT('No trusted key matches the access token'),
  },
  {
    name: 'embedded jwk header (attacker key, unknown kid)',
    headers: [bearer(await sign({}, attacker, { kid: 'evil', jwk: attacker.publicJwk }))],
    status: 401,
    code: 'invalid_token',
    challenge: IT('No trusted key matches the access token'),
  },
  {
    name: 'embedded jwk header (attacker key, trusted kid)',
    headers: [bearer(await sign({}, attacker, { jwk: attacker.publicJwk }))],
    status: 401,
    code: 'invalid_token',
    challenge: SIG,
  },
  {
    name: 'jku header',
    headers: [bearer(await sign({}, attacker, { jku: 'http://127.0.0.1:1/jwks.json' }))],
    status: 401,
    code: 'invalid_token',
    challenge: SIG,
  },
  {
    name: 'x5u header',
    headers: [bearer(await sign({}, attacker, { x5u: 'http://127.0.0.1:1/cert.pem' }))],
    status: 401,
    code: 'invalid_token',
    challenge: SIG,
  },
  {
    name: 'unknown crit',
    headers: [bearer(signEs256Manually({ crit: ['urn:x'], 'urn:x': 1 }, claims()))],
    status: 401,
    code: 'invalid_token',
    challenge: IT('The access token uses an unsupported feature'),
  },
  {
    name: 'tampered signature',
    headers: [bearer(`${valid.slice(0, -4)}${valid.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`)],
    status: 401,
    code: 'invalid_token',
    challenge: SIG,
  },
  {
    name: 'tampered payload',
    headers: [bearer(valid.replace(/\.[^.]+\./, `.${b64(claims({ scope: 'admin' }))}.`))],
    status: 401,
    code: 'invalid_token',
    challenge: SIG,
  },
  {
    name: 'one segment',
    headers: [bearer('abcdef')],
    status: 401,
    code: 'invalid_token',
    challenge: MALFORMED,
  },
  {
    name: 'two segments',
    headers: [bearer('abc.def')],
    status: 401,
    code: 'invalid_token',
    challenge: MALFORMED,
  },
  {
    name: 'four segments',
    headers: [bearer(`${valid}.x`)],
    status: 401,
    code: 'invalid_token',
    challenge: MALFORMED,
  },
  {
    name: 'bad base64 header',
    headers: [bearer(`e~~.${b64(claims())}.sig`)],
    status: 401,
    code: 'invalid_token',
    challenge: MALFORMED,
  },
  {
    name: 'header not JSON',
    headers: [bearer(`${b64('{alg')}.${b64(claims())}.sig`)],
    status: 401,
    code: 'invalid_token',
    challenge: MALFORMED,
  },
  {
    name: 'payload not JSON',
    headers: [bearer(`${b64({ alg: 'ES256' })}.${b64('{"iss":')}.sig`)],
    status: 401,
    code: 'invalid_token',
    challenge: MALFORMED,
  },
  {
    name: 'payload a JSON array',
    headers: [bearer(`${b64({ alg: 'ES256' })}.${b64([1])}.sig`)],
    status: 401,
    code: 'invalid_token',
    challenge: MALFORMED,
  },
  {
    name: 'a JWE (five segments)',
    headers: [bearer(`${b64({ alg: 'dir', enc: 'A256GCM' })}..aXY.Y2lwaGVy.dGFn`)],
    status: 401,
    code: 'invalid_token',
    challenge: IT('Encrypted tokens are not accepted'),
  },
  {
    name: 'oversized token (9 000 characters)',
    headers: [bearer(`${'a'.repeat(4500)}.${'b'.repeat(4499)}.c`)],
    status: 401,
    code: 'invalid_token',
    challenge: IT('The access token is too large'),
  },
  {
    name: 'expired beyond the 30 s tolerance',
    headers: [bearer(await sign({ iat: now - 600, exp: now - 31 }))],
    status: 401,
    code: 'invalid_token',
    challenge: IT('The access token expired'),
  },
  {
    name: 'expired within the tolerance',
    headers: [bearer(await sign({ iat: now - 600, exp: now - 10 }))],
    status: 200,
    challenge: null,
    clientId: 'web',
  },
  {
    name: 'missing exp',
    headers: [bearer(await sign({ exp: undefined }))],
    status: 401,
    code: 'invalid_token',
    challenge: EXPIRY,
  },
  ...(['"soon"', 'null', '0', '1e400', '-1e400', 'true'] as const).map(
    (v): Row => ({
      name: `exp ${v}`,
      headers: [bearer(`@raw:exp:${v}`)],
      status: 401,
      code: 'invalid_token',
      challenge: v === '0' || v === '-1e400' ? IT('The access token expired') : EXPIRY,
    }),
  ),
  ...(['"0"', 'null', '1e400'] as const).map(
    (v): Row => ({
      name: `nbf ${v}`,
      headers: [bearer(`@raw:nbf:${v}`)],
      status: 401,
      code: 'invalid_token',
      challenge: IT('The access token is not valid yet'),
    }),
  ),
  {
    name: 'nbf 0 (long past)',
    headers: [bearer('@raw:nbf:0')],
    status: 200,
    challenge: null,
    clientId: 'web',
  },
  ...(['"1"', 'null', '1e400'] as const).map(
    (v): Row => ({
      name: `iat ${v}`,
      headers: [bearer(`@raw:iat:${v}`)],
      status: 401,
      code: 'invalid_token',
      challenge: IT('The access token issue time is not valid'),
    }),
  ),
  {
    name: 'iat 0 (long past)',
    headers: [bearer('@raw:iat:0')],
    status: 200,
    challenge: null,
    clientId: 'web',
  },
  {
    name: 'iat in the future',
    headers: [bearer(await sign({ iat: now + 600 }))],
    status: 401,
    code: 'invalid_token',
    challenge: IT('The access token issue time is not valid'),
  },
  {
    name: 'future nbf',
    headers: [bearer(await sign({ nbf: now + 600 }))],
    status: 401,
    code: 'invalid_token',
    challenge: IT('The access token is not valid yet'),
  },
  {
    name: 'wrong iss',
    headers: [bearer(await sign({ iss: 'https://evil.test' }))],
    status: 401,
    code: 'invalid_token',
    challenge: IT('The access token issuer is not accepted'),
  },
  {
    name: 'missing iss',
    headers: [bearer(await sign({ iss: undefined }))],
    status: 401,
    code: 'invalid_token',
    challenge: IT('The access token issuer is not accepted'),
  },
  {
    name: 'iss of another issuer, its keys not ours',
    headers: [bearer(await sign({ iss: STATIC_ISS }, es256, { alg: 'ES256' }))],
    status: 401,
    code: 'invalid_token',
    challenge: ALG,
  },
  {
    name: 'wrong aud',
    headers: [bearer(await sign({ aud: 'https://other.test' }))],
    status: 401,
    code: 'invalid_token',
    challenge: IT('The access token audience is not accepted'),
  },
  {
    name: 'missing aud',
    headers: [bearer(await sign({ aud: undefined }))],
    status: 401,
    code: 'invalid_token',
    challenge: IT('The access token audience is not accepted'),
  },
  {
    name: 'aud list containing ours',
    headers: [bearer(await sign({ aud: ['x', AUD] }))],
    status: 200,
    challenge: null,
    clientId: 'web',
  },
  {
    name: 'strict mode: typ JWT',
    headers: [bearer(await sign({ iss: STRICT_ISS }, es256, { typ: 'JWT' }))],
    status: 401,
    code: 'invalid_token',
    challenge: IT('The access token type is not accepted'),
  },
  {
    name: 'strict mode: no typ',
    headers: [bearer(await sign({ iss: STRICT_ISS }))],
    status: 401,
    code: 'invalid_token',
    challenge: IT('The access token type is not accepted'),
  },
  {
    name: 'strict mode: typ at+jwt',
    headers: [bearer(await sign({ iss: STRICT_ISS }, es256, { typ: 'at+jwt' }))],
    status: 200,
    challenge: null,
    clientId: 'web',
  },
  {
    name: 'strict mode: typ application/at+jwt',
    headers: [bearer(await sign({ iss: STRICT_ISS }, es256, { typ: 'application/at+jwt' }))],
    status: 200,
    challenge: null,
    clientId: 'web',
  },
  // RFC 9068 strict mode enforces the required claims, not only typ (issue 22 item 5).
  ...(
    [
      ['jti', 'The access token has no identifier'],
      ['iat', 'The access token has no issue time'],
      ['sub', 'The access token has no subject'],
      ['client_id', 'The access token has no client_id'],
    ] as const
  ).map(([claim, description]) => ({
    name: `strict mode: at+jwt without ${claim}`,
    headers: [bearer(strictWithout[claim]!)] as const,
    status: 401,
    code: 'invalid_token',
    challenge: IT(description),
  })),
  {
    name: 'strict mode: client_id not a string (azp present)',
    headers: [bearer(await sign({ iss: STRICT_ISS, client_id: 7, azp: 'web' }, es256, { typ: 'at+jwt' }))],
    status: 401,
    code: 'invalid_token',
    challenge: IT('The access token names no client'),
  },
  {
    name: 'strict mode: no client_id, only azp',
    headers: [
      bearer(await sign({ iss: STRICT_ISS, client_id: undefined, azp: 'web' }, es256, { typ: 'at+jwt' })),
    ],
    status: 401,
    code: 'invalid_token',
    challenge: IT('The access token has no client_id'),
  },
  {
    name: 'lax issuer: no jti, iat or client_id (azp names the client) is accepted',
    headers: [bearer(await sign({ jti: undefined, iat: undefined, client_id: undefined, azp: 'web' }))],
    status: 200,
    challenge: null,
    clientId: 'web',
  },
  // Maximum age and lifetime per issuer (issue 22 item 4): AGED_ISS 3600 s / 3600 s, LIFETIME_ISS -/900 s.
  {
    name: 'max age: iat a year ago, exp still ahead',
    headers: [bearer(await sign({ iss: AGED_ISS, iat: now - 31_536_000, exp: now + 300 }))],
    status: 401,
    code: 'invalid_token',
    challenge: IT('The access token is too old'),
  },
  {
    name: 'max age: iat just past the limit plus tolerance',
    headers: [bearer(await sign({ iss: AGED_ISS, iat: now - 3600 - 45, exp: now + 60 }))],
    status: 401,
    code: 'invalid_token',
    challenge: IT('The access token is too old'),
  },
  {
    name: 'max age: iat 50 minutes ago, lifetime 55 minutes',
    headers: [bearer(await sign({ iss: AGED_ISS, iat: now - 3000, exp: now + 300 }))],
    status: 200,
    challenge: null,
    clientId: 'web',
  },
  {
    name: 'max age: no iat',
    headers: [bearer(await sign({ iss: AGED_ISS, iat: undefined }))],
    status: 401,
    code: 'invalid_token',
    challenge: IT('The access token has no issue time'),
  },
  {
    name: 'max lifetime: exp ten years after iat',
    headers: [bearer(await sign({ iss: AGED_ISS, iat: now, exp: now + 315_360_000 }))],
    status: 401,
    code: 'invalid_token',
    challenge: IT('The access token lifetime is too long'),
  },
  {
    name: 'max lifetime: one second over',
    headers: [bearer(await sign({ iss: LIFETIME_ISS, iat: now - 10, exp: now + 891 }))],
    status: 401,
    code: 'invalid_token',
    challenge: IT('The access token lifetime is too long'),
  },
  {
    name: 'max lifetime: exactly the limit',
    headers: [bearer(await sign({ iss: LIFETIME_ISS, iat: now - 10, exp: now + 890 }))],
    status: 200,
    challenge: null,
    clientId: 'web',
  },
  {
    name: 'max lifetime without iat: exp an hour away',
    headers: [bearer(await sign({ iss: LIFETIME_ISS, iat: undefined, exp: now + 3600 }))],
    status: 401,
    code: 'invalid_token',
    challenge: IT('The access token lifetime is too long'),
  },
  {
    name: 'max lifetime without iat: exp ten minutes away',
    headers: [bearer(await sign({ iss: LIFETIME_ISS, iat: undefined, exp: now + 600 }))],
    status: 200,
    challenge: null,
    clientId: 'web',
  },
  {
    name: 'revoked jti',
    headers: [bearer(await sign({ jti: 'revoked-jti' }))],
    status: 401,
    code: 'invalid_token',
    challenge: IT('The access token was revoked'),
  },
  {
    name: 'missing scope (POST needs write:items)',
    method: 'POST',
    headers: [bearer(await sign({ scope: 'read:items' }))],
    status: 403,
    code: 'insufficient_scope',
    challenge: SCOPE,
  },
  {
    name: 'write scope present',
    method: 'POST',
    headers: [bearer(await sign({ scope: 'read:items write:items' }))],
    status: 200,
    challenge: null,
    clientId: 'web',
  },
  {
    name: 'scp array with the scope',
    method: 'POST',
    headers: [bearer(await sign({ scope: undefined, scp: ['write:items'] }))],
    status: 200,
    challenge: null,
    clientId: 'web',
  },
  ...[
    'write:item',
    'write:items2',
    'WRITE:ITEMS',
    'Write:items',
    'write',
    'write:*',
    '*',
    'write:items/',
    ' write:itemsx',
  ].map(
    (scope): Row => ({
      name: `scope trick ${JSON.stringify(scope)}`,
      method: 'POST',
      headers: [bearer(`@scope:${scope}`)],
      status: 403,
      code: 'insufficient_scope',
      challenge: SCOPE,
    }),
  ),
  {
    name: 'scope claim a number',
    headers: [bearer(await sign({ scope: 42 }))],
    status: 401,
    code: 'invalid_token',
    challenge: IT('The access token scope claim is not valid'),
  },
  {
    name: 'scope claim an array',
    headers: [bearer(await sign({ scope: ['read:items'] }))],
    status: 401,
    code: 'invalid_token',
    challenge: IT('The access token scope claim is not valid'),
  },
  {
    name: 'scp claim a string',
    headers: [bearer(await sign({ scope: undefined, scp: 'read:items' }))],
    status: 401,
    code: 'invalid_token',
    challenge: IT('The access token scope claim is not valid'),
  },
  {
    name: 'scp with a non-string',
    headers: [bearer(await sign({ scope: undefined, scp: ['read:items', 7] }))],
    status: 401,
    code: 'invalid_token',
    challenge: IT('The access token scope claim is not valid'),
  },
  {
    name: 'iss with quotes and CRLF',
    headers: [bearer(await sign({ iss: 'x"\r\nSet-Cookie: a=b' }))],
    status: 401,
    code: 'invalid_token',
    challenge: IT('The access token issuer is not accepted'),
  },
  {
    name: 'aud with quotes and backslashes',
    headers: [bearer(await sign({ aud: 'a\\"b' }))],
    status: 401,
    code: 'invalid_token',
    challenge: IT('The access token audience is not accepted'),
  },
  {
    name: 'sub with quotes and CRLF (valid token)',
    headers: [bearer(await sign({ sub: 'a"\r\nb' }))],
    status: 200,
    challenge: null,
    clientId: 'web',
  },
  {
    name: 'sub a number',
    headers: [bearer(await sign({ sub: 7 }))],
    status: 401,
    code: 'invalid_token',
    challenge: IT('The access token subject is not valid'),
  },
  {
    name: 'no client_id, azp or sub',
    headers: [bearer(await sign({ client_id: undefined, sub: undefined }))],
    status: 401,
    code: 'invalid_token',
    challenge: IT('The access token names no client'),
  },
  {
    name: 'API key (read) on GET',
    headers: [['X-API-Key', readKey]],
    status: 200,
    challenge: null,
    clientId: 'reader',
  },
  {
    name: 'API key header name in lower case',
    headers: [['x-api-key', readKey]],
    status: 200,
    challenge: null,
    clientId: 'reader',
  },
  {
    name: 'API key wrong (well-formed, unknown)',
    headers: [['X-API-Key', unknownKey]],
    status: 401,
    code: 'unauthorized',
    challenge: R,
  },
  {
    name: 'API key revoked',
    headers: [['X-API-Key', revokedKey]],
    status: 401,
    code: 'unauthorized',
    challenge: R,
  },
  {
    name: 'API key bad checksum',
    headers: [['X-API-Key', badChecksum]],
    status: 401,
    code: 'unauthorized',
    challenge: R,
  },
  {
    name: 'API key garbage',
    headers: [['X-API-Key', 'hunter2']],
    status: 401,
    code: 'unauthorized',
    challenge: R,
  },
  {
    name: 'API key duplicated',
    headers: [
      ['X-API-Key', readKey],
      ['X-API-Key', readKey],
    ],
    status: 400,
    code: 'invalid_request',
    challenge: IR('more than one API key header'),
  },
  {
    name: 'API key empty',
    headers: [['X-API-Key', '']],
    status: 400,
    code: 'invalid_request',
    challenge: IR('the API key is empty'),
  },
  {
    name: 'API key and bearer token',
    headers: [['X-API-Key', readKey], bearer(valid)],
    status: 400,
    code: 'invalid_request',
    challenge: IR('send either an API key or a bearer token, not both'),
  },
  {
    name: 'read-only API key on a write (403 without a Bearer challenge)',
    method: 'POST',
    headers: [['X-API-Key', readKey]],
    status: 403,
    code: 'insufficient_scope',
    challenge: null,
  },
  {
    name: 'read-write API key on a write',
    method: 'POST',
    headers: [['X-API-Key', writeKey]],
    status: 200,
    challenge: null,
    clientId: 'writer',
  },
];

// Placeholders resolved here so the table above stays one line per case.
async function resolveToken(value: string): Promise<string> {
  const raw = /^Bearer @raw:(\w+):(.*)$/.exec(value);
  if (raw) {
    const without = JSON.stringify(claims({ [raw[1]!]: undefined }));
    return `Bearer ${await signRaw(`${without.slice(0, -1)},"${raw[1]}":${raw[2]}}`)}`;
  }
  const scope = /^Bearer @scope:(.*)$/.exec(value);
  if (scope) return `Bearer ${await sign({ scope: scope[1] })}`;
  return value;
}
const resolved = await Promise.all(
  rows.map(async (row) => ({
    ...row,
    headers: await Promise.all(
      (row.headers ?? []).map(async ([n, v]) => [n, await resolveToken(v)] as const),
    ),
  })),
);

const required = (row: Row) => [row.method === 'POST' ? 'write:items' : 'read:items'];
const authenticator = createAuthenticator(options);

const adapters: Record<string, AdapterRunner<(typeof resolved)[number]>> = {
  core: (row) =>
    coreOutcome(async () => {
      const principal = await authenticator.authenticate({
        rawHeaders: row.headers.flat(),
        query: row.query ?? '',
      });
      assertScopes(principal, required(row));
      return principal;
    }),
};
for (const [name, express] of EXPRESS_VERSIONS) {
  const app = express();
  app.use(requestId());
  app.use(authenticate(options));
  app.get('/items', requireScopes('read:items'), (req, res) => {
    res.json(getPrincipal(req));
  });
  app.post('/items', requireScopes('write:items'), (req, res) => {
    res.json(getPrincipal(req));
  });
  app.use(errorHandler({ onError: () => {} }));
  adapters[name] = async (row) => {
    const path = row.query ? `/items?${row.query}` : '/items';
    let req = row.method === 'POST' ? request(app).post(path) : request(app).get(path);
    const grouped = new Map<string, string[]>();
    for (const [n, v] of row.headers) grouped.set(n, [...(grouped.get(n) ?? []), v]);
    for (const [n, v] of grouped) req = req.set(n, v.length === 1 ? v[0]! : (v as unknown as string));
    return fromSupertest(await req);
  };
}

describeAdapters('authentication outcomes', resolved, adapters, (outcome, row) => {
  expect(outcome.status).toBe(row.status);
  const body = outcome.body as Record<string, unknown>;
  if (row.status === 200) expect(body['clientId']).toBe(row.clientId);
  else expect(body['error_code']).toBe(row.code);
  expect(outcome.headers['www-authenticate'] ?? null).toBe(row.challenge);
});
