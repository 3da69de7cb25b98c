/**
 * `versionConstraint()` on a real Fastify 5 app: v1, v2 and v3 routes on the same paths, routed by
 * the `apiVersion` constraint under the header, query and media-type strategies, the plugin reading
 * the constraint's resolution. One table per strategy: status, body and every version header.
 */
import { plumblineErrors } from '@plumbline/errors/fastify';
import { frameworkRunners, type HttpRequestSpec, type Outcome } from '@plumbline/test-utils';
import Fastify, { type FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { getApiVersion, type VersionConstraint, versionConstraint, versioning } from './fastify.js';
import { createVersionPolicy, type VersionPolicy, type VersionPolicyOptions } from './index.js';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const DOCS = 'https://docs.example.com/deprecations/v2';

// v1 is past its sunset (410), v2 deprecated with a sunset ahead, v3 current (and the default).
const VERSIONS: VersionPolicyOptions['versions'] = [
  { version: '1', deprecatedAt: '2025-01-01T00:00:00Z', sunsetAt: '2026-01-01T00:00:00Z', successor: '3' },
  {
    version: '2',
    deprecatedAt: '2026-01-01T00:00:00Z',
    sunsetAt: '2026-12-31T23:59:59Z',
    successor: '3',
    links: { deprecation: DOCS },
  },
  '3',
];

type Strategy = 'header' | 'query' | 'media-type';
/** Policy options without the versions and the clock, which every policy here shares. */
type Without<O> = O extends unknown ? Omit<O, 'now' | 'versions'> : never;
type StrategyOptions = Without<VersionPolicyOptions>;

/** The policy, with a clock that counts resolutions: the core reads it once per request it resolves. */
function countedPolicy(options: StrategyOptions) {
  const counter = { resolutions: 0 };
  const policy = createVersionPolicy({
    ...options,
    versions: VERSIONS,
    now: () => {
      counter.resolutions++;
      return NOW;
    },
  } as VersionPolicyOptions);
  counter.resolutions = 0;
  return { policy, counter };
}

const STRATEGIES: Record<Strategy, StrategyOptions> = {
  header: { strategy: 'header' },
  query: { strategy: 'query' },
  'media-type': { strategy: 'media-type', vendor: 'plumbline' },
};

/** A request for `path` naming `version` the strategy's way (nothing: no version named). */
function ask(strategy: Strategy, path: string, version?: string): HttpRequestSpec {
  if (version === undefined) return { path };
  if (strategy === 'header') return { path, headers: { 'X-API-Version': version } };
  if (strategy === 'query') return { path: `${path}?version=${version}` };
  return { path, headers: { Accept: `application/vnd.plumbline.v${version}+json` } };
}

/** v1, v2 and v3 of /projects, /reports only in v3, the neutral /health; every route says who it is. */
async function versionedApp(apiVersion: VersionConstraint): Promise<FastifyInstance> {
  const app = Fastify();
  await app.register(plumblineErrors, { onError: () => {}, requestId: false });
  await app.register(versioning, { constraint: apiVersion });
  app.get('/health', async (request) => ({ route: 'health', version: getApiVersion(request) ?? null }));
  for (const version of ['1', '2', '3']) {
    app.get('/projects', { constraints: { apiVersion: version } }, async (request) => ({
      route: `projects v${version}`,
      version: getApiVersion(request),
    }));
  }
  app.get('/reports', { constraints: { apiVersion: '3' } }, async (request) => ({
    route: 'reports v3',
    version: getApiVersion(request),
  }));
  return app;
}

const SUPPORTED = { 'api-supported-versions': '2, 3', 'api-deprecated-versions': '2' };
const V2_LIFECYCLE = { deprecation: '@1767225600', sunset: 'Thu, 31 Dec 2026 23:59:59 GMT' };
const CURRENT = { deprecation: undefined, sunset: undefined, link: undefined };

/** What the strategy varies on, v2's successor-version link for `path`, and the status of an unknown version. */
const SHAPE: Record<
  Strategy,
  { vary: string | undefined; successor: (path: string) => string; refused: number }
> = {
  header: { vary: 'X-API-Version', successor: (path) => `<${path}>; rel="successor-version"`, refused: 400 },
  query: {
    vary: undefined,
    successor: (path) => `<${path}?version=3>; rel="successor-version"`,
    refused: 400,
  },
  'media-type': {
    vary: 'Accept',
    successor: (path) => `<${path}>; rel="successor-version"; type="application/vnd.plumbline.v3+json"`,
    refused: 406,
  },
};

interface Case {
  readonly name: string;
  readonly path: string;
  readonly version?: string;
  readonly status: number;
  /** The route's answer, or the problem's `error_code`. */
  readonly body: Record<string, unknown> | string;
  /** Exact values; `undefined`: the header must be absent. */
  readonly headers: Readonly<Record<string, string | undefined>>;
}

// The problem documents of @plumbline/errors vary on Accept and Accept-Language.
const errorVary = (vary: string | undefined) =>
  vary === undefined || vary === 'Accept' ? 'Accept, Accept-Language' : `${vary}, Accept, Accept-Language`;

function cases(strategy: Strategy): Case[] {
  const { vary, successor, refused } = SHAPE[strategy];
  return [
    {
      name: 'v3 is routed to the v3 route',
      path: '/projects',
      version: '3',
      status: 200,
      body: { route: 'projects v3', version: '3' },
      headers: { ...SUPPORTED, ...CURRENT, vary },
    },
    {
      name: 'v2 is routed to the v2 route, with its Deprecation, Sunset and Link',
      path: '/projects',
      version: '2',
      status: 200,
      body: { route: 'projects v2', version: '2' },
      headers: {
        ...SUPPORTED,
        ...V2_LIFECYCLE,
        link: `<${DOCS}>; rel="deprecation", ${successor('/projects')}`,
        vary,
      },
    },
    {
      name: 'no version is the default, v3',
      path: '/projects',
      status: 200,
      body: { route: 'projects v3', version: '3' },
      headers: { ...SUPPORTED, ...CURRENT, vary },
    },
    {
      name: 'an unknown version matches no route and is refused, not 404',
      path: '/projects',
      version: '9',
      status: refused,
      body: 'unsupported_api_version',
      headers: { ...SUPPORTED, ...CURRENT, vary: errorVary(vary) },
    },
    {
      name: 'a version past its sunset is 410 with its lifecycle headers',
      path: '/projects',
      version: '1',
      status: 410,
      body: 'api_version_sunset',
      // The Link of the 410 is the core's error's (under these strategies it has no derived
      // successor-version link); the adapter adds none of its own.
      headers: {
        ...SUPPORTED,
        deprecation: '@1735689600',
        sunset: 'Thu, 01 Jan 2026 00:00:00 GMT',
        vary: errorVary(vary),
      },
    },
    {
      name: 'a route only v3 has, asked as v2: 404 not_found with the v2 headers',
      path: '/reports',
      version: '2',
      status: 404,
      body: 'not_found',
      headers: {
        ...SUPPORTED,
        ...V2_LIFECYCLE,
        link: `<${DOCS}>; rel="deprecation", ${successor('/reports')}`,
        vary: errorVary(vary),
      },
    },
    {
      name: 'the route only v3 has, asked as v3',
      path: '/reports',
      version: '3',
      status: 200,
      body: { route: 'reports v3', version: '3' },
      headers: { ...SUPPORTED, ...CURRENT, vary },
    },
    {
      name: 'a path no version has, with a version: 404 not_found',
      path: '/nothing',
      version: '3',
      status: 404,
      body: 'not_found',
      headers: { ...SUPPORTED, ...CURRENT, vary: errorVary(vary) },
    },
    {
      name: 'a path no version has, with an unknown version: the refusal',
      path: '/nothing',
      version: '9',
      status: refused,
      body: 'unsupported_api_version',
      headers: { ...SUPPORTED, vary: errorVary(vary) },
    },
    {
      name: 'the neutral /health whatever the version says, with the version lists only',
      path: '/health',
      version: '9',
      status: 200,
      body: { route: 'health', version: null },
      headers: { ...SUPPORTED, ...CURRENT, vary: undefined },
    },
  ];
}

function expectOutcome(outcome: Outcome, c: Case): void {
  expect(outcome.status).toBe(c.status);
  if (typeof c.body === 'string') {
    expect(outcome.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect((outcome.body as { error_code: string }).error_code).toBe(c.body);
  } else expect(outcome.body).toEqual(c.body);
  for (const [name, value] of Object.entries(c.headers)) expect(outcome.headers[name], name).toBe(value);
}

describe.each(Object.keys(STRATEGIES) as Strategy[])('versionConstraint: the %s strategy', (strategy) => {
  const { policy, counter } = countedPolicy(STRATEGIES[strategy]);
  const apiVersion = versionConstraint(policy, { neutralPaths: ['/health'] });
  const send = frameworkRunners({ fastify: () => versionedApp(apiVersion) }, (c: Case) =>
    ask(strategy, c.path, c.version),
  ).fastify!;

  it.each(cases(strategy).map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    await send(c);
    counter.resolutions = 0;
    expectOutcome(await send(c), c);
    // Routing, the plugin and the handler share one resolution.
    expect(counter.resolutions).toBe(1);
  });
});

describe('versionConstraint: the app places the refusal itself (refuse: false)', () => {
  // As a service that answers its neutral routes and a few checks before the versioned routes:
  // headers on every response early, the refusal in front of the versioned routes and where no
  // route matched, nowhere else.
  const { policy, counter } = countedPolicy(STRATEGIES.header);
  const apiVersion = versionConstraint(policy);
  const build = async () => {
    const app = Fastify();
    await app.register(plumblineErrors, { onError: () => {}, requestId: false });
    await app.register(versioning, { constraint: apiVersion, refuse: false });
    app.addHook('onRequest', async (request) => {
      if (request.is404) await apiVersion.refuse(request);
    });
    app.get('/health', async (request) => ({ route: 'health', version: getApiVersion(request) ?? null }));
    await app.register(async (scope) => {
      scope.addHook('onRequest', apiVersion.refuse);
      scope.get('/projects', { constraints: { apiVersion: '2' } }, async () => ({ route: 'projects v2' }));
      scope.get('/projects', { constraints: { apiVersion: '3' } }, async () => ({ route: 'projects v3' }));
    });
    return app;
  };
  const send = frameworkRunners({ fastify: build }, (request: HttpRequestSpec) => request).fastify!;

  it.each([
    ['v2 is served', '/projects', '2', 200, { route: 'projects v2' }],
    [
      'an unknown version where no route matched is refused',
      '/projects',
      '9',
      400,
      'unsupported_api_version',
    ],
    ['a version past its sunset is 410', '/projects', '1', 410, 'api_version_sunset'],
    [
      'a neutral route answers whatever the version says',
      '/health',
      '9',
      200,
      { route: 'health', version: null },
    ],
    ['on a neutral route, a valid version is read', '/health', '2', 200, { route: 'health', version: '2' }],
  ] as const)('%s', async (_name, path, version, status, body) => {
    counter.resolutions = 0;
    const outcome = await send(ask('header', path, version));
    expect(counter.resolutions).toBe(1);
    expect(outcome.status).toBe(status);
    if (typeof body === 'string') expect((outcome.body as { error_code: string }).error_code).toBe(body);
    else expect(outcome.body).toEqual(body);
    expect(outcome.headers['api-supported-versions']).toBe('2, 3');
    expect(outcome.headers['vary']?.split(', ')[0]).toBe('X-API-Version');
  });
});

describe('versionConstraint: the path strategy (prefixes, no route constraint)', () => {
  const { policy, counter } = countedPolicy({ strategy: 'path' });
  const apiVersion = versionConstraint(policy);
  const build = async () => {
    const app = Fastify();
    await app.register(plumblineErrors, { onError: () => {}, requestId: false });
    await app.register(versioning, { constraint: apiVersion });
    app.get('/health', async (request) => ({ route: 'health', version: getApiVersion(request) ?? null }));
    for (const version of ['1', '2', '3']) {
      await app.register(
        async (scope) => {
          scope.get('/projects', async (request) => ({
            route: `projects v${version}`,
            version: getApiVersion(request),
          }));
        },
        { prefix: `/v${version}` },
      );
    }
    return app;
  };
  const send = frameworkRunners({ fastify: build }, (request: HttpRequestSpec) => request).fastify!;

  it.each([
    ['/v3/projects', 200, { route: 'projects v3', version: '3' }, undefined],
    ['/v2/projects', 200, { route: 'projects v2', version: '2' }, '</v3/projects>; rel="successor-version"'],
    ['/v1/projects', 410, 'api_version_sunset', '</v3/projects>; rel="successor-version"'],
    ['/v9/projects', 404, 'unsupported_api_version', undefined],
    ['/health', 200, { route: 'health', version: null }, undefined],
  ] as const)('GET %s', async (path, status, body, successor) => {
    counter.resolutions = 0;
    const outcome = await send({ path });
    expect(counter.resolutions).toBe(1);
    expect(outcome.status).toBe(status);
    if (typeof body === 'string') expect((outcome.body as { error_code: string }).error_code).toBe(body);
    else expect(outcome.body).toEqual(body);
    expect(outcome.headers['api-supported-versions']).toBe('2, 3');
    expect(outcome.headers['link']?.split(', ').at(-1)).toBe(successor);
  });
});

describe('versionConstraint: configuration', () => {
  const policy = createVersionPolicy({ strategy: 'header', versions: ['1', '2'] });

  it('another name, the strategy given in routerOptions: the plugin does not add it again', async () => {
    const v = versionConstraint(policy, { name: 'v' });
    const app = Fastify({ routerOptions: { constraints: { v: v.strategy } } });
    await app.register(plumblineErrors, { onError: () => {}, requestId: false });
    await app.register(versioning, { constraint: v });
    app.get('/projects', { constraints: { v: '1' } }, async () => ({ route: 'projects v1' }));
    app.get('/projects', { constraints: { v: '2' } }, async () => ({ route: 'projects v2' }));
    const answers = await Promise.all(
      ['1', '2', undefined].map((version) =>
        app.inject({ url: '/projects', headers: version === undefined ? {} : { 'x-api-version': version } }),
      ),
    );
    expect(answers.map((answer) => answer.json())).toEqual([
      { route: 'projects v1' },
      { route: 'projects v2' },
      { route: 'projects v2' },
    ]);
    await app.close();
  });

  it('a route without the constraint on the same path serves the versions the constrained ones do not', async () => {
    const apiVersion = versionConstraint(policy);
    const app = Fastify();
    await app.register(versioning, { constraint: apiVersion });
    app.get('/projects', async (request) => ({
      route: 'projects, any version',
      version: getApiVersion(request),
    }));
    app.get('/projects', { constraints: { apiVersion: '2' } }, async () => ({ route: 'projects v2' }));
    const answers = await Promise.all(
      ['1', '2'].map((version) => app.inject({ url: '/projects', headers: { 'x-api-version': version } })),
    );
    expect(answers.map((answer) => answer.json())).toEqual([
      { route: 'projects, any version', version: '1' },
      { route: 'projects v2' },
    ]);
    await app.close();
  });

  it('outcome() takes the Fastify request or the Node request, and reads one resolution', async () => {
    const apiVersion = versionConstraint(policy);
    const app = Fastify();
    await app.register(versioning, { constraint: apiVersion });
    app.get('/projects', { constraints: { apiVersion: '1' } }, async (request) => ({
      same: apiVersion.outcome(request) === apiVersion.outcome(request.raw),
      kind: apiVersion.outcome(request.raw).kind,
    }));
    const answer = await app.inject({ url: '/projects', headers: { 'x-api-version': '1' } });
    expect(answer.json()).toEqual({ same: true, kind: 'resolved' });
    await app.close();
  });

  it.each([['2.0'], ['3'], [2]])(
    'a route constrained to %j, not a version as the policy spells it, is refused at start-up',
    async (value) => {
      const app = Fastify();
      await app.register(versioning, { constraint: versionConstraint(policy) });
      expect(() => app.get('/projects', { constraints: { apiVersion: value } }, async () => ({}))).toThrow(
        /the route constraint apiVersion: .* is not a supported version \(1, 2\)/,
      );
      await app.close();
    },
  );

  it.each([['version'], ['host'], ['api-version'], ['']])('the name %j is refused', (name) => {
    expect(() => versionConstraint(policy, { name })).toThrow(TypeError);
  });

  it('a value that is not a policy is refused', () => {
    expect(() => versionConstraint({} as VersionPolicy)).toThrow(/createVersionPolicy/);
  });
});
