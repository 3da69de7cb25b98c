/**
 * The per-request fast paths of `authenticate()` (issues #16/#18): credentials are read by scanning
 * characters instead of regular expressions, an `Authorization` line equal to the previous one is not
 * scanned again, and a verified-token cache hit is answered without a promise. None of it may change
 * an answer: the extraction is held to the regular expressions it replaced, and a cache hit still
 * honours `exp`, `nbf`, `iat` and revocation, and is keyed on the whole token.
 */
import * as errorsExpress from '@plumbline/errors/express';
import { plumblineErrors } from '@plumbline/errors/fastify';
import { problemDetails } from '@plumbline/errors/hono';
import { coreOutcome, FRAMEWORKS, type FrameworkApps, frameworkSenders } from '@plumbline/test-utils';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { AUD, ISS, JWKS, nowSec, sign } from '../test/fixtures.js';
import * as ex from './express.js';
import * as fa from './fastify.js';
import * as ho from './hono.js';
import {
  createAuthenticator,
  createJwtVerifier,
  extractCredentials,
  MemoryApiKeyStore,
  MemoryRevocationStore,
  type Principal,
} from './index.js';

// ---- Extraction: the former regular-expression implementation, kept here as the reference ------

const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
const AUTHORIZATION = /^[ \t]*([!#$%&'*+.^_`|~0-9A-Za-z-]+)(?:[ \t]+(.*?))?[ \t]*$/s;
const QUERY_NAMES = ['access_token', 'api_key', 'apikey', 'token'];

/** What extraction answered before: the credential, or the error code and its reason/parameter. */
function reference(rawHeaders: readonly string[], query: string): unknown {
  if (query) {
    for (const name of new URLSearchParams(query).keys()) {
      if (QUERY_NAMES.includes(name.toLowerCase())) return ['credentials_in_query', name.toLowerCase()];
    }
  }
  const authorizations: string[] = [];
  const apiKeys: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    if (name === 'authorization') authorizations.push(rawHeaders[i + 1]!);
    else if (name === 'x-api-key') apiKeys.push(rawHeaders[i + 1]!);
  }
  if (authorizations.length > 1) return ['invalid_request', 'more than one Authorization header'];
  if (apiKeys.length > 1) return ['invalid_request', 'more than one API key header'];
  let token: string | undefined;
  if (authorizations[0] !== undefined) {
    const match = AUTHORIZATION.exec(authorizations[0]);
    if (match?.[1]?.toLowerCase() === 'bearer') {
      const value = match[2] ?? '';
      if (value === '') return ['invalid_request', 'the bearer token is empty'];
      if (!B64TOKEN.test(value)) return ['invalid_request', 'the bearer token is not a valid b64token'];
      token = value;
    }
  }
  const key = apiKeys[0]?.trim();
  if (token !== undefined && key !== undefined)
    return ['invalid_request', 'send either an API key or a bearer token, not both'];
  if (token !== undefined) return { type: 'bearer', token };
  if (key !== undefined)
    return key === '' ? ['invalid_request', 'the API key is empty'] : { type: 'api_key', key };
  return { type: 'none' };
}

function extracted(rawHeaders: readonly string[], query: string): unknown {
  try {
    return extractCredentials({ rawHeaders, query });
  } catch (error) {
    const { code, params } = error as { code: string; params: Record<string, string> };
    return [code, params['reason'] ?? params['parameter']];
  }
}

// Every combination: leading blanks × scheme × separator × value × trailing part.
const LEAD = ['', ' ', '\t', ' \t '];
const SCHEMES = [
  'Bearer',
  'bearer',
  'BEARER',
  'bEaReR',
  'Bearerx',
  'Basic',
  'Bear',
  '',
  'Bearer,',
  'Be.arer',
];
const SEPARATORS = ['', ' ', '\t', ' \t  ', ',', '\n'];
const VALUES = [
  'abc.def.ghi',
  'abc==',
  'a=b',
  '=abc',
  'a b',
  '',
  'A-Z_a~z+0/9.',
  'a\u00e9b',
  'a\nb',
  'x'.repeat(500),
];
const TRAIL = ['', ' ', '\t ', ' x', '=', '\r'];
const lines: string[] = [];
for (const lead of LEAD)
  for (const scheme of SCHEMES)
    for (const separator of SEPARATORS)
      for (const value of VALUES)
        for (const trail of TRAIL) lines.push(`${lead}${scheme}${separator}${value}${trail}`);

const QUERIES = [
  '',
  'page=2',
  'token=1',
  'TOKEN=1',
  'Access_Token',
  'a=1&&api_key=x',
  'a=1&apiKey=',
  '?token=1',
  '??token=1',
  '=token',
  'tokens=1&xtoken=2',
  'x=token&y=access_token',
  'status=active&sort=-priority&limit=20',
  'to%6Ben=1',
  'to+ken=1&api%5Fkey=1',
  'api\u212Aey=1',
  'a=%zz&token=1',
  '&&&',
  'token',
  'x=1=token=2',
];
const HEADER_SETS: readonly (readonly string[])[] = [
  [],
  ['Authorization', 'Bearer abc'],
  ['AUTHORIZATION', 'Bearer abc'],
  ['authorizatioN', 'bearer abc', 'Host', 'h'],
  ['Authorization', 'Bearer a', 'authorization', 'Bearer b'],
  ['X-API-Key', 'k1', 'x-api-key', 'k2', 'Authorization', 'Bearer a', 'Authorization', 'Bearer b'],
  ['X-API-Key', 'k1', 'X-API-KEY', 'k2'],
  ['x-api-\u212Aey', 'k1'],
  ['x-api-\u212Aey', 'k1', 'X-Api-Key', 'k2'],
  ['X-API-Key', '  key  '],
  ['X-API-Key', '   '],
  ['X-API-Key', 'k', 'Authorization', 'Basic eDp5'],
  ['X-API-Key', 'k', 'Authorization', 'Bearer abc'],
  ['Authorization\u0130', 'Bearer abc'],
  ['authorization', 'Bearer abc', 'odd'],
];

describe('credential extraction answers exactly as the regular expressions it replaced', () => {
  it(`${lines.length} Authorization lines`, () => {
    const differences = lines.filter(
      (line) =>
        JSON.stringify(extracted(['Authorization', line], '')) !==
        JSON.stringify(reference(['Authorization', line], '')),
    );
    expect(differences).toEqual([]);
  });

  it.each(QUERIES)('query %j', (query) => {
    expect(extracted(['Authorization', 'Bearer abc'], query)).toEqual(
      reference(['Authorization', 'Bearer abc'], query),
    );
  });

  it.each(HEADER_SETS.map((set) => [JSON.stringify(set), set] as const))('headers %s', (_name, set) => {
    expect(extracted(set, '')).toEqual(reference(set, ''));
  });

  it('exact answers for the edge cases', () => {
    const table: [readonly string[], string, unknown][] = [
      [['Authorization', 'Bearer abc'], '??token=1', { type: 'bearer', token: 'abc' }],
      [['Authorization', 'Bearer abc'], '?Token=1', ['credentials_in_query', 'token']],
      [['Authorization', 'Bearer abc'], 'api\u212Aey=1', ['credentials_in_query', 'apikey']],
      [['Authorization', 'Bearer abc'], 'to%6Ben=1', ['credentials_in_query', 'token']],
      [['x-api-\u212Aey', 'k1'], '', { type: 'api_key', key: 'k1' }],
      [
        ['X-API-Key', 'k1', 'X-API-Key', 'k2', 'Authorization', 'Bearer a', 'Authorization', 'Bearer b'],
        '',
        ['invalid_request', 'more than one Authorization header'],
      ],
      [['Authorization', ' \tBEARER \t abc.def== \t'], '', { type: 'bearer', token: 'abc.def==' }],
      [['Authorization', 'Bearer'], '', ['invalid_request', 'the bearer token is empty']],
      [['Authorization', 'Bearer \t '], '', ['invalid_request', 'the bearer token is empty']],
      [['Authorization', 'Bearer a=b'], '', ['invalid_request', 'the bearer token is not a valid b64token']],
      [['Authorization', 'Bearer,abc'], '', { type: 'none' }],
      [['Authorization', 'Bearerx abc'], '', { type: 'none' }],
    ];
    for (const [headers, query, expected] of table) expect(extracted(headers, query)).toEqual(expected);
  });

  it('a repeated Authorization line (remembered) answers as the first time, and a different one is read anew', async () => {
    // API keys only: a bearer token then answers 401 invalid_token, after extraction accepted it.
    const auth = createAuthenticator({ apiKeys: { store: new MemoryApiKeyStore() } });
    const outcomes = async (line: string) => {
      const o = await coreOutcome(() => auth.authenticate({ rawHeaders: ['Authorization', line] }));
      const body = o.body as { error_code?: string; reason?: string };
      return [o.status, body.error_code, o.headers['www-authenticate'] ?? null];
    };
    const sequence = [
      'Bearer abc',
      'Bearer abc',
      'Bearer a=b',
      'Bearer abc',
      'Bearer  abc',
      'Basic abc',
      'Bearer abc',
    ];
    const answers = [];
    for (const line of sequence) answers.push(await outcomes(line));
    const invalidToken = [
      401,
      'invalid_token',
      'Bearer realm="plumbline", error="invalid_token", error_description="Bearer tokens are not accepted here"',
    ];
    expect(answers).toEqual([
      invalidToken,
      invalidToken,
      [
        400,
        'invalid_request',
        'Bearer realm="plumbline", error="invalid_request", error_description="the bearer token is not a valid b64token"',
      ],
      invalidToken,
      invalidToken,
      [401, 'unauthorized', 'Bearer realm="plumbline"'],
      invalidToken,
    ]);
  });
});

// ---- The verified-token cache hit, through the core and every adapter ---------------------------

const T = nowSec();
let clock = T * 1000;
const revocation = new MemoryRevocationStore();
const verifier = createJwtVerifier({
  issuers: [{ issuer: ISS, audience: AUD, jwks: JWKS }],
  revocation,
  now: () => clock,
});
const options = { jwt: verifier };
const whoami = (principal: Principal | undefined) => ({ subject: principal?.subject ?? null });
const silent = { onError: () => {} };

const apps: FrameworkApps = {
  express: (express) => {
    const app = express();
    app.use(ex.authenticate(options));
    app.get('/me', (req, res) => {
      res.json(whoami(ex.getPrincipal(req)));
    });
    app.use(errorsExpress.errorHandler(silent));
    return app;
  },
  fastify: async () => {
    const app = Fastify();
    await app.register(plumblineErrors, silent);
    app.addHook('onRequest', fa.authenticate(options));
    app.get('/me', async (request) => whoami(fa.getPrincipal(request)));
    return app;
  },
  hono: () => {
    const app = new Hono();
    const problems = problemDetails(silent);
    app.use(problems.middleware);
    app.onError(problems.onError);
    app.use(ho.authenticate(options));
    app.get('/me', (c) => c.json(whoami(ho.getPrincipal(c))));
    return app;
  },
};
const senders = frameworkSenders(apps);
const core = createAuthenticator(options);

type Answer = [number, unknown];
const send: Record<string, (token: string) => Promise<Answer>> = {
  core: async (token) => {
    const o = await coreOutcome(async () =>
      whoami(await core.authenticate({ rawHeaders: ['Authorization', `Bearer ${token}`] })),
    );
    return answer(o.status, o.body, o.headers['www-authenticate']);
  },
};
for (const framework of FRAMEWORKS) {
  send[framework] = async (token) => {
    const o = await senders[framework]!({ path: '/me', headers: { Authorization: `Bearer ${token}` } });
    return answer(o.status, o.body, o.headers['www-authenticate']);
  };
}
function answer(status: number, body: unknown, challenge: string | string[] | undefined): Answer {
  if (status === 200) return [status, body];
  const description = /error_description="([^"]*)"/.exec(String(challenge))?.[1];
  return [status, description];
}

