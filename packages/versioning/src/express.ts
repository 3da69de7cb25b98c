/**
 * Express adapter for @plumbline/versioning (Express 4.21+ and 5): `versioning()`, `versionedRouter()`,
 * `refuseVersion()` and the request getters. The core resolves the version and computes the headers.
 *
 * @packageDocumentation
 */
export {
  getApiVersion,
  getResolvedVersion,
  refuseVersion,
  type VersioningMiddlewareOptions,
  type VersioningOptions,
  versioning,
} from './express-middleware.js';
export { type VersionedRouterOptions, versionedRouter } from './express-router.js';
