/**
 * The API on Fastify 5: the same front as express.ts, the two route tables under /v1 and /v2.
 * Run it: `node src/fastify.ts` (Node 22.18+ runs TypeScript as is).
 */
import { fileURLToPath } from 'node:url';
import { authenticate } from '@plumbline/auth/fastify';
import { mount } from '@plumbline/contract/fastify';
import { plumblineErrors } from '@plumbline/errors/fastify';
import { negotiation } from '@plumbline/negotiation/fastify';
import { versioning } from '@plumbline/versioning/fastify';
import Fastify, { type FastifyInstance } from 'fastify';
import { apiRoutes, Store } from './routes.ts';
import { type Settings, settings } from './settings.ts';

export async function createApp(options: Settings = settings()): Promise<FastifyInstance> {
  const store = new Store();
  const app = Fastify({ routerOptions: { maxParamLength: 500 } });
  await app.register(plumblineErrors);
  await app.register(versioning, { policy: options.policy });
  await app.register(negotiation, options.negotiation);
  app.addHook('onRequest', authenticate(options.auth));
  for (const version of ['1', '2'] as const) {
    await app.register(async (api) => mount(api, apiRoutes(version, store), options.contract), {
      prefix: `/v${version}`,
    });
  }
  app.get<{ Params: { file: string } }>('/openapi/:file', async (request, reply) => {
    const document = options.documents[request.params.file];
    return document ?? reply.callNotFound();
  });
  return app;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const app = await createApp();
  const address = await app.listen({ port: Number(process.env['PORT'] ?? 3000), host: '127.0.0.1' });
  process.stdout.write(`crud-api (fastify) on ${address}\n`);
}
