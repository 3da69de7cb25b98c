import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { compliantApp } from './__fixtures__/compliant-app.js';
import { listen, type Started } from './__fixtures__/listen.js';
import { goodOpenApi } from './__fixtures__/openapi.js';
import { DocumentError, type DocumentErrorCode, readOpenApi, SWAGGER_2_HINT } from './document.js';
import { formatHtml, formatJson, formatJunit, formatSarif } from './format.js';
import { lint, scoreFindings } from './lint.js';
import { probe } from './probe.js';
import { EXIT, runCli } from './run-cli.js';

const SWAGGER_JSON = JSON.stringify({ swagger: '2.0', info: { title: 't', version: '1' }, paths: {} });
const SWAGGER_YAML = "swagger: '2.0'\ninfo:\n  title: t\n  version: '1'\npaths: {}\n";

/** [case, file name, text, code, what the message says after "<file>: "] */
const REFUSED: readonly [string, string, string, DocumentErrorCode, string][] = [
  ['empty file', 'empty.json', '', 'empty', 'the document is empty'],
  ['whitespace only', 'blank.yaml', ' \n\t\n  ', 'empty', 'the document is empty'],
  ['{}', 'object.json', '{}', 'not-openapi', 'not an OpenAPI document (no "openapi" member)'],
  [
    'null',
    'null.json',
    'null',
    'not-an-object',
    'not an OpenAPI document (the document is null, not an object)',
  ],
  [
    '[]',
    'array.json',
    '[]',
    'not-an-object',
    'not an OpenAPI document (the document is an array, not an object)',
  ],
  [
    'invalid JSON',
    'broken.json',
    '{"openapi": "3.1.0",\n  "paths": }',
    'unparsable',
    `not valid JSON (unexpected "}")`,
  ],
  [
    'truncated JSON',
    'cut.json',
    '{"openapi": "3.1.0"',
    'unparsable',
    'not valid JSON (at line 1, column 20)',
  ],
  [
    'invalid YAML',
    'broken.yaml',
    'openapi: 3.1.0\npaths: [unclosed\n',
    'unparsable',
    'not valid YAML (Flow sequence in block collection must be sufficiently indented and end with a ], at line 3, column 1)',
  ],
  [
    'Swagger 2.0 JSON',
    'swagger.json',
    SWAGGER_JSON,
    'swagger-2',
    `a Swagger 2.0 document, not OpenAPI 3.x; ${SWAGGER_2_HINT}`,
  ],
  [
    'Swagger 2.0 YAML',
    'swagger.yaml',
    SWAGGER_YAML,
    'swagger-2',
    `a Swagger 2.0 document, not OpenAPI 3.x; ${SWAGGER_2_HINT}`,
  ],
  [
    'openapi: 2.0',
    'two.yaml',
    'openapi: 2.0\npaths: {}\n',
    'swagger-2',
    `a Swagger 2.0 document, not OpenAPI 3.x; ${SWAGGER_2_HINT}`,
  ],
  [
    'openapi: 4.0.0',
    'four.yaml',
    'openapi: 4.0.0\npaths: {}\n',
    'unsupported-version',
    'openapi "4.0.0" is not supported (OpenAPI 3.0 and 3.1 are)',
  ],
  [
    'openapi as an object',
    'odd.json',
    '{"openapi": {"version": "3.1.0"}}',
    'unsupported-version',
    'openapi {"version":"3.1.0"} is not supported (OpenAPI 3.0 and 3.1 are)',
  ],
];

const BOM = '\uFEFF';
/** A document with nothing for any rule to judge: no paths, no security scheme. */
const NO_PATHS = { openapi: '3.1.0', info: { title: 'nothing', version: '1' } };

