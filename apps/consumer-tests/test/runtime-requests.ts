/**
 * The runtime matrix's requests: one fixed table sent to the app on every runtime, and the exchange as
 * it went over the wire (status, lower-cased sorted header lines, body bytes); and the server processes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { Agent, request as httpRequest } from 'node:http';
import type { Credentials } from './runtime-app.js';

export interface Step {
  /** Unique; also the request's X-Request-Id (`req-<id>`), so ids in answers are deterministic. */
  readonly id: string;
  readonly method: string;
  /** `{cursor:<id>}` is the `next_cursor` of that earlier answer on the same runtime. */
  readonly path: string;
  /** `{etag:<id>}` is the ETag of that earlier answer on the same runtime. */
  readonly headers?: Readonly<Record<string, string | readonly string[]>>;
  readonly body?: string;
  /** The status Node 24 and every other runtime must answer (checked before the comparison). */
  readonly status?: number;
  /** Sent without waiting for its answer; collected after the next step that has `release`. */
  readonly hold?: true;
  readonly release?: true;
  /**
   * The answer holds cursors of the collection defined without a `cursorSecret`: each runtime draws
   * its own random key, so only the signature differs. It is replaced by `<signature>` before the
   * comparison; the payload (sort values and query binding) is still compared byte for byte.
   */
  readonly randomCursor?: true;
}

export interface Answer {
  readonly status: number;
  /** [lower-case name, value], sorted by name; repeated lines keep their order. */
  readonly headers: readonly (readonly [string, string])[];
  readonly body: Buffer;
}

