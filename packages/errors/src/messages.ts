import type { ErrorCode } from './catalogue.js';

/**
 * Message templates for one language. Each code maps to one or more templates, most specific
 * first; `{name}` placeholders are filled from the error's params, and `{name|one|other}` picks
 * `one` when the param is the number 1 and `other` otherwise (`{min} {min|character|characters}`).
 * The first template whose placeholders are all available is used, so the last one should need
 * no params.
 *
 * @example
 * ```ts
 * const fr: MessageTemplates = { not_found: ["La ressource n'existe pas."] };
 * ```
 */
export type MessageTemplates = Readonly<Record<string, readonly string[]>>;

/** Parameter values a message can interpolate. Arrays are joined with ", ". */
export type MessageParams = Readonly<
  Record<string, string | number | boolean | readonly (string | number)[]>
>;

const en: Record<ErrorCode, readonly string[]> = {
  bad_request: ['The request is not valid: {reason}.', 'The request is malformed.'],
  validation_failed: [
    'The request has {count} invalid {count|value|values}.',
    'The request failed validation.',
  ],
  malformed_json: ['The request body is not valid JSON.'],
  unknown_parameter: [
    'Field "{member}" is not supported; supported: {allowed}.',
    'Field "{member}" is not supported.',
    'Query parameter "{parameter}" is not supported; supported: {allowed}.',
    'Query parameter "{parameter}" is not supported.',
    'A query parameter is not supported.',
  ],
  duplicate_parameter: [
    'Field "{member}" takes one value, not a list.',
    'Query parameter "{parameter}" may appear only once.',
    'A query parameter appears more than once.',
  ],
  invalid_value: [
    'Field "{member}" must be {expected}; got "{value}".',
    'Field "{member}" must be {expected}.',
    'Field "{member}" has an invalid value.',
    'Parameter "{parameter}" must be {expected}; got "{value}".',
    'Parameter "{parameter}" must be {expected}.',
    'Parameter "{parameter}" has an invalid value.',
    'The request body must be {expected}.',
    'A value is invalid.',
  ],
  invalid_sort: [
    'Sort "{sort}" is not valid: {reason}.',
    'The sort is not valid: {reason}.',
    'The sort parameter is not valid.',
  ],
  sort_field_not_allowed: [
    'Sort field "{field}" is not allowed; allowed: {allowed}.',
    'Sort field "{field}" is not allowed.',
    'The sort field is not allowed.',
  ],
  field_not_filterable: [
    'Field "{field}" cannot be filtered; filterable: {allowed}.',
    'Field "{field}" cannot be filtered.',
    'The field cannot be filtered.',
  ],
  operator_not_allowed: [
    'Operator "{operator}" is not allowed on field "{field}"; allowed: {allowed}.',
    'Operator "{operator}" is not allowed on field "{field}".',
    'The filter operator is not allowed.',
  ],
  field_not_selectable: [
    'Field "{field}" cannot be selected; selectable: {allowed}.',
    'Field "{field}" cannot be selected.',
    'The field cannot be selected.',
  ],
  search_too_short: [
    'Search text must be at least {min} {min|character|characters}.',
    'The search text is too short.',
  ],
  search_too_long: [
    'Search text must be at most {max} {max|character|characters}.',
    'The search text is too long.',
  ],
  invalid_pagination: [
    'Field "{member}" must be {expected}.',
    'Parameter "{parameter}" must be {expected}.',
    'The pagination parameters are not valid.',
  ],
  conflicting_pagination: [
    'Pagination fields {members} cannot be combined.',
    'Pagination parameters {parameters} cannot be combined.',
    'The pagination parameters cannot be combined.',
  ],
  limit_too_large: [
    'Field "{member}" must be at most {max}.',
    'Parameter "{parameter}" must be at most {max}.',
    'The requested page is too large.',
  ],
  invalid_cursor: ['The cursor is invalid, expired or belongs to another query.'],
  credentials_in_query: [
    'Credentials must be sent in headers, never in the query string (parameter "{parameter}").',
    'Credentials must be sent in headers, never in the query string.',
  ],
  invalid_request: ['The request is not valid: {reason}.', 'The request is not valid.'],
  invalid_grant: ['The grant is invalid, expired or revoked.'],
  unsupported_api_version: [
    'API version "{version}" is not supported; supported: {supported}.',
    'API version "{version}" is not supported.',
    'The requested API version is not supported.',
  ],
  ambiguous_api_version: ['The request names more than one API version.'],
  invalid_api_version: ['API version "{version}" is malformed.', 'The API version is malformed.'],
  idempotency_key_missing: [
    'This endpoint requires an {header} header.',
    'This endpoint requires an idempotency key.',
  ],
  idempotency_key_invalid: ['The idempotency key is invalid: {reason}.', 'The idempotency key is invalid.'],
  query_too_long: [
    'The search body is {body_length} bytes long as a query string; at most {max} are allowed.',
    'The query string must be at most {max} bytes.',
    'The query string is too long.',
  ],
  malformed_request: ['The request is not well-formed HTTP/1.1 and could not be read.'],
  unauthorized: ['Authentication is required.'],
  invalid_token: ['The access token is invalid.'],
  forbidden: ['You are not allowed to perform this action.'],
  insufficient_scope: [
    'This action requires the scope {scopes}.',
    'The access token lacks the required scope.',
  ],
  https_required: ['Requests must use HTTPS.'],
  csrf_rejected: [
    'The request was refused as a possible cross-site request forgery: {reason}.',
    'The request was refused as a possible cross-site request forgery.',
  ],
  not_found: ['The requested resource does not exist.'],
  method_not_allowed: [
    'Method {method} is not allowed here; allowed: {allowed}.',
    'The method is not allowed on this resource.',
  ],
  not_acceptable: [
    'None of the requested media types can be served; available: {available}.',
    'None of the requested media types can be served.',
  ],
  request_timeout: ['The request did not arrive completely in time.'],
  conflict: [
    'The request conflicts with the current state of the resource: {reason}.',
    'The request conflicts with the current state of the resource.',
  ],
  idempotency_key_in_use: ['A request with this idempotency key is still being processed; retry later.'],
  gone: ['The resource was permanently removed.'],
  api_version_sunset: ['API version {version} was retired on {date}.', 'This API version was retired.'],
  precondition_failed: [
    'The {header} precondition failed: the resource has changed since you last read it.',
    'A precondition of the request failed: the resource has changed since you last read it.',
  ],
  payload_too_large: ['The request body must be at most {limit} bytes.', 'The request body is too large.'],
  unsupported_media_type: [
    'Content type "{type}" is not supported; supported: {supported}.',
    'The request body needs a Content-Type; supported: {supported}.',
    'The request body media type is not supported.',
  ],
  idempotency_key_reused: ['This idempotency key was already used with a different request.'],
  precondition_required: [
    'This request must be conditional: send {headers} with the validator of the version you read.',
    'This request must be conditional: send If-Match with the ETag you last read.',
  ],
  rate_limited: ['Too many requests; retry after {retry_after} seconds.', 'Too many requests; retry later.'],
  headers_too_large: [
    'The request line and header fields are too large; shorten the URL, query string or headers.',
  ],
  internal_error: ['An unexpected error occurred.'],
  service_unavailable: ['The service is temporarily unavailable; retry later.'],
  gateway_timeout: ['An upstream service did not answer in time.'],
};

