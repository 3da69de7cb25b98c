/**
 * Reading an OpenAPI document from text: the one reader `lint`, `probe` and the CLI share, so a
 * byte-order mark, an empty file or a Swagger 2.0 document is treated the same way everywhere.
 */
import { parse as parseYaml } from 'yaml';
import { isObject, type JsonObject } from './openapi.js';

/**
 * Why a document was refused:
 * - `empty`: no text, or whitespace only;
 * - `unparsable`: neither valid JSON nor valid YAML;
 * - `not-an-object`: parses, but to something other than an object (`null`, an array, a string);
 * - `not-openapi`: an object without an `openapi` member (and no `swagger` member);
 * - `swagger-2`: a Swagger 2.0 document (`swagger: "2.0"`, or `openapi: "2.x"`);
 * - `unsupported-version`: an `openapi` member that is not 3.x (e.g. `4.0.0`).
 */
export type DocumentErrorCode =
  | 'empty'
  | 'unparsable'
  | 'not-an-object'
  | 'not-openapi'
  | 'swagger-2'
  | 'unsupported-version';

/**
 * A document that cannot be scored: thrown by {@link readOpenApi}, `lint` and `probe` before any
 * rule runs. `code` is stable; the message names the source and what is wrong, on one line.
 *
 * @example
 * ```ts
 * try {
 *   await lint('', { source: 'openapi.yaml' });
 * } catch (error) {
 *   if (error instanceof DocumentError) console.error(error.code); // 'empty'
 * }
 * ```
 */
export class DocumentError extends Error {
  /** What is wrong with the document. */
  readonly code: DocumentErrorCode;
  /** The file, URL or name the document came from. */
  readonly source: string;

  constructor(code: DocumentErrorCode, source: string, message: string) {
    super(`${source}: ${message}`);
    this.name = 'DocumentError';
    this.code = code;
    this.source = source;
  }
}

/** How to convert a Swagger 2.0 document, said in the `swagger-2` message. */
export const SWAGGER_2_HINT =
  'convert it to OpenAPI 3 first, e.g. npx swagger2openapi swagger.json -o openapi.json';

/**
 * Removes a leading UTF-8 byte-order mark (U+FEFF), which editors on Windows often write.
 *
 * @example
 * ```ts
 * stripBom('\uFEFF{"openapi":"3.1.0"}'); // '{"openapi":"3.1.0"}'
 * ```
 */
export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * True when text is to be parsed as JSON: it starts with `{` or `[` and the source does not end
 * in `.yaml`/`.yml`.
 *
 * @example
 * ```ts
 * looksLikeJson('{"openapi":"3.1.0"}', 'openapi.json'); // true
 * ```
 */
export function looksLikeJson(text: string, source: string | undefined): boolean {
  if (source !== undefined && /\.ya?ml$/i.test(source)) return false;
  return /^\s*[{[]/.test(text);
}

/** `line 3, column 7` of a 0-based offset into text. */
function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `line ${before.length}, column ${before.at(-1)!.length + 1}`;
}

/** Where JSON.parse stopped, in words that do not depend on the Node.js version. */
function jsonProblem(text: string, error: unknown): string {
  const message = error instanceof Error ? error.message : '';
  const position = /position (\d+)/.exec(message)?.[1];
  if (position !== undefined) return `at ${lineColumn(text, Number(position))}`;
  const token = /Unexpected token '(.+?)'/.exec(message)?.[1];
  return token === undefined ? 'it ends too early' : `unexpected ${JSON.stringify(token)}`;
}

/** The YAML parser's reason (first line) and where. */
function yamlProblem(error: unknown): string {
  const first = (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
  const message = first.replace(/ at line \d+, column \d+:?$/, '').trim();
  const at = (error as { linePos?: readonly { line: number; col: number }[] }).linePos?.[0];
  return at === undefined ? message : `${message}, at line ${at.line}, column ${at.col}`;
}

function parseText(text: string, source: string): unknown {
  if (text.trim() === '') throw new DocumentError('empty', source, 'the document is empty');
  if (looksLikeJson(text, source)) {
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      throw new DocumentError('unparsable', source, `not valid JSON (${jsonProblem(text, error)})`);
    }
  }
  try {
    return parseYaml(text) as unknown;
  } catch (error) {
    throw new DocumentError('unparsable', source, `not valid YAML (${yamlProblem(error)})`);
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/**
 * Checks that a parsed value is an OpenAPI 3.x document and returns it; throws
 * {@link DocumentError} otherwise.
 *
 * @example
 * ```ts
 * checkOpenApi({ swagger: '2.0' }, 'api.json'); // throws DocumentError with code 'swagger-2'
 * ```
 */
export function checkOpenApi(value: unknown, source: string): JsonObject {
  if (!isObject(value))
    throw new DocumentError(
      'not-an-object',
      source,
      `not an OpenAPI document (the document is ${describe(value)}, not an object)`,
    );
  const swagger = value['swagger'];
  // YAML reads `openapi: 2.0` or `openapi: 3.0` as a number: judged by its text.
  const openapi = typeof value['openapi'] === 'number' ? String(value['openapi']) : value['openapi'];
  if (swagger !== undefined || (typeof openapi === 'string' && /^2(\.|$)/.test(openapi)))
    throw new DocumentError(
      'swagger-2',
      source,
      `a Swagger 2.0 document, not OpenAPI 3.x; ${SWAGGER_2_HINT}`,
    );
  if (openapi === undefined)
    throw new DocumentError('not-openapi', source, 'not an OpenAPI document (no "openapi" member)');
  if (typeof openapi !== 'string' || !/^3(\.\d+){0,2}(-[0-9A-Za-z.-]+)?$/.test(openapi))
    throw new DocumentError(
      'unsupported-version',
      source,
      `openapi ${JSON.stringify(value['openapi'])} is not supported (OpenAPI 3.0 and 3.1 are)`,
    );
  return value;
}

/**
 * The shared reader: strips a byte-order mark, parses JSON or YAML (YAML when the source ends in
 * `.yaml`/`.yml` or the text does not start with `{`/`[`), and checks the result is OpenAPI 3.x.
 * Throws {@link DocumentError} for empty, unparsable and non-OpenAPI-3 input.
 *
 * @example
 * ```ts
 * const document = readOpenApi(await readFile('openapi.yaml', 'utf8'), 'openapi.yaml');
 * document['openapi']; // '3.1.0'
 * ```
 */
export function readOpenApi(text: string, source: string): JsonObject {
  return checkOpenApi(parseText(stripBom(text), source), source);
}