let dir = '';
let service: Started;
let apiKey = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plumbline-document-'));
  for (const [, name, text] of REFUSED) await writeFile(join(dir, name), text);
  await writeFile(join(dir, 'bom.json'), `${BOM}${JSON.stringify(goodOpenApi())}`);
  await writeFile(join(dir, 'bom.yaml'), `${BOM}${stringify(goodOpenApi())}`);
  await writeFile(join(dir, 'no-paths.json'), JSON.stringify(NO_PATHS));
  const compliant = compliantApp();
  apiKey = compliant.apiKey;
  service = await listen(compliant.app);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await service.close();
});

async function cli(args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: {} });
  return { code, stdout, stderr };
}

describe('input that cannot be scored', () => {
  it.each(REFUSED)('library: %s → DocumentError', (_, name, text, code, message) => {
    expect(() => readOpenApi(text, name)).toThrow(new DocumentError(code, name, message));
    try {
      readOpenApi(text, name);
    } catch (error) {
      expect(error).toBeInstanceOf(DocumentError);
      expect(error).toMatchObject({ code, source: name, message: `${name}: ${message}` });
    }
  });

  it.each(REFUSED)('lint(): %s is refused before any rule runs', async (_, name, text, code) => {
    await expect(lint(text, { source: name })).rejects.toMatchObject({ name: 'DocumentError', code });
  });

  it.each(REFUSED)('probe({ openapi }): %s is refused before any request', async (_, _name, text, code) => {
    await expect(probe({ baseUrl: service.url, apiKey, openapi: text })).rejects.toMatchObject({
      name: 'DocumentError',
      code,
    });
  });

  it.each(REFUSED)(
    'CLI lint %s: exit 2 and one line naming the file',
    async (_, name, _text, _code, message) => {
      const file = join(dir, name);
      expect(await cli(['lint', file, '--min-score', '0'])).toEqual({
        code: EXIT.usage,
        stdout: '',
        stderr: `plumbline-conformance: ${file}: ${message}\n`,
      });
    },
  );

  it.each(REFUSED)(
    'CLI probe --openapi %s: exit 2 and one line naming the file',
    async (_, name, _text, _code, message) => {
      const file = join(dir, name);
      expect(await cli(['probe', service.url, '--openapi', file, '--api-key', apiKey])).toEqual({
        code: EXIT.usage,
        stdout: '',
        stderr: `plumbline-conformance: ${file}: ${message}\n`,
      });
    },
  );
});

