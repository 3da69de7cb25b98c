/**
 * The peer stack (issue #18): the routes of the Plumbline stack built the way teams assemble them today
 * from popular single-purpose packages, for the harness to run side by side with Plumbline.
 *
 *   JWT            express-oauth2-jwt-bearer `auth()`, keys from the harness's loopback JWKS URL
 *   media type     negotiator (what Express's `req.accepts` uses), 406 when nothing fits, plus the
 *                  language with a fallback, `Vary` and `Content-Language`
 *   query          qs, then hand validation of every parameter (the same names, operators, sortable
 *                  fields and limits as the Plumbline collection): 400 listing every problem
 *   errors         http-errors, and one JSON error handler (`application/problem+json`) plus a 404
 *   idempotency    express-idempotency with express-idempotency-redis-adapter (node-redis client):
 *                  the package's documented Redis setup; the handler checks `isHit` as its README says
 *   request id     by hand: echo a sane `X-Request-Id` or make one (as Plumbline's `requestId` does)
 *   versioning     an Express router mounted on `/v2` (path versioning, as Plumbline's policy here)
 *
 * Nothing is deliberately slowed: each package is used as its README shows, with its defaults.
 */
import { randomUUID } from 'node:crypto';
import express from 'express';
import { getSharedIdempotencyService, idempotency } from 'express-idempotency';
import RedisAdapterModule from 'express-idempotency-redis-adapter';
import { auth } from 'express-oauth2-jwt-bearer';
import createError from 'http-errors';
import Negotiator from 'negotiator';
import qs from 'qs';

const RedisAdapter = RedisAdapterModule.default ?? RedisAdapterModule;
const TYPES = ['application/json', 'application/xml'];
const LANGUAGES = ['en', 'de'];

/**
 * The collection's rules, written out by hand: filterable fields with their operators and value
 * parsers, sortable fields, the id tie-breaker, limits. Mirrors `defineCollection` in server.mjs.
 */
export function handCollection({ statuses }) {
  const int = (raw) => (/^-?(0|[1-9]\d*)$/.test(raw) ? Number(raw) : undefined);
  const status = (raw) => (statuses.includes(raw) ? raw : undefined);
  return {
    filters: {
      status: { parse: status, operators: ['eq', 'in'] },
      priority: { parse: int, operators: ['eq', 'gte', 'lte'] },
    },
    sortable: new Set(['id', 'name', 'priority', 'created_at']),
    search: ['name'],
    defaultSort: [{ field: 'created_at', descending: true }],
    defaultLimit: 20,
    maxLimit: 100,
    maxOffset: 10_000,
  };
}

const PLAIN_INT = /^(0|[1-9]\d*)$/;

/** qs + hand validation: `{ query }` or `{ problems }` (one entry per bad parameter). */
export function parseHandQuery(rawQuery, rules) {
  const parsed = qs.parse(rawQuery, { depth: 1, parameterLimit: 100 });
  const problems = [];
  const filters = [];
  const problem = (parameter, code, detail) => problems.push({ parameter, error_code: code, detail });
  let sort = rules.defaultSort;
  let limit = rules.defaultLimit;
  let offset = 0;
  let search;
  for (const [name, value] of Object.entries(parsed)) {
    if (name === 'sort' || name === 'limit' || name === 'offset' || name === 'q') {
      if (typeof value !== 'string') {
        problem(
          name,
          Array.isArray(value) ? 'duplicate_parameter' : 'invalid_value',
          `${name} must be given once`,
        );
        continue;
      }
      if (name === 'sort') {
        sort = [];
        for (const key of value.split(',')) {
          const descending = key.startsWith('-');
          const field = key.replace(/^[-+]/, '');
          if (!rules.sortable.has(field))
            problem('sort', 'sort_field_not_allowed', `cannot sort by "${field}"`);
          else if (sort.some((k) => k.field === field))
            problem('sort', 'invalid_sort', `"${field}" is repeated`);
          else sort.push({ field, descending });
        }
      } else if (name === 'q') {
        search = value.trim().toLowerCase();
        if (search.length < 3) problem('q', 'search_too_short', 'q needs at least 3 characters');
      } else if (!PLAIN_INT.test(value)) {
        problem(name, 'invalid_pagination', `${name} must be a non-negative integer`);
      } else if (name === 'limit') {
        limit = Number(value);
        if (limit < 1) problem('limit', 'invalid_pagination', 'limit must be at least 1');
        else if (limit > rules.maxLimit)
          problem('limit', 'limit_too_large', `limit is at most ${rules.maxLimit}`);
      } else {
        offset = Number(value);
        if (offset > rules.maxOffset)
          problem('offset', 'limit_too_large', `offset is at most ${rules.maxOffset}`);
      }
      continue;
    }
    const filter = rules.filters[name];
    if (!filter) {
      problem(name, 'unknown_parameter', `unknown parameter "${name}"`);
      continue;
    }
    const operations = typeof value === 'string' ? { eq: value } : Array.isArray(value) ? undefined : value;
    if (!operations) {
      problem(name, 'duplicate_parameter', `${name} must be given once`);
      continue;
    }
    for (const [op, raw] of Object.entries(operations)) {
      if (!filter.operators.includes(op) || typeof raw !== 'string') {
        problem(`${name}[${op}]`, 'operator_not_allowed', `operator "${op}" is not allowed on ${name}`);
        continue;
      }
      const values = (op === 'in' ? raw.split(',') : [raw]).map(filter.parse);
      if (values.some((v) => v === undefined)) problem(name, 'invalid_value', `invalid value for ${name}`);
      else filters.push({ field: name, op, values });
    }
  }
  if (problems.length) return { problems };
  if (!sort.some((k) => k.field === 'id')) sort = [...sort, { field: 'id', descending: false }];
  // Links repeat the filters, search and sort, with the page's own limit and offset.
  const { limit: _l, offset: _o, ...kept } = parsed;
  const keep = qs.stringify(kept, { encodeValuesOnly: true });
  return { query: { filters, sort, limit, offset, search, searchFields: rules.search, keep } };
}

