/**
 * Date versions (`Acme-Version: 2026-11-01`) and per-client pinned defaults: one table, run on the
 * core and on Express 5, Express 4, Fastify 5 and Hono.
 */
import { errorHandler } from '@plumbline/errors/express';
import { plumblineErrors } from '@plumbline/errors/fastify';
import { problemDetails } from '@plumbline/errors/hono';
import { coreOutcome, describeAdapters, frameworkRunners, type HttpRequestSpec } from '@plumbline/test-utils';
import type { NextFunction, Request, Response } from 'express';
import fc from 'fast-check';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import * as ex from './express.js';
import * as fa from './fastify.js';
import * as ho from './hono.js';
import { createVersionPolicy, type ResolvedVersion, resolveVersion, versionHeaders } from './index.js';

// Each client's pinned date: the version its account was created against, as Stripe pins accounts.
const PINS: Readonly<Record<string, string>> = {
  'old-client': '2025-03-01',
  'mid-client': '2025-06-01',
  'broken-client': '1999-01-01',
};

// An authentication middleware in front of versioning put the principal on the request; each
// framework keeps it in its own place, the core test passes it directly.
function principalOf(context: unknown): string | undefined {
  if (typeof context !== 'object' || context === null) return undefined;
  if ('principal' in context) return (context as { principal?: string }).principal;
  return (context as { var?: { principal?: string } }).var?.principal;
}

const policy = createVersionPolicy({
  strategy: 'date',
  header: 'Acme-Version',
  versions: [{ version: '2025-01-15', deprecated: true }, '2025-06-01', '2026-11-01'],
  pinnedVersion: (_request, context) => {
    const principal = principalOf(context);
    return principal === undefined ? undefined : PINS[principal];
  },
});
const SUPPORTED = '2025-01-15, 2025-06-01, 2026-11-01';

interface Case {
  readonly name: string;
  readonly request: HttpRequestSpec;
  readonly status: number;
  readonly code?: string;
  readonly version?: string;
  readonly requested?: string;
  readonly defaulted?: boolean;
}

const ok = (
  name: string,
  headers: HttpRequestSpec['headers'],
  version: string,
  requested?: string,
): Case => ({
  name,
  request: { path: '/projects', headers: headers ?? {} },
  status: 200,
  version,
  ...(requested === undefined ? { defaulted: true } : { requested, defaulted: false }),
});
const fails = (name: string, headers: HttpRequestSpec['headers'], status: number, code: string): Case => ({
  name,
  request: { path: '/projects', headers: headers ?? {} },
  status,
  code,
});

const cases: Case[] = [
  ok('a declared date is served as is', { 'Acme-Version': '2025-06-01' }, '2025-06-01', '2025-06-01'),
  ok(
    'a date between two versions gets the older one',
    { 'Acme-Version': '2025-09-30' },
    '2025-06-01',
    '2025-09-30',
  ),
  ok(
    'the day before a version gets the one before it',
    { 'Acme-Version': '2026-10-31' },
    '2025-06-01',
    '2026-10-31',
  ),
  ok('a date after the newest gets the newest', { 'Acme-Version': '2030-01-01' }, '2026-11-01', '2030-01-01'),
  ok('the first date exactly', { 'acme-version': ' 2025-01-15 ' }, '2025-01-15', '2025-01-15'),
  fails(
    'a date before the first version is 400',
    { 'Acme-Version': '2025-01-14' },
    400,
    'unsupported_api_version',
  ),
  fails('not a calendar date is 400 invalid', { 'Acme-Version': '2026-02-30' }, 400, 'invalid_api_version'),
  fails('a numeric version is 400 invalid', { 'Acme-Version': '2' }, 400, 'invalid_api_version'),
  fails('an empty header is 400 invalid', { 'Acme-Version': '' }, 400, 'invalid_api_version'),
  ok(
    'two dates of one version are one version',
    { 'Acme-Version': ['2025-06-01', '2025-07-01'] },
    '2025-06-01',
    '2025-06-01',
  ),
  fails(
    'two dates of different versions are ambiguous',
    { 'Acme-Version': ['2025-06-01', '2026-11-01'] },
    400,
    'ambiguous_api_version',
  ),
  ok('no date and no principal: the default (newest)', {}, '2026-11-01'),
  ok(
    'no date: the principal is pinned to the newest version not after its pin',
    { 'X-Client': 'old-client' },
    '2025-01-15',
  ),
  ok('no date: another principal, another pin', { 'X-Client': 'mid-client' }, '2025-06-01'),
  ok('no date, a principal without a pin: the default', { 'X-Client': 'new-client' }, '2026-11-01'),
  ok(
    'a date sent wins over the pin',
    { 'X-Client': 'old-client', 'Acme-Version': '2026-11-01' },
    '2026-11-01',
    '2026-11-01',
  ),
  fails(
    'a pin that selects no version is a server error',
    { 'X-Client': 'broken-client' },
    500,
    'internal_error',
  ),
];

function answer(resolved: ResolvedVersion | null | undefined) {
  return { version: resolved?.version, requested: resolved?.requested, defaulted: resolved?.defaulted };
}

