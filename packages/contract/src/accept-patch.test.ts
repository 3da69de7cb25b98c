/**
 * `Accept-Patch` (RFC 5789 section 3.1): which paths advertise it (acceptPatchOf), and that a mount
 * with `acceptPatch: false` sends it on none, on every framework. The answers with it on are in the
 * behaviour table of frameworks.test.ts.
 */
import { type AdapterCase, describeAdapters, frameworkRunners } from '@plumbline/test-utils';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fixture, frameworkApps, READ_KEY, WRITE_KEY } from './__fixtures__/apps.js';
import { compileRoutes } from './compile.js';
import { acceptPatchOf } from './mount.js';
import { route } from './route.js';

const handler = async () => ({ status: 204 as const });
const Params = z.object({ id: z.string() });
const ROUTES = [
  route({ method: 'GET', path: '/notes', responses: { 204: {} }, handler }),
  route({ method: 'GET', path: '/notes/{id}', params: Params, responses: { 204: {} }, handler }),
  route({
    method: 'PATCH',
    path: '/notes/{id}',
    params: Params,
    body: z.object({}),
    responses: { 204: {} },
    handler,
  }),
  route({
    method: 'PATCH',
    path: '/drafts/{id}',
    params: Params,
    body: { schema: z.object({}), mediaTypes: ['application/json-patch+json'] },
    responses: { 204: {} },
    handler,
  }),
];

describe('acceptPatchOf', () => {
  it("maps each path with a PATCH route to that route's media types, in declared order", () => {
    expect([...acceptPatchOf(compileRoutes(ROUTES), {})]).toEqual([
      ['/notes/:id', 'application/merge-patch+json, application/json'],
      ['/drafts/:id', 'application/json-patch+json'],
    ]);
  });
  it('is empty with acceptPatch: false', () => {
    expect(acceptPatchOf(compileRoutes(ROUTES), { acceptPatch: false }).size).toBe(0);
  });
});

interface Case extends AdapterCase {
  readonly method: string;
  readonly path: string;
  readonly key: string;
  readonly status: number;
}

const CASES: readonly Case[] = [
  { name: 'a read of a member', method: 'GET', path: '/projects/2', key: READ_KEY, status: 200 },
  { name: 'a 405 of a member path', method: 'PUT', path: '/projects/2', key: WRITE_KEY, status: 405 },
  { name: 'OPTIONS of a member path', method: 'OPTIONS', path: '/projects/2', key: READ_KEY, status: 204 },
];

describeAdapters(
  'contract: acceptPatch: false sends no Accept-Patch',
  CASES,
  frameworkRunners(
    frameworkApps(() => {
      const f = fixture();
      return { ...f, options: { ...f.options, acceptPatch: false } };
    }),
    (c: Case) => ({ method: c.method, path: c.path, headers: { 'x-api-key': c.key } }),
  ),
  (outcome, c) => {
    expect(outcome.status).toBe(c.status);
    expect(outcome.headers['accept-patch']).toBeUndefined();
  },
);
