/**
 * Version-neutral documentation the API links to: one page per error code (the `type` of every
 * problem points here) and the deprecation and sunset pages of the version policy's `Link` headers.
 */

import { STATUS_CODES } from 'node:http';
import {
  defaultCatalogue,
  ERROR_CODES,
  ERROR_STATUS,
  HttpError,
  isErrorCode,
  lookupLanguage,
} from '@plumbline/errors';
import { type Request, type Response, Router } from 'express';

function describeCode(code: (typeof ERROR_CODES)[number], language: string) {
  const status = ERROR_STATUS[code];
  return {
    error_code: code,
    status,
    title: STATUS_CODES[status] ?? 'Error',
    description: defaultCatalogue.format(code, undefined, language, status),
    type: `/errors/${code}`,
  };
}

function language(req: Request): string {
  return lookupLanguage(req.headers['accept-language'], defaultCatalogue.languages, 'en');
}

const DEPRECATION_V1 = `Version 1 of this API is deprecated.

What changes in version 2: a project's "budget" is an object {"amount": number, "currency": "EUR" | "USD" | "GBP" | "CHF" | "JPY"}
instead of a bare number (v1 shows the amount in the project's currency). Everything else is the same.

Migrate by replacing /v1/ with /v2/ in your URLs and reading budget.amount and budget.currency.
Every v1 response carries Deprecation, Sunset and Link headers; after the Sunset date v1 answers 410 api_version_sunset.
`;

const SUNSET_POLICY = `Sunset policy: a deprecated API version stays available for at least twelve months after its
Deprecation date. Its Sunset header (RFC 8594) gives the date after which it answers 410 Gone.
`;

export function docsRouter(): Router {
  const router = Router();
  router.get('/errors', (req: Request, res: Response) => {
    const lang = language(req);
    res.setHeader('Content-Language', lang);
    res.vary('Accept-Language');
    res.json({ data: ERROR_CODES.map((code) => describeCode(code, lang)) });
  });
  router.get('/errors/:code', (req: Request, res: Response) => {
    const code = req.params['code'];
    if (typeof code !== 'string' || !isErrorCode(code)) throw new HttpError('not_found');
    const lang = language(req);
    res.setHeader('Content-Language', lang);
    res.vary('Accept-Language');
    res.json(describeCode(code, lang));
  });
  router.get('/docs/deprecations/v1', (_req, res) => {
    res.type('text/plain').send(DEPRECATION_V1);
  });
  router.get('/docs/sunset-policy', (_req, res) => {
    res.type('text/plain').send(SUNSET_POLICY);
  });
  return router;
}
