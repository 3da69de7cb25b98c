/**
 * The contract, checked mechanically: every recorded HTTP exchange is validated against the
 * service's own OpenAPI 3.1 document, in process, with Ajv (JSON Schema 2020-12, the dialect of
 * OpenAPI 3.1). Checked per exchange:
 *
 * - the route and method are documented (an undocumented one may only answer 404/405/406);
 * - the status is declared for the operation;
 * - every response header is declared (except the transport and browser-policy headers in
 *   `UNCHECKED_HEADERS`), every `required` header is present, and values match their schemas;
 * - the media type is declared and the body matches its schema: JSON as it is, XML read back
 *   through the schema's `xml` objects (see xml-read.ts) and then validated like JSON;
 * - for a request the service accepted (status < 400): every query parameter is declared and its
 *   value matches (comma lists split by `style: form, explode: false`), required parameters are
 *   there, and a JSON request body matches its schema.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { XmlReader } from './xml-read.js';

type Json = Record<string, unknown>;

/** One request and its response, as recorded. */
export interface Exchange {
  readonly method: string;
  /** Path and query (`/v2/projects?limit=1`). */
  readonly url: string;
  readonly requestHeaders: Readonly<Record<string, string | readonly string[] | undefined>>;
  readonly requestBody: string;
  readonly status: number;
  readonly responseHeaders: Readonly<Record<string, string | number | readonly string[] | undefined>>;
  readonly responseBody: string;
}

/**
 * Headers the document does not describe on purpose: message framing (RFC 9112) and browser
 * security policy (CORS's `Access-Control-*` among them), which are properties of the connection
 * or the deployment, not of the API.
 */
export const UNCHECKED_HEADERS: ReadonlySet<string> = new Set([
  'access-control-allow-origin',
  'access-control-allow-credentials',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-expose-headers',
  'access-control-max-age',
  'content-type',
  'content-length',
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'cache-control',
  'pragma',
  'content-security-policy',
  'x-content-type-options',
  'referrer-policy',
  'strict-transport-security',
]);

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'trace'];

interface Route {
  readonly template: string;
  readonly pattern: RegExp;
  readonly literalSegments: number;
  readonly item: Json;
}

const escapeToken = (token: string) => token.replaceAll('~', '~0').replaceAll('/', '~1');

/** Validates exchanges against one OpenAPI 3.1 document; create once per document. */
export class ContractValidator {
  private readonly ajv: Ajv2020;
  private readonly routes: Route[];
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly xml: XmlReader;

