import { toXml } from '@plumbline/errors';

/**
 * What a {@link Serializer} is told about the representation it writes.
 *
 * @example
 * ```ts
 * const context: SerializeContext = { mediaType: 'application/xml', language: 'en' };
 * ```
 */
export interface SerializeContext {
  /** The negotiated media type, lower-cased, without parameters (`application/vnd.acme.v2+json`). */
  readonly mediaType: string;
  /** The negotiated language tag. */
  readonly language: string;
}

/**
 * Turns a value into the body of one media type. Throwing is a server error (500), so a
 * serializer should accept every value its routes send.
 *
 * @example
 * ```ts
 * const csv: Serializer = (rows) => (rows as string[][]).map((r) => r.join(',')).join('\n');
 * ```
 */
export type Serializer = (data: unknown, context: SerializeContext) => string | Uint8Array;

/**
 * The JSON serializer: `JSON.stringify`, with `undefined` written as `null` so a body is always
 * valid JSON.
 *
 * @example
 * ```ts
 * jsonSerializer({ id: 1 }, { mediaType: 'application/json', language: 'en' }); // '{"id":1}'
 * ```
 */
export const jsonSerializer: Serializer = (data) => JSON.stringify(data) ?? 'null';

/**
 * Options for {@link xmlSerializer}.
 *
 * @example
 * ```ts
 * const options: XmlSerializerOptions = { root: 'project', namespace: 'urn:example:projects' };
 * ```
 */
export interface XmlSerializerOptions {
  /** Root element name. Default `data`. */
  readonly root?: string;
  /** Default namespace on the root element. Default: none. */
  readonly namespace?: string;
}

/**
 * An XML serializer built on `toXml` from `@plumbline/errors` (fast-xml-parser underneath):
 * object members become elements, arrays become repeated `<i>` elements (RFC 9457 appendix B),
 * `null` an empty element; keys that are not XML names are made safe (`1st place` → `_1st_place`),
 * text is escaped and characters XML 1.0 forbids are dropped.
 *
 * @example
 * ```ts
 * const xml = xmlSerializer({ root: 'data' });
 * xml({ tags: ['a', 'b'] }, { mediaType: 'application/xml', language: 'en' });
 * // '<?xml version="1.0" encoding="UTF-8"?><data><tags><i>a</i><i>b</i></tags></data>'
 * ```
 */
export function xmlSerializer(options: XmlSerializerOptions = {}): Serializer {
  const xmlOptions = {
    root: options.root ?? 'data',
    ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
  };
  return (data) => toXml(data, xmlOptions);
}
