// Refresh-token families end-to-end (issue 22 items 1 and 2, and the reuse grace interval): each
// scenario is a row of steps with the exact outcome of every step, run against the core and through
// the Express adapter on Express 5 and 4, with memory stores and with Redis stores.
import { errorHandler } from '@plumbline/errors/express';
import {
  coreOutcome,
  describeAdapters,
  EXPRESS_VERSIONS,
  fromSupertest,
  type Outcome,
  REDIS_URL,
  redisAvailable,
  uniquePrefix,
} from '@plumbline/test-utils';
import { Redis } from 'ioredis';
import request from 'supertest';
import { afterAll, describe, expect } from 'vitest';
import { authenticate, getPrincipal, revocationEndpoint, tokenEndpoint } from './express.js';
import {
  createJwtVerifier,
  MemoryRevocationStore,
  RedisRevocationStore,
  type RevocationStore,
} from './index.js';
import {
  createIssuer,
  createRevocationEndpoint,
  createTokenEndpoint,
  generateRefreshToken,
  MemoryRefreshTokenStore,
  type OAuthClient,
  RedisRefreshTokenStore,
  type RefreshTokenStore,
} from './issuer.js';

const redisUp = await redisAvailable();
const ISSUER = 'https://families.test';
const FORM = 'application/x-www-form-urlencoded';
const GRACE_SEC = 30;
const clients: OAuthClient[] = [
  { clientId: 'cli', secret: 's3cret', scopes: ['read:items', 'offline_access'] },
  { clientId: 'other', secret: 'other-secret', scopes: ['read:items', 'offline_access'] },
];
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
const CLI = basic('cli', 's3cret');
const OTHER = basic('other', 'other-secret');

/** What a scenario can do, whichever adapter carries it. */
interface Service {
  token(form: Record<string, string>, authorization?: string): Promise<Outcome>;
  revoke(token: string, authorization?: string): Promise<Outcome>;
  use(accessToken: string): Promise<Outcome>;
  advance(ms: number): void;
}

interface Stores {
  refresh(): RefreshTokenStore;
  revocation(): RevocationStore;
}

let clock = Date.now();
const now = () => clock;

async function build(stores: Stores, graceSec: number) {
  const revocation = stores.revocation();
  const issuer = await createIssuer({
    issuer: ISSUER,
    audience: ISSUER,
    refreshStore: stores.refresh(),
    revocation,
    refreshReuseGraceSec: graceSec,
    now,
  });
  const verifier = createJwtVerifier({
    issuers: [{ issuer: ISSUER, audience: ISSUER, jwks: issuer.jwks(), requireAccessTokenType: true }],
    revocation,
    now,
  });
  return { issuer, verifier, revocation };
}

type Built = Awaited<ReturnType<typeof build>>;

function coreService({ issuer, verifier, revocation }: Built): Service {
  const token = createTokenEndpoint({ issuer, clients });
  const revoke = createRevocationEndpoint({ clients, issuer, verifier, revocation });
  const plain = async (
    r: Promise<{ status: number; headers: Readonly<Record<string, string>>; body: unknown }>,
  ) => {
    const { status, headers, body } = await r;
    return {
      status,
      body,
      headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])),
    };
  };
  return {
    token: (form, authorization = CLI) =>
      plain(token({ authorization, contentType: FORM, body: new URLSearchParams(form).toString() })),
    revoke: (value, authorization = CLI) =>
      plain(
        revoke({ authorization, contentType: FORM, body: new URLSearchParams({ token: value }).toString() }),
      ),
    use: (accessToken) => coreOutcome(() => verifier.verify(accessToken)),
    advance: (ms) => {
      clock += ms;
    },
  };
}

