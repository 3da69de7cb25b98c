/**
 * A conforming API assembled from the real Plumbline packages; it serves `goodOpenApi()` at
 * `/openapi.json` and must score 100%. Test-only: the published package never imports these.
 */

import { generateApiKey, MemoryApiKeyStore } from '@plumbline/auth';
import { authenticate } from '@plumbline/auth/express';
import { HttpError } from '@plumbline/errors';
import { errorHandler, notFoundHandler, requestId } from '@plumbline/errors/express';
import { createMemoryStore } from '@plumbline/idempotency';
import { idempotency } from '@plumbline/idempotency/express';
import { negotiate, represent, requireContentType } from '@plumbline/negotiation/express';
import { applyToArray, buildPage, defineCollection } from '@plumbline/query-parser';
import { collectionQuery, getCollectionQuery } from '@plumbline/query-parser/express';
import { createVersionPolicy } from '@plumbline/versioning';
import { versionedRouter } from '@plumbline/versioning/express';
import express, { type Express, type Request, type Response, Router } from 'express';
import { goodOpenApi } from './openapi.js';

interface Row extends Record<string, unknown> {
  id: number;
  name: string;
  project_id?: number;
}

const schema = defineCollection({
  fields: {
    id: { type: 'int', sort: true },
    name: { type: 'string', sort: true, search: true },
    project_id: { type: 'int' },
  },
  defaultSort: 'id',
});

/** The app and the API key that opens it. */
export interface CompliantApp {
  readonly app: Express;
  readonly apiKey: string;
}

/**
 * Builds the conforming app: path versioning (v1 deprecated with a sunset), API-key auth,
 * negotiation, validated collection queries, idempotent POSTs, tombstones for deleted members.
 */
export function compliantApp(): CompliantApp {
  const apiKey = generateApiKey();
  const keys = new MemoryApiKeyStore();
  keys.add(apiKey, { clientId: 'conformance', access: 'read-write' });
  const store = createMemoryStore();
  const rows = new Map<number, Row>();
  const gone = new Set<number>();
  let nextId = 1;
  const seed = (name: string, projectId?: number): Row => {
    const row: Row = { id: nextId++, name, ...(projectId === undefined ? {} : { project_id: projectId }) };
    rows.set(row.id, row);
    return row;
  };
  const first = seed('Bridge');
  seed('Tunnel');
  seed('Survey', first.id);
  seed('Drill', first.id);

  const projects = (): Row[] => [...rows.values()].filter((row) => row.project_id === undefined);
  const tasks = (projectId?: number): Row[] =>
    [...rows.values()].filter(
      (row) => row.project_id !== undefined && (projectId === undefined || row.project_id === projectId),
    );

  const list = (source: (req: Request) => Row[]) => (req: Request, res: Response) => {
    const query = getCollectionQuery(req, schema);
    const page = buildPage(query, applyToArray(query, source(req)), {
      baseUrl: `${req.baseUrl}${req.path.replace(/\/search$/, '')}`,
    });
    if (page.link !== '') res.append('Link', page.link);
    represent(res, page.body);
  };
  const member = (req: Request): Row => {
    const id = Number(req.params['id']);
    if (gone.has(id)) throw new HttpError('gone');
    const row = rows.get(id);
    if (row === undefined) throw new HttpError('not_found');
    return row;
  };
  const create = (projectOf: (req: Request) => number | undefined) => (req: Request, res: Response) => {
    const name = (req.body as { name?: unknown } | undefined)?.name;
    if (typeof name !== 'string' || name === '')
      throw new HttpError('validation_failed', {
        errors: [
          {
            pointer: '#/name',
            code: 'invalid_value',
            params: { parameter: 'name', expected: 'a string', value: String(name) },
          },
        ],
      });
    const row = seed(name, projectOf(req));
    res.location(`${req.baseUrl}/${row.project_id === undefined ? 'projects' : 'tasks'}/${row.id}`);
    represent(res, row, 201);
  };
  const writeBody = [requireContentType('application/json'), express.json()];
  const idem = idempotency({ store, required: true, principal: () => 'conformance' });

  const v2 = Router();
  v2.use(authenticate({ apiKeys: { store: keys } }));
  v2.use(negotiate({ languages: ['en', 'de'] }));
  v2.get('/projects', collectionQuery(schema), list(projects));
  v2.post(
    '/projects',
    ...writeBody,
    idem,
    create(() => undefined),
  );
  v2.get('/projects/:id', (req, res) => represent(res, member(req)));
  v2.delete('/projects/:id', (req, res) => {
    const row = member(req);
    rows.delete(row.id);
    gone.add(row.id);
    res.status(204).end();
  });
  v2.get(
    '/projects/:project_id/tasks',
    collectionQuery(schema),
    list((req) => tasks(Number(req.params['project_id']))),
  );
  v2.post(
    '/projects/:project_id/tasks',
    ...writeBody,
    idem,
    create((req) => Number(req.params['project_id'])),
  );
  v2.get(
    '/tasks',
    collectionQuery(schema),
    list(() => tasks()),
  );
  v2.post(
    '/tasks/search',
    express.json(),
    collectionQuery(schema),
    list(() => tasks()),
  );
  v2.get('/tasks/:id', (req, res) => represent(res, member(req)));

  const v1 = Router();
  v1.use(authenticate({ apiKeys: { store: keys } }));
  v1.use(negotiate({ languages: ['en', 'de'] }));
  v1.get('/projects', collectionQuery(schema), list(projects));

  const neutral = Router()
    .get('/openapi.json', (_req, res) => {
      res.json(goodOpenApi());
    })
    .get('/health', (_req, res) => {
      res.json({ ok: true });
    });

  const policy = createVersionPolicy({
    strategy: 'path',
    versions: [
      {
        version: '1',
        deprecatedAt: '2026-01-01T00:00:00Z',
        sunsetAt: '2030-12-31T23:59:59Z',
        successor: '2',
      },
      '2',
    ],
  });
  const app = express();
  app.use(requestId());
  app.use(versionedRouter(policy, { '1': v1, '2': v2 }, { neutral }));
  app.use(notFoundHandler());
  app.use(errorHandler({ onError: () => undefined }));
  return { app, apiKey };
}