  constructor(private readonly document: Json) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
      addFormatsModule) as (ajv: Ajv2020) => void;
    addFormats(this.ajv);
    this.ajv.addSchema(document, 'openapi.json');
    const components = (document['components'] ?? {}) as Json;
    this.xml = new XmlReader((components['schemas'] ?? {}) as Record<string, Json>);
    this.routes = Object.entries((document['paths'] ?? {}) as Record<string, Json>)
      .map(([template, item]) => {
        const segments = template.split('/');
        const source = segments
          .map((s) => (/^\{[^}]+\}$/.test(s) ? '[^/]+' : s.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
          .join('/');
        return {
          template,
          pattern: new RegExp(`^${source}$`),
          literalSegments: segments.filter((s) => !s.startsWith('{')).length,
          item,
        };
      })
      // `/v2/projects/search` before `/v2/projects/{project_id}`.
      .sort((a, b) => b.literalSegments - a.literalSegments);
  }

  private resolve(node: unknown, pointer: string): { node: Json; pointer: string } {
    let current = node as Json;
    let at = pointer;
    for (let i = 0; i < 10 && typeof current?.['$ref'] === 'string'; i++) {
      at = (current['$ref'] as string).slice(1);
      current = at
        .split('/')
        .slice(1)
        .reduce<unknown>(
          (n, t) => (n as Json)?.[t.replaceAll('~1', '/').replaceAll('~0', '~')],
          this.document,
        ) as Json;
    }
    return { node: current, pointer: at };
  }

  private validator(pointer: string): ValidateFunction {
    let validate = this.compiled.get(pointer);
    if (!validate) {
      validate = this.ajv.getSchema(`openapi.json#${pointer}`);
      if (!validate) throw new Error(`no schema at ${pointer}`);
      this.compiled.set(pointer, validate);
    }
    return validate;
  }

  private schemaProblems(pointer: string, value: unknown): string[] {
    const validate = this.validator(pointer);
    if (validate(value)) return [];
    return (validate.errors ?? [])
      .slice(0, 5)
      .map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}${paramsText(e.params)}`);
  }

  /** Every way `exchange` departs from the document, as readable lines (empty when it conforms). */
  check(exchange: Exchange): string[] {
    const out: string[] = [];
    if (exchange.url === '*') {
      // `OPTIONS *` asks about the server, not a resource (RFC 9110 9.3.7): no path of the document
      // can describe it, so the rule is checked here: 204 (or 200) with an Allow listing methods.
      const allow = exchange.responseHeaders['allow'];
      // Any other method has no resource to act on: only an error problem is a conforming answer.
      if (exchange.method.toUpperCase() !== 'OPTIONS')
        return exchange.status >= 400
          ? this.checkProblemOnly(exchange)
          : [`request target * with ${exchange.method} answered ${exchange.status}`];
      if (exchange.status !== 204 && exchange.status !== 200)
        return [`OPTIONS * answered ${exchange.status}`];
      return allow === undefined || String(allow).trim() === '' ? ['OPTIONS * without an Allow header'] : [];
    }
    // The target as received: `//projects` is a path, not a network-path reference, and a target
    // URL cannot parse is still checked (it matches no documented route).
    const mark = exchange.url.indexOf('?');
    const path = mark < 0 ? exchange.url : exchange.url.slice(0, mark);
    const url = new URL(`http://service.invalid${mark < 0 ? '' : exchange.url.slice(mark)}`);
    const method = exchange.method.toLowerCase();
    const status = exchange.status;
    const route = this.routes.find((r) => r.pattern.test(path));
    const opMethod = method === 'head' ? 'get' : method;
    const operation = route?.item[opMethod] as Json | undefined;
    const where = route
      ? `/paths/${escapeToken(route.template)}/${opMethod}`
      : `(no documented route for ${path})`;
    // A CORS preflight (the Fetch standard's OPTIONS with Access-Control-Request-Method) answered by
    // the CORS layer before the API, whatever the path: OpenAPI does not describe it. Without a CORS
    // layer the API answers it like any OPTIONS, and it is checked as one.
    if (
      method === 'options' &&
      status === 204 &&
      exchange.requestHeaders['access-control-request-method'] !== undefined &&
      exchange.responseHeaders['allow'] === undefined
    )
      return [];
    if (route && method === 'options' && status === 204) {
      // OPTIONS (RFC 9110 9.3.7) is answered for every path: its Allow must list what is documented.
      const allow = String(exchange.responseHeaders['allow'] ?? '')
        .split(',')
        .map((m) => m.trim().toLowerCase())
        .filter((m) => m !== '' && m !== 'head' && m !== 'options')
        .sort();
      const documented = METHODS.filter((m) => route.item[m] !== undefined).sort();
      return allow.join() === documented.join() ? [] : [`OPTIONS Allow ${allow} ≠ documented ${documented}`];
    }
    if (!route || !operation) {
      // Not an operation of the document: only the errors that say so are allowed, and 401 from
      // authentication, which comes before the method is looked at (an OPTIONS without credentials).
      if (![401, 404, 405, 406, 501].includes(status) && !(status >= 400 && !route)) {
        out.push(`undocumented ${route ? 'operation' : 'route'}: ${status}`);
      }
      if (status === 405 && exchange.responseHeaders['allow'] === undefined)
        out.push('405 without an Allow header');
      out.push(...this.checkProblemOnly(exchange));
      return out;
    }
    const responses = (operation['responses'] ?? {}) as Json;
    const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => responses[k] !== undefined);
    if (key === undefined) {
      out.push(`status ${status} is not declared (declared: ${Object.keys(responses).join(', ')})`);
      if (status >= 400) out.push(...this.checkProblemOnly(exchange));
    } else {
      const { node: response, pointer } = this.resolve(
        responses[key],
        `${where}/responses/${escapeToken(key)}`,
      );
      out.push(...this.checkHeaders(exchange, response, pointer));
      out.push(...this.checkBody(exchange, response, pointer));
    }
    if (status < 400) out.push(...this.checkRequest(exchange, route, operation, where, url));
    return out;
  }

  private checkProblemOnly(exchange: Exchange): string[] {
    const type = contentType(exchange.responseHeaders);
    if (exchange.responseBody === '' || !/problem\+json$/.test(type)) return [];
    return this.checkJson('/components/schemas/Problem', exchange.responseBody);
  }

  private checkHeaders(exchange: Exchange, response: Json, pointer: string): string[] {
    const out: string[] = [];
    const declared = new Map<string, { node: Json; pointer: string }>();
    for (const [name, header] of Object.entries((response['headers'] ?? {}) as Json)) {
      declared.set(name.toLowerCase(), this.resolve(header, `${pointer}/headers/${escapeToken(name)}`));
    }
    for (const [name, raw] of Object.entries(exchange.responseHeaders)) {
      const lower = name.toLowerCase();
      if (raw === undefined || UNCHECKED_HEADERS.has(lower)) continue;
      const header = declared.get(lower);
      if (!header) {
        out.push(`undeclared response header ${name}`);
        continue;
      }
      if (header.node['schema'] !== undefined) {
        const value = Array.isArray(raw) ? raw.join(', ') : String(raw);
        for (const problem of this.schemaProblems(`${header.pointer}/schema`, value))
          out.push(`header ${name}: ${problem}`);
      }
    }
    for (const [name, header] of declared) {
      if (header.node['required'] === true && exchange.responseHeaders[name] === undefined)
        out.push(`required response header ${name} is missing`);
    }
    return out;
  }

  private checkBody(exchange: Exchange, response: Json, pointer: string): string[] {
    const content = response['content'] as Json | undefined;
    const body = exchange.responseBody;
    if (body === '' || exchange.method.toUpperCase() === 'HEAD') return [];
    if (!content) return [`a body was sent but the response declares no content (${body.slice(0, 60)})`];
    const type = contentType(exchange.responseHeaders);
    const key = [type, `${type.split('/')[0]}/*`, '*/*'].find((k) => content[k] !== undefined);
    if (!key) return [`media type ${type || '(none)'} is not declared (${Object.keys(content).join(', ')})`];
    const media = content[key] as Json;
    const schemaPointer = `${pointer}/content/${escapeToken(key)}/schema`;
    if (media['schema'] === undefined) return [];
    if (/json$/.test(type)) return this.checkJson(schemaPointer, body);
    if (/xml$/.test(type)) {
      // An XML body is read back through a named schema; `anyOf` named schemas (one per API
      // version, as a merged document gives) conforms when it conforms to one of them.
      const schema = media['schema'] as Json;
      const alternatives = Array.isArray(schema['anyOf']) ? (schema['anyOf'] as Json[]) : [schema];
      const refs = alternatives.map((alternative) => alternative['$ref']);
      if (!refs.every((ref): ref is string => typeof ref === 'string'))
        return [`XML body with an inline schema cannot be read back (${type})`];
      let first: string[] | undefined;
      for (const ref of refs) {
        const problems = this.checkXml(ref, body);
        if (problems.length === 0) return [];
        first ??= problems;
      }
      return first ?? [];
    }
    return [];
  }

  private checkXml(ref: string, body: string): string[] {
    const name = ref.replace('#/components/schemas/', '');
    try {
      const { root, value } = this.xml.read(body, name);
      const expected = (this.resolve({ $ref: ref }, ref).node['xml'] as Json | undefined)?.['name'];
      const out =
        expected !== undefined && root !== expected
          ? [`XML root <${root}>, expected <${String(expected)}>`]
          : [];
      return [
        ...out,
        ...this.schemaProblems(`/components/schemas/${escapeToken(name)}`, value).map((p) => `XML ${p}`),
      ];
    } catch (error) {
      return [`XML body unreadable: ${String(error)}`];
    }
  }

  private checkJson(pointer: string, body: string): string[] {
    let value: unknown;
    try {
      // A leading byte order mark is allowed (RFC 8259 8.1): the service ignores it, so does the check.
      value = JSON.parse(body.charCodeAt(0) === 0xfeff ? body.slice(1) : body);
    } catch {
      return [`body is not JSON: ${body.slice(0, 60)}`];
    }
    return this.schemaProblems(pointer, value).map((p) => `body ${p}`);
  }

  private checkRequest(exchange: Exchange, route: Route, operation: Json, where: string, url: URL): string[] {
    const out: string[] = [];
    const parameters = new Map<string, { node: Json; pointer: string }>();
    const collect = (list: unknown, base: string) => {
      if (!Array.isArray(list)) return;
      list.forEach((p, i) => {
        const resolved = this.resolve(p, `${base}/parameters/${i}`);
        if (resolved.node['in'] === 'query') parameters.set(String(resolved.node['name']), resolved);
      });
    };
    collect(route.item['parameters'], `/paths/${escapeToken(route.template)}`);
    collect(operation['parameters'], where);
    const seen = new Map<string, string[]>();
    for (const [name, value] of url.searchParams) seen.set(name, [...(seen.get(name) ?? []), value]);
    for (const [name, values] of seen) {
      const parameter = parameters.get(name);
      if (!parameter) {
        out.push(`undeclared query parameter ${name}`);
        continue;
      }
      const schema = this.resolve(parameter.node['schema'], `${parameter.pointer}/schema`);
      const value =
        schema.node['type'] === 'array'
          ? parameter.node['explode'] === false
            ? values.flatMap((v) => v.split(',')).map((v) => coerce(v, schema.node['items'] as Json))
            : values.map((v) => coerce(v, schema.node['items'] as Json))
          : coerce(values[0]!, schema.node);
      for (const problem of this.schemaProblems(schema.pointer, value))
        out.push(`query parameter ${name}=${values.join('&')}: ${problem}`);
    }
    for (const [name, parameter] of parameters) {
      if (parameter.node['required'] === true && !seen.has(name))
        out.push(`required query parameter ${name} is missing`);
    }
    const requestBody = operation['requestBody'] as Json | undefined;
    if (requestBody && exchange.requestBody !== '') {
      const type = contentType(exchange.requestHeaders);
      const content = (this.resolve(requestBody, `${where}/requestBody`).node['content'] ?? {}) as Json;
      if (!content[type]) out.push(`request media type ${type} is not declared`);
      else if (/json$/.test(type) && (content[type] as Json)['schema'] !== undefined) {
        out.push(
          ...this.checkJson(
            `${where}/requestBody/content/${escapeToken(type)}/schema`,
            exchange.requestBody,
          ).map((p) => `request ${p}`),
        );
      }
    }
    return out;
  }
}

