/// <reference path="./ambient.d.ts" />
import express5 from 'express';
import express4 from 'express4';

/**
 * Both supported Express majors, for tests that must hold on each. Build the app the same way
 * with either factory.
 *
 * @example
 * ```ts
 * for (const [name, express] of EXPRESS_VERSIONS) { const app = express(); ... }
 * ```
 */
export const EXPRESS_VERSIONS = [
  ['express5', express5],
  ['express4', express4 as unknown as typeof express5],
] as const;
