/**
 * The API on Hono: the same front as express.ts, the two route tables under /v1 and /v2. On Node
 * through @hono/node-server; on Bun, Deno or Workers export `createApp()` instead.
 * Run it: `node src/hono.ts` (Node 22.18+ runs TypeScript as is).
 */
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import { authenticate } from '@plumbline/auth/hono';
import { mount } from '@plumbline/contract/hono';
import { problemDetails } from '@plumbline/errors/hono';
import { negotiate } from '@plumbline/negotiation/hono';
import { versioning } from '@plumbline/versioning/hono';
import { Hono } from 'hono';
import { apiRoutes, Store } from './routes.ts';
import { type Settings, settings } from './settings.ts';

export function createApp(options: Settings = settings()): Hono {
  const store = new Store();
  const problems = problemDetails();
  const app = new Hono({ strict: true });
  app.use(
    problems.middleware,
    versioning(options.policy),
    negotiate(options.negotiation),
    authenticate(options.auth),
  );
  app.onError(problems.onError);
  app.notFound(problems.notFound);
  for (const version of ['1', '2'] as const) {
    app.route(`/v${version}`, mount(new Hono({ strict: true }), apiRoutes(version, store), options.contract));
  }
  app.get('/openapi/:file', (c) => {
    const document = options.documents[c.req.param('file')];
    return document ? c.json(document) : problems.notFound(c);
  });
  return app;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const port = Number(process.env['PORT'] ?? 3000);
  serve({ fetch: createApp().fetch, port, hostname: '127.0.0.1' });
  process.stdout.write(`crud-api (hono) on http://127.0.0.1:${port}\n`);
}