function paramsText(params: unknown): string {
  if (typeof params !== 'object' || params === null) return '';
  const entries = Object.entries(params as Json).filter(([, v]) => typeof v !== 'object');
  return entries.length > 0 ? ` (${entries.map(([k, v]) => `${k}: ${String(v)}`).join(', ')})` : '';
}

function contentType(headers: Exchange['responseHeaders'] | Exchange['requestHeaders']): string {
  const raw = headers['content-type'];
  const text = Array.isArray(raw) ? String(raw[0]) : raw === undefined ? '' : String(raw);
  return text.split(';')[0]!.trim().toLowerCase();
}

/** A query string value typed as its schema says (the schema then checks it). */
function coerce(value: string, schema: Json | undefined): unknown {
  const types = Array.isArray(schema?.['type']) ? (schema['type'] as string[]) : [schema?.['type']];
  if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?$/.test(value))
    return Number(value);
  if (types.includes('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

/** Recorded exchanges with what is wrong with each, one readable block (empty when none). */
export function describeViolations(validator: ContractValidator, exchanges: readonly Exchange[]): string {
  const lines: string[] = [];
  const seen = new Set<string>();
  for (const exchange of exchanges) {
    const problems = validator.check(exchange);
    if (problems.length === 0) continue;
    const path = exchange.url.split('?')[0]!.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/gi, '{id}');
    const key = `${exchange.method} ${path} ${exchange.status} ${problems.join('|')}`;
    if (seen.has(key)) continue;
    seen.add(key);
    // Credentials sent in the query on purpose (to test their refusal) stay out of the report.
    const url = exchange.url.replace(/([?&][^=&]*(?:token|key|secret)[^=&]*=)[^&]*/gi, '$1…');
    lines.push(`${exchange.method} ${url} → ${exchange.status}`, ...problems.map((p) => `  - ${p}`));
  }
  return lines.join('\n');
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Wraps a Node request handler so that every exchange it serves is recorded: method, URL,
 * headers and body of the request (as the body parser reads it) and of the response.
 */
export function recordExchanges(handler: Handler): { handler: Handler; exchanges: Exchange[] } {
  const exchanges: Exchange[] = [];
  const wrapped: Handler = (req, res) => {
    // Captured now: routers rewrite req.url while the request travels through mounted apps.
    const url = req.url ?? '/';
    const requestChunks: Buffer[] = [];
    const responseChunks: Buffer[] = [];
    // Body parsers read with on('data'): tap their listener instead of adding a reader of our own.
    const on = req.on.bind(req);
    const tap = (event: string | symbol, listener: (...args: unknown[]) => void) =>
      on(
        event,
        event === 'data'
          ? (chunk: unknown) => {
              requestChunks.push(Buffer.from(chunk as Buffer));
              listener(chunk);
            }
          : listener,
      );
    req.on = tap as typeof req.on;
    req.addListener = tap as typeof req.addListener;
    const write = res.write.bind(res);
    const end = res.end.bind(res);
    // Headers handed to writeHead() (as @hono/node-server sends them) never show in getHeaders().
    const written: Record<string, string | string[]> = {};
    const writeHead = res.writeHead.bind(res);
    res.writeHead = ((status: number, ...rest: unknown[]) => {
      const headers = rest.find((arg) => typeof arg === 'object' && arg !== null);
      const pairs: [unknown, unknown][] = Array.isArray(headers)
        ? Array.isArray(headers[0])
          ? (headers as [unknown, unknown][])
          : headers.flatMap((name, i) => (i % 2 === 0 ? [[name, headers[i + 1]] as [unknown, unknown]] : []))
        : Object.entries(headers ?? {});
      for (const [name, value] of pairs) {
        if (value !== undefined)
          written[String(name).toLowerCase()] =
            typeof value === 'number' ? String(value) : (value as string | string[]);
      }
      return (writeHead as (...a: unknown[]) => ServerResponse)(status, ...rest);
    }) as typeof res.writeHead;
    const keep = (chunk: unknown, encoding?: unknown) => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
      responseChunks.push(
        typeof chunk === 'string'
          ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
          : Buffer.from(chunk as Uint8Array),
      );
    };
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      keep(chunk, rest[0]);
      return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof res.write;
    res.end = ((chunk?: unknown, ...rest: unknown[]) => {
      keep(chunk, rest[0]);
      exchanges.push({
        method: req.method ?? 'GET',
        url,
        requestHeaders: { ...req.headers },
        requestBody: Buffer.concat(requestChunks).toString('utf8'),
        status: res.statusCode,
        responseHeaders: { ...written, ...res.getHeaders() } as Exchange['responseHeaders'],
        responseBody: Buffer.concat(responseChunks).toString('utf8'),
      });
      return (end as (...a: unknown[]) => ServerResponse)(chunk, ...rest);
    }) as typeof res.end;
    handler(req, res);
  };
  return { handler: wrapped, exchanges };
}
