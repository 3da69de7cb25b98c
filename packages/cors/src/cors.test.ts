import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CorsOptions, type CorsRequest, createCors, DEFAULT_EXPOSE_HEADERS } from './cors.js';

const APP = 'https://app.example.com';
const EXPOSE = DEFAULT_EXPOSE_HEADERS.join(', ');
const ALLOW_HEADERS =
  'Authorization, Content-Type, Idempotency-Key, If-Match, If-None-Match, X-API-Key, X-Request-Id, Accept-Language';
const METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE';
const PREFLIGHT_VARY = 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers';

interface Row {
  readonly name: string;
  readonly options: CorsOptions;
  readonly request: CorsRequest;
  readonly preflight: boolean;
  readonly allowed: boolean;
  readonly headers: Record<string, string>;
}

const get = (origin?: string): CorsRequest => ({ method: 'GET', path: '/projects', origin });
const preflight = (method: string, headers?: string, origin = APP, path = '/projects/1'): CorsRequest => ({
  method: 'OPTIONS',
  path,
  origin,
  accessControlRequestMethod: method,
  accessControlRequestHeaders: headers,
});
const exact: CorsOptions = { origins: [APP] };
const withCredentials: CorsOptions = { origins: [APP], credentials: true };
const actual = (origin: string) => ({
  'Access-Control-Allow-Origin': origin,
  'Access-Control-Expose-Headers': EXPOSE,
  Vary: 'Origin',
});

