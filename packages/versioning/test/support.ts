// Shared by this package's tests only; outside src/ so the published build holds no test code.
import { HttpError } from '@plumbline/errors';
import { errorHandler, notFoundHandler } from '@plumbline/errors/express';
import { plumblineErrors } from '@plumbline/errors/fastify';
import { problemDetails } from '@plumbline/errors/hono';
import { coreOutcome, type EXPRESS_VERSIONS, frameworkRunners, type Outcome } from '@plumbline/test-utils';
import type { Express, RequestHandler } from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { getResolvedVersion } from '../src/express.js';
import { versioning as fastifyVersioning } from '../src/fastify.js';
import { versioning as honoVersioning } from '../src/hono.js';
import { type ResolvedVersion, resolveVersion, type VersionPolicy } from '../src/index.js';

export type ExpressFactory = (typeof EXPRESS_VERSIONS)[number][1];

/** A request as the tables write it: path, raw query and headers (an array is several header lines). */
export interface RequestSpec {
  readonly path?: string;
  readonly query?: string;
  readonly headers?: Readonly<Record<string, string | readonly string[]>>;
}

/** Builds an app: `mount` adds the versioning middleware and routes, then 404 and the error handler. */
export function buildApp(express: ExpressFactory, mount: (app: Express) => void): Express {
  const app = express();
  mount(app);
  app.use(notFoundHandler());
  app.use(errorHandler({ onError: () => {} }));
  return app;
}

/** A handler that answers with what was resolved, so a table can compare it with the core. */
export const echo: RequestHandler = (req, res) => {
  const resolved = getResolvedVersion(req);
  res.json({
    version: resolved?.version,
    requested: resolved?.requested,
    defaulted: resolved?.defaulted,
    baseUrl: req.baseUrl,
    path: req.path,
  });
};

function core(policy: VersionPolicy, spec: RequestSpec): Promise<Outcome> {
  return coreOutcome(() =>
    resolveVersion(policy, {
      path: spec.path ?? '/projects',
      query: spec.query ?? '',
      headers: spec.headers ?? {},
    }),
  );
}

// What the echo routes answer; with the path strategy a path without a version is not a route.
function echoed(policy: VersionPolicy, resolved: ResolvedVersion | null | undefined, path: string) {
  if (!resolved && policy.strategy === 'path') throw new HttpError('not_found');
  return { version: resolved?.version, requested: resolved?.requested, defaulted: resolved?.defaulted, path };
}

/**
 * `core`, `express5`, `express4`, `fastify` and `hono` runners for `describeAdapters`, all over
 * the same policy. `mount` wires Express (versioning() or versionedRouter()); Fastify and Hono get
 * their versioning adapter and a catch-all echo route.
 */
export function runners<C extends { readonly request: RequestSpec }>(
  policy: VersionPolicy,
  mount: (app: Express) => void,
): Record<string, (testCase: C) => Promise<Outcome>> {
  const frameworks = frameworkRunners(
    {
      express: (express) => buildApp(express, mount),
      fastify: async () => {
        const app = Fastify();
        await app.register(plumblineErrors, { onError: () => {}, requestId: false });
        await app.register(fastifyVersioning, { policy });
        app.get('/*', async (req) => echoed(policy, req.apiVersion, req.url.split('?', 1)[0]!));
        return app;
      },
      hono: () => {
        const app = new Hono();
        const problems = problemDetails({ onError: () => {}, requestId: false });
        app.use(problems.middleware);
        app.onError(problems.onError);
        app.notFound(problems.notFound);
        app.use(honoVersioning(policy));
        app.get('*', (c) => c.json(echoed(policy, c.get('apiVersion'), c.req.path)));
        return app;
      },
    },
    (testCase: C) => ({
      path: `${testCase.request.path ?? '/projects'}${testCase.request.query === undefined ? '' : `?${testCase.request.query}`}`,
      headers: testCase.request.headers ?? {},
    }),
  );
  return { core: (testCase) => core(policy, testCase.request), ...frameworks } as Record<
    string,
    (testCase: C) => Promise<Outcome>
  >;
}

/** RFC 9110 IMF-fixdate, the only date form a sender may generate. */
export const IMF_FIXDATE =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/** Parses an RFC 8288 Link header into `{ target, rel }` pairs (enough for these tests). */
export function parseLinks(header: string | undefined): { target: string; rel: string }[] {
  if (header === undefined) return [];
  return [...header.matchAll(/<([^>]*)>\s*;\s*rel="([^"]*)"/g)].map((m) => ({ target: m[1]!, rel: m[2]! }));
}

/** The Unix seconds of an RFC 9745 `Deprecation` value (`@1767225600`). */
export function parseDeprecation(value: string | undefined): number | undefined {
  const match = /^@(-?\d+)$/.exec(value ?? '');
  return match === null ? undefined : Number(match[1]);
}
