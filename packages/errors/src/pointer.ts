/**
 * JSON Pointers in problem documents: one format everywhere, the URI fragment form of RFC 6901
 * §6 (`#/filter/status`, `#/name`, `#` for the whole body).
 */

// RFC 3986 `fragment` allows pchar / "/" / "?": unreserved, sub-delims, ":" and "@" stay literal.
const FRAGMENT_SAFE = /%(21|24|26|27|28|29|2A|2B|2C|3B|3D|3A|40|3F)/g;

/**
 * The URI-fragment JSON Pointer (RFC 6901 §6) of a path into a document: each token escaped
 * (`~` → `~0`, `/` → `~1`), then percent-encoded where a URI fragment requires it.
 *
 * @example
 * ```ts
 * jsonPointer(['budget', 'currency']); // '#/budget/currency'
 * jsonPointer(['a/b', 'x y']); // '#/a~1b/x%20y'
 * jsonPointer([]); // '#'
 * ```
 */
export function jsonPointer(path: readonly PropertyKey[]): string {
  let out = '#';
  for (const part of path) {
    const token = String(part).replaceAll('~', '~0').replaceAll('/', '~1');
    out += `/${encodeURIComponent(token).replace(FRAGMENT_SAFE, (encoded) => decodeURIComponent(encoded))}`;
  }
  return out;
}
