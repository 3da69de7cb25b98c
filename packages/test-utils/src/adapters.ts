import { toHttpError, toProblem } from '@plumbline/errors';
import type { Response as SupertestResponse } from 'supertest';
import { describe, it } from 'vitest';

/** One observed HTTP result, the same shape whichever adapter produced it. */
export interface Outcome {
  readonly status: number;
  /** Lower-cased header names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

/** A behaviour case: a name plus whatever inputs and expectations the table needs. */
export interface AdapterCase {
  readonly name: string;
}

/** Runs one case through one adapter and reports what came out. */
export type AdapterRunner<C> = (testCase: C) => Outcome | Promise<Outcome>;

/**
 * Runs one behaviour table against every adapter given (typically `core` plus the four frameworks
 * of `frameworkRunners`: `express5`, `express4`, `fastify`, `hono`), so a rule is written once
 * and held to in every place it is implemented.
 *
 * @example
 * ```ts
 * describeAdapters('sort', rows, {
 *   core: (row) => coreOutcome(() => parseQuery(collection, row.query)),
 *   express5: (row) => request(app5).get(`/items?${row.query}`).then(fromSupertest),
 * }, (outcome, row) => expect(outcome.status).toBe(row.status));
 * ```
 */
export function describeAdapters<C extends AdapterCase>(
  title: string,
  cases: readonly C[],
  adapters: Readonly<Record<string, AdapterRunner<C> | undefined>>,
  check: (outcome: Outcome, testCase: C, adapter: string) => void | Promise<void>,
): void {
  describe(title, () => {
    for (const [adapter, run] of Object.entries(adapters)) {
      if (run === undefined) continue;
      describe(adapter, () => {
        it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, testCase) => {
          await check(await run(testCase), testCase, adapter);
        });
      });
    }
  });
}

/**
 * The outcome of a supertest response.
 *
 * @example
 * ```ts
 * const outcome = fromSupertest(await request(app).get('/x'));
 * ```
 */
export function fromSupertest(res: SupertestResponse): Outcome {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers as Record<string, string | string[]>)) {
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  // supertest parses JSON bodies (including +json types); everything else is compared as text.
  const body = /[/+]json\b/.test(headers['content-type'] ?? '') ? res.body : res.text;
  return { status: res.status, headers, body };
}

/**
 * The outcome of calling a core function: 200 with its return value, or the problem document
 * and headers of the `HttpError` it threw, exactly as the error handler would send them.
 *
 * @example
 * ```ts
 * const outcome = await coreOutcome(() => parseQuery(collection, 'sort=-name'));
 * ```
 */
export async function coreOutcome(run: () => unknown): Promise<Outcome> {
  try {
    return { status: 200, headers: {}, body: await run() };
  } catch (thrown) {
    const error = toHttpError(thrown);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(error.headers)) headers[name.toLowerCase()] = value;
    return { status: error.status, headers, body: toProblem(error) };
  }
}
