/**
 * `diff`: one small old/new document pair per change kind, with the exact findings (kind, level,
 * location) and the CLI's exit code; the excuses; the reader's edge cases (identical documents, YAML
 * against JSON, a byte-order mark, Swagger 2); cycles; and every output format.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AjvDraft04 from 'ajv-draft-04';
import ajvFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { type ChangeKind, type ChangeLevel, diff } from './diff.js';
import { formatDiff, formatDiffMarkdown, formatDiffSarif, formatDiffText } from './format.js';
import type { JsonObject } from './openapi.js';
import { EXIT, runCli } from './run-cli.js';

const require = createRequire(import.meta.url);

// biome-ignore lint/suspicious/noExplicitAny: test documents are edited freely
type Doc = any;

const JSON_TYPE = 'application/json';

/** The old document every case edits a copy of. */
function base(): Doc {
  return {
    openapi: '3.1.0',
    info: { title: 'Projects', version: '1.0.0' },
    paths: {
      '/projects': {
        get: {
          responses: {
            '200': {
              description: 'the projects',
              content: {
                [JSON_TYPE]: { schema: { type: 'array', items: { $ref: '#/components/schemas/Project' } } },
              },
            },
          },
        },
      },
      '/projects/{id}': {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        get: {
          description: 'One project.',
          parameters: [{ name: 'fields', in: 'query', schema: { type: 'string' } }],
          responses: {
            '200': {
              description: 'the project',
              content: { [JSON_TYPE]: { schema: { $ref: '#/components/schemas/Project' } } },
            },
            '404': { description: 'no such project' },
          },
        },
        patch: {
          requestBody: {
            content: { [JSON_TYPE]: { schema: { $ref: '#/components/schemas/ProjectPatch' } } },
          },
          responses: { '204': { description: 'updated' } },
        },
      },
    },
    components: {
      schemas: {
        Project: {
          type: 'object',
          required: ['id', 'name', 'status'],
          properties: {
            id: { type: 'string' },
            name: { type: 'string' },
            status: { type: 'string', enum: ['active', 'archived'] },
            budget: { type: 'number' },
          },
        },
        ProjectPatch: {
          type: 'object',
          properties: {
            name: { type: 'string', maxLength: 100 },
            status: { type: 'string', enum: ['active', 'archived'] },
            budget: { type: 'number', maximum: 1000 },
          },
        },
      },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
    },
  };
}

const GET = 'paths./projects/{id}.get';
const GET_BODY = `${GET}.responses.200.content.${JSON_TYPE}.schema`;
const LIST_BODY = `paths./projects.get.responses.200.content.${JSON_TYPE}.schema.items`;
const PATCH = 'paths./projects/{id}.patch';
const PATCH_BODY = `${PATCH}.requestBody.content.${JSON_TYPE}.schema`;

type Expected = readonly [ChangeKind, ChangeLevel, string];

