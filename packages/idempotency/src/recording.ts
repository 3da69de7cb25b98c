import type { CapturedResponse, Claim } from './core.js';
import { persist } from './persist.js';

/**
 * The recording of one response for a claim, shared by every adapter (Express through the Node
 * response interception, Fastify and Hono as the payload passes): the bytes are kept up to the cap
 * as they pass, and the claim is settled exactly once: stored when the body was produced in full, released when it was cut.
 * Web-standard only (no Node imports), so it runs wherever the Hono adapter runs.
 *
 * @example
 * ```ts
 * const recording = new ResponseRecording(claim, 1024 * 1024, (e) => log.error(e));
 * recording.status = 201;
 * return new Response(recording.tapWeb(response.body), response);
 * ```
 */
export class ResponseRecording {
  private readonly chunks: Uint8Array[] = [];
  private size = 0;
  /** True once the claim was settled (or is being settled). */
  settled = false;
  status = 0;
  headers: CapturedResponse['headers'] = {};

  constructor(
    private readonly claim: Claim,
    private readonly maxBodyBytes: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Keeps a chunk that went out (nothing past the cap: the body is then not stored). */
  record(chunk: Uint8Array): void {
    this.size += chunk.byteLength;
    if (this.size <= this.maxBodyBytes) this.chunks.push(chunk);
    else this.chunks.length = 0;
  }

  /**
   * Stores the response (`complete`) or frees the key for a retry (`release`); later calls do
   * nothing. Resolves when the store answered the first try (never rejects): the adapters hold the
   * end of the response until then, so a client that retries as soon as it has the response finds
   * it stored. A try the store failed is repeated in the background until the lease ends
   * ({@link persist}); only a write that never landed reaches `onError`.
   */
  settle(how: 'complete' | 'release'): Promise<void> {
    if (this.settled) return Promise.resolve();
    this.settled = true;
    const kept = this.size <= this.maxBodyBytes;
    // One chunk (a whole `res.end(body)`) is stored as it is, without a copy.
    const body = kept && this.chunks.length === 1 ? this.chunks[0]! : new Uint8Array(kept ? this.size : 0);
    if (kept && this.chunks.length > 1) {
      let offset = 0;
      for (const chunk of this.chunks) {
        body.set(chunk, offset);
        offset += chunk.byteLength;
      }
    }
    this.chunks.length = 0;
    const response = {
      status: this.status,
      headers: this.headers,
      body,
      truncated: !kept,
    };
    const claim = this.claim;
    return persist(
      how === 'complete' ? () => claim.complete(response) : () => claim.release(),
      claim.leaseEndsAt,
      this.onError,
    );
  }

  /**
   * The same stream, recorded as the client reads it (backpressure kept). Its end stores the
   * response, and the stream ends only once the store answered; a failing source releases the key.
   * When the client goes away first, the rest of the source is still read: a body the handler
   * produced in full is stored, as if it had been sent.
   */
  tapWeb(source: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
    const reader = source.getReader();
    const step = async (): Promise<Uint8Array | undefined> => {
      try {
        const { done, value } = await reader.read();
        if (done) {
          await this.settle('complete');
          return undefined;
        }
        this.record(value);
        return value;
      } catch (error) {
        void this.settle('release');
        throw error;
      }
    };
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        const chunk = await step();
        if (chunk === undefined) controller.close();
        else controller.enqueue(chunk);
      },
      cancel: async () => {
        // Drains what the handler still produces, up to the cap (past it nothing would be stored).
        while (!this.settled) {
          if (this.size > this.maxBodyBytes) {
            void this.settle('release');
            await reader.cancel();
          } else await step().catch(() => undefined);
        }
      },
    });
  }
}
