/**
 * Headers early, refusal later, on Express 5, Express 4, Fastify 5 and Hono: `versioning()` with
 * `refuse: false` sets the version headers on every answer and lets a refused version (unknown,
 * malformed, past its sunset) through; a neutral `/health` and a 401 before `refuseVersion()`
 * answer with the headers; `refuseVersion()` (Fastify: `constraint.refuse`) answers the refusal in
 * front of the versioned route and where no route matched. One table per strategy: exact status,
 * body and version headers, the same on every framework.
 */
import { HttpError } from '@plumbline/errors';
import { plumblineErrors } from '@plumbline/errors/fastify';
import { problemDetails } from '@plumbline/errors/hono';
import {
  describeAdapters,
  EXPRESS_VERSIONS,
  type FrameworkApps,
  frameworkRunners,
  frameworkSenders,
  type HttpRequestSpec,
  type Outcome,
} from '@plumbline/test-utils';
import type { RequestHandler } from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import * as ex from '../src/express.js';
import * as fa from '../src/fastify.js';
import * as ho from '../src/hono.js';
import { createVersionPolicy, type VersionPolicy, type VersionPolicyOptions } from '../src/index.js';
import { buildApp } from './support.js';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const DOCS = 'https://docs.example.com/deprecations/v2';

type Strategy = 'header' | 'media-type';

// v1 is past its sunset (410), v2 deprecated with a sunset ahead, v3 current (and the default).
function policyFor(strategy: Strategy): VersionPolicy {
  return createVersionPolicy({
    ...(strategy === 'header' ? { strategy } : { strategy, vendor: 'plumbline' }),
    now: () => NOW,
    versions: [
      {
        version: '1',
        deprecatedAt: '2025-01-01T00:00:00Z',
        sunsetAt: '2026-01-01T00:00:00Z',
        successor: '3',
      },
      {
        version: '2',
        deprecatedAt: '2026-01-01T00:00:00Z',
        sunsetAt: '2026-12-31T23:59:59Z',
        successor: '3',
        links: { deprecation: DOCS },
      },
      '3',
    ],
  } as VersionPolicyOptions);
}

// A check before the refusal, as an authentication or a rate limit would be: a request presenting
// the expired credential is 401, whatever its version.
const EXPIRED = 'Bearer expired';
function guard(authorization: string | undefined): void {
  if (authorization === EXPIRED) throw new HttpError('invalid_token');
}

const health = (version: string | undefined) => ({ route: 'health', version: version ?? null });
const projects = (version: string | undefined) => ({ route: 'projects', version });

/**
 * versioning({ refuse: false }) → the guard (401) → /health → refuseVersion() → /projects, then
 * 404 and the errors handler. Fastify: the plugin with `{ constraint, refuse: false }`, the guard
 * and `constraint.refuse` for the requests no route matched as root hooks, `/projects` of each
 * version (constrained) in a scope behind `constraint.refuse`.
 */
function apps(policy: VersionPolicy): FrameworkApps {
  const silent = { onError: () => {} };
  return {
    express: (express) =>
      buildApp(express, (app) => {
        app.use(ex.versioning(policy, { refuse: false }));
        app.use((req, _res, next) => {
          guard(req.headers.authorization);
          next();
        });
        app.get('/health', (req, res) => {
          res.json(health(ex.getApiVersion(req)));
        });
        app.use(ex.refuseVersion());
        app.get('/projects', (req, res) => {
          res.json(projects(ex.getApiVersion(req)));
        });
      }),
    fastify: async () => {
      const apiVersion = fa.versionConstraint(policy);
      const app = Fastify();
      await app.register(plumblineErrors, { ...silent, requestId: false });
      await app.register(fa.versioning, { constraint: apiVersion, refuse: false });
      app.addHook('onRequest', async (request) => guard(request.headers.authorization));
      app.addHook('onRequest', async (request) => {
        if (request.is404) await apiVersion.refuse(request);
      });
      app.get('/health', async (request) => health(fa.getApiVersion(request)));
      await app.register(async (scope) => {
        scope.addHook('onRequest', apiVersion.refuse);
        for (const version of policy.versions) {
          scope.get('/projects', { constraints: { apiVersion: version } }, async (request) =>
            projects(fa.getApiVersion(request)),
          );
        }
      });
      return app;
    },
    hono: () => {
      const app = new Hono();
      const problems = problemDetails({ ...silent, requestId: false });
      app.use(problems.middleware);
      app.onError(problems.onError);
      app.notFound(problems.notFound);
      app.use(ho.versioning(policy, { refuse: false }));
      app.use(async (c, next) => {
        guard(c.req.header('authorization'));
        await next();
      });
      app.get('/health', (c) => c.json(health(ho.getApiVersion(c))));
      app.use(ho.refuseVersion());
      app.get('/projects', (c) => c.json(projects(ho.getApiVersion(c))));
      return app;
    },
  };
}

