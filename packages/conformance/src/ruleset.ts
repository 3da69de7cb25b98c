/**
 * The ruleset file for Spectral's CLI:
 * `spectral lint openapi.json --ruleset node_modules/@plumbline/conformance/dist/ruleset.mjs`.
 *
 * Spectral bundles a JavaScript ruleset to CommonJS and evaluates it with `module` but no `exports`
 * binding, so this file has a default export and nothing else (named exports next to a default one
 * make the bundle write to `exports` and fail with "exports is not defined"). To build a ruleset
 * with other options, import `createRuleset` from `@plumbline/conformance/ruleset`.
 *
 * @packageDocumentation
 */
import { createRuleset, type SpectralRuleset } from './create-ruleset.js';

/**
 * The Plumbline ruleset with its default options.
 *
 * @example
 * ```sh
 * npx spectral lint openapi.json --ruleset node_modules/@plumbline/conformance/dist/ruleset.mjs
 * ```
 */
const ruleset: SpectralRuleset = createRuleset();
export default ruleset;
