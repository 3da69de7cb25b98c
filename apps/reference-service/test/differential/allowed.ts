/**
 * The differences between the three frameworks that the differential suite allows, each with its
 * reason. The reference service's README lists them from this file (test/differential.test.ts
 * checks the README's copy), so the list a user reads is the list the suite enforces. Any other
 * difference fails the suite, and so does an entry here that no case needs any more.
 */
import type { Framework } from '../../src/config.js';
import type { Case } from './cases.js';
import type { NormalResult } from './normalise.js';

export interface AllowedDifference {
  /** A short stable name. */
  readonly id: string;
  /** The frameworks whose answers differ from the others'. */
  readonly frameworks: readonly Framework[];
  /** What differs, as the README says it (Markdown, one sentence or two). */
  readonly summary: string;
  /** Why it is allowed rather than fixed. */
  readonly reason: string;
  /** The cases it applies to. */
  readonly applies: (c: Case) => boolean;
  /** Removes the difference from every framework's answer (so what remains must be equal). */
  readonly erase: (result: NormalResult) => NormalResult;
}

/** Drops the named headers from every response of a result. */
function withoutHeaders(result: NormalResult, names: readonly string[]): NormalResult {
  return {
    ...result,
    responses: result.responses.map((r) => ({
      ...r,
      headers: r.headers.filter(([name]) => !names.includes(name)),
    })),
  };
}

/** Replaces `pattern` in every body and drops `Content-Length` (the lengths differ with the text). */
function withBodyText(result: NormalResult, pattern: RegExp, replacement: string): NormalResult {
  return withoutHeaders(
    {
      ...result,
      responses: result.responses.map((r) => ({ ...r, body: r.body.replace(pattern, replacement) })),
    },
    ['content-length'],
  );
}

export const ALLOWED_DIFFERENCES: readonly AllowedDifference[] = [
  {
    id: 'repeated-idempotency-key',
    frameworks: ['hono'],
    summary:
      'Two `Idempotency-Key` lines are 400 `idempotency_key_invalid` on all three; on Hono the detail says "a list of keys is not allowed" instead of "the header is sent more than once".',
    reason:
      'A Web `Request` (which Hono reads on every runtime) joins repeated header lines into one comma-separated value, so Hono cannot tell two lines from one line holding a list.',
    applies: (c) => c.id.endsWith('idempotency: two key lines'),
    erase: (result) =>
      withBodyText(
        result,
        /the header is sent more than once\.|a list of keys is not allowed\./g,
        '<repeated key>',
      ),
  },
];