function expressService(express: (typeof EXPRESS_VERSIONS)[number][1]) {
  return ({ issuer, verifier, revocation }: Built): Service => {
    const app = express();
    app.post('/oauth/token', tokenEndpoint({ issuer, clients }));
    app.post('/oauth/revoke', revocationEndpoint({ clients, issuer, verifier, revocation }));
    app.get('/items', authenticate({ jwt: verifier }), (req, res) => {
      res.json(getPrincipal(req));
    });
    app.use(errorHandler({ onError: () => {} }));
    return {
      token: async (form, authorization = CLI) =>
        fromSupertest(
          await request(app).post('/oauth/token').set('Authorization', authorization).type('form').send(form),
        ),
      revoke: async (value, authorization = CLI) =>
        fromSupertest(
          await request(app)
            .post('/oauth/revoke')
            .set('Authorization', authorization)
            .type('form')
            .send({ token: value }),
        ),
      use: async (accessToken) =>
        fromSupertest(await request(app).get('/items').set('Authorization', `Bearer ${accessToken}`)),
      advance: (ms) => {
        clock += ms;
      },
    };
  };
}

/** Tokens a scenario holds, by name. */
type Wallet = Record<string, string>;

/** Runs steps and writes each outcome as one short line: `<step> <status> [<error>]`. */
function recorder(svc: Service) {
  const lines: string[] = [];
  const wallet: Wallet = {};
  const line = (label: string, o: Outcome) => {
    const body = o.body as Record<string, unknown>;
    const error = body['error'] ?? body['error_code'];
    lines.push(`${label} ${o.status}${error !== undefined ? ` ${error}` : ''}`);
    return body;
  };
  const keep = (body: Record<string, unknown>, refresh: string, access: string) => {
    if (typeof body['refresh_token'] === 'string') wallet[refresh] = body['refresh_token'];
    if (typeof body['access_token'] === 'string') wallet[access] = body['access_token'];
  };
  return {
    lines,
    wallet,
    /** client_credentials with offline_access: refresh token `r`, access token `a`. */
    async start(r: string, a: string, authorization = CLI) {
      const body = line(
        `start ${r}`,
        await svc.token(
          { grant_type: 'client_credentials', scope: 'read:items offline_access' },
          authorization,
        ),
      );
      keep(body, r, a);
    },
    /** refresh grant with `from`; a new refresh token goes to `r`, the access token to `a`. */
    async refresh(from: string, r: string, a: string, authorization = CLI) {
      const body = line(
        `refresh ${from}`,
        await svc.token({ grant_type: 'refresh_token', refresh_token: wallet[from] ?? from }, authorization),
      );
      keep(body, r, a);
      return body;
    },
    async revoke(name: string, authorization = CLI) {
      line(`revoke ${name}`, await svc.revoke(wallet[name] ?? name, authorization));
    },
    async use(name: string) {
      line(`use ${name}`, await svc.use(wallet[name]!));
    },
    same(a: string, b: string) {
      lines.push(`${a} ${wallet[a] === wallet[b] ? '==' : '!='} ${b}`);
    },
    advance: svc.advance,
  };
}

type Steps = ReturnType<typeof recorder>;

interface Scenario {
  readonly name: string;
  readonly graceSec?: number;
  readonly steps: (s: Steps) => Promise<void>;
  readonly expected: readonly string[];
}

