// One app on Express 5, Express 4, Fastify 5 and Hono whose routes send their own body and set their
// own validators (no represent()), with `notModified` installed, for the four-framework 304 table.
// /own/<variant> answers every method alike: `strong` has ETag "v1", `weak` W/"v1", `dated` a
// Last-Modified, `both` the two, `none` neither; `created` is a 201 and `missing` a 404 with ETag "v1".
// Every answer carries Cache-Control and X-Kept, and negotiate() adds Vary and Content-Language (on
// @hono/node-server through Node's response), all of which a 304 keeps.
import type { FrameworkApps } from '@plumbline/test-utils';
import type { Request, Response } from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import * as ex from '../src/express.js';
import * as fa from '../src/fastify.js';
import * as ho from '../src/hono.js';

export const BODY = JSON.stringify({ id: 'r1', title: 'Weld the bridge — ünd paint it' });
const CONTENT_TYPE = 'application/json; charset=utf-8';
const CACHE_CONTROL = 'private, max-age=60';
export const MODIFIED = Date.UTC(2026, 0, 2, 3, 4, 5);
export const LAST_MODIFIED = new Date(MODIFIED).toUTCString();
const METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const;

const STATUS: Readonly<Record<string, number>> = { created: 201, missing: 404 };

/** The status and headers of /own/<variant>, the same on every framework. */
export function answer(variant: string): { status: number; headers: Record<string, string> } {
  const headers: Record<string, string> = {
    'Content-Type': CONTENT_TYPE,
    'Cache-Control': CACHE_CONTROL,
    'X-Kept': 'yes',
  };
  if (variant === 'weak') headers['ETag'] = 'W/"v1"';
  else if (variant !== 'dated' && variant !== 'none') headers['ETag'] = '"v1"';
  if (variant === 'dated' || variant === 'both') headers['Last-Modified'] = LAST_MODIFIED;
  return { status: STATUS[variant] ?? 200, headers };
}

export const notModifiedApps: FrameworkApps = {
  express: (express) => {
    const app = express();
    app.disable('x-powered-by');
    // No weak ETag of Express's own on `none`: Fastify and Hono add none either.
    app.set('etag', false);
    ex.notModified(app);
    app.use(ex.negotiate());
    for (const method of METHODS) {
      app[method.toLowerCase() as 'get'](`/own/:variant`, (req: Request, res: Response) => {
        const { status, headers } = answer(req.params['variant'] as string);
        res.status(status).set(headers).send(BODY);
      });
    }
    return app;
  },
  fastify: async () => {
    const app = Fastify();
    await app.register(fa.notModified);
    await app.register(fa.negotiation);
    app.route({
      method: [...METHODS],
      url: '/own/:variant',
      handler: async (request, reply) => {
        const { status, headers } = answer((request.params as { variant: string }).variant);
        return reply.code(status).headers(headers).send(BODY);
      },
    });
    return app;
  },
  hono: () => {
    const app = new Hono();
    app.use(ho.notModified());
    app.use(ho.negotiate());
    app.on([...METHODS], '/own/:variant', (c) => {
      const { status, headers } = answer(c.req.param('variant'));
      return c.body(BODY, status as 200, headers);
    });
    return app;
  },
};
