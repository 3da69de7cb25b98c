import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { problemDetails } from '@plumbline/errors/hono';
import { cors } from '@plumbline/cors/hono';

const app = new Hono();
const problems = problemDetails();
app.use(problems.middleware);
app.onError(problems.onError);
app.notFound(problems.notFound);
app.use(
  cors({
    origins: ['https://app.example.com', /https:\/\/[a-z0-9-]+\.preview\.example\.com/],
    credentials: true,
    allowedMethods: (path) =>
      path === '/projects' ? ['GET', 'POST'] : /^\/projects\/\d+$/.test(path) ? ['GET', 'PATCH'] : undefined,
  }),
);

app.get('/projects', (c) => c.json([{ id: 1, name: 'Apollo' }]));
app.get('/projects/:id', (c) => c.json({ id: 1, name: 'Apollo' }));
app.patch('/projects/:id', (c) => c.json({ id: 1, name: 'Apollo' }));

// Node; on Bun and Deno pass `app.fetch` to Bun.serve / Deno.serve.
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });

export { server };
