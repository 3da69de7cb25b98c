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

interface Wiring {
  /** The framework's name as the start banner prints it. */
  readonly name: string;
  readonly load: (ctx: AppContext, logger: Logger) => Promise<RequestListener>;
}

// One entry per framework, each a block of its own: `pnpm template <framework>` (scripts/template.mjs)
// writes a one-framework copy by deleting the other entries and their `http/<framework>/` folders.
// Only the configured framework is loaded: importing all three would cost every start (and `--help`)
// the time to load the two that never run. The bundler splits each wiring into its own chunk.
const WIRINGS: { readonly [F in Framework]: Wiring } = {
  express: {
    name: 'Express 5',
    load: async (ctx, logger) => (await import('./http/express/app.js')).createApp(ctx, logger),
  },
  fastify: {
    name: 'Fastify 5',
    load: async (ctx, logger) => (await import('./http/fastify/app.js')).createFastifyListener(ctx, logger),
  },
  hono: {
    name: 'Hono 4 (@hono/node-server)',
    load: async (ctx, logger) => (await import('./http/hono/app.js')).createHonoListener(ctx, logger),
  },
};

/** The framework's name as the start banner prints it. */
export const FRAMEWORK_NAMES = Object.fromEntries(
  Object.entries(WIRINGS).map(([framework, wiring]) => [framework, wiring.name]),
) as Readonly<Record<Framework, string>>;

/**
 * Builds the service on `ctx.config.framework` and returns its Node request listener.
 *
 * @example
 * ```ts
 * createServer(await createListener(ctx, logger), config).listen(config.port, config.host);
 * ```
 */
export function createListener(ctx: AppContext, logger: Logger): Promise<RequestListener> {
  return WIRINGS[ctx.config.framework].load(ctx, logger);
}