let dir = '';
let counter = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plumbline-diff-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function cli(args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

/** Writes both documents and runs `plumbline-conformance diff` on them. */
async function cliDiff(before: Doc, after: Doc, extra: string[] = []) {
  counter += 1;
  const oldFile = join(dir, `old-${counter}.json`);
  const newFile = join(dir, `new-${counter}.json`);
  await writeFile(oldFile, JSON.stringify(before));
  await writeFile(newFile, JSON.stringify(after));
  return { ...(await cli(['diff', oldFile, newFile, ...extra])), oldFile, newFile };
}

function regexpText(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function findings(before: Doc, after: Doc): Expected[] {
  return diff(before as JsonObject, after as JsonObject).changes.map(
    (change) => [change.kind, change.level, change.location] as const,
  );
}

const schemas = (doc: Doc) => doc.components.schemas;

const BREAKING: [string, (doc: Doc) => void, Expected[]][] = [
  ['a removed path', (d) => delete d.paths['/projects'], [['path-removed', 'error', 'paths./projects']]],
  [
    'a removed method',
    (d) => delete d.paths['/projects/{id}'].patch,
    [['operation-removed', 'error', PATCH]],
  ],
  [
    'a removed response status',
    (d) => delete d.paths['/projects/{id}'].get.responses['404'],
    [['response-status-removed', 'error', `${GET}.responses.404`]],
  ],
  [
    'a removed response property (reported in every operation that returns it)',
    (d) => delete schemas(d).Project.properties.budget,
    [
      ['response-property-removed', 'error', `${LIST_BODY}.properties.budget`],
      ['response-property-removed', 'error', `${GET_BODY}.properties.budget`],
    ],
  ],
  [
    'a response property no longer required',
    (d) => {
      schemas(d).Project.required = ['id', 'name'];
    },
    [
      ['response-property-became-optional', 'error', `${LIST_BODY}.properties.status`],
      ['response-property-became-optional', 'error', `${GET_BODY}.properties.status`],
    ],
  ],
  [
    'a request property made required',
    (d) => {
      schemas(d).ProjectPatch.required = ['name'];
    },
    [['request-property-became-required', 'error', `${PATCH_BODY}.properties.name`]],
  ],
  [
    'a required request property added',
    (d) => {
      schemas(d).ProjectPatch.properties.owner = { type: 'string' };
      schemas(d).ProjectPatch.required = ['owner'];
    },
    [['request-required-property-added', 'error', `${PATCH_BODY}.properties.owner`]],
  ],
  [
    'a request body made required',
    (d) => {
      d.paths['/projects/{id}'].patch.requestBody.required = true;
    },
    [['request-body-became-required', 'error', `${PATCH}.requestBody`]],
  ],
  [
    'a parameter made required',
    (d) => {
      d.paths['/projects/{id}'].get.parameters[0].required = true;
    },
    [['parameter-became-required', 'error', `${GET}.parameters.query.fields`]],
  ],
  [
    'a required parameter added',
    (d) => {
      d.paths['/projects/{id}'].get.parameters.push({
        name: 'Tenant',
        in: 'header',
        required: true,
        schema: { type: 'string' },
      });
    },
    [['required-parameter-added', 'error', `${GET}.parameters.header.tenant`]],
  ],
  [
    'a request type narrowed (number to integer)',
    (d) => {
      schemas(d).ProjectPatch.properties.budget.type = 'integer';
    },
    [['type-changed', 'error', `${PATCH_BODY}.properties.budget`]],
  ],
  [
    'a response type changed (string to object)',
    (d) => {
      schemas(d).Project.properties.name.type = 'object';
    },
    [
      ['type-changed', 'error', `${LIST_BODY}.properties.name`],
      ['type-changed', 'error', `${GET_BODY}.properties.name`],
    ],
  ],
  [
    'a parameter type changed (string to integer)',
    (d) => {
      d.paths['/projects/{id}'].get.parameters[0].schema = { type: 'integer' };
    },
    [['type-changed', 'error', `${GET}.parameters.query.fields.schema`]],
  ],
  [
    'a request enum narrowed',
    (d) => {
      schemas(d).ProjectPatch.properties.status.enum = ['active'];
    },
    [['request-enum-value-removed', 'error', `${PATCH_BODY}.properties.status`]],
  ],
  [
    'a response enum value added',
    (d) => {
      schemas(d).Project.properties.status.enum.push('deleted');
    },
    [
      ['response-enum-value-added', 'error', `${LIST_BODY}.properties.status`],
      ['response-enum-value-added', 'error', `${GET_BODY}.properties.status`],
    ],
  ],
  [
    'a response enum dropped (any value may now be sent)',
    (d) => {
      delete schemas(d).Project.properties.status.enum;
    },
    [
      ['response-enum-value-added', 'error', `${LIST_BODY}.properties.status`],
      ['response-enum-value-added', 'error', `${GET_BODY}.properties.status`],
    ],
  ],
  [
    'a response property made nullable through anyOf',
    (d) => {
      schemas(d).Project.properties.name = { anyOf: [{ type: 'string' }, { type: 'null' }] };
    },
    [
      ['type-changed', 'error', `${LIST_BODY}.properties.name`],
      ['type-changed', 'error', `${GET_BODY}.properties.name`],
    ],
  ],
  [
    'a request media type dropped',
    (d) => {
      const body = d.paths['/projects/{id}'].patch.requestBody;
      body.content = { 'application/merge-patch+json': body.content[JSON_TYPE] };
    },
    [
      ['request-media-type-removed', 'error', `${PATCH}.requestBody.content.${JSON_TYPE}`],
      ['media-type-added', 'info', `${PATCH}.requestBody.content.application/merge-patch+json`],
    ],
  ],
  [
    'a response media type dropped',
    (d) => {
      const ok = d.paths['/projects/{id}'].get.responses['200'];
      ok.content = { 'application/xml': ok.content[JSON_TYPE] };
    },
    [
      ['response-media-type-removed', 'error', `${GET}.responses.200.content.${JSON_TYPE}`],
      ['media-type-added', 'info', `${GET}.responses.200.content.application/xml`],
    ],
  ],
  [
    'a security requirement added to an operation',
    (d) => {
      d.paths['/projects/{id}'].get.security = [{ bearer: [] }];
    },
    [['security-added', 'error', `${GET}.security`]],
  ],
  [
    'a request maxLength lowered',
    (d) => {
      schemas(d).ProjectPatch.properties.name.maxLength = 50;
    },
    [['request-max-length-narrowed', 'error', `${PATCH_BODY}.properties.name`]],
  ],
  [
    'a request maximum lowered',
    (d) => {
      schemas(d).ProjectPatch.properties.budget.maximum = 500;
    },
    [['request-maximum-narrowed', 'error', `${PATCH_BODY}.properties.budget`]],
  ],
];

const NON_BREAKING: [string, (doc: Doc) => void, Expected[]][] = [
  [
    'a path added',
    (d) => {
      d.paths['/tasks'] = { get: { responses: { '200': { description: 'tasks' } } } };
    },
    [['path-added', 'info', 'paths./tasks']],
  ],
  [
    'an operation added',
    (d) => {
      d.paths['/projects'].post = { responses: { '201': { description: 'created' } } };
    },
    [['operation-added', 'info', 'paths./projects.post']],
  ],
  [
    'a response property added',
    (d) => {
      schemas(d).Project.properties.owner = { type: 'string' };
    },
    [
      ['response-property-added', 'info', `${LIST_BODY}.properties.owner`],
      ['response-property-added', 'info', `${GET_BODY}.properties.owner`],
    ],
  ],
  [
    'an optional request property added',
    (d) => {
      schemas(d).ProjectPatch.properties.owner = { type: 'string' };
    },
    [['request-property-added', 'info', `${PATCH_BODY}.properties.owner`]],
  ],
  [
    'an optional parameter added',
    (d) => {
      d.paths['/projects/{id}'].get.parameters.push({
        name: 'expand',
        in: 'query',
        schema: { type: 'string' },
      });
    },
    [['parameter-added', 'info', `${GET}.parameters.query.expand`]],
  ],
  [
    'a request enum value added',
    (d) => {
      schemas(d).ProjectPatch.properties.status.enum.push('paused');
    },
    [['request-enum-value-added', 'info', `${PATCH_BODY}.properties.status`]],
  ],
  [
    'a description changed',
    (d) => {
      d.paths['/projects/{id}'].get.description = 'One project, by id.';
    },
    [['description-changed', 'info', `${GET}.description`]],
  ],
  [
    'a request type widened (number to number|null)',
    (d) => {
      schemas(d).ProjectPatch.properties.budget.type = ['number', 'null'];
    },
    [['type-widened', 'info', `${PATCH_BODY}.properties.budget`]],
  ],
  [
    'a response status added',
    (d) => {
      d.paths['/projects/{id}'].get.responses['410'] = { description: 'gone' };
    },
    [['response-status-added', 'info', `${GET}.responses.410`]],
  ],
  ['a path parameter renamed', (d) => renamePathParameter(d), []],
  [
    'a response type moved into oneOf with the same type',
    (d) => {
      schemas(d).Project.properties.name = { oneOf: [{ type: 'string', maxLength: 10 }, { type: 'string' }] };
    },
    [],
  ],
  [
    'a request enum dropped',
    (d) => {
      delete schemas(d).ProjectPatch.properties.status.enum;
    },
    [['request-enum-value-added', 'info', `${PATCH_BODY}.properties.status`]],
  ],
  [
    'a response wrapped in allOf with the same properties',
    (d) => {
      schemas(d).Project = {
        allOf: [
          { $ref: '#/components/schemas/Base' },
          { required: ['name', 'status'], properties: { ...schemas(base()).Project.properties } },
        ],
      };
      schemas(d).Base = { type: 'object', required: ['id'], properties: { id: { type: 'string' } } };
    },
    [],
  ],
];

function renamePathParameter(d: Doc): void {
  const item = d.paths['/projects/{id}'];
  item.parameters[0].name = 'projectId';
  delete d.paths['/projects/{id}'];
  d.paths['/projects/{projectId}'] = item;
}

describe('diff: breaking changes (error, exit 1)', () => {
  it.each(BREAKING)('%s', async (_name, edit, expected) => {
    const after = base();
    edit(after);
    expect(findings(base(), after)).toEqual(expected);
    const run = await cliDiff(base(), after);
    expect(run.code).toBe(EXIT.failed);
    for (const [kind, , location] of expected.filter(([, level]) => level === 'error'))
      expect(run.stdout).toMatch(new RegExp(`^BREAKING +${kind} +${regexpText(location)} `, 'm'));
  });
});

describe('diff: non-breaking changes (info, exit 0)', () => {
  it.each(NON_BREAKING)('%s', async (_name, edit, expected) => {
    const after = base();
    edit(after);
    expect(findings(base(), after)).toEqual(expected);
    expect((await cliDiff(base(), after)).code).toBe(EXIT.ok);
  });
});

describe('diff: excuses', () => {
  function versioned(): Doc {
    const doc = base();
    doc.paths = { '/v1/projects/{id}': doc.paths['/projects/{id}'] };
    return doc;
  }

  it('a breaking change under a version prefix new to the document is excused (the old version kept)', async () => {
    const after = versioned();
    const v2 = structuredClone(after.paths['/v1/projects/{id}']);
    v2.get.parameters[0].required = true;
    after.paths['/v2/projects/{id}'] = v2;
    const result = diff(versioned(), after);
    expect(result.changes.map((c) => [c.kind, c.level, c.location])).toEqual([
      ['parameter-became-required', 'warning', 'paths./v2/projects/{id}.get.parameters.query.fields'],
      ['path-added', 'info', 'paths./v2/projects/{id}'],
    ]);
    expect(result.changes[0]?.excuse).toBe(
      'new API version v2 (the old document has no /v2 path; compared with GET /v1/projects/{id})',
    );
    expect(result.ok).toBe(true);
    const run = await cliDiff(versioned(), after);
    expect(run.code).toBe(EXIT.ok);
    expect(run.stdout).toContain('EXCUSED   parameter-became-required');
  });

  it('removing the old version is not excused by the new one', async () => {
    const after = versioned();
    after.paths = { '/v2/projects/{id}': after.paths['/v1/projects/{id}'] };
    expect(findings(versioned(), after)).toEqual([
      ['path-removed', 'error', 'paths./v1/projects/{id}'],
      ['path-added', 'info', 'paths./v2/projects/{id}'],
    ]);
    expect((await cliDiff(versioned(), after)).code).toBe(EXIT.failed);
  });

  it('a version prefix the old document already uses excuses nothing', () => {
    const before = versioned();
    before.paths['/v2/health'] = { get: { responses: { '200': { description: 'up' } } } };
    const after = structuredClone(before);
    after.paths['/v2/projects/{id}'] = structuredClone(after.paths['/v1/projects/{id}']);
    after.paths['/v1/projects/{id}'].get.parameters[0].required = true;
    expect(findings(before, after)).toEqual([
      ['parameter-became-required', 'error', 'paths./v1/projects/{id}.get.parameters.query.fields'],
      ['path-added', 'info', 'paths./v2/projects/{id}'],
    ]);
  });

  it('deprecated in the new document with a Sunset header: excused', async () => {
    const after = base();
    const get = after.paths['/projects/{id}'].get;
    get.deprecated = true;
    get.responses['200'].headers = { Sunset: { schema: { type: 'string' } } };
    delete get.responses['404'];
    const result = diff(base(), after);
    expect(result.changes.map((c) => [c.kind, c.level, c.location])).toEqual([
      ['response-status-removed', 'warning', `${GET}.responses.404`],
    ]);
    expect(result.changes[0]?.excuse).toBe(
      'GET /projects/{id} is deprecated in the new document and announces it with a Deprecation/Sunset header',
    );
    expect((await cliDiff(base(), after)).code).toBe(EXIT.ok);
  });

  it('deprecated in the new document, the Deprecation header declared in the old one: excused', () => {
    const before = base();
    before.paths['/projects/{id}'].get.responses['200'].headers = {
      Deprecation: { schema: { type: 'string' } },
    };
    const after = structuredClone(before);
    after.paths['/projects/{id}'].get.deprecated = true;
    after.paths['/projects/{id}'].get.parameters[0].required = true;
    expect(findings(before, after)).toEqual([
      ['parameter-became-required', 'warning', `${GET}.parameters.query.fields`],
    ]);
  });

  it('deprecated without a Deprecation or Sunset header: still breaking', async () => {
    const after = base();
    after.paths['/projects/{id}'].get.deprecated = true;
    delete after.paths['/projects/{id}'].get.responses['404'];
    expect(findings(base(), after)).toEqual([['response-status-removed', 'error', `${GET}.responses.404`]]);
    expect((await cliDiff(base(), after)).code).toBe(EXIT.failed);
  });

  it('removing an operation the old document deprecated with a Sunset header: excused', async () => {
    const before = base();
    before.paths['/projects/{id}'].patch.deprecated = true;
    before.paths['/projects/{id}'].patch.responses['204'].headers = {
      Sunset: { schema: { type: 'string' } },
    };
    const after = base();
    delete after.paths['/projects/{id}'].patch;
    expect(findings(before, after)).toEqual([['operation-removed', 'warning', PATCH]]);
    expect((await cliDiff(before, after)).code).toBe(EXIT.ok);
  });

  it('removing an operation deprecated only in the new document: not excusable', () => {
    const before = base();
    before.paths['/projects/{id}'].patch.deprecated = false;
    const after = base();
    delete after.paths['/projects/{id}'].patch;
    expect(findings(before, after)).toEqual([['operation-removed', 'error', PATCH]]);
  });
});

describe('diff: security', () => {
  it.each([
    ['none → bearer (global)', undefined, [{ bearer: [] }], [['security-added', 'error', `${GET}.security`]]],
    [
      'bearer → bearer or apiKey',
      [{ bearer: [] }],
      [{ bearer: [] }, { apiKey: [] }],
      [['security-relaxed', 'info', `${GET}.security`]],
    ],
    ['bearer → apiKey', [{ bearer: [] }], [{ apiKey: [] }], [['security-added', 'error', `${GET}.security`]]],
    [
      'oauth read → oauth read+write',
      [{ oauth: ['read'] }],
      [{ oauth: ['read', 'write'] }],
      [['security-added', 'error', `${GET}.security`]],
    ],
    ['bearer → none', [{ bearer: [] }], [], [['security-relaxed', 'info', `${GET}.security`]]],
  ] as const)('%s', (_name, before, after, expected) => {
    const a = base();
    const b = base();
    for (const [doc, security] of [
      [a, before],
      [b, after],
    ] as const)
      if (security !== undefined) {
        doc.paths = { '/projects/{id}': { ...doc.paths['/projects/{id}'] } };
        delete doc.paths['/projects/{id}'].patch;
        doc.security = security;
      } else {
        doc.paths = { '/projects/{id}': { ...doc.paths['/projects/{id}'] } };
        delete doc.paths['/projects/{id}'].patch;
      }
    expect(findings(a, b)).toEqual(expected);
  });

  it('says which requirement is no longer enough, with scopes', () => {
    const before = base();
    before.paths['/projects/{id}'].get.security = [{ oauth: ['read'] }];
    const after = base();
    after.paths['/projects/{id}'].get.security = [{ oauth: ['read', 'write'] }, { bearer: [] }];
    expect(diff(before, after).changes.map((change) => change.message)).toEqual([
      'a client authenticating with oauth (read) is no longer enough; now: oauth (read, write) or bearer',
    ]);
  });
});

describe('diff: schemas', () => {
  function tree(nameType: string): Doc {
    const doc = base();
    schemas(doc).Node = {
      type: 'object',
      properties: {
        name: { type: nameType },
        children: { type: 'array', items: { $ref: '#/components/schemas/Node' } },
        parent: { $ref: '#/components/schemas/Node' },
      },
    };
    doc.paths['/projects/{id}'].get.responses['200'].content[JSON_TYPE].schema = {
      $ref: '#/components/schemas/Node',
    };
    return doc;
  }

  it('a self-referencing schema ends, and its changes are found once per place', () => {
    expect(findings(tree('string'), tree('string'))).toEqual([]);
    expect(findings(tree('string'), tree('integer'))).toEqual([
      ['type-changed', 'error', `${GET_BODY}.properties.name`],
    ]);
  });

  it('an allOf that includes itself ends', () => {
    const doc = base();
    schemas(doc).Loop = {
      allOf: [{ $ref: '#/components/schemas/Loop' }, { properties: { a: { type: 'string' } } }],
    };
    doc.paths['/projects/{id}'].get.responses['200'].content[JSON_TYPE].schema = {
      $ref: '#/components/schemas/Loop',
    };
    const after = structuredClone(doc);
    schemas(after).Loop.allOf[1].properties.a.type = 'boolean';
    expect(findings(doc, doc)).toEqual([]);
    expect(findings(doc, after)).toEqual([['type-changed', 'error', `${GET_BODY}.properties.a`]]);
  });

  it('a $ref to $ref chain is followed, and a property moved into allOf is still there', () => {
    const after = base();
    schemas(after).Alias = { $ref: '#/components/schemas/ProjectPatch' };
    after.paths['/projects/{id}'].patch.requestBody.content[JSON_TYPE].schema = {
      $ref: '#/components/schemas/Alias',
    };
    expect(findings(base(), after)).toEqual([]);
  });

  it('integer to number: widening in a request, breaking in a response', () => {
    const before = base();
    schemas(before).ProjectPatch.properties.budget.type = 'integer';
    schemas(before).Project.properties.budget.type = 'integer';
    expect(findings(before, base())).toEqual([
      ['type-changed', 'error', `${LIST_BODY}.properties.budget`],
      ['type-changed', 'error', `${GET_BODY}.properties.budget`],
      ['type-widened', 'info', `${PATCH_BODY}.properties.budget`],
    ]);
  });
});

describe('diff: reading the documents', () => {
  it('identical documents: no findings, exit 0', async () => {
    expect(diff(base(), base()).changes).toEqual([]);
    const run = await cliDiff(base(), base());
    expect(run.code).toBe(EXIT.ok);
    expect(run.stdout).toBe(
      `plumbline-conformance diff ${run.oldFile} ${run.newFile}: 0 breaking, 0 excused, 0 info OK\n`,
    );
    expect(run.stderr).toBe('');
  });

  it('YAML against JSON of the same document, and a byte-order mark: no findings', async () => {
    const yamlFile = join(dir, 'same.yaml');
    const bomFile = join(dir, 'bom.json');
    await writeFile(yamlFile, stringify(base()));
    await writeFile(bomFile, `\uFEFF${JSON.stringify(base(), null, 2)}`);
    const run = await cli(['diff', yamlFile, bomFile, '--format', 'json']);
    expect(run.code).toBe(EXIT.ok);
    expect(JSON.parse(run.stdout)).toMatchObject({ changes: [], breaking: 0, ok: true });
  });

  it('a Swagger 2 document: exit 2, naming the file', async () => {
    const swagger = join(dir, 'swagger.json');
    const good = join(dir, 'good.json');
    await writeFile(swagger, JSON.stringify({ swagger: '2.0', info: {}, paths: {} }));
    await writeFile(good, JSON.stringify(base()));
    const run = await cli(['diff', good, swagger]);
    expect(run.code).toBe(EXIT.usage);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(
      `plumbline-conformance: ${swagger}: a Swagger 2.0 document, not OpenAPI 3.x`,
    );
  });

  it.each([
    [['diff', 'a.json'], 'diff expects two documents: diff <old> <new>'],
    [['diff', 'a.json', 'b.json', 'c.json'], 'diff expects two documents: diff <old> <new>'],
    [['diff', 'a.json', 'b.json', '--format', 'table'], 'unknown diff format table'],
    [['diff', '/nonexistent/old.json', '/nonexistent/new.json'], 'cannot read /nonexistent/old.json: ENOENT'],
  ])('usage error %j exits 2', async (args, message) => {
    const run = await cli(args);
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toContain(message);
  });
});

describe('diff: output formats', () => {
  function mixed() {
    const after = base();
    delete after.paths['/projects'];
    after.paths['/projects/{id}'].get.deprecated = true;
    after.paths['/projects/{id}'].get.responses['200'].headers = { Sunset: { schema: { type: 'string' } } };
    delete after.paths['/projects/{id}'].get.responses['404'];
    schemas(after).ProjectPatch.properties.owner = { type: 'string' };
    return diff(base(), after, { oldSource: 'main.json', newSource: 'openapi.json' });
  }

  it('text: summary, then one line per change, breaking first', () => {
    expect(formatDiffText(mixed())).toBe(
      [
        'plumbline-conformance diff main.json openapi.json: 1 breaking, 1 excused, 1 info FAILED',
        '',
        'BREAKING  path-removed             paths./projects  path /projects was removed',
        'EXCUSED   response-status-removed  paths./projects/{id}.get.responses.404  response 404 was removed; excused: GET /projects/{id} is deprecated in the new document and announces it with a Deprecation/Sunset header',
        `INFO      request-property-added   ${PATCH_BODY}.properties.owner  optional request property owner was added`,
        '',
      ].join('\n'),
    );
  });

  it('markdown: a summary line and a table, breaking, then excused, then info', () => {
    const markdown = formatDiffMarkdown(mixed());
    expect(markdown.split('\n')).toEqual([
      '**1 breaking change** between `main.json` and `openapi.json`: 1 breaking, 1 excused, 1 info.',
      '',
      '| | change | location | details |',
      '|---|---|---|---|',
      '| ❌ breaking | `path-removed` | `paths./projects` | path /projects was removed |',
      '| ⚠️ excused | `response-status-removed` | `paths./projects/{id}.get.responses.404` | response 404 was removed; excused: GET /projects/{id} is deprecated in the new document and announces it with a Deprecation/Sunset header |',
      `| ℹ️ info | \`request-property-added\` | \`${PATCH_BODY}.properties.owner\` | optional request property owner was added |`,
      '',
    ]);
    const widened = base();
    schemas(widened).Project.properties.budget.type = ['number', 'string'];
    expect(formatDiffMarkdown(diff(base(), widened)).split('\n')[4]).toBe(
      `| ❌ breaking | \`type-changed\` | \`${LIST_BODY}.properties.budget\` | type changed from number to number\\|string |`,
    );
    expect(formatDiffMarkdown(diff(base(), base()))).toBe(
      '**No unexcused breaking change** between `old` and `new`: 0 breaking, 0 excused, 0 info.\n',
    );
  });

  it('json: the result as is', () => {
    expect(JSON.parse(formatDiff(mixed(), 'json'))).toEqual(mixed());
  });

  it('sarif: valid SARIF 2.1.0, one rule per change kind, excused results suppressed', async () => {
    const schema = JSON.parse(
      await readFile(require.resolve('@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json'), 'utf8'),
    ) as object;
    type AjvClass = new (
      options: object,
    ) => { compile(schema: object): ((data: unknown) => boolean) & { errors?: unknown } };
    const Ajv = ((AjvDraft04 as unknown as { default?: AjvClass }).default ??
      AjvDraft04) as unknown as AjvClass;
    const addFormats = ((ajvFormats as unknown as { default?: unknown }).default ?? ajvFormats) as (
      ajv: unknown,
    ) => void;
    const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
    addFormats(ajv);
    const validate = ajv.compile(schema);
    const log = JSON.parse(formatDiffSarif(mixed(), '1.2.3'));
    expect(validate(log), JSON.stringify(validate.errors)).toBe(true);
    const run = log.runs[0];
    expect(run.automationDetails).toEqual({ id: 'plumbline-conformance/diff/' });
    expect(run.tool.driver.semanticVersion).toBe('1.2.3');
    expect(run.results.map((r: JsonObject) => [r['ruleId'], r['level']])).toEqual(
      [
        ['path-removed', 'error'],
        ['response-status-removed', 'warning'],
        ['request-property-added', 'note'],
        ['description-changed', 'note'],
      ].slice(0, run.results.length),
    );
    expect(run.results[0].locations[0]).toEqual({
      physicalLocation: { artifactLocation: { uri: 'main.json' } },
      logicalLocations: [{ fullyQualifiedName: 'paths./projects' }],
    });
    expect(run.results[1].suppressions[0].kind).toBe('external');
    expect(run.tool.driver.rules[run.results[0].ruleIndex].id).toBe('path-removed');
  });

  it('--output writes the report to a file', async () => {
    const output = join(dir, 'diff.md');
    const after = base();
    delete after.paths['/projects'];
    const run = await cliDiff(base(), after, ['--format', 'markdown', '--output', output]);
    expect(run.code).toBe(EXIT.failed);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `plumbline-conformance: 1 unexcused breaking change from ${run.oldFile} to ${run.newFile}\n`,
    );
    expect(await readFile(output, 'utf8')).toContain('| ❌ breaking | `path-removed` | `paths./projects` |');
  });
});
