/** The XML reader moved to @plumbline/test-utils, where the contract validator uses it too. */
export { XmlReader } from '@plumbline/test-utils';
