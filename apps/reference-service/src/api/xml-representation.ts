/**
 * XML a person would write, driven by the OpenAPI document's `xml` objects so the XML and the JSON
 * describe the same thing and cannot drift apart:
 *
 * - a representation's root element is its schema's `xml.name` (`<project>`, `<projects>`, `<api>`);
 * - object members become child elements named after the member, in the JSON order;
 * - an array is written as its schema says: unwrapped (`xml.wrapped` false, the default) repeats the
 *   item element in place (`<projects><project>…</project><project>…</project><page>…</page></projects>`),
 *   wrapped puts the items inside an element named after the member (`<versions><version>…</version></versions>`);
 *   the item element is the item schema's `xml.name`, else the member name;
 * - `null` is an empty element marked `xsi:nil="true"` (the XML Schema instance convention), so a
 *   present-but-null member stays distinguishable from an absent one; the root declares `xmlns:xsi`;
 * - booleans are `true`/`false`, numbers as JSON writes them, text escaped; characters XML 1.0
 *   forbids are dropped.
 *
 * Handlers mark what they send with `asXmlSchema` (domain/schema-name.ts); the mark is a symbol,
 * invisible to JSON.
 */
import type { Serializer } from '@plumbline/negotiation';
import { schemaNameOf } from '../domain/schema-name.js';

type Json = Record<string, unknown>;

const XSI = 'http://www.w3.org/2001/XMLSchema-instance';
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
const INVALID_XML_CHARS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;

function escapeText(text: string): string {
  return text
    .replace(INVALID_XML_CHARS, '')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;');
}

/** Element names come from our own schemas and member names; anything else is made safe. */
function elementName(name: string): string {
  let safe = name.replace(/[^A-Za-z0-9_.-]/g, '_');
  if (!/^[A-Za-z_]/.test(safe) || /^xml/i.test(safe)) safe = `_${safe}`;
  return safe;
}

interface XmlObject {
  readonly name?: string;
  readonly wrapped?: boolean;
  readonly namespace?: string;
}

/** Writes XML for values described by the `components.schemas` of an OpenAPI document. */
export class XmlWriter {
  constructor(private readonly schemas: Readonly<Record<string, Json>>) {}

  private resolve(schema: Json | undefined): Json {
    let current = schema ?? {};
    for (let depth = 0; depth < 8 && typeof current['$ref'] === 'string'; depth++) {
      const name = (current['$ref'] as string).replace('#/components/schemas/', '');
      current = this.schemas[name] ?? {};
    }
    return current;
  }

  /** The branch of an `anyOf`/`oneOf` that fits the value's JSON type. */
  private branch(schema: Json, value: unknown): Json {
    const options = (schema['anyOf'] ?? schema['oneOf']) as Json[] | undefined;
    if (!options) return schema;
    const kind = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
    const fits = (s: Json) => {
      const type = this.resolve(s)['type'];
      if (kind === 'number') return type === 'number' || type === 'integer';
      return type === kind || (kind === 'object' && this.resolve(s)['properties'] !== undefined);
    };
    return this.resolve(options.find(fits) ?? {});
  }

  private xmlOf(schema: Json | undefined): XmlObject {
    const raw = schema?.['$ref'] !== undefined ? this.resolve(schema)['xml'] : schema?.['xml'];
    return (raw as XmlObject | undefined) ?? {};
  }

  private element(name: string, schemaIn: Json | undefined, value: unknown): string {
    const tag = elementName(name);
    if (value === null || value === undefined) return `<${tag} xsi:nil="true"/>`;
    const schema = this.branch(this.resolve(schemaIn), value);
    if (Array.isArray(value)) {
      const items = schema['items'] as Json | undefined;
      const itemName = this.xmlOf(items).name ?? name;
      const inner = value.map((item) => this.element(itemName, items, item)).join('');
      // Unwrapped arrays are written in place by members(); one reaching here is wrapped.
      return `<${tag}>${inner}</${tag}>`;
    }
    if (typeof value === 'object') return `<${tag}>${this.members(schema, value as Json)}</${tag}>`;
    return `<${tag}>${escapeText(String(value))}</${tag}>`;
  }

  private members(schema: Json, value: Json): string {
    const properties = (schema['properties'] as Record<string, Json> | undefined) ?? {};
    let out = '';
    for (const [key, child] of Object.entries(value)) {
      if (child === undefined) continue;
      const childSchema = properties[key];
      const resolved = this.resolve(childSchema);
      if (Array.isArray(child) && !this.xmlOf(childSchema).wrapped && resolved['type'] === 'array') {
        // Unwrapped: the items stand directly in the parent, each named for what it is.
        const items = resolved['items'] as Json | undefined;
        const itemName = this.xmlOf(items).name ?? key;
        out += child.map((item) => this.element(itemName, items, item)).join('');
      } else {
        out += this.element(key, childSchema, child);
      }
    }
    return out;
  }

  /**
   * The document for `value`, an instance of the component schema `schemaName`.
   *
   * @example
   * ```ts
   * new XmlWriter(openapi.components.schemas).write('ProjectV2', project);
   * // '<?xml version="1.0" encoding="UTF-8"?><project xmlns:xsi="…"><id>…</id>…</project>'
   * ```
   */
  write(schemaName: string, value: unknown): string {
    const schema = this.resolve({ $ref: `#/components/schemas/${schemaName}` });
    const xml = (schema['xml'] as XmlObject | undefined) ?? {};
    const tag = elementName(xml.name ?? schemaName);
    const ns = `${xml.namespace ? ` xmlns="${xml.namespace}"` : ''} xmlns:xsi="${XSI}"`;
    const body =
      typeof value === 'object' && value !== null && !Array.isArray(value)
        ? this.members(schema, value as Json)
        : escapeText(String(value ?? ''));
    return `<?xml version="1.0" encoding="UTF-8"?><${tag}${ns}>${body}</${tag}>`;
  }
}

/**
 * The `application/xml` serializer of the service: writes a value marked with `asXmlSchema`
 * by its schema; an unmarked value is a wiring mistake (a 500), not something to guess at.
 *
 * @example
 * ```ts
 * negotiate({ types: ['application/json', 'application/xml'], serializers: { 'application/xml': xmlSerializerFor(openapi) } });
 * ```
 */
export function xmlSerializerFor(openapi: Json): Serializer {
  const components = (openapi['components'] as Json | undefined) ?? {};
  const writer = new XmlWriter((components['schemas'] as Record<string, Json> | undefined) ?? {});
  return (data) => {
    const name = schemaNameOf(data);
    if (!name) throw new TypeError('XML representation without a schema: mark it with asXmlSchema()');
    return writer.write(name, data);
  };
}