const matches = (row, { field, op, values }) => {
  const value = row[field];
  if (op === 'eq') return value === values[0];
  if (op === 'in') return values.includes(value);
  if (op === 'gte') return value >= values[0];
  return value <= values[0];
};

/** Code-point order for strings (not `localeCompare`), numbers numerically; the id breaks ties. */
const compareBy = (sort) => (a, b) => {
  for (const { field, descending } of sort) {
    const x = a[field];
    const y = b[field];
    if (x !== y) return (x < y ? -1 : 1) * (descending ? -1 : 1);
  }
  return 0;
};

/** Filter, search, sort and slice by hand; the body of a bounded page with its links. */
export function handPage(rows, query, baseUrl) {
  const { filters, sort, limit, offset, search, searchFields } = query;
  const selected = rows.filter(
    (row) =>
      filters.every((f) => matches(row, f)) &&
      (search === undefined || searchFields.some((f) => String(row[f]).toLowerCase().includes(search))),
  );
  selected.sort(compareBy(sort));
  const data = selected.slice(offset, offset + limit);
  const hasMore = selected.length > offset + limit;
  const prefix = query.keep ? `${baseUrl}?${query.keep}&` : `${baseUrl}?`;
  const link = (at) => `${prefix}limit=${limit}&offset=${at}`;
  const links = { self: link(offset), first: link(0) };
  if (offset > 0) links.prev = link(Math.max(0, offset - limit));
  if (hasMore) links.next = link(offset + limit);
  return { data, page: { limit, offset, has_more: hasMore }, links };
}

const rawQueryOf = (req) => {
  const at = req.url.indexOf('?');
  return at === -1 ? '' : req.url.slice(at + 1);
};

/** The collection query middleware a team writes: qs, the hand validation, 400 with every problem. */
export function handCollectionQuery(rules) {
  return (req, _res, next) => {
    const { query, problems } = parseHandQuery(rawQueryOf(req), rules);
    if (problems) {
      next(
        createError(400, problems.length === 1 ? problems[0].detail : 'Invalid query', { errors: problems }),
      );
      return;
    }
    req.collectionQuery = query;
    next();
  };
}

function requestId(req, res, next) {
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID();
  req.id = id;
  res.setHeader('X-Request-Id', id);
  next();
}

/** Media type and language with negotiator; 406 when no type fits, a default language otherwise. */
function negotiate(req, res, next) {
  const negotiator = new Negotiator(req);
  const type = negotiator.mediaType(TYPES);
  res.vary('Accept');
  res.vary('Accept-Language');
  if (!type) {
    next(createError(406, `Acceptable types: ${TYPES.join(', ')}`));
    return;
  }
  req.mediaType = type;
  res.setHeader('Content-Language', negotiator.language(LANGUAGES) ?? LANGUAGES[0]);
  next();
}

function notFound(_req, _res, next) {
  next(createError(404));
}

/** The http-errors-style JSON error handler: status and message from the error, problem+json body. */
// biome-ignore lint/correctness/noUnusedFunctionParameters: Express tells error handlers by arity.
export function errorHandler(err, req, res, next) {
  const status = err.status ?? err.statusCode ?? 500;
  const expose = err.expose ?? status < 500;
  if (err.headers) res.set(err.headers);
  res
    .status(status)
    .type('application/problem+json')
    .json({
      type: 'about:blank',
      title: createError(status).message,
      status,
      detail: expose ? err.message : undefined,
      instance: req.originalUrl,
      request_id: req.id,
      ...(err.errors ? { errors: err.errors } : {}),
    });
}

/** GET /v2/projects: the same route as the Plumbline `stack` variant, from the peer packages. */
export function peerGet({ issuer, audience, jwksUri, rows, statuses }) {
  const rules = handCollection({ statuses });
  const v2 = express.Router();
  v2.use(negotiate);
  v2.use(auth({ issuer, audience, jwksUri, tokenSigningAlg: 'ES256' }));
  v2.get('/projects', handCollectionQuery(rules), (req, res) => {
    res.json(handPage(rows, req.collectionQuery, '/v2/projects'));
  });
  const app = express();
  app.use(requestId);
  app.use('/v2', v2);
  app.use(notFound);
  app.use(errorHandler);
  return app;
}

/**
 * POST /orders: express.json, then express-idempotency on Redis (the Redis adapter of its README),
 * the handler as its README shows (`isHit` before doing anything), the JSON error handler.
 */
export async function peerPost({ redisUrl }) {
  const adapter = new RedisAdapter({ connectionConfig: { url: redisUrl } });
  await adapter.connect();
  const service = () => getSharedIdempotencyService();
  const app = express();
  let next = 1;
  app.post('/orders', express.json(), idempotency({ dataAdapter: adapter }), (req, res) => {
    if (service().isHit(req)) return;
    const id = next++;
    res
      .status(201)
      .location(`/orders/${id}`)
      .json({ id, ...req.body });
  });
  app.use(notFound);
  app.use(errorHandler);
  return { app, close: () => adapter.disconnect() };
}
