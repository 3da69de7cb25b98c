import { HttpError } from '@plumbline/errors';

/**
 * Node-style raw header lines (name, value, ...) from Fetch API headers, for the credential
 * checks. The Fetch API joins repeated lines with ", "; a bearer token or an API key never holds a
 * comma, so such a value is split back into the lines it came from and two credentials are still
 * refused. Used by the Web-standard adapters when the runtime gives no raw lines.
 *
 * @example
 * ```ts
 * rawHeaderLines(new Headers({ authorization: 'Bearer a, Bearer b' }), 'x-api-key');
 * // ['authorization', 'Bearer a', 'authorization', 'Bearer b']
 * ```
 */
export function rawHeaderLines(headers: Headers, apiKeyHeader: string): string[] {
  const lines: string[] = [];
  headers.forEach((value, name) => {
    const list = name === apiKeyHeader || (name === 'authorization' && /^\s*bearer\s/i.test(value));
    for (const line of list ? value.split(',') : [value]) lines.push(name, line.trim());
  });
  return lines;
}

/**
 * Reads a Web request body as UTF-8 text, refusing more than `limit` bytes with 413
 * `payload_too_large` while reading (a large body is never buffered). `undefined` without a body.
 *
 * @example
 * ```ts
 * const form = await readLimitedText(request.body, 16 * 1024);
 * ```
 */
export async function readLimitedText(
  body: ReadableStream<Uint8Array> | null | undefined,
  limit: number,
): Promise<string | undefined> {
  const reader = body?.getReader();
  if (reader === undefined) return undefined;
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  for (let step = await reader.read(); !step.done; step = await reader.read()) {
    size += step.value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new HttpError('payload_too_large', { params: { limit } });
    }
    text += decoder.decode(step.value, { stream: true });
  }
  return text + decoder.decode();
}
