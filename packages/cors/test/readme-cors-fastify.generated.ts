import Fastify from 'fastify';
import { plumblineErrors } from '@plumbline/errors/fastify';
import { cors } from '@plumbline/cors/fastify';

const app = Fastify();
await app.register(plumblineErrors);
await app.register(cors, {
  origins: ['https://app.example.com', /https:\/\/[a-z0-9-]+\.preview\.example\.com/],
  credentials: true,
  // Fastify's own route table: the methods with a route for this path.
  allowedMethods: (path) => {
    const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((method) => app.findRoute({ method, url: path }) !== null);
    return methods.length > 0 ? methods : undefined;
  },
});

app.get('/projects', async () => [{ id: 1, name: 'Apollo' }]);
app.get('/projects/:id', async () => ({ id: 1, name: 'Apollo' }));
app.patch('/projects/:id', async () => ({ id: 1, name: 'Apollo' }));

await app.listen({ port: 0, host: '127.0.0.1' });

export { app };