const silent = { onError: () => {} };
const runners = frameworkRunners(
  {
    express: (express) => {
      const app = express();
      app.use((req: Request, _res: Response, next: NextFunction) => {
        (req as Request & { principal?: string | undefined }).principal = req.headers['x-client'] as
          | string
          | undefined;
        next();
      });
      app.use(ex.versioning(policy));
      app.get('/projects', (req: Request, res: Response) => {
        res.json(answer(ex.getResolvedVersion(req)));
      });
      app.use(errorHandler(silent));
      return app;
    },
    fastify: async () => {
      const app = Fastify();
      await app.register(plumblineErrors, { ...silent, requestId: false });
      app.decorateRequest('principal', undefined);
      app.addHook('onRequest', async (request) => {
        (request as unknown as { principal?: string | undefined }).principal = request.headers['x-client'] as
          | string
          | undefined;
      });
      await app.register(fa.versioning, { policy });
      app.get('/projects', async (request) => answer(request.apiVersion));
      return app;
    },
    hono: () => {
      const app = new Hono();
      const problems = problemDetails({ ...silent, requestId: false });
      app.use(problems.middleware);
      app.onError(problems.onError);
      app.notFound(problems.notFound);
      app.use(async (c, next) => {
        // Where an auth middleware keeps its principal; typed by its own ContextVariableMap.
        (c.set as (key: string, value: unknown) => void)('principal', c.req.header('x-client'));
        await next();
      });
      app.use(ho.versioning(policy));
      app.get('/projects', (c) => c.json(answer(ho.getResolvedVersion(c))));
      return app;
    },
  },
  (c: Case) => c.request,
);

function lowerHeaders(headers: HttpRequestSpec['headers']): Record<string, string | readonly string[]> {
  return Object.fromEntries(
    Object.entries(headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
  );
}

describeAdapters(
  'date versions and pinned defaults: one table, every adapter',
  cases,
  {
    core: (c) =>
      coreOutcome(() => {
        const headers = lowerHeaders(c.request.headers) as Record<string, string | string[]>;
        const principal = headers['x-client'] as string | undefined;
        return answer(resolveVersion(policy, { path: '/projects', headers }, { principal }));
      }),
    ...runners,
  },
  (outcome, c, adapter) => {
    expect(outcome.status).toBe(c.status);
    const body = outcome.body as Record<string, unknown>;
    if (c.code === undefined) {
      expect(body).toEqual({ version: c.version, requested: c.requested, defaulted: c.defaulted });
    } else expect(body['error_code']).toBe(c.code);
    if (adapter === 'core') return;
    expect(outcome.headers['api-supported-versions']).toBe(SUPPORTED);
    expect(outcome.headers['api-deprecated-versions']).toBe('2025-01-15');
    expect(outcome.headers['deprecation']).toBe(c.version === '2025-01-15' ? 'true' : undefined);
    expect(outcome.headers['vary']?.split(', ')).toContain('Acme-Version');
  },
);

describe('date policy configuration', () => {
  it.each([
    [{ versions: ['2026-11-01', '2'] }, 'version "2" must be a date "YYYY-MM-DD"'],
    [{ versions: ['2026-02-30'] }, 'version "2026-02-30" must be a date'],
    [{ versions: ['2026-11-01', '2026-11-01'] }, 'versions lists the same version twice'],
    [{ versions: ['2026-11-01'], header: 'bad header' }, 'header "bad header" is not a valid header name'],
  ])('refuses %j', (options, message) => {
    expect(() => createVersionPolicy({ strategy: 'date', ...options })).toThrow(message);
  });

  it('pinnedVersion has no use with the path strategy', () => {
    expect(() =>
      createVersionPolicy({ strategy: 'path', versions: ['1'], pinnedVersion: () => '1' }),
    ).toThrow('pinnedVersion has no use with the path strategy');
  });

  it('sorts the dates, defaults the header to API-Version and varies on it', () => {
    const sorted = createVersionPolicy({ strategy: 'date', versions: ['2026-11-01', '2024-05-01'] });
    expect([sorted.versions, sorted.defaultVersion, sorted.vary]).toEqual([
      ['2024-05-01', '2026-11-01'],
      '2026-11-01',
      'API-Version',
    ]);
    expect(resolveVersion(sorted, { headers: { 'api-version': '2025-01-01' } }).version).toBe('2024-05-01');
    expect(versionHeaders(sorted, '2024-05-01')).toEqual({
      'API-Supported-Versions': '2024-05-01, 2026-11-01',
      Vary: 'API-Version',
    });
  });

  it('a pinned version works with the header strategy too', () => {
    const pinned = createVersionPolicy({
      strategy: 'header',
      versions: ['1', '2'],
      pinnedVersion: (request) => (request.headers?.['x-client'] === 'legacy' ? '1' : undefined),
    });
    expect(resolveVersion(pinned, { headers: { 'x-client': 'legacy' } })).toEqual({
      version: '1',
      requested: undefined,
      defaulted: true,
      matchedPath: undefined,
    });
    expect(resolveVersion(pinned, { headers: {} }).version).toBe('2');
    expect(resolveVersion(pinned, { headers: { 'x-client': 'legacy', 'x-api-version': '2' } }).version).toBe(
      '2',
    );
  });
});

// Any set of declared dates and any requested date: the greatest declared date on or before it,
// or 400 unsupported_api_version when every declared date is later.
describe('property: date resolution picks the greatest declared date not after the request', () => {
  const day = fc
    .integer({ min: Date.UTC(2000, 0, 1) / 86_400_000, max: Date.UTC(2040, 11, 31) / 86_400_000 })
    .map((days) => new Date(days * 86_400_000).toISOString().slice(0, 10));

  it('holds', () => {
    fc.assert(
      fc.property(fc.uniqueArray(day, { minLength: 1, maxLength: 12 }), day, (declared, requested) => {
        const dated = createVersionPolicy({ strategy: 'date', versions: declared });
        const expected = declared
          .filter((date) => date <= requested)
          .sort()
          .at(-1);
        let outcome: string;
        try {
          outcome = resolveVersion(dated, { headers: { 'api-version': requested } }).version;
        } catch (error) {
          outcome = `${(error as { status: number }).status} ${(error as { code: string }).code}`;
        }
        expect(outcome).toBe(expected ?? '400 unsupported_api_version');
      }),
      { numRuns: 500, seed: 20261101 },
    );
  });
});
