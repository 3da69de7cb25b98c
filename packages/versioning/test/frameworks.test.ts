/**
 * Lifecycle headers on Express 5, Express 4, Fastify 5 and Hono: one table, every framework must
 * send the same status and version headers, on successes and on errors alike.
 */
import { errorHandler } from '@plumbline/errors/express';
import { plumblineErrors } from '@plumbline/errors/fastify';
import { problemDetails } from '@plumbline/errors/hono';
import {
  describeAdapters,
  type FrameworkApps,
  frameworkRunners,
  type HttpRequestSpec,
} from '@plumbline/test-utils';
import type { NextFunction, Request, Response } from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { expect } from 'vitest';
import * as ex from '../src/express.js';
import * as fa from '../src/fastify.js';
import * as ho from '../src/hono.js';
import { createVersionPolicy, fieldRenamed, type VersionPolicy, versions } from '../src/index.js';

const DEPRECATED_AT = '2026-01-01T00:00:00Z';
const SUNSET_AT = '2026-12-31T23:59:59Z';
const DURING = Date.parse('2026-06-01T12:00:00Z');
const AFTER = Date.parse('2027-02-01T00:00:00Z');
const DOCS = '<https://docs.example.com/deprecations/v1>; rel="deprecation"';
const SUNSET_DOCS = '<https://docs.example.com/sunset-policy>; rel="sunset"';

function policy(strategy: 'path' | 'header', now: number): VersionPolicy {
  return createVersionPolicy({
    strategy,
    now: () => now,
    versions: [
      {
        version: '1',
        deprecatedAt: DEPRECATED_AT,
        sunsetAt: SUNSET_AT,
        successor: '2',
        links: {
          deprecation: 'https://docs.example.com/deprecations/v1',
          sunset: 'https://docs.example.com/sunset-policy',
        },
      },
      '2',
    ],
  });
}

// The same lifecycle declared on the version changes: the policy takes it from versions(), and
// every case of the table must get the same headers from it (v1's successor is the next version).
const DECLARED = versions([
  {
    version: '1',
    deprecated: DEPRECATED_AT,
    sunset: SUNSET_AT,
    link: {
      deprecation: 'https://docs.example.com/deprecations/v1',
      sunset: 'https://docs.example.com/sunset-policy',
    },
  },
  { version: '2', changes: [fieldRenamed({ schema: 'Project', from: 'name', to: 'title' })] },
]);

function declaredPolicy(strategy: 'path' | 'header', now: number): VersionPolicy {
  return createVersionPolicy({ strategy, now: () => now, versions: DECLARED });
}

// Deprecated without a date, one documentation link, three versions: Deprecation: true, the link
// as rel="deprecation" only (no sunset declared), the successor the next version (2, not 3).
const DEPRECATED_NO_DATE = createVersionPolicy({
  strategy: 'path',
  now: () => DURING,
  versions: versions([
    { version: '1', deprecated: true, link: 'https://docs.example.com/v1' },
    { version: '2', changes: [fieldRenamed({ schema: 'Project', from: 'name', to: 'title' })] },
    { version: '3', changes: [fieldRenamed({ schema: 'Project', from: 'title', to: 'label' })] },
  ]),
});

// A route answers with the version it saw; `/boom` paths fail with a 500.
function answer(path: string, version: string | undefined): { version: string | null } {
  if (path.endsWith('/boom')) throw new Error('database down');
  return { version: version ?? null };
}

// A `/paged` route adds a next-page Link of its own, after versioning's.
const NEXT = '<?page=2>; rel="next"';
const paged = (path: string) => path.endsWith('/paged');

// Earlier middleware that sets Vary and Link, as CORS or pagination would.
function preset(header: (name: string) => string | undefined, set: (name: string, value: string) => void) {
  for (const name of ['Vary', 'Link']) {
    const value = header(`x-preset-${name.toLowerCase()}`);
    if (value !== undefined) set(name, value);
  }
}