const scenarios: Scenario[] = [
  // Item 1: RFC 7009 revocation of refresh tokens ends the family.
  {
    name: 'revoking the newest refresh token ends its family and its access tokens',
    steps: async (s) => {
      await s.start('r1', 'a1');
      await s.revoke('r1');
      await s.refresh('r1', 'r2', 'a2');
      await s.use('a1');
    },
    expected: ['start r1 200', 'revoke r1 200', 'refresh r1 400 invalid_grant', 'use a1 401 invalid_token'],
  },
  {
    name: 'revoking an already rotated refresh token ends the family (newest token and access tokens too)',
    steps: async (s) => {
      await s.start('r1', 'a1');
      await s.refresh('r1', 'r2', 'a2');
      await s.revoke('r1');
      await s.refresh('r2', 'r3', 'a3');
      await s.use('a1');
      await s.use('a2');
    },
    expected: [
      'start r1 200',
      'refresh r1 200',
      'revoke r1 200',
      'refresh r2 400 invalid_grant',
      'use a1 401 invalid_token',
      'use a2 401 invalid_token',
    ],
  },
  {
    name: 'another client cannot revoke the refresh token: 200, and it keeps working',
    steps: async (s) => {
      await s.start('r1', 'a1');
      await s.revoke('r1', OTHER);
      await s.use('a1');
      await s.refresh('r1', 'r2', 'a2');
    },
    expected: ['start r1 200', 'revoke r1 200', 'use a1 200', 'refresh r1 200'],
  },
  {
    name: 'unknown and malformed refresh tokens: 200, nothing else touched',
    steps: async (s) => {
      await s.start('r1', 'a1');
      await s.revoke(generateRefreshToken());
      await s.revoke('plr_short');
      await s.refresh('r1', 'r2', 'a2');
    },
    expected: ['start r1 200', `revoke ${'plr_'}… 200`, 'revoke plr_short 200', 'refresh r1 200'],
  },
  // Item 2: a detected replay revokes the family's access tokens, not only its refresh tokens.
  {
    name: 'reuse revokes every live access token of the family, and only of that family',
    steps: async (s) => {
      await s.start('r1', 'a1');
      await s.start('x1', 'b1', OTHER);
      await s.refresh('r1', 'r2', 'a2');
      await s.use('a2');
      await s.refresh('r1', 'stolen', 'stolen-a');
      await s.use('a1');
      await s.use('a2');
      await s.refresh('r2', 'r3', 'a3');
      await s.use('b1');
    },
    expected: [
      'start r1 200',
      'start x1 200',
      'refresh r1 200',
      'use a2 200',
      'refresh r1 400 invalid_grant',
      'use a1 401 invalid_token',
      'use a2 401 invalid_token',
      'refresh r2 400 invalid_grant',
      'use b1 200',
    ],
  },
  {
    name: 'grace off (default): the immediate retry of a just-rotated token is reuse',
    steps: async (s) => {
      await s.start('r1', 'a1');
      await s.refresh('r1', 'r2', 'a2');
      await s.refresh('r1', 'retry', 'retry-a');
      await s.use('a2');
    },
    expected: ['start r1 200', 'refresh r1 200', 'refresh r1 400 invalid_grant', 'use a2 401 invalid_token'],
  },
  // Reuse grace interval (option, off by default).
  {
    name: 'grace on: the first retry within the interval gets the same successor; the second is reuse',
    graceSec: GRACE_SEC,
    steps: async (s) => {
      await s.start('r1', 'a1');
      await s.refresh('r1', 'r2', 'a2');
      s.advance(GRACE_SEC * 1000 - 1000);
      await s.refresh('r1', 'r2-again', 'a2-again');
      s.same('r2', 'r2-again');
      await s.use('a2-again');
      await s.refresh('r1', 'r2-third', 'a2-third');
      await s.use('a2');
      await s.use('a2-again');
      await s.refresh('r2', 'r3', 'a3');
    },
    expected: [
      'start r1 200',
      'refresh r1 200',
      'refresh r1 200',
      'r2 == r2-again',
      'use a2-again 200',
      'refresh r1 400 invalid_grant',
      'use a2 401 invalid_token',
      'use a2-again 401 invalid_token',
      'refresh r2 400 invalid_grant',
    ],
  },
  {
    name: 'grace on: the successor keeps rotating normally after a grace retry',
    graceSec: GRACE_SEC,
    steps: async (s) => {
      await s.start('r1', 'a1');
      await s.refresh('r1', 'r2', 'a2');
      await s.refresh('r1', 'r2-again', 'a2-again');
      await s.refresh('r2', 'r3', 'a3');
      await s.use('a3');
    },
    expected: ['start r1 200', 'refresh r1 200', 'refresh r1 200', 'refresh r2 200', 'use a3 200'],
  },
  {
    name: 'grace on: a retry after the interval is reuse',
    graceSec: GRACE_SEC,
    steps: async (s) => {
      await s.start('r1', 'a1');
      await s.refresh('r1', 'r2', 'a2');
      s.advance(GRACE_SEC * 1000 + 1);
      await s.refresh('r1', 'late', 'late-a');
      await s.refresh('r2', 'r3', 'a3');
    },
    expected: [
      'start r1 200',
      'refresh r1 200',
      'refresh r1 400 invalid_grant',
      'refresh r2 400 invalid_grant',
    ],
  },
  {
    name: 'grace on: a token two rotations old is reuse, even within the interval',
    graceSec: GRACE_SEC,
    steps: async (s) => {
      await s.start('r1', 'a1');
      await s.refresh('r1', 'r2', 'a2');
      await s.refresh('r2', 'r3', 'a3');
      await s.refresh('r1', 'old', 'old-a');
      await s.use('a3');
    },
    expected: [
      'start r1 200',
      'refresh r1 200',
      'refresh r2 200',
      'refresh r1 400 invalid_grant',
      'use a3 401 invalid_token',
    ],
  },
  {
    name: 'grace on: another client presenting the predecessor gets invalid_grant and changes nothing',
    graceSec: GRACE_SEC,
    steps: async (s) => {
      await s.start('r1', 'a1');
      await s.refresh('r1', 'r2', 'a2');
      await s.refresh('r1', 'theirs', 'theirs-a', OTHER);
      await s.refresh('r1', 'r2-again', 'a2-again');
      s.same('r2', 'r2-again');
    },
    expected: [
      'start r1 200',
      'refresh r1 200',
      'refresh r1 400 invalid_grant',
      'refresh r1 200',
      'r2 == r2-again',
    ],
  },
];

