/**
 * @plumbline/errors: HTTP errors with stable codes, RFC 9457 problem documents (JSON and XML)
 * and localized messages. Framework-agnostic: no request or response objects here.
 *
 * @packageDocumentation
 */

export { codeForStatus, ERROR_CODES, ERROR_STATUS, type ErrorCode, isErrorCode } from './catalogue.js';
export {
  createMessageCatalogue,
  defaultCatalogue,
  type MessageCatalogue,
  type MessageCatalogueOptions,
} from './catalogue-messages.js';
export { type ClientErrorOptions, clientErrorCode, createClientErrorResponder } from './client-error.js';
export {
  createRequestIdSource,
  mergeVary,
  type RequestIdOptions,
  type RequestIdSource,
} from './headers.js';
export {
  type FieldIssue,
  HttpError,
  type HttpErrorFactories,
  type HttpErrorOptions,
  httpErrors,
  isHttpError,
} from './http-error.js';
export {
  type LanguageRange,
  lookupLanguage,
  MAX_ACCEPT_LANGUAGE_LENGTH,
  parseAcceptLanguage,
} from './language.js';
export { BUILTIN_MESSAGES, fillTemplate, type MessageParams, type MessageTemplates } from './messages.js';
export { jsonPointer } from './pointer.js';
export {
  PROBLEM_JSON,
  PROBLEM_XML,
  PROBLEM_XML_NAMESPACE,
  type Problem,
  type ProblemContext,
  type ProblemFieldError,
  problemMediaType,
  serializeProblem,
  toHttpError,
  toProblem,
  wantsXml,
} from './problem.js';
export {
  createMethodGuard,
  createProblemRenderer,
  type ErrorEvent,
  type ErrorHandlerOptions,
  type MethodAnswer,
  type MethodGuard,
  type MethodNotAllowedOptions,
  type ProblemRenderer,
  type ProblemRendererOptions,
  type ProblemRequest,
  REPRESENTATION_HEADERS,
  type RenderedProblem,
  renderProblem,
  reportError,
} from './render.js';
export { reasonPhrase } from './status.js';
export { type ToXmlOptions, toXml, xmlName } from './xml.js';