const de: Record<ErrorCode, readonly string[]> = {
  bad_request: ['Die Anfrage ist ungültig: {reason}.', 'Die Anfrage ist fehlerhaft.'],
  validation_failed: [
    'Die Anfrage enthält {count} {count|ungültigen Wert|ungültige Werte}.',
    'Die Anfrage ist ungültig.',
  ],
  malformed_json: ['Der Anfragetext ist kein gültiges JSON.'],
  unknown_parameter: [
    'Das Feld „{member}“ wird nicht unterstützt; unterstützt: {allowed}.',
    'Das Feld „{member}“ wird nicht unterstützt.',
    'Der Abfrageparameter „{parameter}“ wird nicht unterstützt; unterstützt: {allowed}.',
    'Der Abfrageparameter „{parameter}“ wird nicht unterstützt.',
    'Ein Abfrageparameter wird nicht unterstützt.',
  ],
  duplicate_parameter: [
    'Das Feld „{member}“ erlaubt nur einen Wert, keine Liste.',
    'Der Abfrageparameter „{parameter}“ darf nur einmal vorkommen.',
    'Ein Abfrageparameter kommt mehrfach vor.',
  ],
  invalid_value: [
    'Das Feld „{member}“ muss {expected} sein; erhalten: „{value}“.',
    'Das Feld „{member}“ muss {expected} sein.',
    'Das Feld „{member}“ hat einen ungültigen Wert.',
    'Der Parameter „{parameter}“ muss {expected} sein; erhalten: „{value}“.',
    'Der Parameter „{parameter}“ muss {expected} sein.',
    'Der Parameter „{parameter}“ hat einen ungültigen Wert.',
    'Der Anfragetext muss {expected} sein.',
    'Ein Wert ist ungültig.',
  ],
  invalid_sort: [
    'Die Sortierung „{sort}“ ist ungültig: {reason}.',
    'Die Sortierung ist ungültig: {reason}.',
    'Der Sortierparameter ist ungültig.',
  ],
  sort_field_not_allowed: [
    'Nach dem Feld „{field}“ kann nicht sortiert werden; erlaubt: {allowed}.',
    'Nach dem Feld „{field}“ kann nicht sortiert werden.',
    'Nach diesem Feld kann nicht sortiert werden.',
  ],
  field_not_filterable: [
    'Nach dem Feld „{field}“ kann nicht gefiltert werden; filterbar: {allowed}.',
    'Nach dem Feld „{field}“ kann nicht gefiltert werden.',
    'Nach diesem Feld kann nicht gefiltert werden.',
  ],
  operator_not_allowed: [
    'Der Operator „{operator}“ ist für das Feld „{field}“ nicht erlaubt; erlaubt: {allowed}.',
    'Der Operator „{operator}“ ist für das Feld „{field}“ nicht erlaubt.',
    'Der Filteroperator ist nicht erlaubt.',
  ],
  field_not_selectable: [
    'Das Feld „{field}“ kann nicht ausgewählt werden; auswählbar: {allowed}.',
    'Das Feld „{field}“ kann nicht ausgewählt werden.',
    'Das Feld kann nicht ausgewählt werden.',
  ],
  search_too_short: ['Der Suchtext muss mindestens {min} Zeichen lang sein.', 'Der Suchtext ist zu kurz.'],
  search_too_long: ['Der Suchtext darf höchstens {max} Zeichen lang sein.', 'Der Suchtext ist zu lang.'],
  invalid_pagination: [
    'Das Feld „{member}“ muss {expected} sein.',
    'Der Parameter „{parameter}“ muss {expected} sein.',
    'Die Seitenparameter sind ungültig.',
  ],
  conflicting_pagination: [
    'Die Seitenfelder {members} können nicht kombiniert werden.',
    'Die Seitenparameter {parameters} können nicht kombiniert werden.',
    'Die Seitenparameter können nicht kombiniert werden.',
  ],
  limit_too_large: [
    'Das Feld „{member}“ darf höchstens {max} sein.',
    'Der Parameter „{parameter}“ darf höchstens {max} sein.',
    'Die angeforderte Seite ist zu groß.',
  ],
  invalid_cursor: ['Der Cursor ist ungültig, abgelaufen oder gehört zu einer anderen Abfrage.'],
  credentials_in_query: [
    'Zugangsdaten gehören in Header, nie in die Abfragezeichenkette (Parameter „{parameter}“).',
    'Zugangsdaten gehören in Header, nie in die Abfragezeichenkette.',
  ],
  invalid_request: ['Die Anfrage ist ungültig: {reason}.', 'Die Anfrage ist ungültig.'],
  invalid_grant: ['Die Berechtigung ist ungültig, abgelaufen oder widerrufen.'],
  unsupported_api_version: [
    'Die API-Version „{version}“ wird nicht unterstützt; unterstützt: {supported}.',
    'Die API-Version „{version}“ wird nicht unterstützt.',
    'Die angeforderte API-Version wird nicht unterstützt.',
  ],
  ambiguous_api_version: ['Die Anfrage nennt mehr als eine API-Version.'],
  invalid_api_version: ['Die API-Version „{version}“ ist fehlerhaft.', 'Die API-Version ist fehlerhaft.'],
  idempotency_key_missing: [
    'Dieser Endpunkt erfordert einen {header}-Header.',
    'Dieser Endpunkt erfordert einen Idempotenzschlüssel.',
  ],
  idempotency_key_invalid: [
    'Der Idempotenzschlüssel ist ungültig: {reason}.',
    'Der Idempotenzschlüssel ist ungültig.',
  ],
  query_too_long: [
    'Die Suche im Anfragetext ist als Abfragezeichenkette {body_length} Bytes lang; erlaubt sind höchstens {max}.',
    'Die Abfragezeichenkette darf höchstens {max} Bytes lang sein.',
    'Die Abfragezeichenkette ist zu lang.',
  ],
  malformed_request: ['Die Anfrage ist kein wohlgeformtes HTTP/1.1 und konnte nicht gelesen werden.'],
  unauthorized: ['Eine Authentifizierung ist erforderlich.'],
  invalid_token: ['Das Zugriffstoken ist ungültig.'],
  forbidden: ['Sie dürfen diese Aktion nicht ausführen.'],
  insufficient_scope: [
    'Diese Aktion erfordert den Scope {scopes}.',
    'Dem Zugriffstoken fehlt der erforderliche Scope.',
  ],
  https_required: ['Anfragen müssen HTTPS verwenden.'],
  csrf_rejected: [
    'Die Anfrage wurde als mögliche websiteübergreifende Anfragefälschung abgewiesen: {reason}.',
    'Die Anfrage wurde als mögliche websiteübergreifende Anfragefälschung abgewiesen.',
  ],
  not_found: ['Die angeforderte Ressource existiert nicht.'],
  method_not_allowed: [
    'Die Methode {method} ist hier nicht erlaubt; erlaubt: {allowed}.',
    'Die Methode ist für diese Ressource nicht erlaubt.',
  ],
  not_acceptable: [
    'Keiner der angefragten Medientypen kann geliefert werden; verfügbar: {available}.',
    'Keiner der angefragten Medientypen kann geliefert werden.',
  ],
  request_timeout: ['Die Anfrage ist nicht rechtzeitig vollständig angekommen.'],
  conflict: [
    'Die Anfrage steht im Konflikt mit dem aktuellen Zustand der Ressource: {reason}.',
    'Die Anfrage steht im Konflikt mit dem aktuellen Zustand der Ressource.',
  ],
  idempotency_key_in_use: [
    'Eine Anfrage mit diesem Idempotenzschlüssel wird noch verarbeitet; bitte später erneut versuchen.',
  ],
  gone: ['Die Ressource wurde dauerhaft entfernt.'],
  api_version_sunset: [
    'Die API-Version {version} wurde am {date} abgeschaltet.',
    'Diese API-Version wurde abgeschaltet.',
  ],
  precondition_failed: [
    'Die Vorbedingung {header} ist nicht erfüllt: die Ressource wurde seit dem letzten Lesen geändert.',
    'Eine Vorbedingung der Anfrage ist nicht erfüllt: die Ressource wurde seit dem letzten Lesen geändert.',
  ],
  payload_too_large: [
    'Der Anfragetext darf höchstens {limit} Bytes groß sein.',
    'Der Anfragetext ist zu groß.',
  ],
  unsupported_media_type: [
    'Der Inhaltstyp „{type}“ wird nicht unterstützt; unterstützt: {supported}.',
    'Der Anfragetext braucht einen Content-Type; unterstützt: {supported}.',
    'Der Medientyp des Anfragetexts wird nicht unterstützt.',
  ],
  idempotency_key_reused: ['Dieser Idempotenzschlüssel wurde bereits für eine andere Anfrage verwendet.'],
  precondition_required: [
    'Diese Anfrage muss bedingt sein: senden Sie {headers} mit dem Validator der gelesenen Version.',
    'Diese Anfrage muss bedingt sein: senden Sie If-Match mit dem zuletzt gelesenen ETag.',
  ],
  rate_limited: [
    'Zu viele Anfragen; bitte nach {retry_after} Sekunden erneut versuchen.',
    'Zu viele Anfragen; bitte später erneut versuchen.',
  ],
  headers_too_large: [
    'Anfragezeile und Header-Felder sind zu groß; kürzen Sie URL, Abfragezeichenkette oder Header.',
  ],
  internal_error: ['Ein unerwarteter Fehler ist aufgetreten.'],
  service_unavailable: ['Der Dienst ist vorübergehend nicht verfügbar; bitte später erneut versuchen.'],
  gateway_timeout: ['Ein vorgelagerter Dienst hat nicht rechtzeitig geantwortet.'],
};

