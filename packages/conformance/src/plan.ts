import {
  type CollectionInfo,
  DEFAULT_IGNORED_PATHS,
  discoverCollections,
  isObject,
  type PaginationStyle,
  unknownVersionRequest,
  versionCarrierOf,
} from './openapi.js';
import { ProbeConfigError, type ProbeOptions, pageQuery, UNSERVABLE, withQuery } from './probe.js';

/**
 * One request a probe run would send (`--dry-run`). Paths in braces are filled at run time: a
 * template's `{id}` with the first item of its parent, `<Location>` and `<next link>` from responses.
 *
 * @example
 * ```ts
 * const request: PlannedRequest = { method: 'GET', path: '/v2/projects?sort=plumbline_no_such_field', rule: 'probe-sort-unknown-400' };
 * ```
 */
export interface PlannedRequest {
  readonly method: string;
  readonly path: string;
  /** Headers beyond Accept: application/json and the credentials. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /** The rule the request serves, or `discovery` / `cleanup`. */
  readonly rule: string;
  /** Sent only when an earlier response asks for it. */
  readonly conditional?: string;
}

function parseDocument(openapi: object | string): unknown {
  if (typeof openapi !== 'string') return openapi;
  try {
    return JSON.parse(openapi) as unknown;
  } catch {
    throw new ProbeConfigError(
      'the OpenAPI document is not valid JSON (load YAML yourself and pass the object)',
    );
  }
}

/**
 * The requests a probe with these options would send, in order, without sending any: the dry run.
 * It needs the document (`openapi`) or `collections`, since fetching the document is a request.
 *
 * @example
 * ```ts
 * for (const r of planProbe({ baseUrl, openapi, allowWrites: true })) console.info(r.method, r.path);
 * ```
 */