// The unknown token's label is random; show its prefix only.
const normalise = (lines: readonly string[]) =>
  lines.map((l) => l.replace(/^revoke plr_[A-Za-z0-9_-]{43}/, 'revoke plr_…'));

const redis = redisUp ? new Redis(REDIS_URL) : undefined;
const prefix = `${uniquePrefix('auth-fam')}:`;
afterAll(async () => {
  if (!redis) return;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  await redis.quit();
});

const storeKinds: [string, Stores][] = [
  [
    'memory',
    {
      refresh: () => new MemoryRefreshTokenStore({ now }),
      revocation: () => new MemoryRevocationStore({ now }),
    },
  ],
];
if (redis) {
  // Every scenario gets fresh key spaces.
  const fresh = () => `${prefix}${uniquePrefix('s')}:`;
  storeKinds.push([
    'redis',
    {
      refresh: () => new RedisRefreshTokenStore({ client: redis, prefix: fresh(), now }),
      revocation: () => new RedisRevocationStore({ client: redis, prefix: fresh() }),
    },
  ]);
}

describe.each(storeKinds)('refresh-token families on %s stores', (_kind, stores) => {
  const adapters: Record<string, (scenario: Scenario) => Promise<Outcome>> = {};
  const kinds: [string, (built: Built) => Service][] = [
    ['core', coreService],
    ...EXPRESS_VERSIONS.map(
      ([name, express]) => [name, expressService(express)] as [string, (b: Built) => Service],
    ),
  ];
  for (const [name, make] of kinds) {
    adapters[name] = async (scenario) => {
      clock = Date.now();
      const svc = make(await build(stores, scenario.graceSec ?? 0));
      const steps = recorder(svc);
      await scenario.steps(steps);
      return { status: 200, headers: {}, body: normalise(steps.lines) };
    };
  }
  describeAdapters('scenarios', scenarios, adapters, (outcome, scenario) => {
    expect(outcome.body).toEqual(scenario.expected);
  });
});
