/**
 * The request listener for the configured `FRAMEWORK`. Each framework has one wiring file that
 * reads top to bottom as the request pipeline (`http/express/app.ts` for Express); everything they wire —
 * configuration, storage, domain handlers (`resources/`), documents — is shared. The listener is
 * a plain Node `(req, res)` handler, so `server.ts` (HTTPS, refused requests, shutdown) and the
 * tests serve every framework the same way.
 */
import type { RequestListener } from 'node:http';
import type { Logger } from 'pino';
import { createApp } from './http/express/app.js';
import { createFastifyListener } from './http/fastify/app.js';
import { createHonoListener } from './http/hono/app.js';
import type { Framework } from './service/config.js';
import type { AppContext } from './service/context.js';

/** The framework's name as the start banner prints it. */
export const FRAMEWORK_NAMES: Readonly<Record<Framework, string>> = {
  express: 'Express 5',
  fastify: 'Fastify 5',
  hono: 'Hono 4 (@hono/node-server)',
};

/**
 * Builds the service on `ctx.config.framework` and returns its Node request listener.
 *
 * @example
 * ```ts
 * createServer(await createListener(ctx, logger), config).listen(config.port, config.host);
 * ```
 */
export async function createListener(ctx: AppContext, logger: Logger): Promise<RequestListener> {
  switch (ctx.config.framework) {
    case 'express':
      return createApp(ctx, logger);
    case 'fastify':
      return createFastifyListener(ctx, logger);
    case 'hono':
      return createHonoListener(ctx, logger);
  }
}
