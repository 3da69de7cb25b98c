/**
 * Store writes that must not be lost to a passing store failure: storing a response, or releasing a
 * key, after the request itself was answered. Web-standard only (timers), so it runs wherever the
 * Hono adapter runs.
 */

/** The first wait before a failed write is tried again (ms); it doubles up to {@link LAST_DELAY_MS}. */
const FIRST_DELAY_MS = 100;
const LAST_DELAY_MS = 2_000;

/**
 * Runs `write` once and resolves when that first try is over, whatever its outcome. A try that
 * rejects (the store errored or did not answer in time) is repeated in the background, waiting
 * 100 ms, then twice as long each time up to 2 s, until one succeeds or the next try would start at
 * or after `until` (epoch ms, the end of the claim's lease: past it the fencing token no longer
 * holds and the write could only be refused). Only then is the last error reported, once.
 *
 * Repeating is safe because every write is guarded by the claim's fencing token: a try that did
 * land although its answer was lost makes the next one a no-op.
 *
 * @example
 * ```ts
 * await persist(() => claim.complete(response), Date.now() + 60_000, (e) => log.error(e));
 * ```
 */
export function persist(
  write: () => Promise<unknown>,
  until: number,
  onError: (error: unknown) => void,
): Promise<void> {
  return write().then(
    () => undefined,
    (error: unknown) => again(write, until, onError, error, FIRST_DELAY_MS),
  );
}

function again(
  write: () => Promise<unknown>,
  until: number,
  onError: (error: unknown) => void,
  error: unknown,
  delay: number,
): void {
  if (Date.now() + delay >= until) {
    onError(error);
    return;
  }
  const timer = setTimeout(() => {
    write().then(undefined, (next: unknown) =>
      again(write, until, onError, next, Math.min(delay * 2, LAST_DELAY_MS)),
    );
  }, delay);
  // A pending retry does not keep the process alive (Node, Bun; Deno's timers are numbers).
  (timer as { unref?: () => void }).unref?.();
}
