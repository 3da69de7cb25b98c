import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';

const run = promisify(execFile);

/** One master of a {@link LocalRedisCluster}. */
export interface ClusterNode {
  readonly port: number;
  /** SIGKILL: the master is gone at once, as in a crash (its append-only file keeps what it had acknowledged). */
  kill(): Promise<void>;
  /** Starts it again on the same port with the same node id and data; it rejoins the cluster. */
  start(): Promise<void>;
}

/** A Redis Cluster of private masters on loopback, for tests. */
export interface LocalRedisCluster {
  readonly nodes: readonly ClusterNode[];
  /** `127.0.0.1:p1,127.0.0.1:p2,...`: the value of `REDIS_CLUSTER_NODES`. */
  readonly seeds: string;
  /** The port of the master that serves `key` (asks the cluster: `CLUSTER KEYSLOT`, `CLUSTER SLOTS`). */
  portOf(key: string): Promise<number>;
  /** Stops every master and removes their files. */
  destroy(): Promise<void>;
}

export interface RedisClusterOptions {
  /** Ports are picked at random from this range (inclusive); the cluster bus uses port + 10000. */
  readonly portRange: readonly [first: number, last: number];
  /** Number of masters (no replicas). Default 3. */
  readonly masters?: number;
  /** Keep an append-only file (`appendfsync everysec`), so a killed master comes back with its data. Default true. */
  readonly persistent?: boolean;
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('data', (d) => done(d.toString().startsWith('+PONG')));
    socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
  });
}

async function until(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function pickPorts(count: number, [first, last]: readonly [number, number]): Promise<number[]> {
  const ports: number[] = [];
  for (let tries = 0; ports.length < count; tries++) {
    if (tries > 500) throw new Error(`no ${count} free ports in ${first}-${last}`);
    const port = first + Math.floor(Math.random() * (last - first + 1));
    if (ports.includes(port) || !(await bindable(port)) || !(await bindable(port + 10_000))) continue;
    ports.push(port);
  }
  return ports;
}

async function cli(port: number, ...args: string[]): Promise<string> {
  return (await run('redis-cli', ['-p', String(port), ...args], { timeout: 10_000 })).stdout;
}

/**
 * Starts `masters` redis-server processes with `--cluster-enabled yes` on random loopback ports of
 * `portRange`, joins them with `redis-cli --cluster create --cluster-yes`, and waits until every
 * node reports `cluster_state:ok`. With `cluster-require-full-coverage no`, a dead master fails only
 * its own slots. The caller must `destroy()` it.
 *
 * @example
 * ```ts
 * const cluster = await startRedisCluster({ portRange: [17600, 17699] });
 * const client = new Cluster(cluster.seeds.split(',').map((s) => ({ host: '127.0.0.1', port: Number(s.split(':')[1]) })));
 * await cluster.destroy();
 * ```
 */
export async function startRedisCluster(options: RedisClusterOptions): Promise<LocalRedisCluster> {
  const count = options.masters ?? 3;
  const persistent = options.persistent ?? true;
  const dir = mkdtempSync(join(tmpdir(), 'redis-cluster-'));
  const ports = await pickPorts(count, options.portRange);
  const children = new Map<number, ChildProcess>();

  const startNode = async (port: number) => {
    const nodeDir = join(dir, String(port));
    mkdirSync(nodeDir, { recursive: true });
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        nodeDir,
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        'nodes.conf',
        '--cluster-node-timeout',
        '2000',
        '--cluster-require-full-coverage',
        'no',
        '--save',
        '',
        '--appendonly',
        persistent ? 'yes' : 'no',
        '--appendfsync',
        'everysec',
      ],
      { stdio: 'ignore' },
    );
    children.set(port, child);
    await until(
      async () => {
        if (child.exitCode !== null) throw new Error(`redis-server on ${port} exited (${child.exitCode})`);
        return answers(port);
      },
      10_000,
      `redis-server on ${port}`,
    );
  };

  const killNode = async (port: number) => {
    const child = children.get(port);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  };

  const clusterOk = async (port: number) => {
    try {
      return (await cli(port, 'cluster', 'info')).includes('cluster_state:ok');
    } catch {
      return false;
    }
  };

  try {
    await Promise.all(ports.map(startNode));
    await run('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-yes'], {
      timeout: 30_000,
    });
    for (const port of ports) await until(() => clusterOk(port), 20_000, `cluster_state:ok on ${port}`);
  } catch (error) {
    for (const port of ports) await killNode(port);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }

  return {
    nodes: ports.map((port) => ({
      port,
      kill: () => killNode(port),
      async start() {
        await startNode(port);
        await until(() => clusterOk(port), 20_000, `cluster_state:ok on ${port}`);
      },
    })),
    seeds: ports.map((p) => `127.0.0.1:${p}`).join(','),
    async portOf(key) {
      const alive = ports.find((p) => children.get(p)?.exitCode === null) ?? ports[0]!;
      const client = new Redis(alive, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 1 });
      try {
        await client.connect();
        const slot = Number(await client.call('CLUSTER', 'KEYSLOT', key));
        const ranges = (await client.call('CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
        const range = ranges.find(([first, last]) => slot >= first && slot <= last);
        if (!range) throw new Error(`no master serves slot ${slot}`);
        return Number(range[2][1]);
      } finally {
        client.disconnect();
      }
    },
    async destroy() {
      for (const port of ports) await killNode(port);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