function apps(versionPolicy: VersionPolicy): FrameworkApps {
  const silent = { onError: () => {} };
  return {
    express: (express) => {
      const app = express();
      app.use((req: Request, res: Response, next: NextFunction) => {
        preset(
          (name) => req.headers[name] as string | undefined,
          (name, value) => res.setHeader(name, value),
        );
        next();
      });
      app.use(ex.versioning(versionPolicy));
      app.use((req: Request, res: Response) => {
        if (paged(req.path)) res.append('Link', NEXT);
        res.json(answer(req.path, ex.getApiVersion(req)));
      });
      app.use(errorHandler(silent));
      return app;
    },
    fastify: async () => {
      const app = Fastify();
      await app.register(plumblineErrors, { ...silent, requestId: false });
      app.addHook('onRequest', async (request, reply) => {
        preset(
          (name) => request.headers[name] as string | undefined,
          (name, value) => reply.header(name, value),
        );
      });
      await app.register(fa.versioning, { policy: versionPolicy });
      app.get('/*', async (request, reply) => {
        const link = reply.getHeader('link');
        if (paged(request.url)) reply.header('Link', link === undefined ? NEXT : `${link}, ${NEXT}`);
        return answer(request.url, fa.getApiVersion(request));
      });
      return app;
    },
    hono: () => {
      const app = new Hono();
      const problems = problemDetails({ ...silent, requestId: false });
      app.use(problems.middleware);
      app.onError(problems.onError);
      app.notFound(problems.notFound);
      app.use(async (c, next) => {
        preset(
          (name) => c.req.header(name),
          (name, value) => c.header(name, value),
        );
        await next();
      });
      app.use(ho.versioning(versionPolicy));
      app.get('*', (c) => {
        if (paged(c.req.path)) c.header('Link', NEXT, { append: true });
        return c.json(answer(c.req.path, ho.getApiVersion(c)));
      });
      return app;
    },
  };
}

type AppName =
  | 'pathDuring'
  | 'pathAfter'
  | 'headerDuring'
  | 'headerAfter'
  | 'declaredPathDuring'
  | 'declaredPathAfter'
  | 'declaredHeaderDuring'
  | 'declaredHeaderAfter'
  | 'deprecatedNoDate';

interface Case {
  readonly name: string;
  readonly app: AppName;
  readonly request: HttpRequestSpec;
  readonly status: number;
  readonly code?: string;
  readonly version?: string;
  /** Exact values; `undefined` means the header must be absent. */
  readonly headers: Readonly<Record<string, string | undefined>>;
}

const V1_DURING = {
  'api-supported-versions': '1, 2',
  'api-deprecated-versions': '1',
  deprecation: '@1767225600',
  sunset: 'Thu, 31 Dec 2026 23:59:59 GMT',
};

const cases: Case[] = [
  {
    name: 'a deprecated version carries Deprecation, Sunset and every Link',
    app: 'pathDuring',
    request: { path: '/v1/projects/7' },
    status: 200,
    version: '1',
    headers: {
      ...V1_DURING,
      link: `${DOCS}, ${SUNSET_DOCS}, </v2/projects/7>; rel="successor-version"`,
      vary: undefined,
    },
  },
  {
    name: "a deprecated version's Link is kept when the handler adds its own",
    app: 'pathDuring',
    request: { path: '/v1/paged' },
    status: 200,
    version: '1',
    headers: { ...V1_DURING, link: `${DOCS}, ${SUNSET_DOCS}, </v2/paged>; rel="successor-version", ${NEXT}` },
  },
  {
    name: 'a 500 in a deprecated version keeps every deprecation header',
    app: 'pathDuring',
    request: { path: '/v1/boom' },
    status: 500,
    code: 'internal_error',
    headers: { ...V1_DURING, link: `${DOCS}, ${SUNSET_DOCS}, </v2/boom>; rel="successor-version"` },
  },
  {
    name: 'the current version carries only the version lists',
    app: 'pathDuring',
    request: { path: '/v2/projects' },
    status: 200,
    version: '2',
    headers: {
      'api-supported-versions': '1, 2',
      'api-deprecated-versions': '1',
      deprecation: undefined,
      sunset: undefined,
      link: undefined,
    },
  },
  {
    name: 'an unknown path version is 404 with the version lists',
    app: 'pathDuring',
    request: { path: '/v3/projects' },
    status: 404,
    code: 'unsupported_api_version',
    headers: { 'api-supported-versions': '1, 2', deprecation: undefined },
  },
  {
    name: 'after the sunset: 410 api_version_sunset with Sunset, 2 the only supported version',
    app: 'pathAfter',
    request: { path: '/v1/projects' },
    status: 410,
    code: 'api_version_sunset',
    headers: {
      'api-supported-versions': '2',
      deprecation: '@1767225600',
      sunset: 'Thu, 31 Dec 2026 23:59:59 GMT',
    },
  },
  {
    name: 'after the sunset v2 is served',
    app: 'pathAfter',
    request: { path: '/v2/projects' },
    status: 200,
    version: '2',
    headers: { 'api-supported-versions': '2', 'api-deprecated-versions': undefined },
  },
  {
    name: 'header strategy: Vary and Link from earlier middleware are kept',
    app: 'headerDuring',
    request: {
      path: '/projects',
      headers: {
        'X-API-Version': '1',
        'X-Preset-Vary': 'Origin',
        'X-Preset-Link': '</projects?page=2>; rel="next"',
      },
    },
    status: 200,
    version: '1',
    headers: {
      vary: 'Origin, X-API-Version',
      link: `</projects?page=2>; rel="next", ${DOCS}, ${SUNSET_DOCS}, </projects>; rel="successor-version"`,
    },
  },
  {
    name: 'header strategy: a malformed version is 400 and Vary merges every member',
    app: 'headerDuring',
    request: { path: '/projects', headers: { 'X-API-Version': 'x', 'X-Preset-Vary': 'Origin' } },
    status: 400,
    code: 'invalid_api_version',
    headers: { vary: 'Origin, X-API-Version, Accept, Accept-Language', 'api-supported-versions': '1, 2' },
  },
  {
    name: 'header strategy: no version gets the default, Vary says so',
    app: 'headerDuring',
    request: { path: '/projects' },
    status: 200,
    version: '2',
    headers: { vary: 'X-API-Version', deprecation: undefined },
  },
  {
    name: 'header strategy: a 410 keeps Vary from other middleware',
    app: 'headerAfter',
    request: { path: '/x', headers: { 'X-API-Version': '1', 'X-Preset-Vary': 'Origin' } },
    status: 410,
    code: 'api_version_sunset',
    headers: {
      vary: 'Origin, X-API-Version, Accept, Accept-Language',
      sunset: 'Thu, 31 Dec 2026 23:59:59 GMT',
    },
  },
  {
    name: 'header strategy: two different versions are ambiguous',
    app: 'headerDuring',
    request: { path: '/projects', headers: { 'X-API-Version': ['1', '2'] } },
    status: 400,
    code: 'ambiguous_api_version',
    headers: { 'api-supported-versions': '1, 2' },
  },
];

