/**
 * The runtime matrix's comparison: every runtime's answers against Node 24's, byte for byte, apart from
 * the allowed differences (data, listed in docs/runtimes.md).
 */
import type { Answer, Step } from './runtime-requests.js';

/** The answer as compared: random-key cursor signatures replaced (see `Step.randomCursor`). */
function normalised(step: Step, answer: Answer): Answer {
  if (!step.randomCursor) return answer;
  const signature = /([A-Za-z0-9_-]{8,})(\.|%2E)[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g;
  const replace = (text: string) => text.replace(signature, '$1$2<signature>');
  return {
    status: answer.status,
    headers: answer.headers.map(([name, value]) => [name, replace(value)] as const),
    body: Buffer.from(replace(answer.body.toString('utf8'))),
  };
}

/**
 * A part of an answer a runtime may give differently from Node 24, and why: data, listed in
 * docs/runtimes.md. `part` is a header name, or `answer` for status, headers and body together.
 * An entry naming steps must be used on each of its runtimes, so a stale one fails.
 */
export interface AllowedDifference {
  readonly part: string;
  readonly runtimes: readonly string[];
  readonly steps?: readonly string[];
  readonly reason: string;
}

const NOT_NODE = ['bun', 'deno', 'workerd'];
const HEAD_STEPS = ['health-head', 'project-head'];
// The answers the idempotency middleware recorded (the first execution of each key).
const RECORDED_STEPS = ['order-1', 'order-other-caller', 'slow-1'];
const RECORDED_REASON =
  'off @hono/node-server the idempotency middleware reads a body that is all there at once and sends it as bytes, else records it through a stream (its README, Hono section); on workerd the body of the Response a handler returns is not readable without waiting, so it goes through the stream, which workerd sends chunked (Deno and Bun send a Content-Length). The body bytes are compared and equal.';

export const ALLOWED_DIFFERENCES: readonly AllowedDifference[] = [
  {
    part: 'date',
    runtimes: ['node22', ...NOT_NODE],
    reason: 'the time of the answer: the runtimes are asked one after another',
  },
  {
    part: 'connection',
    runtimes: NOT_NODE,
    reason:
      "Node's HTTP server states `keep-alive` on every HTTP/1.1 answer; the others leave the HTTP/1.1 default unstated",
  },
  {
    part: 'keep-alive',
    runtimes: NOT_NODE,
    reason: "Node's HTTP server announces its idle timeout (`timeout=5`)",
  },
  {
    part: 'content-length',
    runtimes: ['bun', 'deno'],
    steps: HEAD_STEPS,
    reason:
      'to HEAD, Bun.serve and Deno.serve add `Content-Length: 0` for the body-less response Hono returns; Node and workerd send none',
  },
  { part: 'content-length', runtimes: ['workerd'], steps: RECORDED_STEPS, reason: RECORDED_REASON },
  {
    part: 'transfer-encoding',
    runtimes: ['workerd'],
    steps: RECORDED_STEPS,
    reason: RECORDED_REASON,
  },
  {
    part: 'answer',
    runtimes: ['deno'],
    steps: ['dot-segments'],
    reason:
      'Deno.serve gives the app the request target as sent (`request.url` keeps `/../`), so Hono routes `/v3/projects/../tasks` (404); @hono/node-server, Bun and workerd resolve dot segments as WHATWG URL does and serve `/v3/tasks`',
  },
];

/** Whether a runtime may answer a step altogether differently (its expected status does not apply). */
export const answerMayDiffer = (runtime: string, step: string) =>
  ALLOWED_DIFFERENCES.some(
    (d) => d.part === 'answer' && d.runtimes.includes(runtime) && d.steps?.includes(step),
  );

const allowance = (runtime: string, step: string, part: string) =>
  ALLOWED_DIFFERENCES.find(
    (d) =>
      (d.part === part || d.part === 'answer') &&
      d.runtimes.includes(runtime) &&
      (d.steps === undefined || d.steps.includes(step)),
  );

export interface Difference {
  readonly step: string;
  /** `status`, `body` or `header <name>`. */
  readonly what: string;
  readonly baseline: string;
  readonly other: string;
  /** The reason from ALLOWED_DIFFERENCES, when the difference is allowed. */
  readonly allowed?: string;
}

const shown = (value: string | undefined) =>
  value === undefined ? '(absent)' : JSON.stringify(value.slice(0, 400));

function byName(answer: Answer): Map<string, string> {
  const map = new Map<string, string>();
  for (const [name, value] of answer.headers) {
    const seen = map.get(name);
    map.set(name, seen === undefined ? value : `${seen}\n${value}`);
  }
  return map;
}

/** Every difference between a runtime's answers and the baseline's (normalised first, see Step). */
export function compareAnswers(
  runtime: string,
  steps: readonly Step[],
  baseline: ReadonlyMap<string, Answer>,
  answers: ReadonlyMap<string, Answer>,
): Difference[] {
  const differences: Difference[] = [];
  for (const step of steps) {
    const a = normalised(step, baseline.get(step.id)!);
    const b = normalised(step, answers.get(step.id)!);
    const note = (what: string, baseline: string, other: string, part: string) => {
      const allowed = allowance(runtime, step.id, part);
      differences.push({
        step: step.id,
        what,
        baseline,
        other,
        ...(allowed ? { allowed: allowed.reason } : {}),
      });
    };
    if (a.status !== b.status) note('status', String(a.status), String(b.status), 'status');
    if (!a.body.equals(b.body)) note('body', shown(a.body.toString()), shown(b.body.toString()), 'body');
    const x = byName(a);
    const y = byName(b);
    for (const name of [...new Set([...x.keys(), ...y.keys()])].sort()) {
      if (x.get(name) !== y.get(name)) note(`header ${name}`, shown(x.get(name)), shown(y.get(name)), name);
    }
  }
  return differences;
}

/** Entries naming steps that allowed nothing on one of their runtimes (the difference is gone). */
export function staleAllowances(differences: ReadonlyMap<string, readonly Difference[]>): string[] {
  const stale: string[] = [];
  for (const entry of ALLOWED_DIFFERENCES.filter((d) => d.steps !== undefined)) {
    for (const runtime of entry.runtimes) {
      const seen = differences.get(runtime);
      if (seen === undefined) continue;
      const used = seen.some(
        (d) =>
          entry.steps!.includes(d.step) &&
          d.allowed === entry.reason &&
          (entry.part === 'answer' || d.what === `header ${entry.part}`),
      );
      if (!used)
        stale.push(`${entry.part} on ${runtime} (${entry.steps!.join(', ')}): no such difference any more`);
    }
  }
  return stale;
}
