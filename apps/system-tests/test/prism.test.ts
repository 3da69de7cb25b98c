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
      if (/^application\/(problem\+)?xml$/.test(key) && typeof child === 'object' && child !== null) {
        delete (child as Json)['schema'];
      } else visit(child);
    }
  };
  visit(copy['paths']);
  visit((copy['components'] as Json)['responses']);
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

describe.skipIf(!ready)('Prism validating proxy: zero violations', () => {
  let service: Instance;
  let credentials: Credentials;
  let strict: Proxy;
  let lenient: Proxy;
  let document: Json;
  let reader: XmlReader;
  let dir: string;

  beforeAll(async () => {
    const started = await startInstance({ DATABASE_FILE: ':memory:' }, { expectCredentials: true });
    service = started.instance;
    credentials = started.credentials!;
    document = (await (await fetch(`${service.url}/openapi.json`)).json()) as Json;
    reader = new XmlReader((document['components'] as Json)['schemas'] as Record<string, Json>);
    dir = mkdtempSync(join(tmpdir(), 'prism-'));
    const spec = join(dir, 'openapi.json');
    writeFileSync(spec, JSON.stringify(withoutXmlBodySchemas(document)));
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
  const cases: [string, string, number, string][] = [
    ['the index', '/', 200, 'ApiIndex'],
    ['a v2 page', '/v2/projects?limit=2&sort=name', 200, 'ProjectV2Page'],
    ['a v1 page with field selection', '/v1/projects?fields=name,budget&sort=name', 200, 'ProjectV1Page'],
    ['tasks', '/v2/tasks?limit=3&sort=-priority,title', 200, 'TaskPage'],
    ['a project member', '{project}', 200, 'ProjectV2'],
    ['a v1 project member', '{v1project}', 200, 'ProjectV1'],
    ['a task member', '{task}', 200, 'Task'],
    ['comments of a task', '{comments}', 200, 'CommentPage'],
    ['a missing member', '/v2/projects/00000000-0000-4000-8000-000000000000', 404, 'Problem'],
    ['an invalid query', '/v2/projects?sort=password&q=ab', 400, 'Problem'],
  ];

  it.each(cases)('%s: JSON and XML, same content, no violations', async (_name, pathIn, status, schema) => {
    const headers = { 'x-api-key': credentials.apiKey };
    const first = (await (await fetch(`${service.url}/v2/tasks?limit=1&sort=title`, { headers })).json()) as {
      data: { id: string; project_id: string }[];
    };
    const task = first.data[0]!;
    const path = pathIn
      .replace('{project}', `/v2/projects/${task.project_id}`)
      .replace('{v1project}', `/v1/projects/${task.project_id}`)
      .replace('{task}', `/v2/tasks/${task.id}`)
      .replace('{comments}', `/v2/tasks/${task.id}/comments`);
    const proxy = status < 400 ? strict : lenient;
    const answers: Record<string, { type: string; body: string; violations: string | null; status: number }> =
      {};
    for (const accept of ['application/json', 'application/xml']) {
      for (const language of ['en', 'de']) {
        const res = await fetch(`${proxy.url}${path}`, {
          headers: { ...headers, accept, 'accept-language': language },
        });
        answers[`${accept} ${language}`] = {
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
    const json = JSON.parse(answers['application/json en']!.body) as Json;
    const xmlAnswer = answers['application/xml en']!;
    expect(xmlAnswer.type).toBe(
      status < 400 ? 'application/xml; charset=utf-8' : 'application/problem+xml; charset=utf-8',
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
  });

  it('documented negotiation: q-values, 406, German, the docs, metrics and error pages', async () => {
    const headers = { 'x-api-key': credentials.apiKey };
    const calls: [Proxy, string, Record<string, string>, number, string][] = [
      [
        strict,
        '/v2/projects?limit=1',
        { accept: 'application/json;q=0.5, application/xml' },
        200,
        'application/xml',
      ],
      [
        strict,
        '/v2/projects?limit=1',
        { accept: 'application/xml;q=0.5, application/json' },
        200,
        'application/json',
      ],
      [strict, '/v2/projects?limit=1', { accept: '*/*' }, 200, 'application/json'],
      [lenient, '/v2/projects?limit=1', { accept: 'text/csv' }, 406, 'application/problem+json'],
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
});