describe.each(Object.keys(send))('a verified-token cache hit (%s)', (adapter) => {
  it('is served only for the same whole token, within exp/nbf/iat, and unless revoked', async () => {
    clock = T * 1000;
    const go = send[adapter]!;
    const a = await sign({ sub: `a-${adapter}`, jti: `a-${adapter}`, iat: T, nbf: T - 5, exp: T + 120 });
    const b = await sign({ sub: `b-${adapter}`, jti: `b-${adapter}`, iat: T, exp: T + 60 });
    // Token a with its last signature character changed: same header and payload, not the same token.
    const forged = `${a.slice(0, -2)}${a.at(-2) === 'A' ? 'B' : 'A'}${a.at(-1)}`;
    const at = (seconds: number) => () => {
      clock = seconds * 1000;
    };
    const steps: [string, () => unknown, string][] = [
      ['a', () => {}, 'a verified and cached'],
      ['a', () => {}, 'a from the cache'],
      ['b', () => {}, 'another token: its own principal'],
      ['forged', () => {}, 'a prefix of a: not a hit'],
      ['a', at(T - 100), 'the clock before nbf: verified again'],
      ['a', at(T), 'back in time: from the cache again'],
      ['b', at(T + 60 + 31), 'b after exp and tolerance'],
      ['a', () => {}, 'a still valid'],
      ['a', () => revocation.revoke(`a-${adapter}`, T + 300), 'a revoked while cached'],
    ];
    const tokens: Record<string, string> = { a, b, forged };
    const answers: [string, Answer][] = [];
    for (const [which, before, what] of steps) {
      await before();
      answers.push([what, await go(tokens[which]!)]);
    }
    expect(answers).toEqual([
      ['a verified and cached', [200, { subject: `a-${adapter}` }]],
      ['a from the cache', [200, { subject: `a-${adapter}` }]],
      ['another token: its own principal', [200, { subject: `b-${adapter}` }]],
      ['a prefix of a: not a hit', [401, 'The access token signature is not valid']],
      ['the clock before nbf: verified again', [401, 'The access token is not valid yet']],
      ['back in time: from the cache again', [200, { subject: `a-${adapter}` }]],
      ['b after exp and tolerance', [401, 'The access token expired']],
      ['a still valid', [200, { subject: `a-${adapter}` }]],
      ['a revoked while cached', [401, 'The access token was revoked']],
    ]);
  });
});

