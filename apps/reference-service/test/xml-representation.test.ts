/** The schema-driven XML writer: one table of values in, documents out, plus what it refuses. */
import { describe, expect, it } from 'vitest';
import { XmlWriter, xmlSerializerFor } from '../src/api/xml-representation.js';
import { asXmlSchema } from '../src/domain/schema-name.js';

const XSI = 'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"';
const schemas = {
  Item: {
    type: 'object',
    xml: { name: 'item' },
    properties: {
      n: { anyOf: [{ type: 'number' }, { type: 'null' }] },
      tags: { type: 'array', xml: { wrapped: true }, items: { type: 'string', xml: { name: 'tag' } } },
      nested: {
        anyOf: [{ type: 'object', properties: { a: { type: 'string' } } }, { type: 'null' }],
      },
    },
  },
  ItemPage: {
    type: 'object',
    xml: { name: 'items' },
    properties: {
      data: { type: 'array', xml: { wrapped: false }, items: { $ref: '#/components/schemas/Item' } },
      page: { type: 'object', xml: { name: 'page' } },
    },
  },
  Doc: { type: 'object', xml: { name: 'doc', namespace: 'urn:example' } },
};
const writer = new XmlWriter(schemas);
const doc = (root: string, inner: string, extra = '') =>
  `<?xml version="1.0" encoding="UTF-8"?><${root}${extra} ${XSI}>${inner}</${root}>`;

describe('XmlWriter', () => {
  it.each([
    [
      'numbers and booleans as JSON writes them',
      'Item',
      { n: 1.5, ok: true },
      doc('item', '<n>1.5</n><ok>true</ok>'),
    ],
    [
      'null is xsi:nil',
      'Item',
      { n: null, nested: null },
      doc('item', '<n xsi:nil="true"/><nested xsi:nil="true"/>'),
    ],
    ['absent (undefined) is left out', 'Item', { n: undefined, a: 'x' }, doc('item', '<a>x</a>')],
    [
      'wrapped array: items named by the schema',
      'Item',
      { tags: ['a', 'b'] },
      doc('item', '<tags><tag>a</tag><tag>b</tag></tags>'),
    ],
    ['empty wrapped array', 'Item', { tags: [] }, doc('item', '<tags></tags>')],
    [
      'nested object (anyOf branch)',
      'Item',
      { nested: { a: 'x' } },
      doc('item', '<nested><a>x</a></nested>'),
    ],
    [
      'unwrapped array: items in place, named by the item schema',
      'ItemPage',
      { data: [{ n: 1 }, { n: 2 }], page: { has_more: false } },
      doc('items', '<item><n>1</n></item><item><n>2</n></item><page><has_more>false</has_more></page>'),
    ],
    ['an empty page has no item elements', 'ItemPage', { data: [], page: {} }, doc('items', '<page></page>')],
    ['escaping', 'Item', { s: 'a<b>&"c"' }, doc('item', '<s>a&lt;b&gt;&amp;"c"</s>')],
    [
      'characters XML 1.0 forbids are dropped',
      'Item',
      { s: 'a\u0000b\u001fc\uffff' },
      doc('item', '<s>abc</s>'),
    ],
    [
      'unsafe member names are made safe',
      'Item',
      { '1st place': 1, 'xml-ish': 2, 'a<b': 3 },
      doc('item', '<_1st_place>1</_1st_place><_xml-ish>2</_xml-ish><a_b>3</a_b>'),
    ],
    [
      'members without a schema: arrays wrapped under the member name',
      'Item',
      { other: [1, [2]] },
      doc('item', '<other><other>1</other><other><other>2</other></other></other>'),
    ],
    ['namespace on the root', 'Doc', { a: 1 }, doc('doc', '<a>1</a>', ' xmlns="urn:example"')],
  ])('%s', (_name, schema, value, expected) => {
    expect(writer.write(schema, value)).toBe(expected);
  });

  it('the serializer writes a marked value and refuses an unmarked one', () => {
    const serialize = xmlSerializerFor({ components: { schemas } });
    const context = { mediaType: 'application/xml', language: 'en' };
    expect(serialize(asXmlSchema('Item', { n: 1 }), context)).toBe(doc('item', '<n>1</n>'));
    expect(JSON.stringify(asXmlSchema('Item', { n: 1 }))).toBe('{"n":1}');
    expect(() => serialize({ n: 1 }, context)).toThrow(/asXmlSchema/);
  });
});
