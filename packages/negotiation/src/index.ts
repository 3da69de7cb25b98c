/**
 * @plumbline/negotiation: response media type and language selection on `negotiator`, request
 * Content-Type checks (415), JSON request bodies read as express.json reads them, and serializers
 * (JSON, XML). Framework-agnostic: plain values in and
 * out; the Express adapter is `@plumbline/negotiation/express`.
 *
 * @packageDocumentation
 */
export { LruCache } from './cache.js';
export {
  type EntityTag,
  type EntityTagList,
  evaluatePreconditions,
  isNotModified,
  isNotModifiedResponse,
  type NotModifiedInput,
  type PreconditionInput,
  type PreconditionResult,
  parseEntityTags,
  parseHttpDate,
  type Validators,
} from './conditional.js';
export { entityTag } from './entity-tag.js';
export {
  createJsonBodyReader,
  DEFAULT_JSON_BODY_LIMIT,
  type JsonBodyHeaders,
  type JsonBodyOptions,
  type JsonBodyReader,
  type JsonBodyResult,
  type JsonBodyStart,
} from './json-body.js';
export { MAX_ACCEPT_LENGTH } from './media-type.js';
export {
  type ContentNegotiator,
  createNegotiator,
  type NegotiateInput,
  type Negotiation,
  type NegotiationFailure,
  type NegotiationResult,
  type NegotiatorOptions,
  type Representation,
  type VendorMatch,
  type VendorOptions,
} from './negotiator.js';
export { checkRequestBody, type RequestBodyInput, type RequestBodyResult } from './request-body.js';
export {
  NEGOTIATION_VARY,
  type RepresentationResponse,
  representation,
  representationTag,
  requestHasBody,
} from './respond.js';
export {
  jsonSerializer,
  type SerializeContext,
  type Serializer,
  type XmlSerializerOptions,
  xmlSerializer,
} from './serializers.js';
