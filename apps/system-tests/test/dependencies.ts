/**
 * Dependencies that stall for real, for the stall and crash tests: a redis-server of the test's
 * own that can be frozen (SIGSTOP) and thawed, a TCP proxy that can stop forwarding (it keeps
 * accepting connections, and holds every byte, as a network partition does), and a PostgreSQL
 * session holding a table lock. Ports come from 17200-17299, this suite's range.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { portOpen, sleep } from './harness.js';

const RANGE = { first: 17200, last: 17299 };

/** The first port of the range nothing listens on (tried by binding it). */
async function portInRange(): Promise<number> {
  for (let port = RANGE.first; port <= RANGE.last; port++) {
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error(`no free port in ${RANGE.first}-${RANGE.last}`);
}

export interface FreezableRedis {
  readonly port: number;
  readonly url: string;
  /** SIGSTOP: the server keeps its connections open and answers nothing. */
  freeze(): void;
  /** SIGCONT: it answers again, queued commands first. */
  thaw(): void;
  destroy(): Promise<void>;
}

export async function startFreezableRedis(): Promise<FreezableRedis> {
  const port = await portInRange();
  const dir = mkdtempSync(join(tmpdir(), 'st-stall-redis-'));
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: 'ignore' },
  );
  for (let i = 0; i < 100 && !(await portOpen(port)); i++) await sleep(50);
  if (!(await portOpen(port))) throw new Error(`redis-server did not start on ${port}`);
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    freeze: () => child.kill('SIGSTOP'),
    thaw: () => child.kill('SIGCONT'),
    async destroy() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGCONT');
        child.kill('SIGKILL');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface StallingProxy {
  readonly port: number;
  /** Stops forwarding: bytes in either direction are held, new connections accepted and held. */
  stall(): void;
  /** Forwards again, held bytes first: what a healed partition looks like to both ends. */
  resume(): void;
  close(): Promise<void>;
}

/** A TCP proxy on loopback in front of `targetPort`. */
export async function startStallingProxy(targetPort: number): Promise<StallingProxy> {
  const port = await portInRange();
  let stalled = false;
  const pairs = new Set<{ client: Socket; upstream: Socket | undefined; link(): void }>();
  const server: Server = createServer((client) => {
    const pair = {
      client,
      upstream: undefined as Socket | undefined,
      link() {
        if (pair.upstream) return;
        const upstream = tcpConnect(targetPort, '127.0.0.1');
        pair.upstream = upstream;
        client.pipe(upstream);
        upstream.pipe(client);
        const end = () => {
          client.destroy();
          upstream.destroy();
          pairs.delete(pair);
        };
        upstream.on('error', end).on('close', end);
        if (stalled) upstream.pause();
      },
    };
    pairs.add(pair);
    client
      .on('error', () => {})
      .on('close', () => {
        pair.upstream?.destroy();
        pairs.delete(pair);
      });
    // Paused sockets keep their bytes (in Node's and the kernel's buffers) instead of losing them.
    if (stalled) client.pause();
    else pair.link();
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  return {
    port,
    stall() {
      stalled = true;
      for (const pair of pairs) {
        pair.client.unpipe();
        pair.upstream?.unpipe();
        pair.client.pause();
        pair.upstream?.pause();
      }
    },
    resume() {
      stalled = false;
      for (const pair of pairs) {
        if (pair.upstream) {
          pair.client.pipe(pair.upstream);
          pair.upstream.pipe(pair.client);
          pair.upstream.resume();
        } else pair.link();
        pair.client.resume();
      }
    },
    async close() {
      for (const pair of pairs) {
        pair.client.destroy();
        pair.upstream?.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A PostgreSQL session of the test's own that holds `LOCK TABLE <table> IN SHARE MODE` until released. */
export async function holdTableLock(url: string, table: string): Promise<{ release(): Promise<void> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('BEGIN');
  // SHARE blocks INSERT, UPDATE and DELETE on the table; reads go on.
  await client.query(`LOCK TABLE ${table} IN SHARE MODE`);
  return {
    async release() {
      await client.query('COMMIT');
      await client.end();
    },
  };
}

/** A request's reply and how long it took (ms). */
export interface Timed<T> {
  readonly reply: T;
  readonly ms: number;
}

export async function timed<T>(work: () => Promise<T>): Promise<Timed<T>> {
  const started = performance.now();
  const reply = await work();
  return { reply, ms: Math.round(performance.now() - started) };
}
