/**
 * Reads an XML representation back into JSON the way the OpenAPI document's `xml` objects describe
 * it (element names, wrapped and unwrapped arrays, `xsi:nil` nulls, types from the schema), so a
 * test can check that the XML and the JSON of one resource say the same thing.
 */
import { XMLParser } from 'fast-xml-parser';

type Json = Record<string, unknown>;
type Node = Record<string, unknown>;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  parseTagValue: false,
  trimValues: false,
  isArray: (_name, jpath, _leaf, isAttribute) => !isAttribute && String(jpath).includes('.'),
});

export class XmlReader {
  constructor(private readonly schemas: Readonly<Record<string, Json>>) {}

  private resolve(schema: Json | undefined): Json {
    let current = schema ?? {};
    while (typeof current['$ref'] === 'string')
      current = this.schemas[(current['$ref'] as string).replace('#/components/schemas/', '')] ?? {};
    return current;
  }

  private xmlOf(schema: Json | undefined): { name?: string; wrapped?: boolean } {
    return (this.resolve(schema)['xml'] ?? (schema?.['xml'] as object | undefined) ?? {}) as {
      name?: string;
      wrapped?: boolean;
    };
  }

  /** The branches an element may be: `anyOf`/`oneOf` members, or the schema itself. */
  private branches(schema: Json): Json[] {
    const options = (schema['anyOf'] ?? schema['oneOf']) as Json[] | undefined;
    return options ? options.map((s) => this.resolve(s)) : [schema];
  }

  private value(node: unknown, schemaIn: Json | undefined): unknown {
    const schema = this.resolve(schemaIn);
    if (typeof node === 'object' && node !== null && (node as Node)['@xsi:nil'] === 'true') return null;
    const branches = this.branches(schema);
    const objectBranch = branches.find((b) => b['properties'] !== undefined || b['type'] === 'object');
    const arrayBranch = branches.find((b) => b['type'] === 'array');
    if (arrayBranch) {
      const items = arrayBranch['items'] as Json | undefined;
      const itemName = this.xmlOf(items).name ?? 'item';
      const children = ((node as Node | undefined)?.[itemName] as unknown[] | undefined) ?? [];
      return children.map((child) => this.value(child, items));
    }
    if (objectBranch && typeof node === 'object' && node !== null)
      return this.object(node as Node, objectBranch);
    const text =
      typeof node === 'object' && node !== null ? String((node as Node)['#text'] ?? '') : String(node ?? '');
    const types = branches.flatMap((b) => (Array.isArray(b['type']) ? b['type'] : [b['type']])) as string[];
    if (types.includes('integer') || types.includes('number')) return Number(text);
    if (types.includes('boolean')) return text === 'true';
    return text;
  }

  private object(node: Node, schema: Json): Json {
    const out: Json = {};
    const properties = (schema['properties'] as Record<string, Json> | undefined) ?? {};
    for (const [key, propSchema] of Object.entries(properties)) {
      const resolved = this.resolve(propSchema);
      if (
        resolved['type'] === 'array' &&
        !this.xmlOf(propSchema).wrapped &&
        !(propSchema['xml'] as Json)?.['wrapped']
      ) {
        const items = resolved['items'] as Json | undefined;
        const name = this.xmlOf(items).name ?? key;
        // Unwrapped, no items and no items element look alike: a required array is then empty.
        const children = (node[name] as unknown[] | undefined) ?? [];
        const required = (schema['required'] as string[] | undefined)?.includes(key) ?? false;
        if (children.length > 0 || required) out[key] = children.map((child) => this.value(child, items));
        continue;
      }
      const children = node[key] as unknown[] | undefined;
      if (!children || children.length === 0) continue;
      if (resolved['type'] === 'array') {
        const items = resolved['items'] as Json | undefined;
        const itemName = this.xmlOf(items).name ?? key;
        const wrapper = children[0] as Node;
        out[key] = ((wrapper?.[itemName] as unknown[] | undefined) ?? []).map((child) =>
          this.value(child, items),
        );
      } else {
        out[key] = this.value(children[0], propSchema);
      }
    }
    return out;
  }

  /** The document's root element read as an instance of the component schema `schemaName`. */
  read(xml: string, schemaName: string): { root: string; value: Json } {
    const doc = parser.parse(xml) as Node;
    const root = Object.keys(doc).find((key) => !key.startsWith('?'))!;
    const schema = this.resolve({ $ref: `#/components/schemas/${schemaName}` });
    return { root, value: this.object(doc[root] as Node, schema) };
  }
}
