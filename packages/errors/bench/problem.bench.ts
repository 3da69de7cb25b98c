import { bench, describe } from 'vitest';
import {
  createProblemRenderer,
  HttpError,
  lookupLanguage,
  problemMediaType,
  serializeProblem,
  toProblem,
} from '../src/index.js';

const simple = new HttpError('not_found');
const validation = new HttpError('validation_failed', {
  params: { count: 2 },
  errors: [
    {
      parameter: 'sort',
      code: 'sort_field_not_allowed',
      params: { field: 'x', allowed: ['name', 'created_at'] },
    },
    { parameter: 'limit', code: 'limit_too_large', params: { parameter: 'limit', max: 100 } },
  ],
});
const context = {
  instance: '/v1/projects',
  requestId: '3f2a1c9e-0d1b-4a6f-9b8e-2c7d5e4f6a10',
  language: 'en',
};
const chrome =
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7';

describe('problem documents', () => {
  bench('toProblem + JSON (404)', () => {
    serializeProblem(toProblem(simple, context));
  });
  bench('toProblem + JSON (validation, 2 field errors)', () => {
    serializeProblem(toProblem(validation, context));
  });
  bench('toProblem + XML (validation, 2 field errors)', () => {
    serializeProblem(toProblem(validation, context), 'application/xml');
  });
  bench('lookupLanguage(de-DE,de;q=0.9,en;q=0.8)', () => {
    lookupLanguage('de-DE,de;q=0.9,en;q=0.8', ['en', 'de'], 'en');
  });
  bench("problemMediaType(Chrome's Accept), remembered", () => {
    problemMediaType(chrome);
  });
  const render = createProblemRenderer();
  const request = {
    accept: chrome,
    acceptLanguage: 'de-DE,de;q=0.9,en;q=0.8',
    instance: '/v1/projects',
    requestId: 'r',
  };
  bench('renderProblem: whole 404 response (what every adapter sends)', () => {
    render(simple, request);
  });
});