/** The table. Credentials differ per run, so it is built from them. */
export function requestTable({ config, tokens }: Credentials): readonly Step[] {
  const key = (name: 'apiKeyRead' | 'apiKeyWrite' | 'apiKeyRevoked') => ({
    'x-api-key': String(config[name]),
  });
  const rw = key('apiKeyWrite');
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  type Headers = NonNullable<Step['headers']>;
  const get = (id: string, path: string, status: number, headers: Headers = rw, method = 'GET'): Step => ({
    id,
    method,
    path,
    status,
    headers,
  });
  const post = (
    id: string,
    path: string,
    status: number,
    body: unknown,
    headers: Headers = {},
    auth: Headers = rw,
  ): Step => ({
    id,
    method: 'POST',
    path,
    status,
    headers: { ...auth, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const order = (
    id: string,
    status: number,
    idempotencyKey: string | undefined,
    body: unknown,
    auth: Headers = rw,
  ) =>
    post(
      id,
      '/v3/orders',
      status,
      body,
      idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey },
      auth,
    );
  const slow = (id: string, status: number) =>
    post(id, '/v3/slow-orders', status, { qty: 1 }, { 'idempotency-key': 's1' });
  const xmlDe = { accept: 'application/xml', 'accept-language': 'de-CH, en;q=0.5' };
  return [
    // errors and versioning (path strategy: v1 retired, v2 deprecated, v3 current)
    get('health', '/health', 200, {}),
    get('health-head', '/health', 200, {}, 'HEAD'),
    get('v3-whoami', '/v3/whoami', 200, {}),
    get('v2-deprecated', '/v2/whoami', 200, {}),
    get('v1-sunset', '/v1/whoami', 410, {}),
    get('v9-unknown', '/v9/whoami', 404, { accept: 'application/xml' }),
    get('no-version', '/whoami', 404, {}),
    get('not-found', '/v3/nowhere', 404),
    get('not-found-xml-de', '/v3/nowhere', 404, { ...rw, ...xmlDe }),
    get('boom', '/v3/boom', 500),
    get('throw-string', '/v3/throw-string', 500, { ...rw, 'accept-language': 'de' }),
    // auth: API keys, and ES256 tokens verified against the JWKS passed in
    get('anonymous', '/v3/tasks', 401, {}),
    get('jwt-expired', '/v3/tasks', 401, bearer(tokens.expired)),
    get('jwt-garbage', '/v3/tasks', 401, bearer('abc.def.ghi')),
    get('jwt-tampered', '/v3/tasks', 401, bearer(`${tokens.all.slice(0, -4)}AAAA`)),
    get('key-revoked', '/v3/tasks', 401, key('apiKeyRevoked')),
    get('key-in-query', '/v3/tasks?api_key=plk_whatever', 400),
    get('key-and-bearer', '/v3/tasks', 400, { ...rw, ...bearer(tokens.all) }),
    // Two X-Api-Key lines: Node reads both raw lines, the Fetch runtimes one value joined with ", ".
    get('two-keys', '/v3/tasks', 400, { 'x-api-key': [rw['x-api-key'], 'plk_x'] }),
    get('jwt-read-only', '/v3/tasks?limit=1', 200, bearer(tokens.readOnly)),
    get('jwt-scope-403', '/v3/projects/7', 403, bearer(tokens.readOnly)),
    order('key-scope-403', 403, 'k0', { qty: 1 }, key('apiKeyRead')),
    // query-parser: the collection signed with the secret passed in
    get('tasks', '/v3/tasks', 200),
    get('tasks-filtered', '/v3/tasks?status=open&priority[gte]=2&sort=-priority,title&limit=2', 200),
    get('tasks-search', '/v3/tasks?q=gr%C3%B6%C3%9Fe&fields=title', 200),
    get('tasks-in', '/v3/tasks?status%5Bin%5D=blocked,done&sort=title', 200),
    get('tasks-unknown', '/v3/tasks?colour=red', 400),
    get('tasks-two-problems', '/v3/tasks?colour=red&sort=', 400, { ...rw, 'accept-language': 'de' }),
    get('tasks-bad-sort', '/v3/tasks?sort=-title:asc', 400),
    get('tasks-sort-field', '/v3/tasks?sort=password', 400),
    get('tasks-limit', '/v3/tasks?limit=50', 400),
    get('tasks-bad-value', '/v3/tasks?priority[gte]=high&status=%FF', 400),
    get('tasks-empty-cursor', '/v3/tasks?limit=2&cursor=', 400),
    get('tasks-cursor-1', '/v3/tasks?limit=3&sort=title', 200),
    get('tasks-cursor-2', '/v3/tasks?limit=3&sort=title&cursor={cursor:tasks-cursor-1}', 200),
    get('tasks-cursor-forged', '/v3/tasks?limit=3&sort=title&cursor=eyJ2IjpbXX0.AAAA', 400),
    get('tasks-cursor-resorted', '/v3/tasks?limit=3&sort=-title&cursor={cursor:tasks-cursor-1}', 400),
    post('search', '/v3/tasks/search', 200, {
      filter: { status: { in: ['open', 'blocked'] } },
      sort: '-priority',
      limit: 3,
    }),
    post('search-text', '/v3/tasks/search', 415, 'status=open', { 'content-type': 'text/plain' }),
    post('search-malformed', '/v3/tasks/search', 400, '{"filter":'),
    post('search-invalid', '/v3/tasks/search', 400, { filter: { colour: 'red' }, limit: 0 }),
    // query-parser: the collection defined at module scope without a cursorSecret
    { ...get('notes-1', '/v3/notes?limit=2', 200), randomCursor: true },
    { ...get('notes-2', '/v3/notes?limit=2&cursor={cursor:notes-1}', 200), randomCursor: true },
    get('notes-foreign-cursor', '/v3/notes?limit=2&cursor={cursor:tasks-cursor-1}', 400),
    // negotiation
    get('project-json', '/v3/projects/7', 200, bearer(tokens.all)),
    get('project-xml', '/v3/projects/7', 200, { ...rw, accept: 'application/xml' }),
    get('project-de', '/v3/projects/8', 200, {
      ...rw,
      accept: 'application/json;q=0.5, application/xml;q=0.4',
      'accept-language': 'de-DE',
    }),
    get('project-406', '/v3/projects/7', 406, { ...rw, accept: 'image/png' }),
    get('project-head', '/v3/projects/7', 200, rw, 'HEAD'),
    get('project-304', '/v3/projects/7', 304, {
      ...bearer(tokens.all),
      'if-none-match': '{etag:project-json}',
    }),
    get('project-missing', '/v3/projects/99', 404, { ...rw, ...xmlDe }),
    get('project-405', '/v3/projects/7', 405, rw, 'DELETE'),
    get('project-options', '/v3/projects/7', 204, rw, 'OPTIONS'),
    get('project-v2', '/v2/projects/7', 200, { ...rw, 'accept-language': 'de' }),
    post('project-create', '/v3/projects', 201, { name: 'Dam' }, { accept: 'application/xml' }),
    post('project-415', '/v3/projects', 415, '<name>Dam</name>', { 'content-type': 'application/xml' }),
    post('project-malformed', '/v3/projects', 400, '{"name":'),
    post('project-invalid', '/v3/projects', 400, { name: 42 }, { 'accept-language': 'de' }),
    get('languages', '/v3/languages', 200, {
      ...rw,
      accept: 'text/html, application/json;q=0.9',
      'accept-language': 'fr;q=0.9, de;q=0.8',
    }),
    // idempotency, memory store
    order('order-no-key', 400, undefined, { qty: 1 }),
    order('order-1', 201, 'k1', { qty: 1, sku: 'A-1' }),
    order('order-1-replay', 201, 'k1', { sku: 'A-1', qty: 1 }),
    order('order-1-reused', 422, 'k1', { qty: 2, sku: 'A-1' }),
    order('order-other-caller', 201, 'k1', { qty: 1, sku: 'A-1' }, bearer(tokens.all)),
    order('order-key-too-long', 400, 'k'.repeat(300), { qty: 1 }),
    { ...slow('slow-1', 201), hold: true },
    get('gate-entered', '/v3/gate/entered', 200),
    slow('slow-1-in-flight', 409),
    { ...post('gate-open', '/v3/gate/open', 200, {}), release: true },
    slow('slow-1-replay', 201),
    // odd inputs
    get('trailing-slash', '/v3/tasks/', 404),
    get('upper-case-version', '/V3/whoami', 404, {}),
    get('encoded-path', '/v3/projects/%E2%82%AC', 404),
    get('long-query', `/v3/tasks?q=${'x'.repeat(300)}`, 400),
    get('dot-segments', '/v3/projects/../tasks', 200),
  ];
}

const CURSOR = /"next_cursor":"([^"]+)"/;

