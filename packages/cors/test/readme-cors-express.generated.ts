import express from 'express';
import { errorHandler, notFoundHandler } from '@plumbline/errors/express';
import { cors } from '@plumbline/cors/express';

const app = express();
app.use(
  cors({
    origins: ['https://app.example.com', /https:\/\/[a-z0-9-]+\.preview\.example\.com/],
    credentials: true,
    // The methods each route takes: a preflight allows those only.
    allowedMethods: (path) =>
      path === '/projects' ? ['GET', 'POST'] : /^\/projects\/\d+$/.test(path) ? ['GET', 'PATCH'] : undefined,
  }),
);

app.get('/projects', (_req, res) => {
  res.json([{ id: 1, name: 'Apollo' }]);
});
app.get('/projects/:id', (_req, res) => {
  res.json({ id: 1, name: 'Apollo' });
});
app.patch('/projects/:id', (_req, res) => {
  res.json({ id: 1, name: 'Apollo' });
});
app.use(notFoundHandler());
app.use(errorHandler());

export { app };