export function planProbe(options: ProbeOptions): PlannedRequest[] {
  if (options.openapi === undefined && (options.collections ?? []).length === 0)
    throw new ProbeConfigError('--dry-run sends nothing: pass --openapi <file|url> or --collection <path>');
  const document = options.openapi === undefined ? undefined : parseDocument(options.openapi);
  const documented: CollectionInfo[] =
    document === undefined
      ? []
      : discoverCollections(document, [...DEFAULT_IGNORED_PATHS, ...(options.ignorePaths ?? [])]);
  const wanted = options.collections ?? documented.map((collection) => collection.path);
  if (wanted.length === 0)
    throw new ProbeConfigError('the OpenAPI document describes no paginated collection');
  const plan: PlannedRequest[] = [];
  const add = (request: PlannedRequest): void => {
    plan.push(request);
  };
  const keyHeader = options.idempotencyHeader ?? 'Idempotency-Key';
  const targets = wanted.map((path) => {
    const info = documented.find((collection) => collection.path === path);
    const pagination: PaginationStyle = info?.pagination ?? 'offset';
    return { path, info, pagination };
  });
  for (const target of targets) {
    const template = /\{[^}]+\}/.exec(target.path);
    if (template !== null)
      add({
        method: 'GET',
        path: withQuery(target.path.slice(0, template.index - 1), pageQuery(target.pagination, 1)),
        rule: 'discovery',
        conditional: `to fill ${template[0]} with the first item's id`,
      });
  }
  const writable = options.allowWrites
    ? targets.find((target) => (target.info ? target.info.creatable : true))
    : undefined;
  if (writable !== undefined) {
    const body = JSON.stringify(
      options.createBodies?.[writable.path] ??
        writable.info?.createExample ?? { '…': 'a sample of the request schema' },
    );
    const json = { 'Content-Type': 'application/json', [keyHeader]: '<new key>' };
    add({
      method: 'POST',
      path: writable.path,
      headers: { 'Content-Type': 'text/plain', [keyHeader]: '<new key>' },
      body: 'plumbline conformance',
      rule: 'probe-unsupported-media-415',
    });
    add({ method: 'POST', path: writable.path, headers: json, body, rule: 'probe-create-201-location' });
    add({
      method: 'GET',
      path: '<Location>',
      rule: 'probe-create-201-location',
      conditional: 'when the POST answered 201 with a Location',
    });
    const same = { 'Content-Type': 'application/json', [keyHeader]: '<key K>' };
    add({ method: 'POST', path: writable.path, headers: same, body, rule: 'probe-idempotent-replay' });
    add({
      method: 'POST',
      path: writable.path,
      headers: same,
      body,
      rule: 'probe-idempotent-replay',
      conditional: 'when the first POST succeeded',
    });
    add({
      method: 'POST',
      path: writable.path,
      headers: same,
      body: '<the same body, one field changed>',
      rule: 'probe-idempotency-key-reuse-422',
      conditional: 'when the first POST succeeded',
    });
    add({ method: 'POST', path: writable.path, headers: json, body, rule: 'probe-gone-410' });
    add({
      method: 'DELETE',
      path: '<Location>',
      rule: 'probe-gone-410',
      conditional: 'when the POST answered with a Location',
    });
    add({
      method: 'GET',
      path: '<Location>',
      rule: 'probe-gone-410',
      conditional: 'when the DELETE answered 204',
    });
    add({
      method: 'DELETE',
      path: '<each Location created and not deleted yet>',
      rule: 'cleanup',
      conditional: 'at the end, past the request budget if need be',
    });
  }
  targets.forEach((target, index) => {
    const { path } = target;
    add({ method: 'GET', path, rule: 'probe-default-page-bounded' });
    if (index === 0) {
      add({ method: 'GET', path, headers: { Authorization: '(none)' }, rule: 'probe-auth-401' });
      add({
        method: 'GET',
        path,
        headers:
          options.apiKey !== undefined && options.token === undefined
            ? { [options.apiKeyHeader ?? 'X-API-Key']: 'plumbline-conformance-invalid-key' }
            : { Authorization: 'Bearer plumbline-conformance-invalid-token' },
        rule: 'probe-auth-401',
        conditional: 'when the anonymous GET was refused',
      });
      add({ method: 'GET', path, headers: { Accept: UNSERVABLE }, rule: 'probe-not-acceptable-406' });
      add({
        method: 'GET',
        path,
        headers: { Accept: 'application/json;q=0.5, application/xml' },
        rule: 'probe-accept-q',
      });
      add({
        method: 'GET',
        path,
        headers: { Accept: 'application/xml' },
        rule: 'probe-accept-q',
        conditional: 'when JSON came back for the XML-preferring Accept',
      });
      add({
        method: 'GET',
        path,
        headers: { Accept: 'application/xml;q=0.5, application/json' },
        rule: 'probe-accept-q',
      });
      const unknown = unknownVersionRequest(
        path,
        document === undefined ? undefined : versionCarrierOf(document),
      );
      if (unknown !== undefined)
        add({
          method: 'GET',
          path: unknown.path,
          ...(Object.keys(unknown.headers).length > 0 ? { headers: unknown.headers } : {}),
          rule: 'probe-version-headers',
        });
    }
    add({
      method: 'GET',
      path: withQuery(path, 'sort=plumbline_no_such_field'),
      rule: 'probe-sort-unknown-400',
    });
    add({
      method: 'GET',
      path: withQuery(path, pageQuery(target.pagination, 100_000)),
      rule: 'probe-limit-over-max-400',
    });
    if (target.info === undefined || target.info.query.includes('q'))
      add({ method: 'GET', path: withQuery(path, 'q=a'), rule: 'probe-search-too-short-400' });
    add({
      method: 'GET',
      path: withQuery(path, pageQuery(target.pagination, 1)),
      rule: 'probe-pagination-links',
    });
    add({
      method: 'GET',
      path: '<next link>',
      rule: 'probe-pagination-links',
      conditional: 'when the page has a next link',
    });
    const idType = target.info?.idSchema;
    const id =
      isObject(idType) && (idType['type'] === 'integer' || idType['type'] === 'number')
        ? '2147480001'
        : '<random uuid>';
    add({ method: 'GET', path: `${path}/${id}`, rule: 'probe-not-found-404' });
  });
  return plan;
}
