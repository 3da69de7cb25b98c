import { sha256 } from '@noble/hashes/sha2';

interface NodeHash {
  update(data: string | Uint8Array): NodeHash;
  digest(encoding: 'base64url'): string;
}

/** What is used of `node:crypto`: `hash` (one-shot, Node 20.12+) is the cheaper path for text. */
interface NodeCrypto {
  createHash(algorithm: string): NodeHash;
  hash?: (algorithm: string, data: string, encoding: 'base64url') => string;
}

// Node, Bun and Deno expose their native hash through getBuiltinModule (no import, so the module still
// loads on Workers); it is 10 to 20 times faster than the portable JavaScript SHA-256 used elsewhere.
const native = (
  globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
).process?.getBuiltinModule?.('node:crypto') as NodeCrypto | undefined;

const encoder = new TextEncoder();

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

/** 22 base64url characters: the first 132 bits of SHA-256, plenty to tell versions of one resource apart. */
const TAG_LENGTH = 22;

/**
 * The strong entity tag (RFC 9110 section 8.8.3) of one representation: a SHA-256 digest of its
 * content together with its `Content-Type` and `Content-Language`, so JSON and XML, or English and
 * German, of the same data never share a tag, and any change to the bytes changes it. What every
 * adapter's `represent` sends as `ETag` unless the route set one; compute the current tag of a
 * resource with it (or the adapters' `entityTagOf`) to evaluate preconditions against the same value.
 *
 * @example
 * ```ts
 * entityTag('{"id":1}', 'application/json; charset=utf-8', 'en'); // '"…22 base64url characters…"'
 * ```
 */
export function entityTag(body: string | Uint8Array, contentType = '', contentLanguage = ''): string {
  return digestTag(`${contentType}\n${contentLanguage}\n`, body, native);
}

/** The tag of `meta` + `body`, with Node's hash when given, else the portable one (both are SHA-256). */
export function digestTag(
  meta: string,
  body: string | Uint8Array,
  nodeCrypto: NodeCrypto | undefined,
): string {
  if (nodeCrypto?.hash && typeof body === 'string') {
    return `"${nodeCrypto.hash('sha256', meta + body, 'base64url').slice(0, TAG_LENGTH)}"`;
  }
  if (nodeCrypto) {
    return `"${nodeCrypto.createHash('sha256').update(meta).update(body).digest('base64url').slice(0, TAG_LENGTH)}"`;
  }
  const digest = sha256
    .create()
    .update(encoder.encode(meta))
    .update(typeof body === 'string' ? encoder.encode(body) : body)
    .digest();
  return `"${base64url(digest).slice(0, TAG_LENGTH)}"`;
}
