/**
 * The API on Express: the front every Plumbline app has (request ids, versions, negotiation,
 * credentials), the two route tables mounted under /v1 and /v2, problem documents for the rest.
 * Run it: `node src/express.ts` (Node 22.18+ runs TypeScript as is).
 */
import { fileURLToPath } from 'node:url';
import { authenticate } from '@plumbline/auth/express';
import { mount } from '@plumbline/contract/express';
import { errorHandler, notFoundHandler, requestId } from '@plumbline/errors/express';
import { negotiate } from '@plumbline/negotiation/express';
import { versioning } from '@plumbline/versioning/express';
import express from 'express';
import { apiRoutes, Store } from './routes.ts';
import { type Settings, settings } from './settings.ts';

export function createApp(options: Settings = settings()): express.Express {
  const store = new Store();
  const app = express();
  app.set('etag', false); // ETags come from the routes' preconditions, as on Fastify and Hono
  app.use(
    requestId(),
    versioning(options.policy),
    negotiate(options.negotiation),
    authenticate(options.auth),
  );
  for (const version of ['1', '2'] as const) {
    const router = express.Router({ strict: true, caseSensitive: true });
    mount(router, apiRoutes(version, store), options.contract);
    app.use(`/v${version}`, router);
  }
  app.get('/openapi/:file', (req, res, next) => {
    const document = options.documents[req.params.file];
    if (document) res.json(document);
    else next();
  });
  app.use(notFoundHandler(), errorHandler());
  return app;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const port = Number(process.env['PORT'] ?? 3000);
  createApp().listen(port, '127.0.0.1', () =>
    process.stdout.write(`crud-api (express) on http://127.0.0.1:${port}\n`),
  );
}
