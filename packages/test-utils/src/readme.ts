import { once } from 'node:events';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { RequestListener, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { listen } from './http.js';

/**
 * The first ```ts block after a heading of a README (the heading line as written, e.g.
 * `### Fastify`). Throws when there is none, so a renamed section fails the test loudly.
 *
 * @example
 * ```ts
 * const code = readmeBlock(new URL('../README.md', import.meta.url), '### Fastify');
 * ```
 */
export function readmeBlock(readme: URL, heading: string): string {
  const text = readFileSync(readme, 'utf8');
  const at = text.split('\n').findIndex((line) => line.trim() === heading);
  if (at === -1) throw new Error(`${fileURLToPath(readme)} has no heading "${heading}"`);
  const rest = text
    .split('\n')
    .slice(at + 1)
    .join('\n');
  const match = /```ts\n([\s\S]*?)```/.exec(rest);
  if (!match) throw new Error(`no \`\`\`ts block after "${heading}"`);
  return match[1]!;
}

/**
 * Runs a README example as a module: writes `code` (with each `[from, to]` of `replace` applied,
 * typically the port 3000 made ephemeral on loopback, and `export { names }` appended) next to the
 * tests in `dir`, so its imports resolve as the package's own, imports it, and returns the exported
 * values. The file is removed again.
 *
 * @example
 * ```ts
 * const { app } = await runReadmeExample<{ app: FastifyInstance }>(new URL('.', import.meta.url), 'fastify', code, ['app'],
 *   [['port: 3000', "port: 0, host: '127.0.0.1'"]]);
 * ```
 */
export async function runReadmeExample<T>(
  dir: URL,
  name: string,
  code: string,
  names: readonly string[],
  replace: readonly (readonly [string, string])[] = [],
): Promise<T> {
  const file = new URL(`readme-${name}.generated.ts`, dir);
  let edited = code;
  for (const [from, to] of replace) {
    if (!edited.includes(from)) throw new Error(`the ${name} example has no "${from}"`);
    edited = edited.replaceAll(from, to);
  }
  const source = `${edited}\nexport { ${names.join(', ')} };\n`;
  writeFileSync(file, source);
  try {
    return (await import(/* @vite-ignore */ fileURLToPath(file))) as T;
  } finally {
    rmSync(file, { force: true });
  }
}

/**
 * Removes README example files a crashed run left behind.
 *
 * @example
 * ```ts
 * cleanReadmeExamples(new URL('.', import.meta.url));
 * ```
 */
export function cleanReadmeExamples(dir: URL): void {
  for (const entry of readdirSync(dir)) {
    if (entry.endsWith('.generated.ts')) rmSync(new URL(entry, dir), { force: true });
  }
}

/** What a README's Fastify example exports: the listening app. */
interface FastifyExample {
  readonly app: { close(): Promise<unknown>; readonly server: { address(): unknown } };
}

/**
 * A package README's `### Fastify` and `### Hono` examples, each run as written except that
 * `port: 3000` becomes an ephemeral loopback port, as `[framework, start]` pairs for `describe.each`.
 * With `{ express: true }`, its `### Express` example comes first: it exports `app`, which is served
 * on an ephemeral loopback port. `start()` resolves with the port; every server started closes after
 * the file's tests. Generated files from an earlier run are removed first.
 *
 * @example
 * ```ts
 * describe.each(readmeFrameworkExamples(here, readme, 'errors'))('README %s example', (_name, start) => {
 *   const port = start();
 *   it('answers', async () => expect((await send(await port, { path: '/x' })).status).toBe(200));
 * });
 * const all = readmeFrameworkExamples(here, readme, 'cors', { express: true }); // Express, Fastify, Hono
 * ```
 */
export function readmeFrameworkExamples(
  dir: URL,
  readme: URL,
  name: string,
  options: { readonly express?: boolean } = {},
): [string, () => Promise<number>][] {
  cleanReadmeExamples(dir);
  const closers: (() => Promise<unknown>)[] = [];
  afterAll(() => Promise.all(closers.map((close) => close())));
  const express = async (): Promise<number> => {
    const { app } = await runReadmeExample<{ app: RequestListener }>(
      dir,
      `${name}-express`,
      readmeBlock(readme, '### Express'),
      ['app'],
    );
    const server = await listen(app);
    closers.push(server.close);
    return server.port;
  };
  const fastify = async (): Promise<number> => {
    const { app } = await runReadmeExample<FastifyExample>(
      dir,
      `${name}-fastify`,
      readmeBlock(readme, '### Fastify'),
      ['app'],
      [['port: 3000', "port: 0, host: '127.0.0.1'"]],
    );
    closers.push(() => app.close());
    return (app.server.address() as AddressInfo).port;
  };
  const hono = async (): Promise<number> => {
    const { server } = await runReadmeExample<{ server: Server }>(
      dir,
      `${name}-hono`,
      readmeBlock(readme, '### Hono'),
      ['server'],
      [['port: 3000', "port: 0, hostname: '127.0.0.1'"]],
    );
    if (!server.listening) await once(server, 'listening');
    closers.push(() => new Promise((resolve) => server.close(resolve)));
    return (server.address() as AddressInfo).port;
  };
  return [
    ...(options.express ? [['Express', express] as [string, () => Promise<number>]] : []),
    ['Fastify', fastify],
    ['Hono', hono],
  ];
}