const rows: Row[] = [
  {
    name: 'no Origin: not CORS',
    options: exact,
    request: get(),
    preflight: false,
    allowed: false,
    headers: { Vary: 'Origin' },
  },
  {
    name: 'an exact origin',
    options: exact,
    request: get(APP),
    preflight: false,
    allowed: true,
    headers: actual(APP),
  },
  {
    name: 'a disallowed origin: no CORS headers, not refused',
    options: exact,
    request: get('https://evil.com'),
    preflight: false,
    allowed: false,
    headers: { Vary: 'Origin' },
  },
  {
    name: 'null is not allowed by a list without it',
    options: exact,
    request: get('null'),
    preflight: false,
    allowed: false,
    headers: { Vary: 'Origin' },
  },
  {
    name: 'null listed literally',
    options: { origins: [APP, 'null'] },
    request: get('null'),
    preflight: false,
    allowed: true,
    headers: actual('null'),
  },
  {
    name: 'null is never matched by a pattern',
    options: { origins: [/.*/] },
    request: get('null'),
    preflight: false,
    allowed: false,
    headers: { Vary: 'Origin' },
  },
  {
    name: 'null is never passed to a function',
    options: { origins: () => true },
    request: get('null'),
    preflight: false,
    allowed: false,
    headers: { Vary: 'Origin' },
  },
  {
    name: "'*' without credentials: * and no Vary",
    options: { origins: '*' },
    request: get('https://anyone.test'),
    preflight: false,
    allowed: true,
    headers: { 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': EXPOSE },
  },
  {
    name: "'*' and no Origin: nothing at all",
    options: { origins: '*' },
    request: get(),
    preflight: false,
    allowed: false,
    headers: {},
  },
  {
    name: 'credentials: the origin echoed with Allow-Credentials',
    options: withCredentials,
    request: get(APP),
    preflight: false,
    allowed: true,
    headers: { ...actual(APP), 'Access-Control-Allow-Credentials': 'true' },
  },
  {
    name: 'a pattern origin',
    options: { origins: [/https:\/\/[a-z0-9-]+\.preview\.example\.com/] },
    request: get('https://pr-42.preview.example.com'),
    preflight: false,
    allowed: true,
    headers: actual('https://pr-42.preview.example.com'),
  },
  {
    name: 'a pattern the user left unanchored is anchored: a suffix does not pass',
    options: { origins: [/https:\/\/app\.example\.com/] },
    request: get('https://app.example.com.evil.com'),
    preflight: false,
    allowed: false,
    headers: { Vary: 'Origin' },
  },
  {
    name: 'a pattern the user left unanchored is anchored: a prefix does not pass',
    options: { origins: [/https:\/\/app\.example\.com/] },
    request: get('https://evil.com/https://app.example.com'),
    preflight: false,
    allowed: false,
    headers: { Vary: 'Origin' },
  },
  {
    name: 'an alternation anchored on one side only is anchored as a whole',
    options: { origins: [/^https:\/\/a\.example\.com|https:\/\/b\.example\.com$/] },
    request: get('https://a.example.com.evil.com'),
    preflight: false,
    allowed: false,
    headers: { Vary: 'Origin' },
  },
  ...[
    'https://app.example.com.evil.com',
    'https://evil.com/https://app.example.com',
    'HTTPS://APP.EXAMPLE.COM',
    'https://app.example.com/',
    'https://app.example.com:443',
    'http://app.example.com',
    ' https://app.example.com',
  ].map(
    (origin): Row => ({
      name: `attacker origin ${JSON.stringify(origin)} with credentials`,
      options: withCredentials,
      request: get(origin),
      preflight: false,
      allowed: false,
      headers: { Vary: 'Origin' },
    }),
  ),
  {
    name: 'preflight PATCH with If-Match and Content-Type',
    options: withCredentials,
    request: preflight('PATCH', 'content-type,if-match'),
    preflight: true,
    allowed: true,
    headers: {
      'Access-Control-Allow-Origin': APP,
      'Access-Control-Allow-Credentials': 'true',
      'Access-Control-Allow-Methods': METHODS,
      'Access-Control-Allow-Headers': ALLOW_HEADERS,
      'Access-Control-Max-Age': '600',
      Vary: PREFLIGHT_VARY,
    },
  },
  {
    name: 'requested headers are compared case-insensitively, spaces allowed',
    options: exact,
    request: preflight('PUT', 'IF-MATCH, Idempotency-Key ,x-request-id'),
    preflight: true,
    allowed: true,
    headers: {
      'Access-Control-Allow-Origin': APP,
      'Access-Control-Allow-Methods': METHODS,
      'Access-Control-Allow-Headers': ALLOW_HEADERS,
      'Access-Control-Max-Age': '600',
      Vary: PREFLIGHT_VARY,
    },
  },
  {
    name: 'a preflight asking a header not allowed: the lists without it, no Max-Age',
    options: exact,
    request: preflight('PATCH', 'content-type,x-debug'),
    preflight: true,
    allowed: true,
    headers: {
      'Access-Control-Allow-Origin': APP,
      'Access-Control-Allow-Methods': METHODS,
      'Access-Control-Allow-Headers': ALLOW_HEADERS,
      Vary: PREFLIGHT_VARY,
    },
  },
  {
    name: 'a preflight for a method the route does not take: its methods only, no Max-Age',
    options: {
      ...exact,
      allowedMethods: (path) => (path === '/projects/1' ? ['GET', 'PATCH', 'DELETE'] : undefined),
    },
    request: preflight('PUT'),
    preflight: true,
    allowed: true,
    headers: {
      'Access-Control-Allow-Origin': APP,
      'Access-Control-Allow-Methods': 'GET, PATCH, DELETE',
      'Access-Control-Allow-Headers': ALLOW_HEADERS,
      Vary: PREFLIGHT_VARY,
    },
  },
  {
    name: 'a preflight for a path with no route: no method allowed',
    options: { ...exact, allowedMethods: () => [] },
    request: preflight('GET'),
    preflight: true,
    allowed: true,
    headers: {
      'Access-Control-Allow-Origin': APP,
      'Access-Control-Allow-Headers': ALLOW_HEADERS,
      Vary: PREFLIGHT_VARY,
    },
  },
  {
    name: 'methods are case-sensitive (patch is not PATCH)',
    options: exact,
    request: preflight('patch'),
    preflight: true,
    allowed: true,
    headers: {
      'Access-Control-Allow-Origin': APP,
      'Access-Control-Allow-Methods': METHODS,
      'Access-Control-Allow-Headers': ALLOW_HEADERS,
      Vary: PREFLIGHT_VARY,
    },
  },
  {
    name: 'a preflight from a disallowed origin: 204 with Vary only',
    options: exact,
    request: preflight('PATCH', 'if-match', 'https://evil.com'),
    preflight: true,
    allowed: false,
    headers: { Vary: PREFLIGHT_VARY },
  },
  {
    name: "a preflight with '*': no Vary: Origin",
    options: { origins: '*', maxAge: 0 },
    request: preflight('DELETE'),
    preflight: true,
    allowed: true,
    headers: {
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Allow-Methods': METHODS,
      'Access-Control-Allow-Headers': ALLOW_HEADERS,
      'Access-Control-Max-Age': '0',
      Vary: 'Access-Control-Request-Method, Access-Control-Request-Headers',
    },
  },
  {
    name: 'OPTIONS without Access-Control-Request-Method is not a preflight',
    options: exact,
    request: { method: 'OPTIONS', path: '/projects', origin: APP },
    preflight: false,
    allowed: true,
    headers: actual(APP),
  },
  {
    name: 'versionHeader is allowed and exposed; lists can be derived from the defaults',
    options: {
      origins: APP,
      versionHeader: 'API-Version',
      allowHeaders: ['Content-Type'],
      exposeHeaders: (defaults) => [...defaults.filter((name) => name !== 'Sunset'), 'X-Total-Count'],
    },
    request: preflight('POST', 'api-version'),
    preflight: true,
    allowed: true,
    headers: {
      'Access-Control-Allow-Origin': APP,
      'Access-Control-Allow-Methods': METHODS,
      'Access-Control-Allow-Headers': 'Content-Type, API-Version',
      'Access-Control-Max-Age': '600',
      Vary: PREFLIGHT_VARY,
    },
  },
  {
    name: 'exposeHeaders derived from the defaults, plus versionHeader',
    options: {
      origins: APP,
      versionHeader: 'API-Version',
      exposeHeaders: (defaults) => [...defaults.filter((name) => name !== 'Sunset'), 'X-Total-Count'],
    },
    request: get(APP),
    preflight: false,
    allowed: true,
    headers: {
      ...actual(APP),
      'Access-Control-Expose-Headers':
        'Link, ETag, Location, RateLimit, RateLimit-Policy, Retry-After, Deprecation, Content-Language, X-Request-Id, Idempotency-Key, Idempotent-Replayed, API-Supported-Versions, API-Deprecated-Versions, Accept-Post, Accept-Patch, X-Total-Count, API-Version',
    },
  },
  {
    name: 'an empty expose list sends no Expose-Headers',
    options: { origins: APP, exposeHeaders: [] },
    request: get(APP),
    preflight: false,
    allowed: true,
    headers: { 'Access-Control-Allow-Origin': APP, Vary: 'Origin' },
  },
];

describe('createCors: decisions', () => {
  it.each(rows.map((row) => [row.name, row] as const))('%s', (_name, row) => {
    const decision = createCors(row.options).decide(row.request);
    expect({ preflight: decision.preflight, allowed: decision.allowed, headers: decision.headers }).toEqual({
      preflight: row.preflight,
      allowed: row.allowed,
      headers: row.headers,
    });
    if (decision.preflight) expect(decision.status).toBe(204);
  });
});

describe('createCors: configuration errors', () => {
  it.each<[string, CorsOptions, RegExp]>([
    ["'*' with credentials", { origins: '*', credentials: true }, /cannot be combined with credentials/],
    ["['*'] with credentials", { origins: ['*'], credentials: true }, /cannot be combined with credentials/],
    ["'*' listed with other origins", { origins: ['*', APP] }, /do not list it/],
    [
      'a trailing slash',
      { origins: 'https://app.example.com/' },
      /did you mean "https:\/\/app\.example\.com"/,
    ],
    ['upper case', { origins: 'https://App.example.com' }, /did you mean "https:\/\/app\.example\.com"/],
    ['a default port', { origins: 'https://app.example.com:443' }, /not an origin/],
    ['a path', { origins: 'https://app.example.com/app' }, /not an origin/],
    ['a bare host', { origins: 'app.example.com' }, /not an origin/],
    ['maxAge above a day', { origins: APP, maxAge: 86_401 }, /maxAge/],
    ['a negative maxAge', { origins: APP, maxAge: -1 }, /maxAge/],
    ['a fractional maxAge', { origins: APP, maxAge: 1.5 }, /maxAge/],
    ['a header name with a space', { origins: APP, exposeHeaders: ['X Total'] }, /not a header name/],
    ['a method with a space', { origins: APP, methods: ['GE T'] }, /not a method/],
  ])('%s throws a TypeError', (_name, options, message) => {
    expect(() => createCors(options)).toThrow(TypeError);
    expect(() => createCors(options)).toThrow(message);
  });

  it('accepts maxAge 86400 and an origin with a non-default port', () => {
    const cors = createCors({ origins: 'http://localhost:5173', maxAge: 86_400 });
    expect(
      cors.decide(preflight('GET', undefined, 'http://localhost:5173')).headers['Access-Control-Max-Age'],
    ).toBe('86400');
  });

  it('a global or sticky pattern gives the same answer every time (no lastIndex state)', () => {
    const cors = createCors({ origins: [/https:\/\/app\.example\.com/gy] });
    expect([1, 2, 3].map(() => cors.isAllowedOrigin(APP))).toEqual([true, true, true]);
  });
});

describe('createCors: origin matcher properties', () => {
  const LISTED = ['https://app.example.com', 'https://admin.example.com', 'http://localhost:5173'];
  const originLike = fc.oneof(
    fc.webUrl().map((url) => new URL(url).origin),
    fc.string(),
    fc
      .constantFrom(...LISTED)
      .chain((origin) =>
        fc.tuple(fc.string(), fc.string()).map(([before, after]) => `${before}${origin}${after}`),
      ),
    fc.constantFrom(...LISTED).map((origin) => origin.toUpperCase()),
    fc.constant('null'),
  );

  it('with credentials, no origin outside the list ever gets Allow-Origin, and a listed one gets exactly itself', () => {
    const cors = createCors({ origins: LISTED, credentials: true });
    fc.assert(
      fc.property(
        originLike,
        fc.constantFrom('GET', 'POST', 'OPTIONS'),
        fc.option(fc.constantFrom('PATCH', 'GET')),
        (origin, method, requested) => {
          const headers = cors.decide({
            method,
            origin,
            accessControlRequestMethod: requested ?? undefined,
          }).headers;
          const allowOrigin = headers['Access-Control-Allow-Origin'];
          if (LISTED.includes(origin)) expect(allowOrigin).toBe(origin);
          else {
            expect(allowOrigin).toBeUndefined();
            expect(headers['Access-Control-Allow-Credentials']).toBeUndefined();
          }
          expect(allowOrigin).not.toBe('*');
          expect(headers['Vary']?.split(', ')).toContain('Origin');
        },
      ),
    );
  });

  it('a pattern allows only origins it matches as a whole', () => {
    const pattern = /https:\/\/[a-z0-9-]+\.example\.com/;
    const cors = createCors({ origins: [pattern], credentials: true });
    fc.assert(
      fc.property(originLike, (origin) => {
        const whole = origin !== 'null' && new RegExp(`^(?:${pattern.source})$`).test(origin);
        expect(cors.isAllowedOrigin(origin)).toBe(whole);
        if (whole) expect(origin.endsWith('.example.com') && origin.startsWith('https://')).toBe(true);
      }),
    );
  });
});
