import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, Socket } from 'node:net';
import { until } from './app.js';

/** A free loopback port. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('error', () => done(false));
    socket.once('data', (d) => done(d.toString().startsWith('+PONG')));
    socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
  });
}

/** A private, non-persistent redis-server on `port` (never the shared one on 6379). */
export class OwnRedis {
  private child: ChildProcess | undefined;
  constructor(
    readonly port: number,
    private readonly extraArgs: readonly string[] = [],
  ) {}

  async start(): Promise<void> {
    this.child = spawn(
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        ...this.extraArgs,
      ],
      { stdio: 'ignore' },
    );
    await until(() => answers(this.port));
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    this.child = undefined;
  }
}
