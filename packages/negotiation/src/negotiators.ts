/** Hono requests whose route already set an `ETag` (conditional() on a GET): `represent` keeps it. */
export const ROUTE_ETAG = new WeakSet<object>();
