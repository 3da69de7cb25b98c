/**
 * The contract check of the system tests: every exchange made through the harness's `request()`
 * is recorded, with the service's /openapi.json fetched once per instance (before the instance
 * can be stopped), and checked when the test file ends (contract-setup.ts).
 */
import { ContractValidator, describeViolations, type Exchange } from '@plumbline/test-utils';

const validators = new Map<string, Promise<ContractValidator | undefined>>();
const recorded: { origin: string; exchange: Exchange }[] = [];

function validatorFor(origin: string): Promise<ContractValidator | undefined> {
  let validator = validators.get(origin);
  if (!validator) {
    validator = fetch(`${origin}/openapi.json`, { signal: AbortSignal.timeout(10_000) })
      .then(async (res) =>
        res.status === 200 ? new ContractValidator((await res.json()) as Record<string, unknown>) : undefined,
      )
      .catch(() => undefined);
    validators.set(origin, validator);
  }
  return validator;
}

/** Records one answered exchange (status 0, a network failure, is not an HTTP answer). */
export async function recordExchange(
  url: string,
  init: RequestInit,
  response: Response,
  text: string,
): Promise<void> {
  const target = new URL(url);
  await validatorFor(target.origin);
  recorded.push({
    origin: target.origin,
    exchange: {
      method: init.method ?? 'GET',
      url: `${target.pathname}${target.search}`,
      requestHeaders: Object.fromEntries(new Headers(init.headers).entries()),
      requestBody:
        typeof init.body === 'string'
          ? init.body
          : init.body instanceof URLSearchParams
            ? init.body.toString()
            : '',
      status: response.status,
      responseHeaders: Object.fromEntries(response.headers.entries()),
      responseBody: text,
    },
  });
}

/** What the recorded exchanges break, readable (empty when all conform); clears the record. */
export async function contractViolations(): Promise<string> {
  const byOrigin = new Map<string, Exchange[]>();
  // Appended in place: a soak records hundreds of thousands of exchanges, and copying the list per
  // exchange made this quadratic (the check outran its two-minute hook on Node 24's faster soak).
  for (const { origin, exchange } of recorded.splice(0)) {
    const list = byOrigin.get(origin);
    if (list) list.push(exchange);
    else byOrigin.set(origin, [exchange]);
  }
  const reports: string[] = [];
  let unchecked = 0;
  for (const [origin, exchanges] of byOrigin) {
    const validator = await validators.get(origin);
    if (!validator) {
      unchecked += exchanges.length;
      continue;
    }
    const report = describeViolations(validator, exchanges);
    if (report !== '') reports.push(report);
  }
  if (process.env['PLUMBLINE_CONTRACT_VERBOSE'] === '1') {
    const total = [...byOrigin.values()].reduce((n, list) => n + list.length, 0);
    console.info(`contract: ${total - unchecked} exchanges checked, ${unchecked} without a document`);
  }
  return reports.join('\n');
}