function resolve(text: string, earlier: ReadonlyMap<string, Answer>): string {
  return text.replace(/\{(cursor|etag):([a-z0-9-]+)\}/g, (_, kind: string, id: string) => {
    const answer = earlier.get(id);
    if (!answer) throw new Error(`step refers to ${id}, which has no answer`);
    if (kind === 'etag') return answer.headers.find(([name]) => name === 'etag')?.[1] ?? 'no-etag';
    return encodeURIComponent(CURSOR.exec(answer.body.toString('utf8'))?.[1] ?? 'no-cursor');
  });
}

/** Reused keep-alive connections the server had closed, per port (the request went again on a new one). */
export const resets = new Map<number, number>();

/**
 * One request. A server may close an idle keep-alive connection without saying so (workerd closes it
 * after answering a request whose body the Worker never read, such as a 403 before the handler), and
 * the next request on it is reset before the server saw it: that one is sent again on a new connection,
 * as Node's documentation advises for `reusedSocket`. Only such resets are retried, and they are counted.
 */
async function exchange(
  port: number,
  agent: Agent,
  step: Step,
  earlier: ReadonlyMap<string, Answer>,
): Promise<Answer> {
  try {
    return await exchangeOnce(port, agent, step, earlier);
  } catch (error) {
    if (!(error instanceof ReusedSocketReset)) throw error;
    resets.set(port, (resets.get(port) ?? 0) + 1);
    return exchangeOnce(port, agent, step, earlier);
  }
}