describe('a document the probe fetches from <base-url>/openapi.json', () => {
  it.each([
    [
      'Swagger 2.0',
      SWAGGER_JSON,
      'swagger-2',
      `/openapi.json: a Swagger 2.0 document, not OpenAPI 3.x; ${SWAGGER_2_HINT}`,
    ],
    [
      'OpenAPI 4',
      '{"openapi":"4.0.0"}',
      'unsupported-version',
      '/openapi.json: openapi "4.0.0" is not supported (OpenAPI 3.0 and 3.1 are)',
    ],
    [
      'no openapi member',
      '{"info":{}}',
      'not-openapi',
      '/openapi.json: not an OpenAPI document (no "openapi" member)',
    ],
  ])('%s is refused like a file', async (_, text, code, message) => {
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(text);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      await expect(probe({ baseUrl: url })).rejects.toMatchObject({ name: 'DocumentError', code, message });
      expect(await cli(['probe', url])).toEqual({
        code: EXIT.usage,
        stdout: '',
        stderr: `plumbline-conformance: ${message}\n`,
      });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('a UTF-8 byte-order mark', () => {
  it.each(['bom.json', 'bom.yaml'])('lint %s scores like the document without it', async (name) => {
    const { code, stdout, stderr } = await cli(['lint', join(dir, name)]);
    expect({ code, stderr }).toEqual({ code: EXIT.ok, stderr: '' });
    expect(stdout.split('\n')[0]).toBe(
      `plumbline-conformance lint ${join(dir, name)}: 100% (15 passed, 0 failed, 0 skipped) OK`,
    );
  });

  it.each(['bom.json', 'bom.yaml'])('probe --openapi %s discovers from it', async (name) => {
    const { code, stdout, stderr } = await cli([
      'probe',
      service.url,
      '--openapi',
      join(dir, name),
      '--api-key',
      apiKey,
      '--rps',
      '1000',
    ]);
    expect({ code, stderr }).toEqual({ code: EXIT.ok, stderr: '' });
    expect(stdout).toContain('PASS    error     probe-default-page-bounded');
  });

  it('library: readOpenApi and lint() drop it', async () => {
    const text = `${BOM}${JSON.stringify(goodOpenApi())}`;
    expect(readOpenApi(text, 'x.json')['openapi']).toBe('3.1.0');
    expect(await lint(text, { source: 'x.json' })).toEqual([]);
  });
});

describe('a document with nothing to judge', () => {
  it('every lint rule is not applicable, never passed, and there is no score', async () => {
    const card = scoreFindings(await lint(NO_PATHS), 'no-paths.json');
    expect(card).toMatchObject({
      passed: 0,
      failed: 0,
      skipped: 0,
      notApplicable: 15,
      percent: null,
      ok: true,
    });
    expect(new Set(card.results.map((r) => r.outcome))).toEqual(new Set(['not-applicable']));
    expect(card.results.find((r) => r.id === 'plumbline-delete-204')?.evidence).toEqual([
      { note: 'not applicable: no DELETE operation' },
    ]);
  });

  it('CLI: exit 0 without --min-score (nothing failed), exit 2 with it (no score to compare)', async () => {
    const file = join(dir, 'no-paths.json');
    const plain = await cli(['lint', file]);
    expect(plain.code).toBe(EXIT.ok);
    expect(plain.stdout.split('\n')[0]).toBe(
      `plumbline-conformance lint ${file}: no score (nothing to judge) (0 passed, 0 failed, 0 skipped, 15 not applicable) OK`,
    );
    expect(plain.stdout).toContain(
      'N/A     error     plumbline-post-201-location        4.2 (6), 7.1  POST to a collection documents 201 with a Location header\n' +
        '      - not applicable: no POST to a collection\n',
    );
    expect(await cli(['lint', file, '--min-score', '90'])).toMatchObject({
      code: EXIT.usage,
      stderr: `plumbline-conformance: ${file}: no score, no rule had anything to judge; --min-score 90 cannot be met\n`,
    });
  });

  it('every format shows not applicable as its own status', async () => {
    const card = scoreFindings(await lint(NO_PATHS), 'no-paths.json');
    const json = JSON.parse(formatJson(card)) as {
      percent: unknown;
      notApplicable: number;
      results: { outcome: string }[];
    };
    expect([json.percent, json.notApplicable, json.results[7]?.outcome]).toEqual([
      null,
      15,
      'not-applicable',
    ]);
    expect(formatJunit(card)).toContain(
      '<testcase classname="plumbline-conformance.lint" name="plumbline-delete-204: DELETE documents 204 No Content as its success response">\n' +
        '      <skipped message="not applicable: no DELETE operation"/>',
    );
    const sarif = JSON.parse(formatSarif(card)) as { runs: { results: Record<string, unknown>[] }[] };
    expect(sarif.runs[0]?.results[8]).toEqual({
      ruleId: 'plumbline-delete-204',
      ruleIndex: 8,
      kind: 'notApplicable',
      level: 'none',
      message: { text: 'not applicable: no DELETE operation' },
      locations: [{ physicalLocation: { artifactLocation: { uri: 'no-paths.json' } } }],
    });
    expect(formatHtml(card)).toContain(
      '<section class="rule not-applicable" id="plumbline-delete-204"><h3><span class="badge">N/A</span>',
    );
    expect(formatHtml(card)).toContain(
      '<strong>no score (nothing to judge)</strong>: 0 passed, 0 failed, 0 skipped, 15 not applicable. OK',
    );
  });
});
