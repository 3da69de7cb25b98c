/**
 * CORS for APIs that follow the conventions, framework-neutral: `createCors` decides, from a
 * request's method, path, `Origin` and `Access-Control-Request-*` headers, whether it is a preflight
 * to answer (204) and which headers let a page on another origin call the API and read the headers
 * the conventions send (`Link`, `ETag`, `Location`, `RateLimit`, `Retry-After`, `Deprecation`, ...).
 * The adapters (`/express`, `/fastify`, `/hono`) only read those headers and send what it says.
 *
 * @packageDocumentation
 */
export {
  type Cors,
  type CorsDecision,
  type CorsOptions,
  type CorsRequest,
  createCors,
  DEFAULT_ALLOW_HEADERS,
  DEFAULT_EXPOSE_HEADERS,
  DEFAULT_METHODS,
  type HeaderList,
  type OriginRule,
} from './cors.js';
