/**
 * RFC 4647 section 3.4 "lookup" over an Accept-Language header (RFC 9110 section 12.5.4).
 * Lives in the root package because error bodies are localized too; `@plumbline/negotiation`
 * uses the same function for representations.
 */

const TAG = /^(?:\*|[a-z]{1,8}(?:-[a-z0-9]{1,8})*)$/i;
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;
/** Longer headers are cut before parsing: a language list is never legitimately this long. */
export const MAX_ACCEPT_LANGUAGE_LENGTH = 1024;
const MAX_RANGES = 32;

/** One entry of an Accept-Language header. */
export interface LanguageRange {
  readonly range: string;
  readonly q: number;
}

/**
 * Parses an Accept-Language header into ranges ordered by preference (highest q first, header
 * order among equals). Malformed entries are dropped, never thrown on; `q=0` entries are kept
 * with `q: 0` so callers can exclude them.
 *
 * @example
 * ```ts
 * parseAcceptLanguage('de-DE, en;q=0.5'); // [{ range: 'de-DE', q: 1 }, { range: 'en', q: 0.5 }]
 * ```
 */
export function parseAcceptLanguage(header: string | undefined): LanguageRange[] {
  if (!header) return [];
  const ranges: LanguageRange[] = [];
  for (const part of header.slice(0, MAX_ACCEPT_LANGUAGE_LENGTH).split(',', MAX_RANGES)) {
    const [rawTag = '', ...params] = part.split(';');
    const range = rawTag.trim();
    if (!TAG.test(range)) continue;
    let q = 1;
    let valid = true;
    for (const param of params) {
      const [name = '', value = ''] = param.split('=', 2).map((s) => s.trim());
      if (name.toLowerCase() !== 'q') continue;
      if (!QVALUE.test(value)) valid = false;
      else q = Number(value);
    }
    if (valid) ranges.push({ range, q });
  }
  // Array.prototype.sort is stable, so header order breaks ties.
  return ranges.sort((a, b) => b.q - a.q);
}

/**
 * Picks the best of `available` for an Accept-Language header with RFC 4647 lookup: each range,
 * in preference order, is matched exactly and then with subtags removed from the end
 * (`zh-Hant-TW` → `zh-Hant` → `zh`). No match, a missing or a malformed header gives `fallback`:
 * a language is a preference, so this never fails.
 *
 * @example
 * ```ts
 * lookupLanguage('de-DE,en;q=0.5', ['en', 'de'], 'en'); // 'de'
 * lookupLanguage('zh-Hant-TW', ['en', 'zh-Hant'], 'en'); // 'zh-Hant'
 * lookupLanguage('fr', ['en', 'de'], 'en'); // 'en'
 * ```
 */
export function lookupLanguage(
  header: string | undefined,
  available: readonly string[],
  fallback: string,
): string {
  const byLower = new Map(available.map((tag) => [tag.toLowerCase(), tag]));
  const excluded = new Set<string>();
  for (const { range, q } of parseAcceptLanguage(header)) {
    const lower = range.toLowerCase();
    if (q === 0) {
      excluded.add(lower);
      continue;
    }
    if (lower === '*') continue;
    let candidate = lower;
    while (candidate) {
      const match = byLower.get(candidate);
      if (match && !excluded.has(candidate)) return match;
      let cut = candidate.lastIndexOf('-');
      if (cut < 0) break;
      // RFC 4647 3.4: a single-character subtag left at the end is removed with the next one.
      if (cut >= 2 && candidate[cut - 2] === '-') cut -= 2;
      candidate = candidate.slice(0, cut);
    }
  }
  return fallback;
}
