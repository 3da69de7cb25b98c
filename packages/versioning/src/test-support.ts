// Shared by this package's tests only; not part of the build entries.
import { errorHandler, notFoundHandler } from '@plumbline/errors/express';
import { coreOutcome, EXPRESS_VERSIONS, fromSupertest, type Outcome } from '@plumbline/test-utils';
import type { Express, RequestHandler } from 'express';
import request from 'supertest';
import { getResolvedVersion } from './express.js';
import { resolveVersion, type VersionPolicy } from './index.js';

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

export function send(app: Express, spec: RequestSpec): Promise<Outcome> {
  let test = request(app).get(
    `${spec.path ?? '/projects'}${spec.query === undefined ? '' : `?${spec.query}`}`,
  );
  for (const [name, value] of Object.entries(spec.headers ?? {})) {
    // Node writes one header line per array member, which is what "two header lines" means.
    test = test.set(name, value as string);
  }
  return test.then(fromSupertest);
}

export function core(policy: VersionPolicy, spec: RequestSpec): Promise<Outcome> {
  return coreOutcome(() =>
    resolveVersion(policy, {
      path: spec.path ?? '/projects',
      query: spec.query ?? '',
      headers: spec.headers ?? {},
    }),
  );
}

/** `core`, `express5` and `express4` runners for `describeAdapters`, all over the same policy. */
export function runners<C extends { readonly request: RequestSpec }>(
  policy: VersionPolicy,
  mount: (app: Express) => void,
): Record<string, (testCase: C) => Promise<Outcome>> {
  const result: Record<string, (testCase: C) => Promise<Outcome>> = {
    core: (testCase) => core(policy, testCase.request),
  };
  for (const [name, express] of EXPRESS_VERSIONS) {
    const app = buildApp(express, mount);
    result[name] = (testCase) => send(app, testCase.request);
  }
  return result;
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
