/**
 * The service's traffic checked against its own `/openapi.json` by Stoplight Prism's validating
 * proxy (`prism proxy --errors`: a response that breaks the document is replaced by an error):
 * the README Tour and the negotiation cases, JSON and XML, with zero violations.
 *
 * Two proxies: a strict one (requests and responses validated) for every request the Tour means to
 * succeed, and one with request validation off for the requests the Tour sends wrong on purpose
 * (401, 400, 406, 415, ...): Prism would answer those itself instead of forwarding them, and what
 * matters there is that the service's error response matches the document.
 *
 * Under each VERSIONING_STRATEGY (path, query, header, media-type) the service runs with the
 * document of that strategy, and the JSON/XML cases and the negotiation cases ask for their version
 * the strategy's way. The Tour is written for the default, the path strategy, and runs under it.
 *
 * XML bodies: Prism validates a non-JSON body as raw text against the schema, so every XML body
 * fails "must be object" (stoplightio/prism#2050, open). Prism gets the document with the schemas of
 * the XML media types left out (it still checks their status, headers and media type); this test
 * reads each XML body back through the document's `xml` objects and requires it to equal the JSON
 * representation of the same request, which Prism validated.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Credentials, freePort, type Instance, SERVICE_MAIN, sleep, startInstance } from './harness.js';
import { STRATEGIES, versioned } from './strategy.js';
import { XmlReader } from './xml-read.js';

const here = dirname(fileURLToPath(import.meta.url));
/** The prism CLI script of the installed @stoplight/prism-cli (run with this Node). */
const PRISM = (() => {
  try {
    const manifest = createRequire(import.meta.url).resolve('@stoplight/prism-cli/package.json');
    const bin = (JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> }).bin;
    return join(dirname(manifest), bin['prism'] ?? 'dist/index.js');
  } catch {
    return resolve(here, '../node_modules/@stoplight/prism-cli/missing');
  }
})();
const README = resolve(here, '../../reference-service/README.md');

function prismReady(): boolean {
  const missing = [SERVICE_MAIN, PRISM].filter((file) => !existsSync(file));
  if (missing.length > 0 && process.env['CI'] === 'true') {
    throw new Error(`The Prism test needs: ${missing.join(', ')}`);
  }
  return missing.length === 0;
}

type Json = Record<string, unknown>;

/** The document with the schemas of XML media types removed (see the file comment). */
function withoutXmlBodySchemas(document: Json): Json {
  const copy = structuredClone(document);
  const visit = (node: unknown) => {
    if (typeof node !== 'object' || node === null) return;
    for (const [key, child] of Object.entries(node as Json)) {
      if (
        /^application\/((problem|vnd\.[a-z0-9.-]+)\+)?xml$/.test(key) &&
        typeof child === 'object' &&
        child !== null
      ) {
        delete (child as Json)['schema'];
      } else visit(child);
    }
  };
  visit(copy['paths']);
  visit((copy['components'] as Json)['responses']);
  return copy;
}

/**
 * Prism picks a response's content entry by type and subtype only, with the subtype read after the
 * `+` (`application/vnd.plumbline.v1+json` counts as `application/json`), so it checks every JSON
 * body against the first JSON entry. The media-type document gives each version's vendor type its
 * own schema; Prism gets the first JSON entry's schema widened to `anyOf` the versions' schemas.
 */
function withVendorSchemasOnFirstJson(document: Json): Json {
  const copy = structuredClone(document);
  const visit = (node: unknown) => {
    if (typeof node !== 'object' || node === null) return;
    const entries = Object.entries(node as Json);
    const json = entries.filter(([key]) => /^application\/(vnd\.[a-z0-9.-]+\+)?json$/.test(key));
    if (json.length > 1) {
      const schemas = [...new Set(json.map(([, media]) => JSON.stringify((media as Json)['schema'])))];
      (json[0]![1] as Json)['schema'] = { anyOf: schemas.map((text) => JSON.parse(text) as unknown) };
      return;
    }
    for (const [, child] of entries) visit(child);
  };
  visit(copy['paths']);
  return copy;
}

interface Proxy {
  readonly url: string;
  readonly child: ChildProcess;
  readonly output: () => string;
}

