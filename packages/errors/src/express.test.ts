import { coreOutcome, describeAdapters, EXPRESS_VERSIONS, fromSupertest } from '@plumbline/test-utils';
import type { Express, Request, Response } from 'express';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import request from 'supertest';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  asyncHandler,
  errorHandler,
  getRequestId,
  methodNotAllowed,
  notFoundHandler,
  problemMediaType,
  requestId,
} from './express.js';
import { ERROR_CODES, ERROR_STATUS, HttpError, toProblem } from './index.js';

const silent = { onError: () => {} };

function appWith(
  express: (typeof EXPRESS_VERSIONS)[number][1],
  mount: (app: Express) => void,
  options: Parameters<typeof errorHandler>[0] = silent,
): Express {
  const app = express();
  app.use(requestId());
  mount(app);
  app.use(notFoundHandler());
  app.use(errorHandler(options));
  return app;
}

const PROBLEM_MEMBERS = [
  'type',
  'title',
  'status',
  'detail',
  'instance',
  'error_code',
  'message',
  'request_id',
];

describe('every catalogue code through the error handler', () => {
  const cases = ERROR_CODES.map((code) => ({ name: code, code }));
  const adapters: Record<string, (c: (typeof cases)[number]) => Promise<ReturnType<typeof fromSupertest>>> =
    {};
  for (const [name, express] of EXPRESS_VERSIONS) {
    const app = appWith(express, (a) =>
      a.get('/fail/:code', (req) => {
        throw new HttpError(req.params['code']!);
      }),
    );
    adapters[name] = (c) => request(app).get(`/fail/${c.code}`).then(fromSupertest);
  }
  describeAdapters(
    'status, content type and members',
    cases,
    { core: (c) => coreOutcome(() => Promise.reject(new HttpError(c.code))), ...adapters },
    (outcome, { code }, adapter) => {
      const body = outcome.body as Record<string, unknown>;
      expect(outcome.status).toBe(ERROR_STATUS[code]);
      expect(body['status']).toBe(outcome.status);
      expect(body['error_code']).toBe(code);
      expect(body['type']).toBe(`/errors/${code}`);
      expect(body['message']).toBe(body['detail']);
      expect(body['detail']).toEqual(expect.any(String));
      if (adapter === 'core') return;
      expect(Object.keys(body).sort()).toEqual([...PROBLEM_MEMBERS].sort());
      expect(outcome.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(outcome.headers['content-language']).toBe('en');
      expect(outcome.headers['vary']).toBe('Accept, Accept-Language');
      expect(body['instance']).toBe(`/fail/${code}`);
      expect(body['request_id']).toBe(outcome.headers['x-request-id']);
      if (outcome.status === 401)
        expect(outcome.headers['www-authenticate']).toBe('Bearer realm="plumbline"');
      if (outcome.status === 429 || outcome.status === 503) expect(outcome.headers['retry-after']).toBe('1');
    },
  );
});

describe.each(EXPRESS_VERSIONS)('errorHandler on %s', (_name, express) => {
  const onError = vi.fn();
  afterEach(() => {
    onError.mockReset();
    vi.unstubAllEnvs();
  });

  const app = appWith(
    express,
    (a) => {
      a.use(express.json({ limit: '1kb' }));
      a.get('/string', () => {
        throw 'a thrown string';
      });
      a.get('/throw-null', () => {
        throw null;
      });
      a.get('/status-999', () => {
        throw Object.assign(new Error('weird'), { status: 999 });
      });
      a.get('/driver', () => {
        throw new Error(
          'duplicate key value violates unique constraint "users_email_key" at /srv/app/db.js:12',
        );
      });
      a.get('/expose-false', () => {
        throw new HttpError('conflict', { detail: 'secret internal detail', expose: false });
      });
      a.get('/after-headers', (_req: Request, res: Response) => {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.write('partial');
        throw new Error('late failure');
      });
      a.get(
        '/async',
        asyncHandler(async () => {
          await new Promise((r) => setTimeout(r, 1));
          throw new Error('async failure with secret');
        }),
      );
      a.get(
        '/async-http',
        asyncHandler(async () => {
          throw new HttpError('gone');
        }),
      );
      a.post('/json', (req: Request, res: Response) => {
        res.status(201).json(req.body);
      });
      a.get('/with-headers', (_req: Request, res: Response) => {
        res.setHeader('ETag', '"abc"');
        res.setHeader('Location', '/x');
        res.setHeader('API-Supported-Versions', '1, 2');
        res.setHeader('Vary', 'Origin');
        throw new HttpError('invalid_token', {
          headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
        });
      });
      a.route('/only-get')
        .get((_req: Request, res: Response) => res.json({ ok: true }))
        .all(methodNotAllowed(['GET']));
    },
    { onError },
  );

  it.each([
    ['/string', 500, 'internal_error', 'An unexpected error occurred.'],
    // Express routers treat a null error as "no error" and keep routing, so it ends as a 404.
    ['/throw-null', 404, 'not_found', 'The requested resource does not exist.'],
    ['/status-999', 500, 'internal_error', 'An unexpected error occurred.'],
    ['/driver', 500, 'internal_error', 'An unexpected error occurred.'],
    ['/expose-false', 409, 'conflict', 'The request conflicts with the current state of the resource.'],
    ['/async', 500, 'internal_error', 'An unexpected error occurred.'],
    ['/async-http', 410, 'gone', 'The resource was permanently removed.'],
    ['/nope', 404, 'not_found', 'The requested resource does not exist.'],
  ])('GET %s → %i %s', async (path, status, code, detail) => {
    const res = await request(app).get(path);
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(res.body).toMatchObject({ status, error_code: code, detail, message: detail, instance: path });
    expect(onError).toHaveBeenCalledTimes(1);
  });

  it('hands the original thrown value to onError', async () => {
    await request(app).get('/driver');
    const event = onError.mock.calls[0]![0];
    expect(event.original).toBeInstanceOf(Error);
    expect(event.original.message).toMatch(/duplicate key/);
    expect(event.error.status).toBe(500);
  });

  it.each(['production', 'development', 'test', ''])(
    'never leaks a stack or internal message with NODE_ENV=%j',
    async (env) => {
      vi.stubEnv('NODE_ENV', env);
      for (const path of ['/string', '/driver', '/status-999', '/expose-false', '/async']) {
        for (const accept of ['application/json', 'application/xml']) {
          const res = await request(app).get(path).set('Accept', accept);
          expect(res.text).not.toMatch(/at .*\.(js|ts):\d+|Error:|secret|duplicate key|weird|\/srv\//);
        }
      }
    },
  );

  it('closes the connection when headers were already sent', async () => {
    const outcome = await request(app)
      .get('/after-headers')
      .then(
        (res) => ({ ok: true, status: res.status, text: res.text }),
        (error: Error) => ({ ok: false, message: error.message }),
      );
    // Either the socket was torn down or the partial body ended without a second response.
    if (outcome.ok) {
      expect(outcome).toMatchObject({ status: 200 });
      expect((outcome as { text: string }).text).not.toMatch(/problem|internal_error/);
    } else {
      expect((outcome as { message: string }).message).toMatch(/aborted|socket hang up|ECONNRESET/i);
    }
    expect(onError.mock.calls[0]![0].headersSent).toBe(true);
  });

  it.each([
    ['malformed JSON', '{"a":', 'application/json', 400, 'malformed_json'],
    ['too large', JSON.stringify({ a: 'x'.repeat(2000) }), 'application/json', 413, 'payload_too_large'],
    ['unsupported charset', '{"a":1}', 'application/json; charset=klingon', 415, 'unsupported_media_type'],
  ])('maps body-parser failure: %s', async (_name, body, type, status, code) => {
    const res = await request(app).post('/json').set('Content-Type', type).send(body);
    expect(res.status).toBe(status);
    expect(res.body.error_code).toBe(code);
  });

  it('answers in German for Accept-Language: de-DE', async () => {
    const res = await request(app).get('/nope').set('Accept-Language', 'de-DE,de;q=0.9,en;q=0.8');
    expect(res.headers['content-language']).toBe('de');
    expect(res.body.detail).toBe('Die angeforderte Ressource existiert nicht.');
  });

  it.each([
    ['application/xml', 'application/problem+xml; charset=utf-8'],
    ['application/problem+xml', 'application/problem+xml; charset=utf-8'],
    ['text/xml', 'application/problem+xml; charset=utf-8'],
    ['application/xml;q=0.5, application/json', 'application/problem+json; charset=utf-8'],
    ['image/png', 'application/problem+json; charset=utf-8'],
    ['*/*', 'application/problem+json; charset=utf-8'],
    ['garbage', 'application/problem+json; charset=utf-8'],
    [`${'a/b;q=0.1,'.repeat(300)}application/xml`, 'application/problem+json; charset=utf-8'],
  ])('Accept %.40j → %s, never 406', async (accept, type) => {
    const res = await request(app).get('/nope').set('Accept', accept);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toBe(type);
    if (type.includes('xml')) {
      expect(XMLValidator.validate(res.text)).toBe(true);
      const doc = new XMLParser().parse(res.text);
      expect(doc.problem).toMatchObject({ status: 404, error_code: 'not_found', instance: '/nope' });
    }
  });

  it('keeps cross-cutting headers, drops representation headers, merges Vary', async () => {
    const res = await request(app).get('/with-headers');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
    expect(res.headers['api-supported-versions']).toBe('1, 2');
    expect(res.headers['vary']).toBe('Origin, Accept, Accept-Language');
    expect(res.headers['etag']).toBeUndefined();
    expect(res.headers['location']).toBeUndefined();
  });

  it('sends no body for HEAD', async () => {
    const res = await request(app).head('/nope');
    expect(res.status).toBe(404);
    expect(res.text ?? '').toBe('');
  });

  it('answers 405 with Allow, and OPTIONS with 204 and Allow', async () => {
    const res = await request(app).delete('/only-get');
    expect(res.status).toBe(405);
    expect(res.headers['allow']).toBe('GET, HEAD, OPTIONS');
    expect(res.body).toMatchObject({
      error_code: 'method_not_allowed',
      detail: 'Method DELETE is not allowed here; allowed: GET, HEAD, OPTIONS.',
    });
    const options = await request(app).options('/only-get');
    expect([options.status, options.headers['allow']]).toEqual([204, 'GET, HEAD, OPTIONS']);
    expect((await request(app).get('/only-get')).body).toEqual({ ok: true });
  });
});

describe('requestId', () => {
  const [, express] = EXPRESS_VERSIONS[0];
  const app = express();
  app.use(requestId());
  app.get('/id', (req, res) => res.json({ id: getRequestId(req) ?? null }));

  it.each([
    ['abc-123', 'abc-123'],
    ['3f2a1c9e-0d1b-4a6f-9b8e-2c7d5e4f6a10', '3f2a1c9e-0d1b-4a6f-9b8e-2c7d5e4f6a10'],
    ['has space', null],
    ['<script>', null],
    ['x'.repeat(129), null],
    ['', null],
  ])('incoming %j is kept when sane', async (incoming, kept) => {
    const req = request(app).get('/id');
    if (incoming !== '') req.set('X-Request-Id', incoming);
    const res = await req;
    expect(res.body.id).toBe(res.headers['x-request-id']);
    if (kept) expect(res.body.id).toBe(kept);
    else expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('problemMediaType', () => {
  it.each([
    [undefined, 'application/problem+json'],
    ['application/json', 'application/problem+json'],
    ['application/xml', 'application/problem+xml'],
    ['application/json;q=0.1, text/xml', 'application/problem+xml'],
    ['text/html', 'application/problem+json'],
  ])('%j → %s', (accept, expected) => {
    expect(problemMediaType(accept)).toBe(expected);
  });
});

describe('core and adapter agree', () => {
  it('the body the handler sends is exactly toProblem of the error', async () => {
    const [, express] = EXPRESS_VERSIONS[0];
    const app = appWith(express, (a) =>
      a.get('/x', () => {
        throw new HttpError('limit_too_large', { params: { parameter: 'limit', max: 100 } });
      }),
    );
    const res = await request(app).get('/x?limit=500').set('X-Request-Id', 'fixed');
    expect(res.body).toEqual(
      toProblem(new HttpError('limit_too_large', { params: { parameter: 'limit', max: 100 } }), {
        instance: '/x',
        requestId: 'fixed',
      }),
    );
  });
});
