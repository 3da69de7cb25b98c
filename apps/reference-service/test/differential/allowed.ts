/**
 * The differences between the three frameworks that the differential suite allows, each with its
 * reason. The reference service's README lists them from this file (test/differential.test.ts
 * checks the README's copy), so the list a user reads is the list the suite enforces. Any other
 * difference fails the suite, and so does an entry here that no case needs any more.
 */
import type { Framework } from '../../src/service/config.js';
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

/**
 * None today: the last one (a repeated `Idempotency-Key` read as a list on Hono) was closed by
 * reading Node's own header lines in `@plumbline/idempotency/hono`. An entry names the frameworks,
 * what differs, why it cannot be fixed, the cases it applies to, and how to erase it.
 */
export const ALLOWED_DIFFERENCES: readonly AllowedDifference[] = [];
