/**
 * Conditional requests in the OpenAPI document (docs/design.md#d-conditional): every versioned
 * member operation that writes (PUT, PATCH, DELETE) takes If-Match, If-None-Match and
 * If-Unmodified-Since and may answer 412 `precondition_failed` or 428 `precondition_required`; the
 * GET of a represented path (members, collections, the index, error codes) takes If-None-Match and
 * may answer 304; representations of a member carry a strong `ETag`.
 * Applied to the finished document, so it leaves the rest of openapi/document.ts alone.
 */
type Json = Record<string, unknown>;

const WRITES = ['put', 'patch', 'delete'] as const;
/** A versioned member path: `/v<N>/…/{<name>_id}`. */
const MEMBER = /^\/v\d+\/.*\{[a-z_]+_id\}$/;
/**
 * Paths whose GET is answered by negotiation's `represent`, which answers 304 to a matching
 * If-None-Match: the API index, the error-code pages and every versioned path.
 */
const REPRESENTED = /^\/(v\d+\/.*|errors\/\{error_code\})?$/;

const PARAMETERS: Json = {
  IfMatch: {
    name: 'If-Match',
    in: 'header',
    required: false,
    description:
      'Apply the write only if the member is still at one of these strong ETags (the ETag of the representation this request would get: same Accept, Accept-Language and version), or `*` for any; otherwise 412. Required (with If-Unmodified-Since as the alternative) when the service runs with REQUIRE_PRECONDITIONS=true',
    schema: { type: 'string', example: '"3q2-7wEAAAAAAAAAAAAAAA"' },
  },
  IfNoneMatch: {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description:
      'GET: 304 when one of these ETags (weak comparison) is current. Writes: `*` or a matching ETag makes the write fail with 412',
    // No example: Swagger UI's "Try it out" would send it, and `*` turns every GET into a 304.
    schema: { type: 'string' },
  },
  IfUnmodifiedSince: {
    name: 'If-Unmodified-Since',
    in: 'header',
    required: false,
    description:
      'HTTP-date: apply the write only if the member has not changed since (to the second); ignored when If-Match is present or the value is not an HTTP-date',
    schema: { type: 'string', example: 'Fri, 02 Jan 2026 03:04:05 GMT' },
  },
};

const HEADERS: Json = {
  ETag: {
    description:
      'Strong entity tag of this representation; changes with every change to the member and differs per media type, language and version',
    schema: { type: 'string' },
  },
};

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

function withResponses(operation: Json, extra: Json): Json {
  return { ...operation, responses: { ...(operation['responses'] as Json), ...extra } };
}

function withEtag(response: unknown): unknown {
  if (typeof response !== 'object' || response === null || '$ref' in response) return response;
  const r = response as Json;
  return { ...r, headers: { ...(r['headers'] as Json | undefined), ETag: ref('headers', 'ETag') } };
}

function headersOf(response: unknown): Json {
  if (typeof response !== 'object' || response === null || '$ref' in response) return {};
  return ((response as Json)['headers'] as Json | undefined) ?? {};
}

function member(path: Json, represented: boolean, writes: boolean): Json {
  const out: Json = { ...path };
  const get = path['get'] as Json | undefined;
  if (get && represented) {
    const responses = get['responses'] as Json;
    out['get'] = withResponses(
      { ...get, parameters: [...((get['parameters'] as unknown[]) ?? []), ref('parameters', 'IfNoneMatch')] },
      {
        '200': withEtag(responses['200']),
        '304': {
          description: 'Not modified: the ETag sent in If-None-Match is current',
          // A 304 carries the headers the 200 would have (RFC 9110 15.4.5), without a body.
          headers: { ...headersOf(responses['200']), ETag: ref('headers', 'ETag') },
        },
      },
    );
  }
  for (const method of writes ? WRITES : []) {
    const operation = path[method] as Json | undefined;
    if (!operation) continue;
    const responses = operation['responses'] as Json;
    const conditions = ['IfMatch', 'IfNoneMatch', 'IfUnmodifiedSince'].map((name) => ref('parameters', name));
    out[method] = withResponses(
      { ...operation, parameters: [...((operation['parameters'] as unknown[]) ?? []), ...conditions] },
      {
        ...(responses['200'] ? { '200': withEtag(responses['200']) } : {}),
        '412': ref('responses', 'Error412'),
        '428': ref('responses', 'Error428'),
      },
    );
  }
  return out;
}

/**
 * The document with conditional requests declared on every represented GET and versioned member path, and the
 * parameters and `ETag` header they refer to (412 and 428 are openapi/document.ts's shared problem responses).
 */
export function withConditionalRequests(document: Json): Json {
  const paths = Object.fromEntries(
    Object.entries(document['paths'] as Json).map(([name, path]) => [
      name,
      member(path as Json, REPRESENTED.test(name), MEMBER.test(name)),
    ]),
  );
  const components = document['components'] as Json;
  return {
    ...document,
    paths,
    components: {
      ...components,
      parameters: { ...(components['parameters'] as Json), ...PARAMETERS },
      headers: { ...(components['headers'] as Json), ...HEADERS },
    },
  };
}
