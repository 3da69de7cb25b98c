/**
 * @plumbline/contract: declare a route once (Standard Schema inputs and responses, scopes,
 * idempotency, preconditions, a collection query) and get request validation with RFC 9457
 * errors, response validation, an OpenAPI 3.1 document, and the same route on Express, Fastify
 * and Hono. Framework-agnostic: no request or response objects here.
 *
 * @packageDocumentation
 */
export { type CompiledResponse, type CompiledRoute, compileRoutes, RouteDefinitionError } from './compile.js';
export {
  defaultOperationId,
  type JsonObject,
  type OpenApiDocument,
  type OpenApiOperation,
  type OpenApiOptions,
  toOpenApi,
} from './openapi.js';
export {
  type BeforeInput,
  type BodySpec,
  type HandlerInput,
  type HandlerQuery,
  type IdempotencySpec,
  type OutputOrUndefined,
  type PageReply,
  type PreconditionSpec,
  type Reply,
  type ReplyBody,
  type ResponseSpec,
  type Responses,
  type Route,
  type RouteDefinition,
  type RouteMethod,
  route,
  type ScopedCollection,
} from './route.js';
export {
  type ContractIssue,
  type ContractOptions,
  type ContractRequest,
  type ContractResponse,
  type IssueLocation,
  parseSearch,
  type ResponseMismatch,
  respond,
  type Settled,
  type ValidInput,
  validateParams,
  validateRequest,
} from './run.js';
export {
  type AnySchema,
  type InputOf,
  isStandardSchema,
  jsonSchemaOf,
  type OutputOf,
  type SchemaIssue,
} from './schema.js';