/** A request for `path` naming `version` the strategy's way (nothing: no version named). */
function ask(strategy: Strategy, path: string, version?: string, authorization?: string): HttpRequestSpec {
  const headers: Record<string, string> = authorization === undefined ? {} : { Authorization: authorization };
  if (version !== undefined) {
    if (strategy === 'header') headers['X-API-Version'] = version;
    else headers['Accept'] = `application/vnd.plumbline.v${version}+json`;
  }
  return { path, headers };
}

const SUPPORTED = { 'api-supported-versions': '2, 3', 'api-deprecated-versions': '2' };
const CURRENT = { deprecation: undefined, sunset: undefined, link: undefined };
const V2_LIFECYCLE = { deprecation: '@1767225600', sunset: 'Thu, 31 Dec 2026 23:59:59 GMT' };
const V1_SUNSET = { deprecation: '@1735689600', sunset: 'Thu, 01 Jan 2026 00:00:00 GMT', link: undefined };

/** What the strategy varies on, v2's successor-version link, the unknown version's status, a malformed version. */
const SHAPE: Record<
  Strategy,
  { vary: string; successor: (path: string) => string; unknown: number; malformed: string }
> = {
  header: {
    vary: 'X-API-Version',
    successor: (path) => `<${path}>; rel="successor-version"`,
    unknown: 400,
    malformed: 'v2',
  },
  'media-type': {
    vary: 'Accept',
    successor: (path) => `<${path}>; rel="successor-version"; type="application/vnd.plumbline.v3+json"`,
    unknown: 406,
    malformed: '2.x',
  },
};

interface Case {
  readonly name: string;
  readonly path: string;
  readonly version?: string;
  readonly authorization?: string;
  readonly status: number;
  /** The route's answer, or the problem's `error_code`. */
  readonly body: Record<string, unknown> | string;
  /** Exact values; `undefined`: the header must be absent. */
  readonly headers: Readonly<Record<string, string | undefined>>;
}

// The problem documents of @plumbline/errors vary on Accept and Accept-Language.
const errorVary = (vary: string) =>
  vary === 'Accept' ? 'Accept, Accept-Language' : `${vary}, Accept, Accept-Language`;

