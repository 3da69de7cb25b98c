/**
 * Fastify's `methodNotAllowed(app, path, allowed, { routeOptions })`: the route it registers passes
 * through `routeOptions` before it is registered, as a mount's routes do (a version constraint on
 * shared paths, a hook of the caller's).
 */
import Fastify, { type RouteOptions } from 'fastify';
import { describe, expect, it } from 'vitest';
import { methodNotAllowed, plumblineErrors } from '../src/fastify.js';

async function appWith(routeOptions?: (route: RouteOptions) => RouteOptions) {
  const app = Fastify();
  await app.register(plumblineErrors, { onError: () => {} });
  app.get('/items/:id', { constraints: { host: 'v2.example' } }, async () => ({ ok: true }));
  methodNotAllowed(app, '/items/:id', ['GET'], routeOptions ? { routeOptions } : {});
  return app;
}

describe('methodNotAllowed routeOptions (Fastify)', () => {
  it('hands the route over once, with its url and the methods it answers', async () => {
    const seen: RouteOptions[] = [];
    const app = await appWith((route) => {
      seen.push(route);
      return route;
    });
    await app.ready();
    expect(seen).toHaveLength(1);
    expect(seen[0]!.url).toBe('/items/:id');
    const methods = seen[0]!.method as string[];
    expect(methods).toContain('DELETE');
    expect(methods).toContain('OPTIONS');
    expect(methods).not.toContain('GET');
    expect(methods).not.toContain('HEAD');
  });

  it('registers what the transform returns: its constraint and its hook take part in the answer', async () => {
    const app = await appWith((route) => ({
      ...route,
      constraints: { host: 'v2.example' },
      onRequest: [
        async (_request, reply) => {
          reply.header('X-Transformed', 'yes');
        },
        ...(route.onRequest as []),
      ],
    }));
    const matched = await app.inject({ method: 'DELETE', url: '/items/1', headers: { host: 'v2.example' } });
    expect(matched.statusCode).toBe(405);
    expect(matched.headers['allow']).toBe('GET, HEAD, OPTIONS');
    expect(matched.headers['x-transformed']).toBe('yes');
    expect(matched.json()).toMatchObject({ error_code: 'method_not_allowed', status: 405 });
    // Another host: the constraint keeps the route out, and nothing else serves the path.
    const other = await app.inject({ method: 'DELETE', url: '/items/1', headers: { host: 'v1.example' } });
    expect(other.statusCode).toBe(404);
    expect(other.headers['x-transformed']).toBeUndefined();
  });

  it('keeps its own checks ahead of the transformed hooks: an empty parameter is 404', async () => {
    const app = await appWith((route) => ({ ...route, constraints: { host: 'v2.example' } }));
    const empty = await app.inject({ method: 'DELETE', url: '/items/', headers: { host: 'v2.example' } });
    expect(empty.statusCode).toBe(404);
  });
});
