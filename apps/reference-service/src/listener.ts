/**
 * The request listener for the configured `FRAMEWORK`. Each framework has one wiring file that
 * reads top to bottom as the request pipeline (`http/<framework>/app.ts`); everything they wire —
 * configuration, storage, domain handlers (`api/resources/`), documents — is shared. The listener is
 * a plain Node `(req, res)` handler, so `server.ts` (HTTPS, refused requests, shutdown) and the
 * tests serve every framework the same way.
 */
import type { RequestListener } from 'node:http';
import type { Logger } from 'pino';
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
  // Only the configured framework is loaded: importing all three costs every start (and `--help`)
  // the time to load the two that never run. The bundler splits each wiring into its own chunk.
  switch (ctx.config.framework) {
    case 'express': {
      const { createApp } = await import('./http/express/app.js');
      return createApp(ctx, logger);
    }
    case 'fastify': {
      const { createFastifyListener } = await import('./http/fastify/app.js');
      return createFastifyListener(ctx, logger);
    }
    case 'hono': {
      const { createHonoListener } = await import('./http/hono/app.js');
      return createHonoListener(ctx, logger);
    }
  }
}