function cases(strategy: Strategy): Case[] {
  const { vary, successor, unknown, malformed } = SHAPE[strategy];
  const v2 = (path: string) => ({
    ...SUPPORTED,
    ...V2_LIFECYCLE,
    link: `<${DOCS}>; rel="deprecation", ${successor(path)}`,
  });
  // What a refused request carries until it is refused: the version lists and Vary.
  const refused = { ...SUPPORTED, ...CURRENT, vary };
  return [
    {
      name: 'a valid version passes refuseVersion()',
      path: '/projects',
      version: '3',
      status: 200,
      body: projects('3'),
      headers: { ...SUPPORTED, ...CURRENT, vary },
    },
    {
      name: 'a deprecated version passes with Deprecation, Sunset and Link',
      path: '/projects',
      version: '2',
      status: 200,
      body: projects('2'),
      headers: { ...v2('/projects'), vary },
    },
    {
      name: 'no version is the default',
      path: '/projects',
      status: 200,
      body: projects('3'),
      headers: { ...SUPPORTED, ...CURRENT, vary },
    },
    {
      name: 'the neutral /health answers an unknown version, with the version headers',
      path: '/health',
      version: '9',
      status: 200,
      body: health(undefined),
      headers: refused,
    },
    {
      name: 'the neutral /health answers a malformed version, with the version headers',
      path: '/health',
      version: malformed,
      status: 200,
      body: health(undefined),
      headers: refused,
    },
    {
      name: 'the neutral /health answers a version past its sunset, with the version headers',
      path: '/health',
      version: '1',
      status: 200,
      body: health(undefined),
      headers: refused,
    },
    {
      name: 'the neutral /health reads a valid version',
      path: '/health',
      version: '2',
      status: 200,
      body: health('2'),
      headers: { ...v2('/health'), vary },
    },
    {
      name: 'an unknown version on the versioned route is refused',
      path: '/projects',
      version: '9',
      status: unknown,
      body: 'unsupported_api_version',
      headers: { ...SUPPORTED, ...CURRENT, vary: errorVary(vary) },
    },
    {
      name: 'a malformed version on the versioned route is refused',
      path: '/projects',
      version: malformed,
      status: 400,
      body: 'invalid_api_version',
      headers: { ...SUPPORTED, ...CURRENT, vary: errorVary(vary) },
    },
    {
      name: 'a version past its sunset on the versioned route is 410 with its lifecycle headers',
      path: '/projects',
      version: '1',
      status: 410,
      body: 'api_version_sunset',
      headers: { ...SUPPORTED, ...V1_SUNSET, vary: errorVary(vary) },
    },
    {
      name: 'an unknown version where no route matched is refused, not 404',
      path: '/nothing',
      version: '9',
      status: unknown,
      body: 'unsupported_api_version',
      headers: { ...SUPPORTED, ...CURRENT, vary: errorVary(vary) },
    },
    {
      name: 'a valid version where no route matched is 404 not_found with the version headers',
      path: '/nothing',
      version: '2',
      status: 404,
      body: 'not_found',
      headers: { ...v2('/nothing'), vary: errorVary(vary) },
    },
    {
      name: 'a 401 before refuseVersion(), with an unknown version, carries the version headers',
      path: '/projects',
      version: '9',
      authorization: EXPIRED,
      status: 401,
      body: 'invalid_token',
      headers: { ...SUPPORTED, ...CURRENT, vary: errorVary(vary) },
    },
    {
      name: 'a 401 before refuseVersion(), with a deprecated version, carries its Deprecation, Sunset and Link',
      path: '/projects',
      version: '2',
      authorization: EXPIRED,
      status: 401,
      body: 'invalid_token',
      headers: { ...v2('/projects'), vary: errorVary(vary) },
    },
    {
      name: 'a 401 before the neutral route carries the version headers',
      path: '/health',
      version: '9',
      authorization: EXPIRED,
      status: 401,
      body: 'invalid_token',
      headers: { ...SUPPORTED, ...CURRENT, vary: errorVary(vary) },
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

for (const strategy of ['header', 'media-type'] as const) {
  const runners = frameworkRunners(apps(policyFor(strategy)), (c: Case) =>
    ask(strategy, c.path, c.version, c.authorization),
  );
  describeAdapters(
    `refuse: false, then refuseVersion(): the ${strategy} strategy`,
    cases(strategy),
    runners,
    expectOutcome,
  );
}

describe('the default refuse: true is unchanged', () => {
  // The same app without refuse: false: versioning() refuses at once, before the neutral route
  // (which is not one of the core's neutralPaths) and before the guard; refuseVersion() has nothing to do.
  const policy = policyFor('header');
  const senders = frameworkSenders({
    express: (express) =>
      buildApp(express, (app) => {
        app.use(ex.versioning(policy));
        app.use((req, _res, next) => {
          guard(req.headers.authorization);
          next();
        });
        app.get('/health', (req, res) => {
          res.json(health(ex.getApiVersion(req)));
        });
        app.use(ex.refuseVersion());
        app.get('/projects', (req, res) => {
          res.json(projects(ex.getApiVersion(req)));
        });
      }),
    hono: () => {
      const app = new Hono();
      const problems = problemDetails({ onError: () => {}, requestId: false });
      app.use(problems.middleware);
      app.onError(problems.onError);
      app.notFound(problems.notFound);
      app.use(ho.versioning(policy));
      app.use(async (c, next) => {
        guard(c.req.header('authorization'));
        await next();
      });
      app.get('/health', (c) => c.json(health(ho.getApiVersion(c))));
      app.use(ho.refuseVersion());
      app.get('/projects', (c) => c.json(projects(ho.getApiVersion(c))));
      return app;
    },
  });

  it.each(
    (['express5', 'express4', 'hono'] as const).flatMap((framework) =>
      (
        [
          ['/health', '9', undefined, 400, 'unsupported_api_version'],
          ['/health', '1', undefined, 410, 'api_version_sunset'],
          ['/projects', '9', EXPIRED, 400, 'unsupported_api_version'],
          ['/projects', '3', undefined, 200, projects('3')],
          ['/health', '2', undefined, 200, health('2')],
        ] as const
      ).map((row) => [framework, ...row] as const),
    ),
  )('%s: GET %s as v%s (%s)', async (framework, path, version, authorization, status, body) => {
    const outcome = await senders[framework]!(ask('header', path, version, authorization));
    expect(outcome.status).toBe(status);
    if (typeof body === 'string') expect((outcome.body as { error_code: string }).error_code).toBe(body);
    else expect(outcome.body).toEqual(body);
    expect(outcome.headers['api-supported-versions']).toBe('2, 3');
    expect(outcome.headers['vary']?.split(', ')[0]).toBe('X-API-Version');
  });
});

const ERROR_VARY = 'X-API-Version, Accept, Accept-Language';

describe('versionedRouter behind versioning({ refuse: false })', () => {
  // The refusal is versionedRouter's own, after its neutral routes; no refuseVersion() is needed.
  const policy = policyFor('header');
  const route =
    (label: string): RequestHandler =>
    (req, res) => {
      res.json({ route: label, version: ex.getApiVersion(req) ?? null });
    };
  const senders = frameworkSenders({
    express: (express) =>
      buildApp(express, (app) => {
        const routers = Object.fromEntries(
          policy.versions.map((version) => [version, express.Router().get('/projects', route('projects'))]),
        );
        const neutral = express.Router().get('/health', route('health'));
        app.use(ex.versioning(policy, { refuse: false }));
        app.use((req, _res, next) => {
          guard(req.headers.authorization);
          next();
        });
        app.use(ex.versionedRouter(policy, routers, { neutral }));
      }),
  });

  it.each(
    EXPRESS_VERSIONS.flatMap(([framework]) =>
      (
        [
          ['/health', '9', undefined, 200, { route: 'health', version: null }, 'X-API-Version'],
          ['/health', '1', undefined, 200, { route: 'health', version: null }, 'X-API-Version'],
          ['/projects', '3', undefined, 200, { route: 'projects', version: '3' }, 'X-API-Version'],
          ['/projects', '9', undefined, 400, 'unsupported_api_version', ERROR_VARY],
          ['/projects', '1', undefined, 410, 'api_version_sunset', ERROR_VARY],
          ['/projects', '9', EXPIRED, 401, 'invalid_token', ERROR_VARY],
        ] as const
      ).map((row) => [framework, ...row] as const),
    ),
  )('%s: GET %s as v%s (%s)', async (framework, path, version, authorization, status, body, vary) => {
    const outcome = await senders[framework]!(ask('header', path, version, authorization));
    expect(outcome.status).toBe(status);
    if (typeof body === 'string') expect((outcome.body as { error_code: string }).error_code).toBe(body);
    else expect(outcome.body).toEqual(body);
    expect(outcome.headers['api-supported-versions']).toBe('2, 3');
    expect(outcome.headers['api-deprecated-versions']).toBe('2');
    expect(outcome.headers['vary']).toBe(vary);
  });
});

describe('Hono: a refused request goes on as a resolved one does', () => {
  // Its Vary is merged with the answer's own, as withResponseHeaders merges a resolved request's.
  const policy = policyFor('header');
  const send = frameworkSenders({
    hono: () => {
      const app = new Hono();
      app.use(ho.versioning(policy, { refuse: false }));
      app.get('/health', (c) => {
        c.header('Vary', 'Origin');
        return c.json(health(ho.getApiVersion(c)));
      });
      return app;
    },
  }).hono!;

  it.each([
    ['9', health(undefined)],
    ['2', health('2')],
  ])('GET /health as v%s', async (version, body) => {
    const outcome = await send(ask('header', '/health', version));
    expect([outcome.status, outcome.body, outcome.headers['vary']]).toEqual([
      200,
      body,
      'X-API-Version, Origin',
    ]);
  });
});

describe('refuseVersion() without a versioning() that kept a refusal', () => {
  const senders = frameworkSenders({
    express: (express) =>
      buildApp(express, (app) => {
        app.use(ex.refuseVersion());
        app.get('/projects', (_req, res) => {
          res.json({ ok: true });
        });
      }),
    hono: () => {
      const app = new Hono();
      app.use(ho.refuseVersion());
      app.get('/projects', (c) => c.json({ ok: true }));
      return app;
    },
  });

  it.each(['express5', 'express4', 'hono'] as const)('%s: goes on', async (framework) => {
    const outcome = await senders[framework]!({ path: '/projects', headers: { 'X-API-Version': '9' } });
    expect([outcome.status, outcome.body]).toEqual([200, { ok: true }]);
  });
});
