import { errorHandler, methodNotAllowed, notFoundHandler, requestId } from '@plumbline/errors/express';
import express, { type Express } from 'express';

/**
 * Builds the reference service's Express app. Kept apart from `main.ts` so tests drive the exact
 * app that production runs, without opening a port.
 */
export function createApp(): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestId());

  app
    .route('/health')
    .get((_req, res) => {
      res.status(200).json({ status: 'ok' });
    })
    .all(methodNotAllowed(['GET']));

  app.use(notFoundHandler());
  app.use(errorHandler());
  return app;
}
