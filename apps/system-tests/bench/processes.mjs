/**
 * Child processes of the load benchmarks (run.mjs, scale.mjs): `node <args>` started until a line
 * of its output matches, stopped with SIGTERM (SIGKILL after 10 s). `children` holds the ones still
 * running, for a script to kill when it is interrupted or fails.
 */
import { spawn } from 'node:child_process';

export const children = new Set();

/** Starts `node <args>` and resolves once a line matches `ready`. */
export function startProcess(args, env, ready) {
  return new Promise((resolveStart, reject) => {
    const child = spawn(process.execPath, args, {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`did not start within 30 s:\n${out}`));
    }, 30_000);
    const onData = (chunk) => {
      out += chunk.toString();
      const match = ready.exec(out);
      if (match) {
        clearTimeout(timer);
        resolveStart({ child, match, output: () => out });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      children.delete(child);
      clearTimeout(timer);
      reject(new Error(`exited with ${code}:\n${out}`));
    });
  });
}

export async function stopProcess(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/**
 * Runs a benchmark's `main`: on SIGINT or SIGTERM, or when it fails, the children still running are
 * killed before the process exits (130, or 1 with the error printed).
 */
export function runBenchmark(main) {
  const killAll = () => {
    for (const child of children) child.kill('SIGKILL');
  };
  for (const signal of ['SIGINT', 'SIGTERM'])
    process.on(signal, () => {
      killAll();
      process.exit(130);
    });
  main().catch((error) => {
    killAll();
    console.error(error);
    process.exit(1);
  });
}
