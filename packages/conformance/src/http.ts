/**
 * A bounded HTTP client for the probe: one origin only, a per-request timeout, a total request
 * budget, a request rate cap and a cap on the body bytes read. Every exchange is kept so a rule
 * can show the request and the response lines it judged.
 */

/**
 * Limits of a probe run.
 *
 * @example
 * ```ts
 * const limits: ClientLimits = { timeoutMs: 5_000, maxRequests: 200, requestsPerSecond: 10 };
 * ```
 */
export interface ClientLimits {
  /** Per-request timeout in milliseconds. Default 5000. */
  readonly timeoutMs?: number;
  /** Total requests of the run. Default 300. */
  readonly maxRequests?: number;
  /** Requests started per second. Default 10. */
  readonly requestsPerSecond?: number;
  /** Response body bytes read (the rest is discarded). Default 256 KiB. */
  readonly maxBodyBytes?: number;
}

/** One request as sent. */
export interface SentRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** One response as received (body possibly truncated to `maxBodyBytes`). */
export interface ReceivedResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
}

/** A request and its response, or the reason it has none. */
export interface Exchange {
  readonly request: SentRequest;
  readonly response?: ReceivedResponse;
  /** Timeout, connection error or refusal. */
  readonly error?: string;
}

/** Thrown when the run's request budget is spent; the rule in progress is skipped. */
export class BudgetExhausted extends Error {
  constructor(limit: number) {
    super(`request budget of ${limit} exhausted`);
    this.name = 'BudgetExhausted';
  }
}

const SECRET_HEADERS = new Set(['authorization', 'x-api-key', 'cookie', 'proxy-authorization']);

/**
 * The bounded client.
 *
 * @example
 * ```ts
 * const client = new ProbeClient('http://127.0.0.1:3000', { 'X-API-Key': key }, { requestsPerSecond: 5 });
 * const { response } = await client.send('GET', '/v2/projects');
 * ```
 */
export class ProbeClient {
  readonly base: URL;
  readonly exchanges: Exchange[] = [];
  private readonly timeoutMs: number;
  private readonly maxRequests: number;
  private readonly intervalMs: number;
  private readonly maxBodyBytes: number;
  private nextStart = 0;
  private sent = 0;

  constructor(
    baseUrl: string,
    private readonly credentials: Readonly<Record<string, string>>,
    limits: ClientLimits = {},
  ) {
    this.base = new URL(URL.canParse(baseUrl) ? baseUrl : 'invalid:');
    if (this.base.protocol !== 'http:' && this.base.protocol !== 'https:')
      throw new TypeError(`base URL must be http(s): ${baseUrl}`);
    this.timeoutMs = limits.timeoutMs ?? 5_000;
    this.maxRequests = limits.maxRequests ?? 300;
    this.intervalMs = 1000 / (limits.requestsPerSecond ?? 10);
    this.maxBodyBytes = limits.maxBodyBytes ?? 256 * 1024;
  }

  /** Requests sent so far. */
  get count(): number {
    return this.sent;
  }

  /** Resolves a path or link against the base URL; `undefined` when it leaves the base origin. */
  resolve(target: string): URL | undefined {
    let url: URL;
    try {
      url = new URL(target, this.base);
    } catch {
      return undefined;
    }
    return url.origin === this.base.origin ? url : undefined;
  }

  /**
   * Sends one request. Credentials are added unless `anonymous`; `headers` may override them.
   * Other hosts are refused without a request; redirects are not followed. `overBudget` is for
   * cleaning up what the run created, which must happen even when the budget is spent.
   */
  async send(
    method: string,
    target: string,
    options: {
      headers?: Record<string, string>;
      body?: string;
      anonymous?: boolean;
      overBudget?: boolean;
      /** Reads at most this many bytes of this response's body instead of the client's `maxBodyBytes`. */
      maxBodyBytes?: number;
    } = {},
  ): Promise<Exchange> {
    const url = this.resolve(target) ?? new URL(target, this.base);
    const headers = { ...(options.anonymous ? {} : this.credentials), ...options.headers };
    const request: SentRequest = {
      method,
      url,
      headers,
      ...(options.body === undefined ? {} : { body: options.body }),
    };
    if (url.origin !== this.base.origin) {
      const exchange = { request, error: `refused: ${url.origin} is not ${this.base.origin}` };
      this.exchanges.push(exchange);
      return exchange;
    }
    if (this.sent >= this.maxRequests && !options.overBudget) throw new BudgetExhausted(this.maxRequests);
    this.sent += 1;
    await this.pace();
    const exchange = await this.fetch(request, options.maxBodyBytes ?? this.maxBodyBytes);
    this.exchanges.push(exchange);
    return exchange;
  }

  private async pace(): Promise<void> {
    const now = Date.now();
    const wait = this.nextStart - now;
    this.nextStart = Math.max(now, this.nextStart) + this.intervalMs;
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }

  private async fetch(request: SentRequest, maxBodyBytes: number): Promise<Exchange> {
    try {
      const response = await fetch(request.url, {
        method: request.method,
        headers: request.headers,
        ...(request.body === undefined ? {} : { body: request.body }),
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      const body = await this.readBody(response, maxBodyBytes);
      return { request, response: { status: response.status, headers: response.headers, body } };
    } catch (error) {
      const name = error instanceof Error ? error.name : '';
      const reason =
        name === 'TimeoutError'
          ? `timed out after ${this.timeoutMs} ms`
          : `failed: ${String(error)}`.slice(0, 200);
      return { request, error: reason };
    }
  }

  private async readBody(response: Response, maxBodyBytes: number): Promise<string> {
    if (response.body === null) return '';
    const reader = response.body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    while (size < maxBodyBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
    await reader.cancel().catch(() => undefined);
    return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, maxBodyBytes));
  }
}

/**
 * The request line and the headers that matter, credentials masked.
 *
 * @example
 * ```ts
 * describeRequest(exchange.request); // 'GET /v2/projects?sort=nope\nAccept: application/json'
 * ```
 */
export function describeRequest(request: SentRequest): string {
  const lines = [`${request.method} ${request.url.pathname}${request.url.search}`];
  for (const [name, value] of Object.entries(request.headers))
    lines.push(`${name}: ${SECRET_HEADERS.has(name.toLowerCase()) ? maskSecret(value) : value}`);
  if (request.body !== undefined) lines.push('', excerpt(request.body, 200));
  return lines.join('\n');
}

function maskSecret(value: string): string {
  const scheme = /^(Bearer|Basic)\s+/i.exec(value)?.[0] ?? '';
  return `${scheme}***`;
}

/**
 * Text cut to `max` characters with an ellipsis, on one line.
 *
 * @example
 * ```ts
 * excerpt('a\nb', 10); // 'a b'
 * ```
 */
export function excerpt(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/**
 * The status line, the named headers (when present) and the start of the body.
 *
 * @example
 * ```ts
 * describeResponse(exchange, ['content-type', 'vary']); // 'HTTP 200\ncontent-type: application/json\n{"data":[…'
 * ```
 */
export function describeResponse(exchange: Exchange, headerNames: readonly string[] = []): string {
  const { response } = exchange;
  if (response === undefined) return `no response: ${exchange.error ?? 'unknown'}`;
  const lines = [`HTTP ${response.status}`];
  for (const name of ['content-type', ...headerNames]) {
    const value = response.headers.get(name);
    lines.push(`${name}: ${value ?? '(absent)'}`);
  }
  if (response.body !== '') lines.push(excerpt(response.body, 300));
  return [...new Set(lines)].join('\n');
}