class ReusedSocketReset extends Error {}

function exchangeOnce(
  port: number,
  agent: Agent,
  step: Step,
  earlier: ReadonlyMap<string, Answer>,
): Promise<Answer> {
  const headers: Record<string, string | string[]> = { host: 'api.test', 'x-request-id': `req-${step.id}` };
  for (const [name, value] of Object.entries(step.headers ?? {})) {
    headers[name] = typeof value === 'string' ? resolve(value, earlier) : [...value];
  }
  if (step.body !== undefined) headers['content-length'] = String(Buffer.byteLength(step.body));
  return new Promise((done, fail) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, method: step.method, path: resolve(step.path, earlier), headers, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', fail);
        res.on('end', () => {
          const lines: [string, string][] = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2) {
            lines.push([res.rawHeaders[i]!.toLowerCase(), res.rawHeaders[i + 1]!]);
          }
          lines.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
          done({ status: res.statusCode ?? 0, headers: lines, body: Buffer.concat(chunks) });
        });
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error(`no answer to ${step.id} within 30 s`)));
    req.on('error', (error: NodeJS.ErrnoException) =>
      fail(req.reusedSocket && error.code === 'ECONNRESET' ? new ReusedSocketReset(error.message) : error),
    );
    req.end(step.body);
  });
}

/** Sends the table in order (held steps excepted) over one keep-alive agent; answers by step id. */
export async function sendTable(port: number, steps: readonly Step[]): Promise<Map<string, Answer>> {
  const agent = new Agent({ keepAlive: true });
  const answers = new Map<string, Answer>();
  const held: [string, Promise<Answer>][] = [];
  try {
    for (const step of steps) {
      const pending = exchange(port, agent, step, answers).catch((error: unknown) => {
        throw new Error(
          `${step.method} ${step.path} (${step.id}): ${error instanceof Error ? error.message : error}`,
        );
      });
      if (step.hold) {
        // Awaited after the release step; until then a failure must not be an unhandled rejection.
        pending.catch(() => {});
        held.push([step.id, pending]);
        continue;
      }
      answers.set(step.id, await pending);
      if (step.release) {
        for (const [id, answer] of held.splice(0)) answers.set(id, await answer);
      }
    }
    if (held.length) throw new Error(`held steps never released: ${held.map(([id]) => id).join(', ')}`);
  } finally {
    agent.destroy();
  }
  return answers;
}

export interface Server {
  readonly port: number;
  /** SIGTERM, SIGKILL after 5 s; resolves when the process is gone. */
  stop(): Promise<void>;
  /** What the process printed (for failure messages). */
  output(): string;
}

/**
 * Starts a server process and resolves once it printed `listening <port>`. The process is killed
 * after `lifetimeMs` whatever happens, so a hung runtime cannot outlive the run.
 */
export async function startServer(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; lifetimeMs: number; startMs?: number },
): Promise<Server> {
  const child: ChildProcess = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const append = (chunk: Buffer) => {
    out = (out + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const lifetime = setTimeout(() => child.kill('SIGKILL'), options.lifetimeMs);
  lifetime.unref();
  const gone = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await gone;
      clearTimeout(kill);
    }
    clearTimeout(lifetime);
  };
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${command} did not start within ${options.startMs ?? 60_000} ms:\n${out}`)),
        options.startMs ?? 60_000,
      );
      child.stdout?.on('data', () => {
        const match = /listening (\d+)/.exec(out);
        if (match) {
          clearTimeout(timer);
          resolve(Number(match[1]));
        }
      });
      child.once('error', (error) => reject(new Error(`${command}: ${error.message}`)));
      child.once('exit', (code, signal) =>
        reject(new Error(`${command} exited (${code ?? signal}) before listening:\n${out}`)),
      );
    });
    return { port, stop, output: () => out };
  } catch (error) {
    await stop();
    throw error;
  }
}