async function startPrism(spec: string, upstream: string, validateRequests: boolean): Promise<Proxy> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      PRISM,
      'proxy',
      spec,
      upstream,
      '--errors',
      `--validate-request=${validateRequests}`,
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--verboseLevel',
      'warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`prism exited:\n${text}`);
    const up = await fetch(`${url}/health`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (up) return { url, child, output: () => text };
    await sleep(100);
  }
  child.kill('SIGKILL');
  throw new Error(`prism did not start:\n${text}`);
}

const ready = prismReady();

describe.skipIf(!ready).each(STRATEGIES)(
  'Prism validating proxy, VERSIONING_STRATEGY=%s: zero violations',
  (strategy) => {
    let service: Instance;
    let credentials: Credentials;
    let strict: Proxy;
    let lenient: Proxy;
    let document: Json;
    let reader: XmlReader;
    let dir: string;

    beforeAll(async () => {
      const started = await startInstance(
        { DATABASE_FILE: ':memory:', VERSIONING_STRATEGY: strategy },
        { expectCredentials: true },
      );
      service = started.instance;
      credentials = started.credentials!;
      document = (await (await fetch(`${service.url}/openapi.json`)).json()) as Json;
      reader = new XmlReader((document['components'] as Json)['schemas'] as Record<string, Json>);
      dir = mkdtempSync(join(tmpdir(), 'prism-'));
      const spec = join(dir, 'openapi.json');
      writeFileSync(spec, JSON.stringify(withVendorSchemasOnFirstJson(withoutXmlBodySchemas(document))));
      [strict, lenient] = await Promise.all([
        startPrism(spec, service.url, true),
        startPrism(spec, service.url, false),
      ]);
    }, 180_000);

    afterAll(async () => {
      for (const proxy of [strict, lenient]) proxy?.child.kill('SIGTERM');
      await service?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    // The Tour is written in the path strategy's URLs.
    if (strategy === 'path')
      it('the README Tour answers as documented through the proxies', async () => {
        const readme = readFileSync(README, 'utf8');
        const start = readme.indexOf('## Tour');
        const tour = readme.slice(start, readme.indexOf('\n## ', start + 1));
        const blocks = [...tour.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
        expect(blocks.length).toBeGreaterThanOrEqual(10);
        for (const block of blocks) {
          // Each annotated call goes to the proxy its expected status calls for; setup lines to the strict one.
          const script = block
            .split('\n')
            .map((line) => {
              const expected = Number(/# → (\d{3})/.exec(line)?.[1] ?? 200);
              return line.replaceAll('http://127.0.0.1:3000', expected < 400 ? strict.url : lenient.url);
            })
            .join('\n');
          const expected = [...block.matchAll(/# → (\d{3})/g)].map((m) => Number(m[1]));
          const { stdout } = await promisify(execFile)('bash', ['-c', `set -euo pipefail\n${script}`], {
            env: {
              ...process.env,
              API_KEY: credentials.apiKey,
              RO_KEY: credentials.readOnlyApiKey,
              CLIENT_SECRET: credentials.clientSecret,
            },
            encoding: 'utf8',
            timeout: 60_000,
          });
          const statuses = [...stdout.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
          const violations = [...stdout.matchAll(/^sl-violations: (.*)$/gim)].map((m) => m[1]);
          expect({ statuses, violations }, block).toEqual({ statuses: expected, violations: [] });
        }
      });

    // GETs only: each is sent twice (JSON and XML), and the two answers must say the same thing.
    // [name, version, path, status, schema]; `{project}` and friends are filled from the first task.
    const cases: [string, string | undefined, string, number, string][] = [
      ['the index', undefined, '/', 200, 'ApiIndex'],
      ['a v2 page', '2', '/projects?limit=2&sort=name', 200, 'ProjectV2Page'],
      ['a v1 page with field selection', '1', '/projects?fields=name,budget&sort=name', 200, 'ProjectV1Page'],
      ['tasks', '2', '/tasks?limit=3&sort=-priority,title', 200, 'TaskPage'],
      ['a project member', '2', '{project}', 200, 'ProjectV2'],
      ['a v1 project member', '1', '{project}', 200, 'ProjectV1'],
      ['a task member', '2', '{task}', 200, 'Task'],
      ['comments of a task', '2', '{comments}', 200, 'CommentPage'],
      ['a missing member', '2', '/projects/00000000-0000-4000-8000-000000000000', 404, 'Problem'],
      ['an invalid query', '2', '/projects?sort=password&q=ab', 400, 'Problem'],
    ];

    it.each(cases)(
      '%s: JSON and XML, same content, no violations',
      async (_name, version, pathIn, status, schema) => {
        const headers = { 'x-api-key': credentials.apiKey };
        const tasks = versioned(strategy, '2', '/tasks?limit=1&sort=title');
        const first = (await (
          await fetch(`${service.url}${tasks.path}`, {
            headers: { ...headers, ...tasks.headers, accept: tasks.accept },
          })
        ).json()) as {
          data: { id: string; project_id: string }[];
        };
        const task = first.data[0]!;
        const path = pathIn
          .replace('{project}', `/projects/${task.project_id}`)
          .replace('{task}', `/tasks/${task.id}`)
          .replace('{comments}', `/tasks/${task.id}/comments`);
        const proxy = status < 400 ? strict : lenient;
        const answers: Record<
          string,
          { type: string; body: string; violations: string | null; status: number }
        > = {};
        for (const type of ['json', 'xml'] as const) {
          const request = versioned(strategy, version, path, type);
          for (const language of ['en', 'de']) {
            const res = await fetch(`${proxy.url}${request.path}`, {
              headers: {
                ...headers,
                ...request.headers,
                accept: request.accept,
                'accept-language': language,
              },
            });
            answers[`${type} ${language}`] = {
              status: res.status,
              type: res.headers.get('content-type') ?? '',
              body: await res.text(),
              violations: res.headers.get('sl-violations'),
            };
          }
        }
        for (const [key, answer] of Object.entries(answers)) {
          expect({ key, status: answer.status, violations: answer.violations }).toEqual({
            key,
            status,
            violations: null,
          });
        }
        const json = JSON.parse(answers['json en']!.body) as Json;
        const xmlAnswer = answers['xml en']!;
        expect(xmlAnswer.type).toBe(
          status >= 400
            ? 'application/problem+xml; charset=utf-8'
            : `${versioned(strategy, version, path, 'xml').accept}; charset=utf-8`,
        );
        const { root, value } = reader.read(xmlAnswer.body, schema);
        const xmlName = ((document['components'] as Json)['schemas'] as Record<string, Json>)[schema]?.[
          'xml'
        ] as {
          name: string;
        };
        expect(root).toBe(xmlName.name);
        const comparable = (v: Json) => {
          const { request_id: _ignored, ...rest } = v;
          return rest;
        };
        expect(comparable(value)).toEqual(comparable(json));
      },
    );

    it('documented negotiation: q-values, 406, German, the docs, metrics and error pages', async () => {
      const page = versioned(strategy, '2', '/projects?limit=1');
      const headers = { 'x-api-key': credentials.apiKey, ...page.headers };
      // What `*/*` gets: under the media-type strategy, the version's own type.
      const anyType = strategy === 'media-type' ? 'application/vnd.plumbline.v2+json' : 'application/json';
      const calls: [Proxy, string, Record<string, string>, number, string][] = [
        [strict, page.path, { accept: 'application/json;q=0.5, application/xml' }, 200, 'application/xml'],
        [strict, page.path, { accept: 'application/xml;q=0.5, application/json' }, 200, 'application/json'],
        [strict, page.path, { accept: '*/*' }, 200, anyType],
        [lenient, page.path, { accept: 'text/csv' }, 406, 'application/problem+json'],
        [strict, '/', { accept: 'text/html' }, 200, 'text/html'],
        [strict, '/docs', {}, 200, 'text/html'],
        [strict, '/metrics', {}, 200, 'text/plain'],
        [strict, '/errors/not_found', { 'accept-language': 'de' }, 200, 'application/json'],
        [strict, '/errors/not_found', { accept: 'text/html' }, 200, 'text/html'],
        [strict, '/health', {}, 200, 'application/json'],
      ];
      const results = [];
      for (const [proxy, path, extra, ,] of calls) {
        const res = await fetch(`${proxy.url}${path}`, { headers: { ...headers, ...extra } });
        await res.arrayBuffer();
        results.push({
          path,
          status: res.status,
          type: (res.headers.get('content-type') ?? '').split(';')[0],
          violations: res.headers.get('sl-violations'),
        });
      }
      expect(results).toEqual(
        calls.map(([, path, , status, type]) => ({ path, status, type, violations: null })),
      );
    });
  },
);
