/**
 * @plumbline/query-parser: strict, typed collection queries. Declare a collection once, parse a
 * raw query string (or a search body) into a frozen query or one 400 listing every problem, run
 * it in memory or as parameterized SQL, and build the paginated body and `Link` header.
 * Framework-agnostic: no request or response objects here.
 *
 * @packageDocumentation
 */
export {
  type Collection,
  type CollectionOptions,
  type CompiledField,
  defineCollection,
  type FieldSpec,
  isCollection,
  OPERATORS,
  type Operator,
  type PaginationMode,
  RESERVED_PARAMETERS,
  type SortKey,
} from './collection.js';
export { applyToArray, countInArray } from './memory.js';
export { type OpenApiParameter, toOpenApiMemberParameters, toOpenApiParameters } from './openapi.js';
export {
  type BuildPageOptions,
  buildPage,
  type CollectionBody,
  type Page,
  type PageMeta,
} from './page.js';
export {
  type MemberQuery,
  type ParseOptions,
  parseMemberQuery,
  parseQuery,
  parseSearchBody,
} from './parse.js';
export type { CollectionQuery, Filter, Pagination } from './query.js';
export { toQueryString } from './query-string.js';
export {
  assertIdentityCoding,
  assertSearchContentType,
  type CollectionRequest,
  expectCollectionQuery,
  type HeaderValue,
  MAX_SEARCH_BODY_BYTES,
  pageHeaders,
  parseCollectionRequest,
  parseSearchText,
  prefersCount,
  rawQueryOf,
  readLimitedText,
} from './request.js';
export { type SqlOptions, type SqlQuery, toSql } from './sql.js';
export type { FieldType, Scalar } from './values.js';