describe('the cache hit check (core verifier)', () => {
  it('a token issued in the future (iat past tolerance) is refused even after a hit was cached', async () => {
    clock = T * 1000;
    const token = await sign({ sub: 'iat', iat: T + 20, exp: T + 300 });
    const outcome = async () => {
      const o = await coreOutcome(() => verifier.verify(token));
      return [
        o.status,
        /error_description="([^"]*)"/.exec(String(o.headers['www-authenticate']))?.[1] ?? null,
      ];
    };
    const answers = [await outcome()];
    clock = (T - 60) * 1000;
    answers.push(await outcome());
    expect(answers).toEqual([
      [200, null],
      [401, 'The access token issue time is not valid'],
    ]);
  });

  it('the same principal object is answered for every hit of one token, frozen', async () => {
    clock = T * 1000;
    const token = await sign({ sub: 'shared', exp: T + 300 });
    const first = await verifier.verify(token);
    const second = await verifier.verify(token);
    expect([second === first, Object.isFrozen(second), Object.isFrozen(second.scopes)]).toEqual([
      true,
      true,
      true,
    ]);
  });
});

// ---- The realm requireScopes challenges with (the default realm leaves no property behind) -------

const realmOptions = (realm?: string) => ({ jwt: verifier, ...(realm ? { realm } : {}) });
const realmApps: FrameworkApps = {
  express: (express) => {
    const app = express();
    app.get('/default', ex.authenticate(realmOptions()), ex.requireScopes('admin'), (_q, res) =>
      res.json({}),
    );
    app.get('/api', ex.authenticate(realmOptions('api')), ex.requireScopes('admin'), (_q, res) =>
      res.json({}),
    );
    app.get(
      '/api-then-default',
      ex.authenticate(realmOptions('api')),
      ex.authenticate(realmOptions()),
      ex.requireScopes('admin'),
      (_q, res) => res.json({}),
    );
    app.use(errorsExpress.errorHandler(silent));
    return app;
  },
  fastify: async () => {
    const app = Fastify();
    await app.register(plumblineErrors, silent);
    const scoped = fa.requireScopes('admin');
    app.get('/default', { onRequest: fa.authenticate(realmOptions()), preHandler: scoped }, async () => ({}));
    app.get(
      '/api',
      { onRequest: fa.authenticate(realmOptions('api')), preHandler: scoped },
      async () => ({}),
    );
    const both = [fa.authenticate(realmOptions('api')), fa.authenticate(realmOptions())];
    app.get('/api-then-default', { onRequest: both, preHandler: scoped }, async () => ({}));
    return app;
  },
  hono: () => {
    const app = new Hono();
    const problems = problemDetails(silent);
    app.use(problems.middleware);
    app.onError(problems.onError);
    const scoped = ho.requireScopes('admin');
    app.get('/default', ho.authenticate(realmOptions()), scoped, (c) => c.json({}));
    app.get('/api', ho.authenticate(realmOptions('api')), scoped, (c) => c.json({}));
    const both = [ho.authenticate(realmOptions('api')), ho.authenticate(realmOptions())] as const;
    app.get('/api-then-default', ...both, scoped, (c) => c.json({}));
    return app;
  },
};
const realmSenders = frameworkSenders(realmApps);

describe.each(FRAMEWORKS)('the realm of the insufficient_scope challenge (%s)', (framework) => {
  it('is the realm authenticate() ran with, the last one when two ran', async () => {
    clock = T * 1000;
    const token = await sign({ sub: `realm-${framework}`, exp: T + 300 });
    const challenges = [];
    for (const path of ['/default', '/api', '/api-then-default']) {
      const o = await realmSenders[framework]!({ path, headers: { Authorization: `Bearer ${token}` } });
      challenges.push([path, o.status, o.headers['www-authenticate']]);
    }
    const challenge = (realm: string) => `Bearer realm="${realm}", error="insufficient_scope", scope="admin"`;
    expect(challenges).toEqual([
      ['/default', 403, challenge('plumbline')],
      ['/api', 403, challenge('api')],
      ['/api-then-default', 403, challenge('plumbline')],
    ]);
  });
});
