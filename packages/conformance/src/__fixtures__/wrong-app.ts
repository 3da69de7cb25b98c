/**
 * A deliberately non-conforming API: every live rule has something to find here. Each violation
 * is one a real service commonly has.
 */
import express, { type Express } from 'express';

interface Item {
  id: number;
  name: string;
}

/** Builds the wrong app. `token` is the only bearer token it accepts (when it checks at all). */
export function wrongApp(token: string): Express {
  const items = new Map<number, Item>();
  for (let id = 1; id <= 150; id += 1) items.set(id, { id, name: `item ${id}` });
  let nextId = 151;
  const app = express();
  app.use(express.text({ type: '*/*' }));

  // Auth that answers 403 instead of 401 and never sends WWW-Authenticate.
  app.use('/api', (req, res, next) => {
    if (req.headers.authorization === `Bearer ${token}`) return next();
    res.status(403).json({ error: 'not allowed' });
  });

  app.get('/api/v2/items', (req, res) => {
    const sort = typeof req.query['sort'] === 'string' ? req.query['sort'] : undefined;
    // Unknown sort fields are reported with 200 and an error member.
    if (sort !== undefined && sort !== 'name') {
      res.json({ error: `cannot sort by ${sort}`, data: [] });
      return;
    }
    const limit = typeof req.query['limit'] === 'string' ? Number(req.query['limit']) : undefined;
    if (limit !== undefined && Number.isNaN(limit)) throw new Error('limit is not a number');
    const all = [...items.values()];
    // No default page; a limit is applied but never validated, no links, no Vary; XML not offered.
    res.json({ data: limit === undefined ? all : all.slice(0, limit) });
  });

  app.get('/api/v2/items/:id', (req, res) => {
    const item = items.get(Number(req.params['id']));
    // A missing member is a crash: Express's default handler prints the stack trace.
    if (item === undefined)
      throw new TypeError(`Cannot read properties of undefined (reading '${req.params['id']}')`);
    res.json(item);
  });

  app.post('/api/v2/items', (req, res) => {
    // Any body type is accepted; 200 without Location; no idempotency.
    const body = typeof req.body === 'string' ? req.body : '';
    let name = body;
    try {
      name = String((JSON.parse(body) as { name?: unknown }).name ?? body);
    } catch {
      // a non-JSON body becomes the name
    }
    const item = { id: nextId++, name };
    items.set(item.id, item);
    res.json(item);
  });

  app.delete('/api/v2/items/:id', (req, res) => {
    items.delete(Number(req.params['id']));
    res.json({ deleted: true });
  });

  // Unknown versions are served like the current one.
  app.get('/api/:version/items', (_req, res) => {
    res.json({ data: [] });
  });
  return app;
}
