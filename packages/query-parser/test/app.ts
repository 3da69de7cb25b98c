import { errorHandler } from '@plumbline/errors/express';
import { EXPRESS_VERSIONS } from '@plumbline/test-utils';
import type { Express } from 'express';
import { collectionQuery, getCollectionQuery, sendPage } from '../src/express.js';
import { applyToArray, buildPage, type Collection, countInArray } from '../src/index.js';

/** A row of the test data set. */
export type Row = Record<string, unknown>;

/** An Express app serving one collection from memory, counting the requests its handlers saw. */
export interface TestApp {
  readonly app: Express;
  readonly handled: { count: number };
}

/** Builds the list, search and parent-scoped routes on the given Express major. */
export function testApp(
  express: (typeof EXPRESS_VERSIONS)[number][1],
  collection: Collection,
  rows: readonly Row[],
  options: { readonly jsonParser?: boolean } = {},
): TestApp {
  const handled = { count: 0 };
  const app = express();
  const list =
    (baseUrl: (path: string) => string) =>
    (req: import('express').Request, res: import('express').Response) => {
      handled.count++;
      const query = getCollectionQuery(req, collection);
      const total = query.count ? countInArray(query, rows) : undefined;
      sendPage(res, buildPage(query, applyToArray(query, rows), { baseUrl: baseUrl(req.path), total }));
    };
  if (options.jsonParser) app.use(express.json());
  app.get(
    '/tasks',
    collectionQuery(collection),
    list(() => '/tasks'),
  );
  app.post(
    '/tasks/search',
    collectionQuery(collection),
    list(() => '/tasks'),
  );
  app.get(
    '/projects/:projectId/tasks',
    collectionQuery(collection, { scope: (req) => ({ project_id: req.params['projectId'] }) }),
    list((path) => path),
  );
  app.use(errorHandler({ onError: () => {} }));
  return { app, handled };
}

export { EXPRESS_VERSIONS };