/**
 * The built-in messages: English (`en`, the fallback) and German (`de`).
 *
 * @example
 * ```ts
 * BUILTIN_MESSAGES.de.not_found; // ['Die angeforderte Ressource existiert nicht.']
 * ```
 */
export const BUILTIN_MESSAGES: Readonly<Record<'en' | 'de', MessageTemplates>> = Object.freeze({ en, de });

const PLACEHOLDER = /\{([a-z_][a-z0-9_]*)(?:\|([^|{}]*)\|([^|{}]*))?\}/gi;
// Interpolated values can come from the client (a field name, a header value): keep them short
// and free of control characters so a message never carries an injected line or a huge echo.
const MAX_PARAM_LENGTH = 120;

function renderParam(value: MessageParams[string]): string {
  const text = Array.isArray(value) ? value.join(', ') : String(value);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '');
  return clean.length > MAX_PARAM_LENGTH ? `${clean.slice(0, MAX_PARAM_LENGTH)}…` : clean;
}

/**
 * Fills the first template of `templates` whose placeholders are all present in `params`.
 * Returns `undefined` when no template fits.
 *
 * @example
 * ```ts
 * fillTemplate(['Field "{field}" is bad.', 'A field is bad.'], { field: 'name' }); // 'Field "name" is bad.'
 * fillTemplate(['Field "{field}" is bad.', 'A field is bad.'], {}); // 'A field is bad.'
 * fillTemplate(['{n} {n|key|keys} at most.'], { n: 1 }); // '1 key at most.'
 * ```
 */
export function fillTemplate(templates: readonly string[], params: MessageParams = {}): string | undefined {
  for (const template of templates) {
    let complete = true;
    const text = template.replace(PLACEHOLDER, (_match, name: string, one?: string, other?: string) => {
      const value = Object.hasOwn(params, name) ? params[name] : undefined;
      if (value === undefined || (Array.isArray(value) && value.length === 0)) {
        complete = false;
        return '';
      }
      if (one !== undefined) return Number(value) === 1 ? one : (other as string);
      return renderParam(value);
    });
    if (complete) return text;
  }
  return undefined;
}
