/**
 * Which component schema of the OpenAPI document a representation is an instance of. The domain's
 * representations say it; the XML serializer (api/xml-representation.ts) writes the element names
 * that schema's `xml` objects give. The mark is a symbol, invisible to JSON.
 */
const SCHEMA = Symbol.for('@plumbline/reference-service.xml-schema');

/**
 * Marks `value` as an instance of the component schema `name`, for the XML serializer.
 *
 * @example
 * ```ts
 * represent(res, asXmlSchema('ProjectV2', project));
 * ```
 */
export function asXmlSchema<T extends object>(name: string, value: T): T {
  Object.defineProperty(value, SCHEMA, { value: name, enumerable: false });
  return value;
}

/** The component schema `value` was marked with, if any. */
export function schemaNameOf(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null
    ? ((value as Record<symbol, string | undefined>)[SCHEMA] ?? undefined)
    : undefined;
}
