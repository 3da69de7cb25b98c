import { Socket } from 'node:net';

/** `REDIS_URL`, or the machine's default Redis. */
export const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
/** `DATABASE_URL`, or the machine's default PostgreSQL database `test`. */
export const DATABASE_URL = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

const inCi = () => process.env['CI'] === 'true';

function ping(host: string, port: number, payload: string | undefined, expect: (data: string) => boolean) {
  return new Promise<boolean>((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(2000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('data', (data) => done(expect(data.toString('latin1'))));
    socket.connect(port, host, () => {
      if (payload === undefined) done(true);
      else socket.write(payload);
    });
  });
}

async function requireService(name: string, url: string, check: () => Promise<boolean>): Promise<boolean> {
  const up = await check();
  if (!up && inCi()) {
    throw new Error(
      `${name} is not reachable at ${url}; CI=true, so tests that need it fail instead of skipping`,
    );
  }
  return up;
}

/**
 * True when Redis at `REDIS_URL` answers PING. When `CI=true` and it does not, throws, so the
 * tests that need it fail rather than skip. Use it at the top of a test file:
 *
 * @example
 * ```ts
 * const redisUp = await redisAvailable();
 * describe.skipIf(!redisUp)('redis store', () => { ... });
 * ```
 */
export function redisAvailable(url = REDIS_URL): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return requireService('Redis', url, () =>
    ping(
      hostname || '127.0.0.1',
      Number(port || 6379),
      'PING\r\n',
      (d) => d.startsWith('+PONG') || d.startsWith('-NOAUTH'),
    ),
  );
}

/**
 * True when PostgreSQL at `DATABASE_URL` answers a query. When `CI=true` and it does not, throws.
 *
 * @example
 * ```ts
 * const pgUp = await postgresAvailable();
 * describe.skipIf(!pgUp)('postgres', () => { ... });
 * ```
 */
export function postgresAvailable(url = DATABASE_URL): Promise<boolean> {
  return requireService('PostgreSQL', url, async () => {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => {});
    }
  });
}

let counter = 0;
/**
 * A unique prefix for keys, tables or schemas, so parallel test files never collide.
 *
 * @example
 * ```ts
 * const prefix = uniquePrefix('idem'); // 'idem_k3j2h1_0'
 * ```
 */
export function uniquePrefix(label: string): string {
  counter += 1;
  return `${label}_${process.pid.toString(36)}${Date.now().toString(36)}_${counter}`;
}
