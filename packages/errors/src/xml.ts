import { XMLBuilder } from 'fast-xml-parser';

/**
 * Options for {@link toXml}.
 *
 * @example
 * ```ts
 * const options: ToXmlOptions = { root: 'problem', namespace: 'urn:ietf:rfc:7807' };
 * ```
 */
export interface ToXmlOptions {
  /** Root element name. */
  readonly root: string;
  /** Default namespace on the root element. */
  readonly namespace?: string;
}

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  suppressEmptyNode: true,
  processEntities: true,
  format: false,
});

// XML 1.0 forbids most C0 controls even when escaped; they are dropped, not encoded.
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
const INVALID_XML_CHARS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;
const NAME_START = /^[A-Za-z_]/;

/**
 * Turns an object key into a valid XML element name: characters outside `[A-Za-z0-9_.-]` become
 * `_`, a name that does not start with a letter or `_` is prefixed with `_`, and names starting
 * with `xml` (reserved) are prefixed too.
 *
 * @example
 * ```ts
 * xmlName('error_code'); // 'error_code'
 * xmlName('1st place'); // '_1st_place'
 * ```
 */
export function xmlName(key: string): string {
  let name = key.replace(/[^A-Za-z0-9_.-]/g, '_');
  if (!NAME_START.test(name) || /^xml/i.test(name)) name = `_${name}`;
  return name;
}

function toTree(value: unknown): unknown {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) {
    // RFC 9457 appendix B: array members become repeated <i> elements.
    return { i: value.map((item) => toTree(item)) };
  }
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      if (child === undefined) continue;
      out[xmlName(key)] = toTree(child);
    }
    return out;
  }
  if (typeof value === 'string') return value.replace(INVALID_XML_CHARS, '');
  return String(value);
}

/**
 * Serializes a JSON-like value as an XML document: object members become elements (names made
 * XML-safe), arrays become repeated `<i>` elements (the RFC 9457 appendix B convention), `null`
 * becomes an empty element.
 *
 * @example
 * ```ts
 * toXml({ a: [1, 2] }, { root: 'doc' });
 * // '<?xml version="1.0" encoding="UTF-8"?><doc><a><i>1</i><i>2</i></a></doc>'
 * ```
 */
export function toXml(value: unknown, options: ToXmlOptions): string {
  const tree = toTree(value);
  const body =
    typeof tree === 'object' && tree !== null && !Array.isArray(tree)
      ? { ...(tree as object) }
      : { '#text': tree };
  if (options.namespace) (body as Record<string, unknown>)['@_xmlns'] = options.namespace;
  return `<?xml version="1.0" encoding="UTF-8"?>${builder.build({ [xmlName(options.root)]: body })}`;
}
