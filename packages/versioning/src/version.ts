/**
 * A version number as the policy and the readers understand it: `major` or `major.minor`.
 *
 * @example
 * ```ts
 * const parsed: ParsedVersion = { major: 2, minor: 1 }; // '2.1'
 * ```
 */
export interface ParsedVersion {
  readonly major: number;
  readonly minor: number | undefined;
}

// Leading zeros are refused so every version has exactly one spelling (`v01` would otherwise be a
// second URI and a second cache key for `v1`); nine digits keeps the numbers exact.
const VERSION_SYNTAX = /^(0|[1-9]\d{0,8})(?:\.(0|[1-9]\d{0,8}))?$/;

/**
 * Parses `2` or `2.1`; anything else (`v2`, `2.x`, `2.1.0`, `02`, empty) is `undefined`.
 *
 * @example
 * ```ts
 * parseVersion('2.1'); // { major: 2, minor: 1 }
 * parseVersion('v2'); // undefined
 * ```
 */
export function parseVersion(text: string): ParsedVersion | undefined {
  const match = VERSION_SYNTAX.exec(text);
  if (match === null) return undefined;
  const minor = match[2];
  return { major: Number(match[1]), minor: minor === undefined ? undefined : Number(minor) };
}

/**
 * Orders versions numerically (`2` < `2.1` < `10`); a bare major sorts like `major.0`.
 *
 * @example
 * ```ts
 * ['10', '2', '2.1'].map((v) => parseVersion(v)!).sort(compareVersions);
 * ```
 */
export function compareVersions(a: ParsedVersion, b: ParsedVersion): number {
  return a.major - b.major || (a.minor ?? 0) - (b.minor ?? 0);
}

const DATE_VERSION = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * True for a date version `YYYY-MM-DD` that names a real calendar day.
 *
 * @example
 * ```ts
 * isDateVersion('2026-11-01'); // true
 * isDateVersion('2026-02-30'); // false
 * ```
 */
export function isDateVersion(text: string): boolean {
  const match = DATE_VERSION.exec(text);
  if (match === null) return false;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return date.toISOString().slice(0, 10) === text;
}