const DECLARED_APP = {
  pathDuring: 'declaredPathDuring',
  pathAfter: 'declaredPathAfter',
  headerDuring: 'declaredHeaderDuring',
  headerAfter: 'declaredHeaderAfter',
} as const;

const allCases: Case[] = [
  ...cases,
  // Every case again, the lifecycle taken from the versions() declarations.
  ...cases.map((c) => ({
    ...c,
    name: `${c.name} (lifecycle from versions())`,
    app: DECLARED_APP[c.app as keyof typeof DECLARED_APP],
  })),
  {
    name: 'versions(): deprecated: true and one link send Deprecation: true, rel="deprecation", the next version as successor',
    app: 'deprecatedNoDate',
    request: { path: '/v1/projects' },
    status: 200,
    version: '1',
    headers: {
      'api-supported-versions': '1, 2, 3',
      'api-deprecated-versions': '1',
      deprecation: 'true',
      sunset: undefined,
      link: '<https://docs.example.com/v1>; rel="deprecation", </v2/projects>; rel="successor-version"',
    },
  },
  {
    name: 'versions(): a version without a lifecycle carries only the version lists',
    app: 'deprecatedNoDate',
    request: { path: '/v2/projects' },
    status: 200,
    version: '2',
    headers: {
      'api-supported-versions': '1, 2, 3',
      'api-deprecated-versions': '1',
      deprecation: undefined,
      sunset: undefined,
      link: undefined,
    },
  },
];

const runnersByApp = {
  pathDuring: frameworkRunners(apps(policy('path', DURING)), (c: Case) => c.request),
  pathAfter: frameworkRunners(apps(policy('path', AFTER)), (c: Case) => c.request),
  headerDuring: frameworkRunners(apps(policy('header', DURING)), (c: Case) => c.request),
  headerAfter: frameworkRunners(apps(policy('header', AFTER)), (c: Case) => c.request),
  declaredPathDuring: frameworkRunners(apps(declaredPolicy('path', DURING)), (c: Case) => c.request),
  declaredPathAfter: frameworkRunners(apps(declaredPolicy('path', AFTER)), (c: Case) => c.request),
  declaredHeaderDuring: frameworkRunners(apps(declaredPolicy('header', DURING)), (c: Case) => c.request),
  declaredHeaderAfter: frameworkRunners(apps(declaredPolicy('header', AFTER)), (c: Case) => c.request),
  deprecatedNoDate: frameworkRunners(apps(DEPRECATED_NO_DATE), (c: Case) => c.request),
};

describeAdapters(
  'versioning headers: one table, four frameworks',
  allCases,
  Object.fromEntries(
    (['express5', 'express4', 'fastify', 'hono'] as const).map((framework) => [
      framework,
      (c: Case) => runnersByApp[c.app][framework]!(c),
    ]),
  ),
  (outcome, c) => {
    expect(outcome.status).toBe(c.status);
    const body = outcome.body as Record<string, unknown>;
    if (c.code === undefined) expect(body).toEqual({ version: c.version });
    else expect(body['error_code']).toBe(c.code);
    for (const [name, value] of Object.entries(c.headers)) expect(outcome.headers[name], name).toBe(value);
  },
);
